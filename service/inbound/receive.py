"""``receive``: the one way an email enters the service. The SMTP receiver, the IMAP poller and
the development outbox's reply box all hand it the raw message.

One transaction per message: the message's row (its Message-ID is unique, so a second delivery
of the same email changes nothing), the moves it plays under the game's row lock, and the answer
in the outbox, all or nothing. What comes of a message, in order of the checks:

1. bigger than ``INBOUND_MAX_BYTES``: dropped (``too_large``); nested too deep or in too many
   MIME parts to parse (``mime_shape``): dropped, and refused for good by the SMTP receiver
   (``malformed``); more than ``INBOUND_PER_ADDRESS_PER_HOUR`` this hour from its address to the
   same reply key with the same authentication (``authentication.rate_key``: forged mail never
   uses up the allowance of a seat's authenticated replies): dropped (``rate_limited``);
2. a bounce to the signed bounce address of one of our emails (``bounces``): that email's
   recipient is marked bouncing, as the outbox's own permanent failures are (``bounce``); any
   other bounce, or anything else to a bounce address, is dropped (``bounce_unmatched``);
3. sent by a program (a read receipt, a null sender, ``Auto-Submitted`` other than ``no`` (so
   never an answer of ours), ``Precedence: bulk|junk|list|auto_reply``, ``X-Autoreply`` and
   kin, ``List-Id``, an out-of-office subject, a mail system's report such as qmail's bounce,
   our own address): dropped (``automatic``);
4. to no valid reply address (unknown or revoked key): dropped (``unknown_key``); from another
   address than the seat's: not played, and the seat's own address is told (at most once an
   hour), never the sender (``other_sender``);
5. a reply of the seat (``seat_reply``; its words, or its Subject when only that names a
   move): read against the position of the email it answers (In-Reply-To, then References, to
   an outbox row of this game to this player: the row's ``ply``). Played when that is the
   game's position now and every part that is no chat names a legal move (``applied``, with a
   receipt); else answered with what was understood, why not and the moves possible now
   (``refused``, ``stale``), except after two such answers to the player within a day with no
   move played by reply between (``loops``: a naive auto-responder's loop). Playable moves from
   a sender our receiving server did not authenticate (``authentication.authenticate``) are not
   played: the seat's own address gets a link to confirm them (``unauthenticated``,
   ``service.inbound.confirm``). A reply with no move in it (chat only) to a game that is over
   (or stale) is not answered (``ignored``).

Nothing is ever answered to an address other than the seat's own, and nothing is answered to a
message that a program sent.
"""

from __future__ import annotations

import email
import email.message
import email.parser
import email.policy
import email.utils
import hashlib
import logging
from collections.abc import Sequence
from datetime import datetime, timedelta

from flask import current_app
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, func, select

from service import clock
from service.db import session_scope
from service.games import reply_keys
from service.games.loaded import LoadedGame, lock_loaded_game
from service.inbound import bounces, headers, mime_shape
from service.inbound.authentication import authenticate, rate_key
from service.inbound.outcomes import Outcome, Received
from service.inbound.seat_reply import play_reply
from service.inbound_models import InboundMessage
from service.models import Player, Seat
from service.outbox.kinds import MailKind
from service.outbox.queue import emails_queued_since
from service.present.reply_answers import queue_other_sender

logger = logging.getLogger(__name__)

OTHER_SENDER_NOTICE_EVERY = timedelta(hours=1)
"""At most one "a reply from another address" note to a seat's own address in this time."""


def synthetic_message_id(raw: bytes) -> str:
    """The id of an email without a usable Message-ID: its bytes' hash, so that the same bytes
    delivered twice are still received once."""
    return f"<{hashlib.sha256(raw).hexdigest()}@inbound.invalid>"


def own_addresses() -> list[str]:
    """Our own sending address: mail from it is ours, never a player's."""
    _, address = email.utils.parseaddr(str(current_app.config.get("MAIL_DEFAULT_SENDER") or ""))
    normal = headers.normal_address(address)
    return [normal] if normal else []


def parse(raw: bytes, size: int, malformed: str | None) -> email.message.Message:
    """The message (headers only when it is over the size limit or ``malformed``: its body is
    never read)."""
    if malformed or size > int(current_app.config["INBOUND_MAX_BYTES"]):
        return email.parser.BytesHeaderParser(policy=email.policy.compat32).parsebytes(raw)
    return email.message_from_bytes(raw, policy=email.policy.compat32)


def receive(
    raw: bytes,
    *,
    now: datetime | None = None,
    recipients: Sequence[str] = (),
    envelope_sender: str | None = None,
    size: int | None = None,
) -> Received:
    """Receive one email: play it, answer it, mark a bounce, or drop it (module docstring).

    ``recipients`` and ``envelope_sender``: the SMTP envelope, when there is one (else the
    headers say where it went). ``size``: the message's size when ``raw`` holds only its
    headers (a mailbox's oversized message is not fetched whole). Commits before it returns:
    once it has returned, the email may be marked handled (IMAP) or acknowledged (SMTP 250).
    Raises only on a failure of the database or of the service (then nothing was kept, and
    the message should be offered again).
    """
    now = now or clock.now()
    size = len(raw) if size is None else size
    malformed = mime_shape.shape_problem(raw)
    try:
        message = parse(raw, size, malformed)
    except RecursionError:  # a shape the scan let through: refused like the ones it finds
        malformed = "nested too deep to parse"
        message = parse(raw, size, malformed)
    message_id = headers.own_message_id(message) or synthetic_message_id(raw)
    sender = headers.sender_of(message)
    try:
        with session_scope() as session:
            if _seen(session, message_id):
                return Received(Outcome.DUPLICATE, f"{message_id} was received before")
            row = InboundMessage(
                message_id=message_id, sender=sender or "", received_at=now, outcome="received"
            )
            session.add(row)
            session.flush()
            result = _handle(
                session, message, row, size=size, now=now, recipients=recipients,
                envelope_sender=envelope_sender, malformed=malformed,
            )  # fmt: skip
            row.outcome = result.outcome.value
            row.detail = result.detail[:500]
            row.game_id = result.game_id
            row.seat = result.seat
            session.add(row)
    except IntegrityError:
        # The same Message-ID committed meanwhile by another delivery: that one counts.
        with session_scope() as session:
            if _seen(session, message_id):
                return Received(Outcome.DUPLICATE, f"{message_id} was received meanwhile")
        raise
    logger.info(
        "received %s from %s: %s %s", message_id, sender or "?", result.outcome, result.detail
    )
    return result


def _seen(session: Session, message_id: str) -> bool:
    found = session.exec(
        select(InboundMessage.id).where(InboundMessage.message_id == message_id)
    ).first()
    return found is not None


def _recent_from(session: Session, key: str, since: datetime, row_id: int | None) -> int:
    count = session.exec(
        select(func.count())
        .select_from(InboundMessage)
        .where(
            InboundMessage.rate_key == key,
            col(InboundMessage.received_at) >= since,
            InboundMessage.id != row_id,
        )
    ).one()
    return int(count)


def _handle(
    session: Session,
    message: email.message.Message,
    row: InboundMessage,
    *,
    size: int,
    now: datetime,
    recipients: Sequence[str],
    envelope_sender: str | None,
    malformed: str | None,
) -> Received:
    config = current_app.config
    limit = int(config["INBOUND_MAX_BYTES"])
    if size > limit:
        return Received(Outcome.TOO_LARGE, f"{size} bytes, over {limit}")
    if malformed:
        return Received(Outcome.MALFORMED, malformed)
    domain = config.get("INBOUND_DOMAIN")
    local = str(config["INBOUND_LOCAL_PART"])
    keys = headers.reply_keys(message, recipients, local, str(domain)) if domain else []
    verdict = authenticate(message, row.sender, config)
    row.rate_key = rate_key(row.sender, keys, verdict)
    per_hour = int(config["INBOUND_PER_ADDRESS_PER_HOUR"])
    if _recent_from(session, row.rate_key, now - timedelta(hours=1), row.id) >= per_hour:
        return Received(Outcome.RATE_LIMITED, f"over {per_hour} emails this hour")
    bounce = bounces.judge(session, config, message, recipients)
    if bounce is not None:
        outcome = Outcome.BOUNCE if bounce.marked else Outcome.BOUNCE_UNMATCHED
        return Received(outcome, bounce.detail)
    reason = headers.automatic(message, envelope_sender, own_addresses())
    if reason is not None:
        return Received(Outcome.AUTOMATIC, reason)
    if not row.sender:
        return Received(Outcome.NO_SENDER, "no single From address")
    if not domain:
        return Received(Outcome.UNKNOWN_KEY, "replies are off (no INBOUND_DOMAIN)")
    seat = _seat(session, keys)
    if seat is None:
        return Received(Outcome.UNKNOWN_KEY, "to no reply address of a seat")
    loaded = lock_loaded_game(session, seat.game_id)
    game = loaded.game
    assert game.id is not None
    _, player = loaded.seats[seat.letter]
    if row.sender != player.email:
        return _other_sender(session, loaded, seat, player, row.sender)
    return play_reply(session, message, row, loaded, seat, player, now, verdict)


def _seat(session: Session, keys: Sequence[str]) -> Seat | None:
    for key in keys:
        seat = reply_keys.seat_for_key(session, key)
        if seat is not None:
            return seat
    return None


def _other_sender(
    session: Session, loaded: LoadedGame, seat: Seat, player: Player, sender: str
) -> Received:
    game = loaded.game
    assert game.id is not None and player.id is not None
    since = clock.now() - OTHER_SENDER_NOTICE_EVERY
    told = emails_queued_since(session, MailKind.REPLY_OTHER_SENDER, since, player_id=player.id)
    answer = None if told else queue_other_sender(session, loaded, seat.letter, sender)
    return Received(
        Outcome.OTHER_SENDER,
        f"from {sender}, not the seat's address" + ("" if answer else " (owner not told again)"),
        game.id,
        seat.letter,
        answer.id if answer is not None else None,
    )
