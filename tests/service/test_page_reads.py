"""What a page reads: the game row comes with its seats, their players, the address statuses
and the latest snapshot in one query, so that a private page and the public page at the
latest position read the log once more and nothing else; and a game whose latest snapshot is
not at its ply (kept before that was so) shows the same pages from the snapshots before it."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from contextlib import contextmanager

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import event
from sqlmodel import col, delete

import engine
from service.db import get_engine, session_scope
from service.games import store
from service.games.state import apply_moves, load_state
from service.models import Snapshot
from service.outbox.addresses import bouncing_addresses, mark_bouncing
from tests.service.play_driver import create_and_accept


def play(app: Flask, game_id: int, plies: int, rng: random.Random) -> engine.GameState:
    """Random legal moves through the service, ``plies`` of them (or to the end)."""
    for _ in range(plies):
        with app.app_context(), session_scope() as session:
            state = load_state(session, store.get_game(session, game_id))
            if state.result is not None:
                break
            assert state.to_move is not None
            move = rng.choice(engine.legal_moves(state))
            apply_moves(session, game_id, state.to_move, state.ply, [move])
    with app.app_context(), session_scope() as session:
        return load_state(session, store.get_game(session, game_id))


@contextmanager
def selects(app: Flask) -> Iterator[list[str]]:
    """The SELECT statements the database is sent meanwhile."""
    sent: list[str] = []

    def note(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            sent.append(statement)

    with app.app_context():
        engine_ = get_engine(app)
    event.listen(engine_, "before_cursor_execute", note)
    try:
        yield sent
    finally:
        event.remove(engine_, "before_cursor_execute", note)


def tables_read(app: Flask, client: FlaskClient, path: str) -> tuple[str, list[str]]:
    """The page at ``path`` and the table each of its SELECTs reads first, in order."""
    with selects(app) as sent:
        page = client.get(path)
    assert page.status_code == 200
    return page.get_data(as_text=True), [re.findall(r"\bFROM (\w+)", s)[0] for s in sent]


def without_tokens(html: str) -> str:
    """A page with its signed links' timestamps left out (a link made a second later differs)."""
    return re.sub(r"/p/[A-Za-z0-9_.-]+", "/p/TOKEN", html)


def test_a_private_page_reads_the_game_and_its_latest_moves_only(
    app: Flask, client: FlaskClient
) -> None:
    game = create_and_accept(app, client, seed="page-reads-private")
    state = play(app, game["id"], 40, random.Random(1))
    seat = state.to_move
    assert seat is not None
    with app.app_context(), session_scope() as session:
        bob = store.find_player(session, "bob@example.org")
        assert bob is not None and bob.id is not None
        mark_bouncing(session, bob.id, "550 no such user")
    page, tables = tables_read(app, client, f"/p/{game['token'][seat]}")
    assert "does not arrive: the address bounces" in page
    assert tables == ["games", "moves"]


def test_the_public_page_at_the_latest_position_reads_the_game_and_its_log_only(
    app: Flask, client: FlaskClient
) -> None:
    game = create_and_accept(app, client, seed="page-reads-public")
    state = play(app, game["id"], 40, random.Random(2))
    _, tables = tables_read(app, client, f"/games/{game['public_id']}?ply={state.ply}")
    assert tables == ["games", "moves"]


def test_without_a_snapshot_at_the_latest_ply_the_pages_come_from_the_ones_before(
    app: Flask, client: FlaskClient
) -> None:
    game = create_and_accept(app, client, seed="page-reads-no-latest")
    state = play(app, game["id"], 45, random.Random(3))
    seat = state.to_move
    assert seat is not None
    pages = [f"/p/{game['token'][seat]}", f"/games/{game['public_id']}?ply={state.ply}"]
    pages += [f"/games/{game['public_id']}?ply={ply}" for ply in (3, 31, state.ply - 1)]
    before = [without_tokens(client.get(path).get_data(as_text=True)) for path in pages]
    with app.app_context(), session_scope() as session:
        session.exec(
            delete(Snapshot).where(
                col(Snapshot.game_id) == game["id"], col(Snapshot.ply) == state.ply
            )
        )
    after = [without_tokens(client.get(path).get_data(as_text=True)) for path in pages]
    assert after == before


def test_bouncing_addresses_read_the_seats_when_no_page_did(
    app: Flask, client: FlaskClient
) -> None:
    """Asked first (no page read the game in this session), the statuses come with the seats."""
    game = create_and_accept(app, client, seed="page-reads-statuses")
    with app.app_context(), session_scope() as session:
        bob = store.find_player(session, "bob@example.org")
        assert bob is not None and bob.id is not None
        mark_bouncing(session, bob.id, "550 no such user")
    with app.app_context(), session_scope() as session:
        found = bouncing_addresses(session, game["id"])
    assert [(b.seat, b.email, b.reason) for b in found] == [
        ("B", "bob@example.org", "550 no such user")
    ]
