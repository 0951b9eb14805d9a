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
5. a reply of the seat (its words, or its Subject when only that names a move): read against
   the position of the email it answers (In-Reply-To, then References, to an outbox row of
   this game to this player: the row's ``ply``). Played when that is the game's position now
   and every part that is no chat names a legal move (``applied``, with a receipt); else
   answered with what was understood, why not and the moves possible now (``refused``,
   ``stale``), except after two such answers to the player within a day with no move played
   by reply between (``loops``: a naive auto-responder's loop). Playable moves from a sender our
   receiving server did not authenticate (``authentication.authenticate``) are not played: the
   seat's own address gets a link to confirm them (``unauthenticated``,
   ``service.inbound.confirm``). A reply with no move in it
   (chat only) to a game that is over (or stale) is not answered (``ignored``).

Nothing is ever answered to an address other than the seat's own, and nothing is answered to a
message that a program sent.
"""

from __future__ import annotations

import email
import email.message
import email.parser
import email.policy
import email.utils
import enum
import hashlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from flask import current_app
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, func, select

import engine
from service import clock
from service.db import session_scope
from service.games import reply_keys
from service.games.loaded import lock_loaded_game
from service.games.state import MAX_MOVES_PER_CALL, apply_to_locked, load_state
from service.inbound import bounces, confirm, headers, loops, mime_shape
from service.inbound.authentication import Verdict, authenticate, rate_key
from service.inbound.reply_text import words_to_read
from service.models import Game, GameStatus, InboundMessage, Player, Seat
from service.outbox.kinds import MailKind
from service.outbox.models import OutboxMessage
from service.outbox.queue import emails_queued_since, game_subject
from service.present.reply_answers import queue_other_sender, queue_receipt, queue_refusal
from service.present.reply_reading import Reading, names_a_move, read_turn

logger = logging.getLogger(__name__)

OTHER_SENDER_NOTICE_EVERY = timedelta(hours=1)
"""At most one "a reply from another address" note to a seat's own address in this time."""


class Outcome(enum.StrEnum):
    """What came of a received email (``InboundMessage.outcome``)."""

    APPLIED = "applied"
    """Its moves were played; a receipt went to the player."""
    REFUSED = "refused"
    """Nothing played (unreadable, ambiguous, illegal, not the player's turn, the game not being
    played, no email of ours answered); the player was told why."""
    STALE = "stale"
    """It answered a position the game has moved past; nothing played; the player was told."""
    DUPLICATE = "duplicate"
    """Its Message-ID was received before: nothing done again (no row of its own)."""
    TOO_LARGE = "too_large"
    MALFORMED = "malformed"
    """Nested too deep or in too many parts to parse (``mime_shape``): kept as dropped, never
    offered again (the SMTP receiver refuses it for good, the IMAP poller marks it handled)."""
    RATE_LIMITED = "rate_limited"
    AUTOMATIC = "automatic"
    """Sent by a program (auto-reply, bulk, list, our own answer): never played or answered."""
    BOUNCE = "bounce"
    """A bounce to one of our emails' signed bounce addresses: its recipient marked bouncing."""
    BOUNCE_UNMATCHED = "bounce_unmatched"
    """A delivery report to no signed bounce address, or a message to one that states no
    permanent failure: dropped, nothing marked."""
    NO_SENDER = "no_sender"
    """No single readable From address."""
    UNKNOWN_KEY = "unknown_key"
    """To no reply address of a seat (unknown, or revoked with the seat's links)."""
    OTHER_SENDER = "other_sender"
    """A valid reply address, from an address not the seat's: not played."""
    UNAUTHENTICATED = "unauthenticated"
    """Playable moves from the seat's address, but its sender was not proven: nothing played,
    the seat's own address was asked to confirm them by link."""
    IGNORED = "ignored"
    """The seat's reply with no move in it, to a game that is over, not started, or moved on."""


@dataclass(frozen=True)
class Received:
    """What ``receive`` did with one email."""

    outcome: Outcome
    detail: str = ""
    game_id: int | None = None
    seat: str | None = None
    answer_id: int | None = None
    """The outbox row of the answer, when one was queued."""


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
        return _other_sender(session, game, seat, player, row.sender)
    return _reply(session, message, row, game, seat, player, now, verdict)


def _seat(session: Session, keys: Sequence[str]) -> Seat | None:
    for key in keys:
        seat = reply_keys.seat_for_key(session, key)
        if seat is not None:
            return seat
    return None


def _other_sender(
    session: Session, game: Game, seat: Seat, player: Player, sender: str
) -> Received:
    assert game.id is not None and player.id is not None
    since = clock.now() - OTHER_SENDER_NOTICE_EVERY
    told = emails_queued_since(session, MailKind.REPLY_OTHER_SENDER, since, player_id=player.id)
    answer = None if told else queue_other_sender(session, game, seat.letter, sender)
    return Received(
        Outcome.OTHER_SENDER,
        f"from {sender}, not the seat's address" + ("" if answer else " (owner not told again)"),
        game.id,
        seat.letter,
        answer.id if answer is not None else None,
    )


def our_subjects(session: Session, game: Game) -> list[str]:
    """The phrases of our own subjects in this game, which a reply's Subject repeats: the game's
    part and each kind's head."""
    heads = [kind.rules.subject for kind in MailKind if kind.rules.subject]
    return [game_subject(session, game), *heads]


def answered_ply(
    session: Session, message: email.message.Message, game: Game, player: Player
) -> int | None:
    """The game's ply when the email this message answers was queued: the nearest Message-ID
    it answers (In-Reply-To, then References from the parent back) that is an email of this
    game to this player. None when it answers none of them."""
    ids = headers.answered_ids(message)
    if not ids:
        return None
    rows = session.exec(
        select(OutboxMessage.message_id, OutboxMessage.ply).where(
            col(OutboxMessage.message_id).in_(ids),
            OutboxMessage.game_id == game.id,
            OutboxMessage.player_id == player.id,
            col(OutboxMessage.ply).is_not(None),
        )
    ).all()
    plies = dict(rows)
    for message_id in ids:
        if message_id in plies:
            return plies[message_id]
    return None


def _reply(
    session: Session,
    message: email.message.Message,
    row: InboundMessage,
    game: Game,
    seat: Seat,
    player: Player,
    now: datetime,
    verdict: Verdict,
) -> Received:
    """A reply from the seat's own address: play it, or say why not."""
    assert game.id is not None
    letter = seat.letter
    in_reply_to = headers.own_message_id(message)
    ruleset = engine.get_ruleset(game.ruleset)
    text = words_to_read(message, ruleset, our_subjects(session, game))
    state = load_state(session, game) if game.deal is not None else None

    def refuse(outcome: Outcome, reason: str, reading: Reading | None = None) -> Received:
        detail = reading.problem if reading is not None and reading.problem else reason
        assert player.id is not None
        if loops.refusals_paused(session, player.id):  # an auto-responder's loop: no answer
            return Received(outcome, f"{detail} ({loops.NOT_ANSWERED})", game.id, letter)
        answer = queue_refusal(
            session, game, state, letter, reason=reason, in_reply_to=in_reply_to,
            written=text, reading=reading,
        )  # fmt: skip
        return Received(outcome, detail, game.id, letter, answer.id if answer else None)

    if state is None or game.status != GameStatus.ACTIVE:
        if not names_a_move(text, ruleset):
            return Received(Outcome.IGNORED, "no move, game not being played", game.id, letter)
        if game.status == GameStatus.FINISHED:
            return refuse(Outcome.REFUSED, "The game is over.")
        return refuse(Outcome.REFUSED, f"This game is {game.status}: no card has been dealt yet.")
    ply = answered_ply(session, message, game, player)
    if ply is None:
        return refuse(
            Outcome.REFUSED,
            "We could not tell which of our emails you answered, so not which moment of the "
            "game you meant. Reply to the latest email of this game.",
        )
    if ply != game.ply:
        if not names_a_move(text, ruleset):
            return Received(Outcome.IGNORED, "no move, in reply to an old email", game.id, letter)
        return refuse(
            Outcome.STALE,
            f"You answered the email of move {ply + 1}, and the game has moved on since: it is "
            f"at move {game.ply + 1} now. Replies count only for the moment of the email they "
            "answer. Look at the game as it is now and reply again.",
        )
    reading = read_turn(text, state, letter)
    if not reading.playable:
        assert reading.problem is not None
        reason = reading.problem
        if any(part.problem for part in reading.parts):
            # The failing part says why, below: the reason only says what follows from it.
            reason = "Part of it cannot be played now, so none of it was played."
        return refuse(Outcome.REFUSED, reason, reading)
    moves = reading.moves
    if not verdict.authenticated:
        asked = confirm.hold(
            session, game, seat, player, row, moves, reason=verdict.reason,
            in_reply_to=in_reply_to,
        )  # fmt: skip
        detail = f"held for confirmation ({verdict.reason})"
        detail += "" if asked else ", owner not asked again"
        return Received(
            Outcome.UNAUTHENTICATED, detail, game.id, letter, asked.id if asked else None
        )
    before = state
    for start in range(0, len(moves), MAX_MOVES_PER_CALL):
        chunk = moves[start : start + MAX_MOVES_PER_CALL]
        state, _ = apply_to_locked(session, game, state, letter, state.ply, chunk, now=now)
    answer = queue_receipt(
        session,
        game,
        state,
        letter,
        moves,
        before=before,
        notes=reading.notes,
        in_reply_to=in_reply_to,
    )
    played = ", ".join(m.action_text() for m in moves)
    return Received(
        Outcome.APPLIED, played, game.id, letter, answer.id if answer is not None else None
    )
