"""Storage: the game-row lock under concurrency, the append-only log, and timestamps."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import pytest
from flask import Flask
from sqlalchemy.exc import IntegrityError

from service.db import session_scope
from service.games.loaded import load_game_by_public_id
from service.games.move_log import append_move, move_log
from service.games.players import find_or_add_player
from service.games.rows import GameNotFoundError, lock_game
from service.games.snapshots import latest_snapshot, save_snapshot, snapshot_at_or_before
from service.models import GameStatus


def test_lock_game_serialises_writers(app: Flask, new_game: SimpleNamespace) -> None:
    """The second writer waits for the first and then sees its change: no lost update.

    SQLite ignores FOR UPDATE; BEGIN IMMEDIATE must do the job there.
    """
    first_has_lock = threading.Event()
    seen_by_second: list[str] = []
    errors: list[BaseException] = []

    def first() -> None:
        try:
            with app.app_context(), session_scope() as session:
                game = lock_game(session, new_game.id)
                first_has_lock.set()
                time.sleep(0.4)
                game.status = GameStatus.DECLINED
                session.add(game)
        except BaseException as error:  # reported by the main thread
            errors.append(error)
            first_has_lock.set()

    def second() -> None:
        try:
            first_has_lock.wait(5)
            with app.app_context(), session_scope() as session:
                seen_by_second.append(lock_game(session, new_game.id).status)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert errors == []
    assert seen_by_second == ["declined"]
    assert time.monotonic() - started >= 0.35


def test_concurrent_accepts_deal_once(app: Flask, new_game: SimpleNamespace) -> None:
    """Two presses of "accept" at once: one deals, the other is told it was already answered."""
    barrier = threading.Barrier(2)
    statuses: list[int] = []

    def press() -> None:
        client = app.test_client()
        barrier.wait(5)
        statuses.append(client.post(f"/p/{new_game.token['B']}/accept").status_code)

    threads = [threading.Thread(target=press) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    assert sorted(statuses) == [303, 409]
    with app.app_context(), session_scope() as session:
        snapshot = latest_snapshot(session, new_game.id)
        assert snapshot is not None and snapshot.ply == 0


def test_move_log_is_append_only_per_ply(app: Flask, new_game: SimpleNamespace) -> None:
    with app.app_context():
        with session_scope() as session:
            append_move(session, new_game.id, 0, "A", "A: R7>3")
            append_move(session, new_game.id, 1, "A", "A: draw troops")
        with pytest.raises(IntegrityError), session_scope() as session:
            append_move(session, new_game.id, 1, "B", "B: G2>1")
        with session_scope() as session:
            log = move_log(session, new_game.id)
            assert [(m.ply, m.notation) for m in log] == [(0, "A: R7>3"), (1, "A: draw troops")]
            assert all(m.created_at.tzinfo is not None for m in log)


def test_snapshots_latest(app: Flask, new_game: SimpleNamespace) -> None:
    with app.app_context(), session_scope() as session:
        assert latest_snapshot(session, new_game.id) is None
        save_snapshot(session, new_game.id, 0, {"ply": 0})
        save_snapshot(session, new_game.id, 2, {"ply": 2})
        latest = latest_snapshot(session, new_game.id)
        assert latest is not None and latest.state == {"ply": 2}
        # Ply 2 is not the first of its block: ply 3 takes its place, seen in the same session.
        save_snapshot(session, new_game.id, 3, {"ply": 3})
        latest = latest_snapshot(session, new_game.id)
        assert latest is not None and (latest.ply, latest.state) == (3, {"ply": 3})
        kept = snapshot_at_or_before(session, new_game.id, 2)
        assert kept is not None and kept.ply == 0


def test_unknown_game(app: Flask) -> None:
    with app.app_context(), session_scope() as session:
        with pytest.raises(GameNotFoundError):
            lock_game(session, 424242)
        with pytest.raises(GameNotFoundError):
            load_game_by_public_id(session, "nope")


def test_player_keeps_their_name(app: Flask) -> None:
    with app.app_context(), session_scope() as session:
        first = find_or_add_player(session, "carol@example.org", "Carol")
        again = find_or_add_player(session, "carol@example.org", "Somebody else")
        assert again.id == first.id and again.display_name == "Carol"
