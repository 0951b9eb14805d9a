"""Tournament actions that cannot be done: a clear 4xx refusal and nothing changed; two entrants
racing for the last place: exactly one gets it (real concurrent transactions)."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from flask import Flask
from sqlmodel import Session, func, select

from service.db import session_scope
from service.models import Player
from service.tournaments import lifecycle
from service.tournaments.models import Entrant, Entry, Tournament, TournamentKind
from service.tournaments.settings import TournamentRefusal
from tests.service.tournament_helpers import (
    START,
    links,
    make,
    open_games,
    players,
    resign,
    settings,
    start,
)


def _count(app: Flask, table: type[Tournament] | type[Entrant]) -> int:
    with app.app_context(), session_scope() as session:
        return session.exec(select(func.count()).select_from(table)).one()


def _refused(app: Flask, act: Callable[[Session], object]) -> int:
    """The refusal's status; the transaction rolled back."""
    with pytest.raises(TournamentRefusal) as refused, app.app_context(), session_scope() as s:
        act(s)
    return refused.value.status


def _player(session: Session, player_id: int) -> Player:
    found = session.get(Player, player_id)
    assert found is not None
    return found


@pytest.mark.parametrize(
    "changes",
    [
        {"name": " "},
        {"max_players": 13},
        {"max_players": 2},
        {"days_per_move": 15},
        {"round_days": 0},
        {"ruleset": "battleline-3p"},
        {"kind": TournamentKind.LADDER, "rounds": 2},
        {"kind": TournamentKind.LADDER, "rounds": 0, "max_players": 257},
        {"kind": TournamentKind.SWISS, "rounds": 40},
        {"entry": Entry.RATING, "rating_min": 1600, "rating_max": 1400},
        {"entry": Entry.INVITED},
    ],
)
def test_unusable_settings_are_refused_and_nothing_is_stored(
    app: Flask, changes: dict[str, object]
) -> None:
    (organiser,) = players(app, 1)
    changes = dict(changes)  # the parameter is shared by both databases' runs
    kind = changes.pop("kind", TournamentKind.ROUND_ROBIN)
    assert isinstance(kind, TournamentKind)
    chosen = settings(kind, **changes)
    assert _refused(app, lambda s: lifecycle.create(s, _player(s, organiser), chosen)) == 400
    assert _count(app, Tournament) == 0


def test_entries_refused_with_nothing_changed(app: Flask) -> None:
    ids = players(app, 5)
    tid = make(app, ids[:3], ids[0], max_players=3)
    assert _refused(app, lambda s: lifecycle.enter(s, tid, _player(s, ids[1]))) == 409  # again
    assert _refused(app, lambda s: lifecycle.enter(s, tid, _player(s, ids[3]))) == 409  # full
    assert _refused(app, lambda s: lifecycle.enter(s, 999, _player(s, ids[3]))) == 404
    assert _refused(app, lambda s: lifecycle.leave(s, tid, ids[4])) == 404  # not entered
    assert _refused(app, lambda s: lifecycle.start(s, tid, _player(s, ids[1]))) == 403
    assert _count(app, Entrant) == 3
    start(app, tid)
    assert _refused(app, lambda s: lifecycle.start(s, tid)) == 409
    assert _refused(app, lambda s: lifecycle.leave(s, tid, ids[1])) == 409
    assert _refused(app, lambda s: lifecycle.end(s, tid, _player(s, ids[1]))) == 403
    with app.app_context(), session_scope() as session:
        lifecycle.withdraw(session, tid, ids[2], START)
    assert _refused(app, lambda s: lifecycle.withdraw(s, tid, ids[2], START)) == 409
    assert _count(app, Entrant) == 3


def test_entry_rules_and_signing_in(app: Flask) -> None:
    ids = players(app, 3)
    invited = make(app, [], ids[0], entry=Entry.INVITED, invited=("P0@example.org",))
    assert _refused(app, lambda s: lifecycle.enter(s, invited, _player(s, ids[1]))) == 403
    ranged = make(app, [], ids[0], entry=Entry.RATING, rating_min=1600, rating_max=2000)
    assert _refused(app, lambda s: lifecycle.enter(s, ranged, _player(s, ids[1]))) == 403
    with app.app_context(), session_scope() as session:
        player = _player(session, ids[2])
        player.name_confirmed = False
        session.add(player)
    opened = make(app, [], ids[0])
    assert _refused(app, lambda s: lifecycle.enter(s, opened, _player(s, ids[2]))) == 403
    make(app, [ids[0]], ids[0], entry=Entry.INVITED, invited=("P0@example.org",))
    assert _count(app, Entrant) == 1


def test_too_few_players_cannot_start(app: Flask) -> None:
    ids = players(app, 3)
    tid = make(app, ids[:2], ids[0])
    assert _refused(app, lambda s: lifecycle.start(s, tid)) == 409
    assert links(app, tid) == []


def test_two_entrants_racing_for_the_last_place_one_gets_it(app: Flask) -> None:
    ids = players(app, 4)
    tid = make(app, ids[:2], ids[0], max_players=3)
    barrier = threading.Barrier(2)
    outcomes: list[str] = []
    errors: list[BaseException] = []

    def run(player_id: int) -> None:
        try:
            barrier.wait(timeout=30)
            with app.app_context():
                try:
                    with session_scope() as session:
                        lifecycle.enter(session, tid, _player(session, player_id))
                    outcomes.append("in")
                except TournamentRefusal as refusal:
                    outcomes.append(str(refusal.status))
        except BaseException as error:  # reported in the test's thread
            errors.append(error)

    threads = [threading.Thread(target=run, args=(p,)) for p in ids[2:]]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    assert sorted(outcomes) == ["409", "in"]
    assert _count(app, Entrant) == 3


def test_the_last_two_games_of_a_round_ending_at_once_deal_the_next_round_once(
    app: Flask,
) -> None:
    ids = players(app, 4)
    tid = make(app, ids, ids[0], kind=TournamentKind.SWISS, rounds=2)
    start(app, tid)
    games = open_games(app, tid)
    assert len(games) == 2
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def run(game_id: int) -> None:
        try:
            barrier.wait(timeout=30)
            resign(app, game_id, "B")
        except BaseException as error:  # reported in the test's thread
            errors.append(error)

    threads = [threading.Thread(target=run, args=(g,)) for g in games]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    second = [r for r in links(app, tid) if r.round == 2]
    assert len(second) == 2 and len(open_games(app, tid)) == 2
