"""The one after-commit hook (``service.after_commit``): what a transaction noted is handed to
its dispatcher once, after the real commit; never when a savepoint is released (SQLAlchemy 2.1
calls ``after_commit`` for that too, while the transaction and its locks go on), and a savepoint
rolled back keeps the transaction's notes."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from sqlalchemy.exc import IntegrityError

from service.after_commit import note_for_commit, on_commit
from service.db import session_scope
from service.games.players import find_or_add_player

KEY = "tests.after_commit"
calls: list[list[Any]] = []
on_commit(KEY, calls.append)


@pytest.fixture(autouse=True)
def _fresh_calls() -> None:
    calls.clear()


def test_notes_are_dispatched_once_after_the_real_commit_not_a_savepoint(app: Flask) -> None:
    with app.app_context(), session_scope() as session:
        note_for_commit(session, KEY, 1)
        with session.begin_nested():
            find_or_add_player(session, "saved@example.org", "Saved")
        assert calls == []  # the savepoint's release published nothing
        note_for_commit(session, KEY, 2)
    assert calls == [[1, 2]]


def test_a_savepoint_rolled_back_keeps_the_notes(app: Flask) -> None:
    with app.app_context(), session_scope() as session:
        note_for_commit(session, KEY, "kept")
        find_or_add_player(session, "twice@example.org", "Twice")
        session.flush()
        with pytest.raises(IntegrityError), session.begin_nested():
            from service.models import Player

            session.add(Player(email="twice@example.org", display_name="Again"))
            session.flush()
    assert calls == [["kept"]]


def test_a_rollback_forgets_the_notes(app: Flask) -> None:
    with app.app_context(), pytest.raises(RuntimeError), session_scope() as session:
        note_for_commit(session, KEY, "lost")
        raise RuntimeError("the transaction fails")
    with app.app_context(), session_scope():
        pass
    assert calls == []
