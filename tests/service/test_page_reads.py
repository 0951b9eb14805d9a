"""What a page reads: the game row comes with its seats, their players, the address statuses
and the latest snapshot in one query, so that a private page and the public page at the
latest position read the log once more and nothing else; and a game whose latest snapshot is
not at its ply (kept before that was so) shows the same pages from the snapshots before it.
A move reads the same after the game's lock, and writes the game row once; its emails ask
for no address status of their own. What was read comes down as a ``LoadedGame``: nothing is
kept on the session, so a function that takes none reads."""

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
from service.games.loaded import load_game, load_game_by_public_id, lock_loaded_game
from service.games.players import find_player
from service.games.seats import read_seats, read_statuses
from service.games.state import apply_moves, load_state
from service.models import Snapshot
from service.outbox.addresses import bouncing_addresses, mark_bouncing
from service.outbox.kinds import MailKind
from service.outbox.queue import blocked_reason
from service.players.blocks import block
from service.players.messages import messages_for, mute, save_message
from service.present.move_links import move_link_url
from tests.service.play_driver import create_and_accept


def play(app: Flask, game_id: int, plies: int, rng: random.Random) -> engine.GameState:
    """Random legal moves through the service, ``plies`` of them (or to the end)."""
    for _ in range(plies):
        with app.app_context(), session_scope() as session:
            state = load_state(session, load_game(session, game_id))
            if state.result is not None:
                break
            assert state.to_move is not None
            move = rng.choice(engine.legal_moves(state))
            apply_moves(session, game_id, state.to_move, state.ply, [move])
    with app.app_context(), session_scope() as session:
        return load_state(session, load_game(session, game_id))


@contextmanager
def selects(app: Flask, kinds: tuple[str, ...] = ("SELECT",)) -> Iterator[list[str]]:
    """The statements of these ``kinds`` (SELECT, INSERT...) the database is sent meanwhile."""
    sent: list[str] = []

    def note(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        if statement.lstrip().upper().startswith(kinds):
            sent.append(statement)

    with app.app_context():
        engine_ = get_engine(app)
    event.listen(engine_, "before_cursor_execute", note)
    try:
        yield sent
    finally:
        event.remove(engine_, "before_cursor_execute", note)


def tables_of(sent: list[str]) -> list[str]:
    """The table each of these SELECTs reads first, in order."""
    return [re.findall(r"\bFROM (\w+)", s)[0] for s in sent]


def tables_read(app: Flask, client: FlaskClient, path: str) -> tuple[str, list[str]]:
    """The page at ``path`` and the table each of its SELECTs reads first, in order."""
    with selects(app) as sent:
        page = client.get(path)
    assert page.status_code == 200
    return page.get_data(as_text=True), tables_of(sent)


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
        bob = find_player(session, "bob@example.org")
        assert bob is not None and bob.id is not None
        mark_bouncing(session, bob.id, "550 no such user")
    page, tables = tables_read(app, client, f"/p/{game['token'][seat]}")
    assert "does not arrive: the address bounces" in page
    # The game's messages, the reader's mutes and the blocks either way: one query.
    assert tables == ["games", "game_messages", "moves"]


def test_an_emails_quotes_read_the_messages_mutes_and_blocks_in_one_query(
    app: Flask, client: FlaskClient
) -> None:
    game = create_and_accept(app, client, seed="page-reads-quotes")
    with app.app_context(), session_scope() as session:
        loaded = load_game(session, game["id"])
        (alice_seat, alice), (_, bob) = loaded.seats.values()
        assert alice.id is not None and bob.id is not None
        assert save_message(session, game["id"], alice_seat, alice, 0, "Hello") is not None
        assert mute(session, bob.id, alice.id) and block(session, alice.id, bob.id)
        session.flush()
        with selects(app) as sent:
            assert messages_for(session, game["id"], bob) == []
        assert tables_of(sent) == ["game_messages"]


def test_the_public_page_at_any_position_reads_the_game_and_its_log_only(
    app: Flask, client: FlaskClient
) -> None:
    """The latest snapshot comes with the game, and the one nearest before the position shown."""
    game = create_and_accept(app, client, seed="page-reads-replay")
    state = play(app, game["id"], 70, random.Random(5))
    for ply in (0, 3, 29, 30, 31, 61, state.ply - 1, state.ply):
        _, tables = tables_read(app, client, f"/games/{game['public_id']}?ply={ply}")
        assert tables == ["games", "moves"], ply


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


def test_bouncing_addresses_come_with_the_loaded_game(app: Flask, client: FlaskClient) -> None:
    """The statuses come with the seats, in the query that loads the game."""
    game = create_and_accept(app, client, seed="page-reads-statuses")
    with app.app_context(), session_scope() as session:
        bob = find_player(session, "bob@example.org")
        assert bob is not None and bob.id is not None
        mark_bouncing(session, bob.id, "550 no such user")
    with app.app_context(), session_scope() as session, selects(app) as sent:
        found = bouncing_addresses(session, load_game(session, game["id"]))
    assert tables_of(sent) == ["games"]
    assert [(b.seat, b.email, b.reason) for b in found] == [
        ("B", "bob@example.org", "550 no such user")
    ]


def test_a_move_reads_the_game_twice_and_writes_its_row_once(
    app: Flask, client: FlaskClient
) -> None:
    """The lock, then the seats, statuses and latest snapshot in one query (no query of its own
    for the position); the row's new ply and the next turn's clock in one UPDATE."""
    game = create_and_accept(app, client, seed="move-writes")
    play(app, game["id"], 20, random.Random(4))
    with app.app_context(), session_scope() as session:
        state = load_state(session, load_game(session, game["id"]))
    assert state.result is None and state.to_move is not None
    # A turn that ends: a card played and a card drawn (or the end of the turn).
    card = next(m for m in engine.legal_moves(state) if m.action is engine.Action.PLAY)
    after, _ = engine.apply(state, card)
    ending = [
        m for m in engine.legal_moves(after) if m.action in (engine.Action.DRAW, engine.Action.END)
    ]
    assert ending
    kinds = ("SELECT", "INSERT", "UPDATE", "DELETE")
    with app.app_context(), session_scope() as session, selects(app, kinds) as sent:
        _, events = apply_moves(session, game["id"], state.to_move, state.ply, [card, ending[0]])
        session.flush()  # what the commit would write (the turn's start follows the commit)
    assert any(isinstance(e, engine.TurnStarted) for e in events)
    first_words = [" ".join(s.split()[:3]) for s in sent]
    assert first_words[:2] == ["SELECT games.id, games.public_id,"] * 2
    assert sum(s.startswith("SELECT") for s in sent) == 2
    assert sum(s.startswith("UPDATE games") for s in sent) == 1


def test_a_moves_emails_read_no_address_status_of_their_own(
    app: Flask, client: FlaskClient
) -> None:
    """The statuses come with the seats after the lock, the missing ones too (no row: nothing
    blocks); one made in the same transaction afterwards is seen by the game loaded again."""
    game = create_and_accept(app, client, seed="move-statuses")
    with app.app_context(), session_scope() as session:
        loaded = lock_loaded_game(session, game["id"])
        players = [player for _, player in loaded.seats.values()]
        with selects(app) as sent:
            reasons = [blocked_reason(session, MailKind.YOUR_TURN, p, loaded) for p in players]
        assert reasons == [None, None]
        assert not [s for s in sent if "address_status" in s]
        bob = next(p for p in players if p.email == "bob@example.org")
        assert bob.id is not None
        mark_bouncing(session, bob.id, "550 no such user")
        again = load_game(session, game["id"])  # a status made since: the game loaded again
        assert blocked_reason(session, MailKind.YOUR_TURN, bob, again) == "bouncing"


def test_a_loaded_games_seats_and_statuses_cost_no_query_more(
    app: Flask, client: FlaskClient
) -> None:
    """Asked again and again (the emails of a turn ask for each seat), the seats and the
    statuses come from the ``LoadedGame`` passed down: one query for all of them. A game loaded
    without its statuses (as the public page loads it) reads them when asked, in one query."""
    game = create_and_accept(app, client, seed="page-reads-seats")
    with app.app_context(), session_scope() as session:
        with selects(app) as sent:
            loaded = load_game(session, game["id"])
            statuses = [read_statuses(session, loaded) for _ in range(3)]
            names = [[p.display_name for _, p in loaded.seats.values()] for _ in range(3)]
        assert tables_of(sent) == ["games"]
        assert statuses[0] == statuses[1] == statuses[2] and names[0] == ["Alice", "Bob"]
        public = load_game_by_public_id(session, game["public_id"])
        assert public.statuses is None
        with selects(app) as sent:
            assert read_statuses(session, public) == statuses[0]
        assert tables_of(sent) == ["address_status"]


def test_a_move_links_page_reads_the_game_and_its_latest_moves_only(
    app: Flask, client: FlaskClient
) -> None:
    """Like the private page: the game comes with its seats and the latest snapshot."""
    game = create_and_accept(app, client, seed="page-reads-move-link")
    state = play(app, game["id"], 40, random.Random(2))
    assert state.to_move is not None
    index = next(
        i for i, m in enumerate(engine.legal_moves(state)) if m.action is engine.Action.PLAY
    )
    with app.app_context(), session_scope() as session:
        seat = read_seats(session, game["id"])[state.to_move][0]
        path = move_link_url(seat, state.ply, index).removeprefix("http://bl.test")
    _, tables = tables_read(app, client, path)
    assert tables == ["games", "moves"]
