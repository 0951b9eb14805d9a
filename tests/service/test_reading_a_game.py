"""What a player reads on the pages and in the emails (issue 20, items 6 and 7): the others' last
turn at the top of the private page with the card they played marked on the board and in the
replay, and people's names in every sentence (never a seat letter: "B" is both Bob and blue)."""

from __future__ import annotations

import re
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import col, select

import engine
from service import tokens
from service.db import session_scope
from service.games.loaded import load_game
from service.games.seats import read_seats
from service.games.state import apply_moves, load_state
from service.lobby.forms import parse_new_game
from service.lobby.lifecycle import accept_invitation, create_game
from service.models import Game
from service.outbox.models import OutboxMessage
from tests.service.conftest import VALID_FORM, sign_in_as

MARKED = re.compile(r'class="card card-\w+ last-played"[^>]*aria-label="([^"]+)"')


def started_game(app: Flask, **fields: str) -> dict[str, Any]:
    """A two-player game made by Alice's own browser and accepted by Bob: its id, public id and
    each seat's private-page path."""
    with app.app_context(), session_scope() as session:
        game, _ = create_game(
            session, parse_new_game({**VALID_FORM, **fields}), creator_present=True
        )
        assert game.id is not None
        accept_invitation(session, tokens.SeatToken(game_id=game.id, seat="B", generation=0))
        return {
            "id": game.id,
            "public_id": game.public_id,
            "page": {s: f"/p/{tokens.make_private_token(game.id, s, 0)}" for s in ("A", "B")},
        }


def play_a_turn(app: Flask, game_id: int) -> tuple[str, engine.Move]:
    """The seat to move plays a troop to a flag (else its first legal move) and ends its turn:
    the seat, and the card move it made."""
    with app.app_context(), session_scope() as session:
        state = load_state(session, load_game(session, game_id))
        seat = state.to_move
        assert seat is not None
        moves = engine.legal_moves(state)
        card = next((m for m in moves if m.action is engine.Action.PLAY), moves[0])
        apply_moves(session, game_id, seat, state.ply, [card])
    while True:
        with app.app_context(), session_scope() as session:
            state = load_state(session, load_game(session, game_id))
            if state.to_move != seat or state.result is not None:
                return seat, card
            apply_moves(session, game_id, seat, state.ply, [engine.legal_moves(state)[0]])


def emails(app: Flask, game_id: int) -> list[OutboxMessage]:
    with app.app_context(), session_scope() as session:
        query = select(OutboxMessage).where(OutboxMessage.game_id == game_id)
        return list(session.exec(query.order_by(col(OutboxMessage.id))).all())


def label(card: str) -> str:
    from service.templating import card_face

    return card_face(card).label


# --- item 6: what did my opponent just do? ---------------------------------------------------


def test_the_private_page_shows_the_others_last_turn_above_the_board(
    app: Flask, client: FlaskClient
) -> None:
    game = started_game(app)
    first, card = play_a_turn(app, game["id"])
    other = "B" if first == "A" else "A"
    names = {"A": "Alice", "B": "Bob"}
    html = client.get(game["page"][other]).get_data(as_text=True)
    heading = f"{names[first]}&#39;s last turn"
    assert heading in html
    top = html.index(heading)
    assert top < html.index("<h2>The line</h2>") < html.index("<h2>Your hand</h2>")
    section = html[top : html.index("<h2>The line</h2>")]
    assert f"{names[first]} played" in section and label(card.card or "") in section
    # The card just played is marked on the board, in words too.
    board = html[html.index("<h2>The line</h2>") : html.index("<h2>Your hand</h2>")]
    assert MARKED.findall(board) == [label(card.card or "")]
    assert "played last" in board


def test_the_replay_marks_the_card_of_the_move_shown(app: Flask, client: FlaskClient) -> None:
    game = started_game(app)
    _, card = play_a_turn(app, game["id"])
    shown = client.get(f"/games/{game['public_id']}?ply=1").get_data(as_text=True)
    assert MARKED.findall(shown) == [label(card.card or "")]
    deal = client.get(f"/games/{game['public_id']}?ply=0").get_data(as_text=True)
    assert MARKED.findall(deal) == []


# --- item 7: names, not seat letters --------------------------------------------------------


SEAT_SENTENCES = [
    re.compile(r"\b[ABC] cut\b"),
    re.compile(r"\b[ABC] (deals|plays first)\b"),
    re.compile(r"\((seat )?[ABC]\)"),
    re.compile(r"\b[ABC]: "),
]


def seat_letters_in(text: str) -> list[str]:
    return [m.group() for pattern in SEAT_SENTENCES for m in pattern.finditer(text)]


def test_pages_and_emails_name_people_not_seats(app: Flask, client: FlaskClient) -> None:
    game = started_game(app)
    for _ in range(3):
        play_a_turn(app, game["id"])
    pages = {
        "public": client.get(f"/games/{game['public_id']}").get_data(as_text=True),
        "replay": client.get(f"/games/{game['public_id']}?ply=1").get_data(as_text=True),
        **{s: client.get(p).get_data(as_text=True) for s, p in game["page"].items()},
    }
    for name, html in pages.items():
        assert seat_letters_in(html) == [], name
    assert re.search(r"(Alice|Bob) cut \w+ \d+", pages["public"]), "the cut names people and cards"
    for row in emails(app, game["id"]):
        assert seat_letters_in(row.text_body) == [], (row.kind, row.text_body)
        assert seat_letters_in(row.html_body) == [], row.kind


def test_in_a_rematch_the_seats_swap_and_the_names_follow(app: Flask, client: FlaskClient) -> None:
    game = started_game(app)
    with app.app_context(), session_scope() as session:
        state = load_state(session, load_game(session, game["id"]))
        seat = state.to_move
        assert seat is not None
        apply_moves(
            session,
            game["id"],
            seat,
            state.ply,
            [engine.parse_move(f"{seat}: resign", state.ruleset)],
        )
    bob = game["page"]["B"]
    sign_in_as(app, client, "bob@example.org", "Bob")  # a seat link alone asks by email
    assert client.post(f"{bob}/rematch").status_code == 303
    with app.app_context(), session_scope() as session:
        rematch = session.exec(select(Game).where(col(Game.id) != game["id"])).one()
        assert rematch.id is not None
        seats = read_seats(session, rematch.id)
        assert seats["A"][1].display_name == "Bob"
        accept_invitation(session, tokens.SeatToken(game_id=rematch.id, seat="B", generation=0))
        alice = f"/p/{tokens.make_private_token(rematch.id, 'B', 0)}"
    html = client.get(alice).get_data(as_text=True)
    assert "This is your private page, Alice." in html
    assert seat_letters_in(html) == []
    for row in emails(app, rematch.id):
        assert seat_letters_in(row.text_body) == [], (row.kind, row.text_body)
