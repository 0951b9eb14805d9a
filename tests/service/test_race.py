"""Two identical POSTs at the same moment apply the move once, on SQLite and on PostgreSQL: the
game row lock makes the second wait, and it then finds the move in the log ("already played")."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

import engine
from service.db import session_scope
from service.games.loaded import load_game
from service.games.move_log import move_log
from service.games.seats import read_seats
from service.games.state import load_state
from service.present.move_links import move_link_url
from tests.service.play_driver import create_and_accept

ROUNDS = 4


def at_once(app: Flask, post: Callable[[FlaskClient], Any], threads: int = 2) -> list[Any]:
    """Run ``post`` in ``threads`` threads, each with its own client, released together."""
    barrier = threading.Barrier(threads)
    results: list[Any] = [None] * threads
    errors: list[BaseException] = []

    def run(i: int) -> None:
        client = app.test_client()
        try:
            barrier.wait(timeout=10)
            results[i] = post(client)
        except BaseException as error:  # reported below, in the test's thread
            errors.append(error)

    workers = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    assert not errors, errors
    return results


def current(app: Flask, game_id: int) -> tuple[engine.GameState, int]:
    with app.app_context(), session_scope() as session:
        state = load_state(session, load_game(session, game_id))
        return state, len(move_log(session, game_id))


def outcome(response: Any) -> tuple[int, bool]:
    return response.status_code, "Already played" in response.get_data(as_text=True)


@pytest.mark.parametrize("via", ["form", "move-link"])
def test_double_post_applies_once(app: Flask, client: FlaskClient, via: str) -> None:
    game = create_and_accept(app, client)
    for _ in range(ROUNDS):
        state, entries = current(app, game["id"])
        moves = engine.legal_moves(state)
        index = next(
            i for i, m in enumerate(moves) if m.action in (engine.Action.PLAY, engine.Action.DRAW)
        )
        move = moves[index]
        seat = state.to_move
        if via == "form":
            url = f"/p/{game['token'][seat]}/move"
            data = {"ply": str(state.ply), "move": move.action_text()}
        else:
            with app.app_context(), session_scope() as session:
                row = read_seats(session, game["id"])[seat][0]
                url = move_link_url(row, state.ply, index).removeprefix("http://bl.test")
            data = {}
        results = at_once(app, lambda c, url=url, data=data: c.post(url, data=data))
        assert sorted(outcome(r) for r in results) == [(200, True), (303, False)]
        after, after_entries = current(app, game["id"])
        assert after_entries == entries + 1
        assert after.ply == state.ply + 1
        with app.app_context(), session_scope() as session:
            assert move_log(session, game["id"])[-1].notation == str(move)
