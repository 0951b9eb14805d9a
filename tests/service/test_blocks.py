"""Blocking (service.players.blocks): either player's block separates both, only its maker
lifts it, and blocking twice (even at once) keeps one block."""

from __future__ import annotations

import threading

import pytest
from flask import Flask

from service.db import session_scope
from service.games.players import find_or_add_player
from service.players.blocks import block, blocked_between, blocked_by, unblock


def _two_players(app: Flask) -> tuple[int, int]:
    with app.app_context(), session_scope() as session:
        alice = find_or_add_player(session, "alice@example.org", "Alice")
        bob = find_or_add_player(session, "bob@example.org", "Bob")
        session.flush()
        assert alice.id is not None and bob.id is not None
        return alice.id, bob.id


def test_a_block_separates_both_ways_and_only_its_maker_lifts_it(app: Flask) -> None:
    alice, bob = _two_players(app)
    with app.app_context(), session_scope() as session:
        assert not blocked_between(session, alice, bob)
        assert block(session, alice, bob)
    with app.app_context(), session_scope() as session:
        assert blocked_between(session, alice, bob) and blocked_between(session, bob, alice)
        assert blocked_by(session, alice) == [bob] and blocked_by(session, bob) == []
        assert not unblock(session, bob, alice)
    with app.app_context(), session_scope() as session:
        assert blocked_between(session, bob, alice)
        assert unblock(session, alice, bob)
    with app.app_context(), session_scope() as session:
        assert not blocked_between(session, alice, bob)


def test_blocking_oneself_is_refused(app: Flask) -> None:
    alice, _ = _two_players(app)
    with app.app_context(), session_scope() as session, pytest.raises(ValueError):
        block(session, alice, alice)


def test_the_same_block_made_twice_at_once_is_kept_once(app: Flask) -> None:
    alice, bob = _two_players(app)
    made: list[bool] = []
    start = threading.Barrier(2)

    def make() -> None:
        start.wait()
        with app.app_context(), session_scope() as session:
            made.append(block(session, alice, bob))

    threads = [threading.Thread(target=make) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(made) == [False, True]
    with app.app_context(), session_scope() as session:
        assert blocked_by(session, alice) == [bob]
