"""The deadline scan's query of the games to check returns the due active games only, soonest
first and at most a batch; on SQLite and PostgreSQL. (Its speed at 100,000 games is measured by
``bench/deadlines.py``, never here.)"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

from flask import Flask

from service.db import session_scope
from service.models import Game, GameStatus
from service.turns.scan import due_games_query

NOW = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
SECOND = timedelta(seconds=1)


def add_game(app: Flask, status: GameStatus, next_check_at: datetime | None) -> int:
    """A bare game row with this status and next check (the query reads nothing else)."""
    with app.app_context(), session_scope() as session:
        game = Game(
            public_id=secrets.token_urlsafe(12),
            ruleset="battleline",
            claims="advanced",
            rules_version="test",
            status=status,
            seed="seed",
            seed_commitment="commitment",
            next_check_at=next_check_at,
        )
        session.add(game)
        session.flush()
        assert game.id is not None
        return game.id


def due_ids(app: Flask, limit: int) -> list[int | None]:
    with app.app_context(), session_scope() as session:
        return list(session.exec(due_games_query(NOW, limit)).all())


def test_the_due_games_query_returns_the_due_active_games_only(app: Flask) -> None:
    active = GameStatus.ACTIVE
    at_now = add_game(app, active, NOW)
    long_ago = add_game(app, active, NOW - timedelta(days=3))
    just_before = add_game(app, active, NOW - SECOND)
    add_game(app, active, NOW + SECOND)
    add_game(app, active, NOW + timedelta(days=3))
    add_game(app, active, None)
    # A next check left on a game that is not being played is never due.
    for status in (GameStatus.FINISHED, GameStatus.INVITED, GameStatus.DECLINED):
        add_game(app, status, NOW - timedelta(hours=1))
    assert due_ids(app, 100) == [long_ago, just_before, at_now]


def test_the_due_games_query_takes_the_soonest_up_to_the_limit(app: Flask) -> None:
    due = [add_game(app, GameStatus.ACTIVE, NOW - minutes * 60 * SECOND) for minutes in (5, 9, 1)]
    add_game(app, GameStatus.ACTIVE, NOW + SECOND)
    assert due_ids(app, 2) == [due[1], due[0]]
    assert due_ids(app, 500) == [due[1], due[0], due[2]]
