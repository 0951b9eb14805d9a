"""The development outbox's reply box: the text typed goes through ``receive`` as the
recipient's reply to that email (a real RFC 5322 message: From the recipient, To the Reply-To,
In-Reply-To the Message-ID, the email quoted below), and the answer shows in the outbox."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from service.inbound.dev_reply import reply_to
from service.inbound.outcomes import Outcome
from tests.service.conftest import VALID_FORM
from tests.service.replies import latest_email, position, turn_text
from tests.worker.outbox_rows import rows
from tests.worker.turn_games import create_confirm_accept


def test_the_reply_box_plays_and_shows_the_answer(app: Flask, client: FlaskClient) -> None:
    game_id = create_confirm_accept(app, client, VALID_FORM, seed="seed0")
    start = position(app, game_id)
    address = {"A": "alice@example.org", "B": "bob@example.org"}[start.to_move]
    row = latest_email(app, game_id, address, "your_turn")
    page = client.get(f"/dev/outbox/{row.id}").get_data(as_text=True)
    assert f'action="/dev/outbox/{row.id}/reply"' in page
    assert row.headers["Reply-To"] in page

    response = client.post(f"/dev/outbox/{row.id}/reply", data={"reply": turn_text(start.state)})
    assert response.status_code == 303
    receipt = latest_email(app, game_id, address, "reply_receipt")
    assert response.headers["Location"].endswith(f"/dev/outbox/{receipt.id}")
    assert position(app, game_id).ply == start.ply + 2
    listing = client.get("/dev/outbox").get_data(as_text=True)
    assert "reply_receipt" in listing

    # Replying again to the same (now stale) email: refused, answered, nothing played.
    again = client.post(f"/dev/outbox/{row.id}/reply", data={"reply": turn_text(start.state)})
    assert again.status_code == 303
    refusal = latest_email(app, game_id, address, "reply_refused")
    assert again.headers["Location"].endswith(f"/dev/outbox/{refusal.id}")
    assert "moved on" in refusal.text_body


def test_the_reply_box_refuses_what_is_not_a_reply(app: Flask, client: FlaskClient) -> None:
    game_id = create_confirm_accept(app, client, VALID_FORM, seed="seed0")
    start = position(app, game_id)
    address = {"A": "alice@example.org", "B": "bob@example.org"}[start.to_move]
    row = latest_email(app, game_id, address, "your_turn")
    assert client.post(f"/dev/outbox/{row.id}/reply", data={"reply": "  "}).status_code == 400
    too_long = {"reply": "x" * 2001}
    assert client.post(f"/dev/outbox/{row.id}/reply", data=too_long).status_code == 400
    confirmation = rows(app, kind="confirm_address")[-1]
    assert "Reply-To" not in confirmation.headers
    assert 'id="reply-box"' not in client.get(f"/dev/outbox/{confirmation.id}").get_data(
        as_text=True
    )
    refused = client.post(f"/dev/outbox/{confirmation.id}/reply", data={"reply": "R1>1"})
    assert refused.status_code == 400
    assert client.post("/dev/outbox/999999/reply", data={"reply": "R1>1"}).status_code == 400
    assert position(app, game_id).log == start.log


def test_the_built_reply_is_a_reply_as_mail_programs_write_it(
    app: Flask, client: FlaskClient
) -> None:
    game_id = create_confirm_accept(app, client, VALID_FORM, seed="seed0")
    row = latest_email(app, game_id, "alice@example.org", "game_started")
    with app.app_context():
        sender = "Battle Line by mail <battleline@localhost>"
        raw = reply_to(row, "R1>1", sender=sender, now=row.created_at)
    text = raw.decode()
    assert f"In-Reply-To: {row.message_id}" in text
    assert f"To: {row.headers['Reply-To']}" in text
    assert "From: Alice <alice@example.org>" in text
    assert "\n> Hello Alice," in text.replace("\r\n", "\n")
    assert Outcome.APPLIED.value == "applied"
