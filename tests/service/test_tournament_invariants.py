"""Whatever the games' results, order of ending and withdrawals, a Swiss tournament stored by
the service never pairs two players twice, gives nobody a second bye while another has none,
ends after its rounds, and shows the standings a recomputation from the games gives
(hypothesis, on SQLite and PostgreSQL)."""

from __future__ import annotations

import itertools
from collections import Counter

from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.db import session_scope
from service.tournaments import lifecycle
from service.tournaments.models import TournamentKind, TournamentStatus
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
