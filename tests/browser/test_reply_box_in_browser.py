"""The development outbox's reply box in a real browser: a player opens their "your turn" email
on /dev/outbox, types a whole turn in short codes into the Reply box and sends it; the page that
follows is the receipt ("Played"), and the game has moved on."""

from __future__ import annotations

from playwright.sync_api import Browser, expect
from sqlmodel import col, select

from service import tokens
from service.db import session_scope
from service.lobby.forms import parse_new_game
from service.lobby.lifecycle import accept_invitation, create_game
from service.models import Game
from service.outbox.models import OutboxMessage
from tests.browser.conftest import PHONE, LiveServer, Shots
from tests.service.conftest import VALID_FORM
from tests.service.replies import position, turn_text

TIMEOUT_MS = 10_000
FORM = {**VALID_FORM, "a_email": "reply-alice@example.org", "b_email": "reply-bob@example.org"}


def dealt_game(live: LiveServer) -> int:
    with live.app.app_context(), session_scope() as session:
        game, seats = create_game(session, parse_new_game(FORM), creator_present=True)
        assert game.id is not None
        game_id = game.id
        b = seats["B"]
        token = tokens.SeatToken(game_id=game_id, seat="B", generation=b.token_generation)
    with live.app.app_context(), session_scope() as session:
        accept_invitation(session, token)
    with live.app.app_context(), session_scope() as session:
        dealt = session.get(Game, game_id)
        assert dealt is not None and dealt.status == "active"
    return game_id


def test_a_turn_sent_from_the_reply_box(
    browser: Browser, live_server: LiveServer, shots: Shots
) -> None:
    game_id = dealt_game(live_server)
    start = position(live_server.app, game_id)
    address = {"A": FORM["a_email"], "B": FORM["b_email"]}[start.to_move]
    with live_server.app.app_context(), session_scope() as session:
        row = session.exec(
            select(OutboxMessage)
            .where(OutboxMessage.recipient == address, OutboxMessage.kind == "your_turn")
            .order_by(col(OutboxMessage.id).desc())
        ).first()
        assert row is not None
        row_id = row.id
    context = browser.new_context(viewport=PHONE, locale="en-GB")
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{live_server.url}/dev/outbox/{row_id}")
        box = page.get_by_label("Reply as")
        expect(box).to_be_visible()
        box.fill(turn_text(start.state))
        shots(page, "reply-box-typed")
        page.get_by_role("button", name="Send the reply").click()
        expect(page.get_by_role("heading", level=1)).to_contain_text("Played")
        shots(page, "reply-box-receipt")
    finally:
        context.close()
    assert position(live_server.app, game_id).ply == start.ply + 2
