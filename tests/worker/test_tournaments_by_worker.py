"""Tournaments played to their end by the real worker (PostgreSQL, Redis, a ``celery worker``
with its beat): computer players of the ``random`` level enter, the section or the first round
is dealt, the worker plays every turn of every game, and each game's end writes its result and,
for the last of a round, deals the next one (the move listener, in the game-ending
transaction). Then: nobody met the same opponent twice, the byes went to different players,
and the standings the pages show equal a recomputation from the games' final positions."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable

from flask import Flask

from service.db import session_scope
from service.games.computer import COMPUTER_DOMAIN
from service.models import Player
from service.tournaments.models import TournamentKind, TournamentStatus
from tests.service.rating_games import signed_in_player
from tests.service.tournament_helpers import (
    links,
    make,
    recomputed,
    start,
    stored_standings,
    tournament,
)
from tests.worker.conftest import WorkerProcess, wait_for

PLAY_TIMEOUT_S = 3600
"""Long enough for any machine: a hang fails, slowness does not."""


def _computers(web: Flask, count: int, prefix: str) -> list[int]:
    """``count`` distinct computer players of the ``random`` level (the worker plays their
    seats; they read no email)."""
    ids = []
    with web.app_context(), session_scope() as session:
        for n in range(count):
            player = Player(
                email=f"{prefix}-{n}@{COMPUTER_DOMAIN}",
                display_name=f"Random {prefix} {n}",
                computer="random",
            )
            session.add(player)
            session.flush()
            assert player.id is not None
            ids.append(player.id)
    return ids


def _play_out(web: Flask, kind: TournamentKind, count: int, **settings: object) -> int:
    organiser = signed_in_player(web, f"organiser-{count}@example.org", f"Organiser {count}")
    entrants = _computers(web, count, f"{kind.value}-{count}")
    tid = make(web, entrants, organiser, kind=kind, max_players=count, **settings)
    began = time.monotonic()
    start(web, tid)
    wait_for(
        lambda: tournament(web, tid).status == TournamentStatus.FINISHED,
        PLAY_TIMEOUT_S,
        f"the {kind.value} tournament of {count} to end",
        step=1,
    )
    print(f"\n{kind.value} of {count}: played in {time.monotonic() - began:.0f} s")
    rows = links(web, tid)
    pairs = [frozenset((r.first_id, r.second_id)) for r in rows if r.second_id is not None]
    assert len(pairs) == len(set(pairs)), "a pair met twice"
    assert all(r.outcome is not None for r in rows)
    assert stored_standings(web, tid) == recomputed(web, tid)
    return tid


def test_a_round_robin_of_twelve_computers_plays_its_66_games_at_once(
    web: Flask, start_worker: Callable[..., WorkerProcess]
) -> None:
    start_worker(beat=True)
    tid = _play_out(web, TournamentKind.ROUND_ROBIN, 12)
    rows = links(web, tid)
    assert len(rows) == 66 and {r.round for r in rows} == set(range(1, 12))
    seats = Counter(r.first_id for r in rows)
    assert set(seats.values()) <= {5, 6}  # each first in half its games


def test_a_swiss_of_sixty_four_computers_plays_seven_rounds(
    web: Flask, start_worker: Callable[..., WorkerProcess]
) -> None:
    start_worker(beat=True)
    tid = _play_out(web, TournamentKind.SWISS, 64, rounds=7)
    rows = links(web, tid)
    assert {r.round for r in rows} == set(range(1, 8))
    assert all(len([r for r in rows if r.round == n]) == 32 for n in range(1, 8))
    assert not [r for r in rows if r.second_id is None]  # an even field: no byes


def test_a_swiss_with_an_odd_field_gives_each_bye_once(
    web: Flask, start_worker: Callable[..., WorkerProcess]
) -> None:
    start_worker(beat=True)
    tid = _play_out(web, TournamentKind.SWISS, 9, rounds=4)
    byes = [r.first_id for r in links(web, tid) if r.second_id is None]
    assert len(byes) == 4 and len(set(byes)) == 4
