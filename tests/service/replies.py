"""Replies as mail programs write them, and the games they answer, for the play-by-reply tests
(tests/service/test_reply_*.py in the embedded mode, tests/worker/test_reply_*.py with the real
receivers)."""

from __future__ import annotations

import email.policy
import email.utils
from collections.abc import Mapping
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import col, select

import engine
from service.db import session_scope
from service.games.loaded import load_game
from service.games.move_log import move_log
from service.games.state import load_state
from service.inbound_models import InboundMessage
from service.outbox.models import OutboxMessage
from tests.service.conftest import VALID_FORM
from tests.worker.turn_games import create_confirm_accept

ADDRESSES = {"A": "alice@example.org", "B": "bob@example.org"}
"""The seats' addresses in ``VALID_FORM``."""


def reply_bytes(
    row: OutboxMessage,
    text: str,
    *,
    sender: str | None = None,
    to: str | None = None,
    message_id: str | None = None,
    in_reply_to: str | None = "same",
    references: str | None = "same",
    subject: str | None = None,
    html: str | None = None,
    extra: Mapping[str, str] | None = None,
    quote: bool = True,
) -> bytes:
    """A reply to the outbox row ``row`` as a mail program sends it: From its recipient, To its
    Reply-To, In-Reply-To and References its Message-ID, ``text`` above the quoted email.
    Every part can be changed: ``sender``, ``to``, ``in_reply_to``/``references`` (None: left
    out), ``html`` (an HTML part; ``text`` None-like "" with html alone: an HTML-only reply),
    ``extra`` headers."""
    message = EmailMessage(policy=email.policy.SMTP)
    message["From"] = sender or email.utils.formataddr((row.recipient_name, row.recipient))
    message["To"] = to or row.headers["Reply-To"]
    message["Subject"] = subject if subject is not None else f"Re: {row.subject}"
    message["Date"] = email.utils.format_datetime(row.created_at)
    message["Message-ID"] = message_id or email.utils.make_msgid(domain="mail.example.org")
    if in_reply_to is not None:
        message["In-Reply-To"] = row.message_id if in_reply_to == "same" else in_reply_to
    if references is not None:
        message["References"] = row.message_id if references == "same" else references
    for name, value in (extra or {}).items():
        message[name] = value
    body = text
    if quote:
        quoted = "\n".join(f"> {line}".rstrip() for line in row.text_body.splitlines())
        body = f"{text}\n\nOn Mon, 5 Jan 2026 at 10:00, Battle Line by mail wrote:\n{quoted}\n"
    if html is not None and not text:
        message.set_content(html, subtype="html")
    else:
        message.set_content(body)
        if html is not None:
            message.add_alternative(html, subtype="html")
    return message.as_bytes()


@dataclass(frozen=True)
class Position:
    """A dealt game as the reply tests see it."""

    game_id: int
    ply: int
    to_move: str
    state: engine.GameState
    log: tuple[str, ...]
    status: str


def position(app: Flask, game_id: int) -> Position:
    with app.app_context(), session_scope() as session:
        loaded = load_game(session, game_id)
        game = loaded.game
        state = load_state(session, loaded)
        log = tuple(e.notation for e in move_log(session, game_id))
        return Position(game_id, game.ply, state.to_move, state, log, game.status)


def latest_email(
    app: Flask, game_id: int, email_address: str, kind: str | None = None
) -> OutboxMessage:
    """The newest email of a game to an address (of ``kind``)."""
    with app.app_context(), session_scope() as session:
        statement = (
            select(OutboxMessage)
            .where(OutboxMessage.game_id == game_id, OutboxMessage.recipient == email_address)
            .order_by(col(OutboxMessage.id).desc())
        )
        if kind is not None:
            statement = statement.where(OutboxMessage.kind == kind)
        row = session.exec(statement).first()
        assert row is not None, (game_id, email_address, kind)
        return row


def outbox_after(app: Flask, last_id: int) -> list[OutboxMessage]:
    """The outbox rows queued after row ``last_id``."""
    with app.app_context(), session_scope() as session:
        return list(
            session.exec(
                select(OutboxMessage)
                .where(col(OutboxMessage.id) > last_id)
                .order_by(col(OutboxMessage.id))
            ).all()
        )


def last_outbox_id(app: Flask) -> int:
    with app.app_context(), session_scope() as session:
        statement = select(OutboxMessage.id).order_by(col(OutboxMessage.id).desc())
        found = session.exec(statement).first()
        return found or 0


def inbound_rows(app: Flask) -> list[InboundMessage]:
    with app.app_context(), session_scope() as session:
        return list(session.exec(select(InboundMessage).order_by(col(InboundMessage.id))).all())


def turn_text(state: engine.GameState) -> str:
    """A whole turn for the player to move, in short codes: the first card to the first flag
    it may go to and the first draw after it; or a pass; or a Scout draw; or ``end``."""
    moves = engine.legal_moves(state)
    plays = [m for m in moves if m.action is engine.Action.PLAY]
    codes: list[Any] = []
    if plays:
        move = plays[0]
        codes.append(move.action_text())
        endings = engine.turn_endings(state, move)
        if endings:
            ending = endings[0]
            codes.append(str(ending.deck) if ending.action is engine.Action.DRAW else "end")
        return " ".join(codes)
    first = moves[0]
    if first.action is engine.Action.DRAW:
        return str(first.deck)
    return first.action_text()


REPLY_ADDRESS = "play+somekey@localhost"
"""A reply address of no seat."""


def nested(
    depth: int, *, newline: bytes = b"\r\n", message_id: bytes = b"<poison@x.example>"
) -> bytes:
    """An email of ``depth`` multiparts, each the only part of the one around it."""
    n = newline
    raw = (
        b"From: someone@example.org" + n + b"To: " + REPLY_ADDRESS.encode() + n
        + b"Message-ID: " + message_id + n + b"Subject: deep" + n
    )  # fmt: skip
    for level in range(depth):
        raw += b'Content-Type: multipart/mixed; boundary="b%d"' % level + n + n
        raw += b"--b%d" % level + n
    raw += b"Content-Type: text/plain" + n + n + b"hello" + n
    for level in reversed(range(depth)):
        raw += b"--b%d--" % level + n
    return raw


@dataclass
class ReplyGame:
    """A game of ``VALID_FORM`` dealt from ``seed0``, at the first player's first turn: the
    emails a seat replies to and the turn it may reply."""

    app: Flask
    client: FlaskClient
    game_id: int
    mover: str

    @property
    def mover_email(self) -> str:
        return ADDRESSES[self.mover]

    def row(self, seat: str | None = None, kind: str | None = None) -> OutboxMessage:
        """The latest email of the game to ``seat`` (the mover by default), of ``kind``."""
        return latest_email(self.app, self.game_id, ADDRESSES[seat or self.mover], kind)

    def turn(self) -> str:
        """A whole turn for the player to move now (``turn_text``)."""
        return turn_text(position(self.app, self.game_id).state)


def new_game(app: Flask, client: FlaskClient) -> tuple[int, Position]:
    """A game of ``VALID_FORM`` created, confirmed, accepted and dealt from ``seed0``."""
    game_id = create_confirm_accept(app, client, VALID_FORM, seed="seed0")
    return game_id, position(app, game_id)
