"""Whatever the games' results, order of ending and withdrawals, a Swiss tournament stored by
the service never pairs two players twice, gives nobody a second bye while another has none,
ends after its rounds, and shows the standings a recomputation from the games gives; a ladder
stores the rungs the core gives (hypothesis, on SQLite and PostgreSQL)."""

from __future__ import annotations

import itertools
from collections import Counter
from datetime import timedelta

from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlmodel import Session, select

import tournaments
from service.db import session_scope
from service.models import Player
from service.tournaments import ladder, lifecycle
from service.tournaments.models import Entrant, TournamentKind, TournamentStatus
from tests.service.tournament_helpers import (
    START,
    links,
    make,
    open_games,
    players,
    recomputed,
    resign,
    start,
    stored_standings,
    tournament,
)
from tournaments import Outcome

RUN = itertools.count()


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    count=st.integers(min_value=5, max_value=8),
    losers=st.lists(st.sampled_from("AB"), min_size=40, max_size=40),
    leaver=st.one_of(st.none(), st.integers(min_value=0, max_value=7)),
)
def test_a_swiss_keeps_its_invariants(
    app: Flask, count: int, losers: list[str], leaver: int | None
) -> None:
    ids = players(app, count, prefix=f"h{next(RUN)}x")
    tid = make(app, ids, ids[0], kind=TournamentKind.SWISS, rounds=count // 2)
    start(app, tid)
    moves = iter(losers)
    played = 0
    while tournament(app, tid).status != TournamentStatus.FINISHED:
        games = open_games(app, tid)
        assert games, "a tournament playing with nothing to play"
        # The games end newest first: the order must not matter.
        resign(app, games[-1], next(moves, "B"))
        played += 1
        if leaver is not None and played == 2 and leaver < count:
            with app.app_context(), session_scope() as session:
                lifecycle.withdraw(session, tid, ids[leaver], START)
    rows = links(app, tid)
    pairs = [frozenset((r.first_id, r.second_id)) for r in rows if r.second_id is not None]
    assert len(pairs) == len(set(pairs))
    byes = Counter(r.first_id for r in rows if r.second_id is None)
    assert all(n == 1 for n in byes.values())
    assert max(r.round for r in rows) <= count // 2
    assert stored_standings(app, tid) == recomputed(app, tid)


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    count=st.integers(min_value=3, max_value=6),
    steps=st.lists(
        st.tuples(st.integers(0, 9), st.integers(1, 3), st.sampled_from(["A", "B", "leave"])),
        min_size=1,
        max_size=8,
    ),
)
def test_a_ladder_stores_the_rungs_the_core_gives(
    app: Flask, count: int, steps: list[tuple[int, int, str]]
) -> None:
    """Challenges won by either seat, and withdrawals, in any order: the stored rungs are always
    the core's ladder after the same steps, numbered 1 to n."""
    ids = players(app, count, prefix=f"l{next(RUN)}x")
    tid = make(app, ids, ids[0], kind=TournamentKind.LADDER, rounds=0)
    start(app, tid)
    model = tournaments.Ladder(tuple(ids))
    for number, (index, reach, what) in enumerate(steps):
        if len(model.rungs) < 2:
            break
        player = model.rungs[index % len(model.rungs)]
        if what == "leave":
            with app.app_context(), session_scope() as session:
                lifecycle.withdraw(session, tid, player, START)
            model = tournaments.leave(model, player)
        else:
            place = model.rung(player)
            if place == 1:
                continue
            defender = model.rungs[max(0, place - 1 - reach)]
            # A week apart: the re-challenge rule never holds a step back.
            at = START + timedelta(days=7 * (number + 1))
            with app.app_context(), session_scope() as session:
                challenger_row = session.get(Player, player)
                assert challenger_row is not None
                entry = entrant_of(session, tid, defender)
                link = ladder.challenge(session, tid, challenger_row, entry, at)
                assert link.game_id is not None
                game_id = link.game_id
            resign(app, game_id, what)
            outcome = Outcome.SECOND_WINS if what == "A" else Outcome.FIRST_WINS
            result = tournaments.GameResult(1, player, defender, outcome, 0, 0)
            model = tournaments.after_game(
                model, tournaments.Challenge(player, defender, 0), result
            )
        assert stored_ladder(app, tid) == list(model.rungs)


def entrant_of(session: Session, tid: int, player_id: int) -> int:
    found = session.exec(
        select(Entrant.id).where(Entrant.tournament_id == tid, Entrant.player_id == player_id)
    ).one()
    assert found is not None
    return found


def stored_ladder(app: Flask, tid: int) -> list[int]:
    """Players top rung first; the rungs numbered 1 to n."""
    with app.app_context(), session_scope() as session:
        rows = session.exec(select(Entrant).where(Entrant.tournament_id == tid)).all()
        placed = sorted((e.rung, e.player_id) for e in rows if e.rung is not None)
    assert [rung for rung, _ in placed] == list(range(1, len(placed) + 1))
    return [player for _, player in placed]
