"""A turn as one act: a reply's receipt shows the cards drawn and the whole hand; a Scout turn
fits in one reply; and a turn whose only move left is the end ends by itself, by reply, private
page and move link alike (``engine.automatic_end``, made in ``apply_moves``)."""

from __future__ import annotations

import re
from types import SimpleNamespace

from flask import Flask
from flask.testing import FlaskClient

import engine
from service import tokens
from service.db import session_scope
from service.games.move_log import move_log
from service.outbox import MailKind
from tests.engine.builders import position
from tests.service.conftest import VALID_FORM
from tests.service.replies import latest_email, turn_text
from tests.service.replies import position as stored_position
from tests.service.test_turn_email_tactics import BOB_HAND, said, your_turn_at
from tests.worker.outbox_rows import rows
from tests.worker.turn_games import confirm_and_draw, create_confirm_accept, move_links

SCOUT_HAND = ["R1", "G2", "R5", "Y9", "B3", "O4", "SCOUT"]


def log_of(app: Flask, game_id: int) -> list[str]:
    with app.app_context(), session_scope() as session:
        return [e.notation for e in move_log(session, game_id)]


def test_the_receipt_of_a_reply_that_draws_shows_the_card_and_the_hand(
    app: Flask, client: FlaskClient
) -> None:
    game_id = create_confirm_accept(app, client, VALID_FORM, seed="seed0")
    start = stored_position(app, game_id)
    seat = start.to_move
    address = {"A": "alice@example.org", "B": "bob@example.org"}[seat]
    row = latest_email(app, game_id, address, "your_turn")
    assert client.post(f"/dev/outbox/{row.id}/reply", data={"reply": turn_text(start.state)})
    after = stored_position(app, game_id).state
    hand = engine.player_view(after, seat).hand
    (drawn,) = set(hand) - set(engine.player_view(start.state, seat).hand)
    receipt = latest_email(app, game_id, address, "reply_receipt")
    text = said(receipt.text_body)
    assert re.search(rf"you drew [a-z ]+\w* \({drawn}\)", text), text
    assert f"Your hand now: {' '.join(hand)}" in text
    page = said(receipt.html_body)
    assert "you drew" in page and "Your hand now:" in page


def test_a_scout_turn_in_one_reply_ends_the_turn(
    app: Flask, client: FlaskClient, new_game: SimpleNamespace
) -> None:
    state = position(claims="advanced", hands={"A": SCOUT_HAND, "B": BOB_HAND}, ply=0)
    mail = your_turn_at(app, new_game, state)
    before = len(rows(app, kind=MailKind.YOUR_TURN))
    reply = "scout, draw troops twice and tactics, put back the green 2 and R5"
    assert client.post(f"/dev/outbox/{mail.id}/reply", data={"reply": reply}).status_code == 303
    assert log_of(app, new_game.id) == [
        "A: SCOUT",
        "A: draw troops",
        "A: draw troops",
        "A: draw tactics",
        "A: return G2 R5",
        "A: end",
    ]
    assert stored_position(app, new_game.id).to_move == "B"
    (receipt,) = rows(app, kind=MailKind.REPLY_RECEIPT)
    text = said(receipt.text_body)
    assert text.count("you drew") == 3 and "It is Bob's turn now" in text
    assert len(rows(app, kind=MailKind.YOUR_TURN)) == before + 1  # Bob's


def test_the_private_page_ends_a_scout_turn_with_the_cards_put_back(
    app: Flask, client: FlaskClient, new_game: SimpleNamespace
) -> None:
    state = position(claims="standard", hands={"A": SCOUT_HAND, "B": BOB_HAND}, ply=0)
    your_turn_at(app, new_game, state)
    with app.app_context():
        token = tokens.make_private_token(new_game.id, "A", 0)
    for ply, move in enumerate(["SCOUT", "draw troops", "draw tactics"]):
        sent = {"ply": str(ply), "move": move}
        assert client.post(f"/p/{token}/move", data=sent).status_code == 303
    sent = {"ply": "3", "move": "return", "return_1": "G2"}
    assert client.post(f"/p/{token}/move", data=sent).status_code == 303
    assert log_of(app, new_game.id)[-2:] == ["A: return G2", "A: end"]
    assert stored_position(app, new_game.id).to_move == "B"


def test_the_scout_return_button_says_the_turn_ends_when_no_claim_can_follow(
    app: Flask, client: FlaskClient, new_game: SimpleNamespace
) -> None:
    """Under the standard rule a claim may follow the return (R4): with nothing provable, the
    return ends the turn all the same, and the button says so (``scout_return_ends_turn``)."""
    state = position(claims="standard", hands={"A": SCOUT_HAND, "B": BOB_HAND}, ply=0)
    your_turn_at(app, new_game, state)
    with app.app_context():
        token = tokens.make_private_token(new_game.id, "A", 0)
    for ply, move in enumerate(["SCOUT", "draw troops", "draw tactics"]):
        sent = {"ply": str(ply), "move": move}
        assert client.post(f"/p/{token}/move", data=sent).status_code == 303
    page = client.get(f"/p/{token}").get_data(as_text=True)
    assert "Put these back and end the turn" in page


def test_a_move_link_with_nothing_to_draw_ends_the_turn(
    app: Flask, client: FlaskClient, new_game: SimpleNamespace
) -> None:
    state = position(
        claims="advanced", hands={"A": ["R1", "R2"], "B": BOB_HAND}, empty_decks=True, ply=0
    )
    mail = your_turn_at(app, new_game, state)
    (first, *_) = move_links(mail.html_body)
    # The card alone: no "then" to choose (the end is no choice).
    assert confirm_and_draw(client, first, then="") == 303
    assert log_of(app, new_game.id) == ["A: R1>1", "A: end"]
    assert stored_position(app, new_game.id).to_move == "B"
