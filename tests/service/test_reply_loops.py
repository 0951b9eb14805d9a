"""No mail loop with a naive auto-responder (one that answers every email, without the headers
of a program's mail): after two refusals to a player with no move played by reply between, the
next replies are not answered for a day; a move played starts the count again. The count is in
the database. On SQLite and PostgreSQL (the ``app`` fixture)."""

from __future__ import annotations

from datetime import timedelta

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import col, select

from service.db import session_scope
from service.inbound.outcomes import Outcome
from service.inbound.receive import receive
from service.models import utcnow
from service.outbox.models import OutboxMessage
from tests.service.replies import (
    ADDRESSES,
    latest_email,
    new_game,
    position,
    reply_bytes,
    turn_text,
)

AWAY = "Thank you for your email. I am away until Monday and will answer when I am back."


def _refusals(app: Flask, address: str) -> list[OutboxMessage]:
    with app.app_context(), session_scope() as session:
        statement = (
            select(OutboxMessage)
            .where(OutboxMessage.kind == "reply_refused", OutboxMessage.recipient == address)
            .order_by(col(OutboxMessage.id))
        )
        return list(session.exec(statement).all())


def _answer_latest(app: Flask, game_id: int, address: str, text: str) -> Outcome:
    """The player's mailbox answers the newest email of the game it got."""
    row = latest_email(app, game_id, address)
    with app.app_context():
        return receive(reply_bytes(row, text)).outcome


def test_an_auto_responder_gets_two_refusals_then_silence_for_a_day(
    app: Flask, client: FlaskClient
) -> None:
    game_id, start = new_game(app, client)
    mover = ADDRESSES[start.to_move]
    outcomes = [_answer_latest(app, game_id, mover, AWAY) for _ in range(6)]
    assert outcomes == [Outcome.REFUSED] * 6
    assert len(_refusals(app, mover)) == 2  # not 6: the loop stopped after two

    # A move played by reply starts the count again: a later mistake is answered.
    turn = turn_text(position(app, game_id).state)
    row = latest_email(app, game_id, mover, "your_turn")
    with app.app_context():
        assert receive(reply_bytes(row, turn)).outcome is Outcome.APPLIED
    assert ADDRESSES[position(app, game_id).to_move] != mover  # a whole turn was played
    assert _answer_latest(app, game_id, mover, AWAY) is Outcome.REFUSED
    assert len(_refusals(app, mover)) == 3


def test_the_pause_ends_a_day_after_the_refusals(app: Flask, client: FlaskClient) -> None:
    game_id, start = new_game(app, client)
    mover = ADDRESSES[start.to_move]
    for _ in range(3):
        _answer_latest(app, game_id, mover, AWAY)
    assert len(_refusals(app, mover)) == 2
    # The two refusals were sent a day and a minute ago.
    with app.app_context(), session_scope() as session:
        for refusal in _refusals(app, mover):
            stored = session.get(OutboxMessage, refusal.id)
            assert stored is not None
            stored.created_at = utcnow() - timedelta(days=1, minutes=1)
            session.add(stored)
    _answer_latest(app, game_id, mover, AWAY)
    assert len(_refusals(app, mover)) == 3
