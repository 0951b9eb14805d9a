"""A catalogue of bad and odd replies by email, each handed to ``service.inbound.receive`` as the
SMTP receiver, the IMAP poller or the reply box would: each gets the promised answer (to the
seat's own address, never to anyone else) or silence, and none changes a game that it should
not. On SQLite and PostgreSQL (the ``app`` fixture)."""

# ruff: noqa: E501  (the catalogue is a table: one case a line)

from __future__ import annotations

import email.utils
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from types import SimpleNamespace

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import col, select

import engine
from engine.cards import is_troop, troop_parts
from service.db import session_scope
from service.games.loaded import NO_SNAPSHOTS, LoadedGame, load_game
from service.games.rows import lock_game
from service.games.seats import read_seats, revoke_seat_links
from service.inbound.outcomes import Outcome
from service.inbound.receive import receive
from service.models import AddressStatus, Game, Player
from service.outbox.bounce_address import bounce_address
from service.outbox.models import OutboxMessage
from tests.service.conftest import VALID_FORM
from tests.service.replies import (
    ADDRESSES,
    ReplyGame,
    inbound_rows,
    last_outbox_id,
    latest_email,
    new_game,
    outbox_after,
    position,
    reply_bytes,
    turn_text,
)

CAROL = "carol@example.org"
"""Invited to a second game, which is not dealt."""
REPLY_KINDS = {"reply_receipt", "reply_refused", "reply_other_sender"}


@dataclass
class Inbound:
    """One email as a way in hands it to ``receive``."""

    raw: bytes
    recipients: tuple[str, ...] = ()
    envelope_sender: str | None = None
    size: int | None = None
    repeat: int = 1
    """Delivered this many times (the outcome checked is the last one's)."""


@dataclass
class Ctx(ReplyGame):
    """The game of one case, at the start of the first player's first turn."""

    other: str = "B"
    notes: dict[str, object] = field(default_factory=dict)

    @property
    def other_email(self) -> str:
        return ADDRESSES[self.other]

    def play(self) -> str:
        return self.turn().split()[0]

    def reply(self, text: str, **options: object) -> Inbound:
        return Inbound(reply_bytes(self.row(), text, **options))  # type: ignore[arg-type]

    def receive(self, inbound: Inbound) -> Outcome:
        with self.app.app_context():
            result = receive(
                inbound.raw,
                recipients=inbound.recipients,
                envelope_sender=inbound.envelope_sender,
                size=inbound.size,
            )
        return result.outcome


@dataclass(frozen=True)
class Case:
    name: str
    make: Callable[[Ctx], Inbound]
    outcome: Outcome
    answered: str | None = None
    """Who gets an answer: "mover", "other" (a seat letter's owner), or None (silence)."""
    changes: bool = False
    """Whether the game's move log grows."""
    check: Callable[[Ctx, list[OutboxMessage]], None] | None = None


def _applied_once(ctx: Ctx, answers: list[OutboxMessage]) -> None:
    receipts = [a for a in answers if a.kind == "reply_receipt"]
    assert len(receipts) == 1


def _no_injection(ctx: Ctx, answers: list[OutboxMessage]) -> None:
    for row in outbox_after(ctx.app, 0):
        assert "victim" not in row.mime.lower(), row.mime[:600]
        assert "bcc" not in "".join(row.headers).lower()


def _marked_bouncing(ctx: Ctx, answers: list[OutboxMessage]) -> None:
    with ctx.app.app_context(), session_scope() as session:
        player = session.exec(select(Player).where(Player.email == ctx.mover_email)).one()
        status = session.get(AddressStatus, player.id)
        assert status is not None and status.bounced_at is not None
        assert "5.1.1" in (status.bounce_reason or "")


def _nobody_bouncing(ctx: Ctx, answers: list[OutboxMessage]) -> None:
    with ctx.app.app_context(), session_scope() as session:
        bouncing = select(AddressStatus).where(col(AddressStatus.bounced_at).is_not(None))
        assert session.exec(bouncing).all() == []


def _game_over(ctx: Ctx, answers: list[OutboxMessage]) -> None:
    assert position(ctx.app, ctx.game_id).status == "finished"


def _mentions(*words: str) -> Callable[[Ctx, list[OutboxMessage]], None]:
    def check(ctx: Ctx, answers: list[OutboxMessage]) -> None:
        (answer,) = [a for a in answers if a.kind in REPLY_KINDS]
        for word in words:
            assert word in answer.text_body, (word, answer.text_body)

    return check


# ------------------------------------------------------------------------------- building blocks


def bounce_address_of(ctx: Ctx, seat: str | None = None) -> str:
    """The envelope sender of the seat's latest email: where its bounce goes (VERP)."""
    address = bounce_address(ctx.app.config, ctx.row(seat).id or 0)
    assert address is not None
    return address


def dsn(
    ctx: Ctx,
    *,
    message_id: str,
    status: str = "5.1.1",
    action: str = "failed",
    to: str | None = None,
    envelope: bool = True,
) -> Inbound:
    """A delivery-status report (RFC 3464) for ``message_id`` sent to the mover, delivered to
    ``to`` (by default the Reply-To, as a forger who knows only a Message-ID would): by SMTP
    (``envelope``), else from a mailbox (only its To header says where it went)."""
    to = to or ctx.row().headers["Reply-To"]
    raw = (
        "From: Mail Delivery System <MAILER-DAEMON@mx.example.org>\r\n"
        f"To: {to}\r\n"
        "Subject: Undelivered Mail Returned to Sender\r\n"
        f"Message-ID: <dsn.{message_id.strip('<>').replace('@', '.')}@mx.example.org>\r\n"
        "Auto-Submitted: auto-replied\r\n"
        "MIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="B"\r\n\r\n'
        "--B\r\nContent-Type: text/plain\r\n\r\nThe mail could not be delivered.\r\n"
        "--B\r\nContent-Type: message/delivery-status\r\n\r\n"
        "Reporting-MTA: dns; mx.example.org\r\n\r\n"
        f"Final-Recipient: rfc822; {ctx.mover_email}\r\nAction: {action}\r\n"
        f"Status: {status}\r\nDiagnostic-Code: smtp; 550 5.1.1 User unknown\r\n\r\n"
        "--B\r\nContent-Type: text/rfc822-headers\r\n\r\n"
        f"Message-ID: {message_id}\r\nFrom: battleline@bl.test\r\nTo: {ctx.mover_email}\r\n"
        "Subject: Your turn\r\n\r\n--B--\r\n"
    ).encode()
    return Inbound(raw, recipients=(to,) if envelope else (), envelope_sender="")


def other_key_to(ctx: Ctx) -> str:
    return ctx.row(ctx.other).headers["Reply-To"]


def revoke_then_reply(ctx: Ctx) -> Inbound:
    inbound = ctx.reply(ctx.turn())
    with ctx.app.app_context(), session_scope() as session:
        lock_game(session, ctx.game_id)
        seat, _ = read_seats(session, ctx.game_id)[ctx.mover]
        revoke_seat_links(session, seat)
    return inbound


def stale(ctx: Ctx, text: str) -> Inbound:
    old = ctx.row()
    assert ctx.receive(ctx.reply(ctx.play())) is Outcome.APPLIED  # the card: the ply moves on
    return Inbound(reply_bytes(old, text))


def duplicate(ctx: Ctx) -> Inbound:
    inbound = ctx.reply(ctx.turn(), message_id="<same-message@mail.example.org>")
    inbound.repeat = 2
    return inbound


def same_id_other_body(ctx: Ctx) -> Inbound:
    first = ctx.reply(ctx.turn(), message_id="<same-again@mail.example.org>")
    assert ctx.receive(first) is Outcome.APPLIED
    return Inbound(
        reply_bytes(ctx.row(kind="your_turn"), "resign", message_id="<same-again@mail.example.org>")
    )


def without_message_id(ctx: Ctx) -> Inbound:
    raw = ctx.reply(ctx.turn()).raw
    lines = [line for line in raw.split(b"\r\n") if not line.lower().startswith(b"message-id:")]
    return Inbound(b"\r\n".join(lines), repeat=2)


def rate_limited(ctx: Ctx) -> Inbound:
    ctx.app.config["INBOUND_PER_ADDRESS_PER_HOUR"] = 3
    for n in range(3):
        assert ctx.receive(ctx.reply(f"hello {n}")) is Outcome.REFUSED
    return ctx.reply(ctx.turn())


def other_sender_twice(ctx: Ctx) -> Inbound:
    first = ctx.reply(ctx.turn(), sender="Mallory <mallory@evil.example>")
    assert ctx.receive(first) is Outcome.OTHER_SENDER
    ctx.notes["first_notice"] = last_outbox_id(ctx.app)
    return ctx.reply(ctx.turn(), sender="Mallory <mallory2@evil.example>")


def one_notice(ctx: Ctx, answers: list[OutboxMessage]) -> None:
    assert answers == []  # the second stranger's email: the owner was told an hour ago


def second_reply_to_the_receipt(ctx: Ctx) -> Inbound:
    card, draw = ctx.turn().split()
    assert ctx.receive(ctx.reply(card)) is Outcome.APPLIED
    receipt = ctx.row(kind="reply_receipt")
    return Inbound(reply_bytes(receipt, draw))


def reply_to_the_refusal(ctx: Ctx) -> Inbound:
    assert ctx.receive(ctx.reply("what?")) is Outcome.REFUSED
    refusal = ctx.row(kind="reply_refused")
    return Inbound(reply_bytes(refusal, ctx.turn()))


def after_the_end(ctx: Ctx, text: str) -> Inbound:
    assert ctx.receive(ctx.reply("resign")) is Outcome.APPLIED
    return Inbound(reply_bytes(ctx.row(ctx.mover, kind="game_over"), text))


def not_dealt(ctx: Ctx, text: str) -> Inbound:
    with ctx.app.app_context(), session_scope() as session:
        from service.lobby.forms import parse_new_game
        from service.lobby.lifecycle import create_game

        game, _ = create_game(
            session, parse_new_game({**VALID_FORM, "b_email": CAROL}),
            creator_present=True,
        )  # fmt: skip
        game_id = game.id
    assert game_id is not None
    invitation = latest_email(ctx.app, game_id, CAROL, "invitation")
    return Inbound(reply_bytes(invitation, text))


def oversized(ctx: Ctx) -> Inbound:
    padding = "x" * 80
    text = ctx.turn() + "\n\n" + "\n".join(padding for _ in range(14_000))
    inbound = ctx.reply(text)
    assert len(inbound.raw) > ctx.app.config["INBOUND_MAX_BYTES"]
    return inbound


def header_injection_in_message_id(ctx: Ctx) -> Inbound:
    raw = ctx.reply("hello?", message_id="<abc@mail.example.org>").raw
    raw = raw.replace(
        b"Message-ID: <abc@mail.example.org>",
        b"Message-ID: <abc@mail.example.org>\r\n Bcc: victim@evil.example",
    )
    return Inbound(raw)


def header_injection_encoded(ctx: Ctx) -> Inbound:
    """A display name and a subject whose encoded words decode to a line break and a Bcc."""
    raw = ctx.reply("hello?", sender=ctx.mover_email, subject="Re: x").raw
    raw = raw.replace(
        f"From: {ctx.mover_email}".encode(),
        f"From: =?utf-8?q?Al=0D=0ABcc:_victim@evil.example?= <{ctx.mover_email}>".encode(),
    ).replace(b"Subject: Re: x", b"Subject: =?utf-8?q?Re:_x=0D=0ABcc:_victim@evil.example?=")
    assert b"victim" in raw
    return Inbound(raw)


def html_only(ctx: Ctx) -> Inbound:
    html = (
        f"<div dir='ltr'>{ctx.turn().replace('>', '&gt;')}</div><div class='gmail_quote'>"
        "<div class='gmail_attr'>On Mon, Battle Line wrote:</div><blockquote>"
        "<p>c1 c2 resign</p></blockquote></div>"
    )
    return ctx.reply("", html=html, quote=False)


def bottom_posted(ctx: Ctx) -> Inbound:
    row = ctx.row()
    quoted = "\n".join(f"> {line}".rstrip() for line in row.text_body.splitlines())
    text = f"On Mon, 5 Jan 2026, Battle Line by mail wrote:\n{quoted}\n\n{ctx.turn()}\n"
    return Inbound(reply_bytes(row, text, quote=False))


def signature_with_moves(ctx: Ctx) -> Inbound:
    return ctx.reply(f"{ctx.turn()}\n\n-- \nAlice | c1 | resign")


def no_threading(ctx: Ctx) -> Inbound:
    return ctx.reply(ctx.turn(), in_reply_to=None, references=None)


def answering_another_game(ctx: Ctx) -> Inbound:
    return ctx.reply(ctx.turn(), in_reply_to="<nothing.of.ours@bl.test>", references=None)


def wrong_seat(ctx: Ctx) -> Inbound:
    other_row = ctx.row(ctx.other)
    return Inbound(reply_bytes(other_row, ctx.turn()))


def both_keys(ctx: Ctx) -> Inbound:
    return Inbound(reply_bytes(ctx.row(), ctx.turn(), extra={"Cc": other_key_to(ctx)}))


def by_value(ctx: Ctx) -> Inbound:
    """The turn with its card named by value alone: the only troop of that value in hand."""
    state = position(ctx.app, ctx.game_id).state
    hand = state.hands[engine.SEATS.index(state.to_move)]
    values = [troop_parts(card)[1] for card in hand if is_troop(card)]
    play, ending = ctx.turn().split()
    card, flag = play.split(">")
    value = troop_parts(card)[1]
    assert values.count(value) == 1, (hand, play)
    return ctx.reply(f"Play the {value} on flag {flag} and draw {ending}")


def value_held_twice(ctx: Ctx) -> Inbound:
    """A value without a colour that two troops in hand have: the answer names both."""
    state = position(ctx.app, ctx.game_id).state
    hand = state.hands[engine.SEATS.index(state.to_move)]
    troops = [card for card in hand if is_troop(card)]
    values = [troop_parts(card)[1] for card in troops]
    value = next(v for v in values if values.count(v) == 2)
    ctx.notes["codes"] = [f"{card}>2" for card in troops if troop_parts(card)[1] == value]
    return ctx.reply(f"Hi! {value} to 2, troops")


def _names_both(ctx: Ctx, answers: list[OutboxMessage]) -> None:
    (answer,) = answers
    codes = ctx.notes["codes"]
    assert isinstance(codes, list)
    for code in codes:
        assert code in answer.text_body, answer.text_body
    assert "could mean 2 moves" in " ".join(answer.text_body.split())


def read_receipt(ctx: Ctx) -> Inbound:
    """A read receipt (RFC 8098) for the mover's latest email, as Thunderbird sends it."""
    row = ctx.row()
    raw = (
        f"From: {ctx.mover_email}\r\nTo: {row.headers['Reply-To']}\r\n"
        f"Subject: Return Receipt (displayed) - {row.subject}\r\n"
        f"Message-ID: <mdn.{ctx.game_id}@mail.example.org>\r\nIn-Reply-To: {row.message_id}\r\n"
        f"References: {row.message_id}\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=disposition-notification; boundary="M"\r\n\r\n'
        "--M\r\nContent-Type: text/plain\r\n\r\nThis is a Return Receipt for the mail that you sent.\r\n"
        "--M\r\nContent-Type: message/disposition-notification\r\n\r\n"
        f"Reporting-UA: mail.example.org; Mozilla Thunderbird\r\nOriginal-Message-ID: {row.message_id}\r\n"
        "Disposition: manual-action/MDN-sent-manually; displayed\r\n\r\n--M--\r\n"
    ).encode()
    return Inbound(raw)


def qmail_bounce(ctx: Ctx, to: str | None = None) -> Inbound:
    """qmail's plain bounce, from a mailbox that kept no Return-Path: no delivery report. To
    ``to`` (by default the Reply-To)."""
    row = ctx.row()
    raw = (
        f"From: MAILER-DAEMON@mail.example.net\r\nTo: {to or row.headers['Reply-To']}\r\n"
        "Subject: failure notice\r\nMessage-ID: <qmail.1@mail.example.net>\r\n\r\n"
        "Hi. This is the qmail-send program at mail.example.net.\r\n"
        f"<{ctx.mover_email}>:\r\nSorry, no mailbox here by that name. (#5.1.1)\r\n\r\n"
        f"--- Below this line is a copy of the message.\r\n\r\n{ctx.turn()}\r\n"
    ).encode()
    return Inbound(raw)


def plain_bounce(ctx: Ctx, text: str, *, to: str, subject: str) -> Inbound:
    """A plain-text report of a mail system (no delivery-status part), by SMTP to ``to``."""
    raw = (
        f"From: Mail Delivery System <Mailer-Daemon@mx.example.net>\r\nTo: {to}\r\n"
        f"Subject: {subject}\r\nMessage-ID: <plain.{abs(hash(text))}@mx.example.net>\r\n"
        "Auto-Submitted: auto-replied\r\n\r\n"
        f"{text}\r\n------ This is a copy of the message, including all the headers. ------\r\n"
        f"Message-ID: {ctx.row().message_id}\r\n\r\n{ctx.turn()}\r\n"
    ).encode()
    return Inbound(raw, recipients=(to,), envelope_sender="")


EXIM_FAILED = (
    "This message was created automatically by mail delivery software.\r\n\r\n"
    "A message that you sent could not be delivered to one or more of its\r\nrecipients. "
    "This is a permanent error. The following address(es) failed:\r\n\r\n  {address}\r\n"
    "    SMTP error from remote mail server after RCPT TO:<{address}>:\r\n"
    "    550 5.1.1 User unknown\r\n"
)
POSTFIX_FAILED = (
    "This is the mail system at host mx.example.net.\r\n\r\nI'm sorry to have to inform you "
    "that your message could not\r\nbe delivered to one or more recipients.\r\n\r\n"
    "<{address}>: host mx.example.net said: 550 5.1.1 <{address}>: Recipient address rejected\r\n"
)
POSTFIX_DELAYED = (
    "This is the mail system at host mx.example.net.\r\n\r\n"
    "####### THIS IS A WARNING ONLY.  YOU DO NOT NEED TO RESEND YOUR MESSAGE. #######\r\n\r\n"
    "Your message could not be delivered for more than 4 hour(s).\r\n"
    "It will be retried until it is 5 day(s) old.\r\n"
)
EXIM_DELAYED = (
    "This message was created automatically by mail delivery software.\r\n\r\n"
    "A message that you sent has not yet been delivered to one or more of its\r\n"
    "recipients after more than 24 hours on the queue on mx.example.net.\r\n"
)


def forged_token(ctx: Ctx) -> str:
    """The mover's bounce address with another row's id and the same signature."""
    local, _, domain = bounce_address_of(ctx).partition("@")
    number, _, signature = local.partition("+")[2].partition("-")
    return f"bounces+{int(number) + 1}-{signature}@{domain}"


def other_seats_token_to_the_mover(ctx: Ctx) -> Inbound:
    """The other seat's own bounce address (the only one it can see) with a report that names
    the mover: only the other seat's address may be marked, never the mover's."""
    return dsn(ctx, message_id=ctx.row().message_id, to=bounce_address_of(ctx, ctx.other))


def _other_marked_not_mover(ctx: Ctx, answers: list[OutboxMessage]) -> None:
    with ctx.app.app_context(), session_scope() as session:
        bouncing = (
            select(Player.email)
            .join(AddressStatus)
            .where(col(AddressStatus.bounced_at).is_not(None))
        )
        assert session.exec(bouncing).all() == [ctx.other_email]


def _upper(ctx: Ctx) -> str:
    name = "ALICE" if ctx.mover == "A" else "BOB"
    return f'"{name} (Mobile)" <{ctx.mover_email.upper()}>'


CASES = [
    # --- replies that play
    Case("notation_whole_turn", lambda c: c.reply(c.turn()), Outcome.APPLIED, "mover", True, _applied_once),
    Case("lower_case_and_spaces", lambda c: c.reply("  " + c.turn().lower().replace(">", " > ") + "  "), Outcome.APPLIED, "mover", True),
    Case("plain_words", lambda c: c.reply(f"Hi! I play {c.play().replace('>', ' on flag ')} and draw a {c.turn().split()[1]} card. Cheers"), Outcome.APPLIED, "mover", True),
    Case("card_only_turn_goes_on", lambda c: c.reply(c.play()), Outcome.APPLIED, "mover", True, _mentions("Your turn goes on")),
    Case("second_reply_to_the_receipt", second_reply_to_the_receipt, Outcome.APPLIED, "mover", True),
    Case("reply_to_the_refusal", reply_to_the_refusal, Outcome.APPLIED, "mover", True),
    Case("html_only", html_only, Outcome.APPLIED, "mover", True),
    Case("top_posting_with_quote", lambda c: c.reply(c.turn()), Outcome.APPLIED, "mover", True),
    Case("bottom_posting", bottom_posted, Outcome.APPLIED, "mover", True),
    Case("signature_with_moves_is_not_read", signature_with_moves, Outcome.APPLIED, "mover", True),
    Case("display_name_and_upper_case_sender", lambda c: c.reply(c.turn(), sender=_upper(c)), Outcome.APPLIED, "mover", True),
    Case("unicode_fullwidth", lambda c: c.reply(c.turn().upper().replace(">", "＞").replace("R", "Ｒ") + " 👍"), Outcome.APPLIED, "mover", True),
    Case("auto_submitted_no_is_a_person", lambda c: c.reply(c.turn(), extra={"Auto-Submitted": "no"}), Outcome.APPLIED, "mover", True),
    Case("cc_to_the_other_seats_address", both_keys, Outcome.APPLIED, "mover", True),
    Case("resign", lambda c: c.reply("I resign."), Outcome.APPLIED, "mover", True, _game_over),
    Case("value_without_a_colour", by_value, Outcome.APPLIED, "mover", True, _applied_once),
    Case("chat_around_the_moves", lambda c: c.reply(f"Nice play on flag 2! {c.turn()}. Is flag 7 really still open?\nSee you Friday"), Outcome.APPLIED, "mover", True, _applied_once),
    Case("move_only_in_the_subject", lambda c: c.reply("", subject=f"Re: {c.row().subject} {c.turn()}"), Outcome.APPLIED, "mover", True, _applied_once),
    # --- replies answered, nothing changed
    Case("quoted_history_only", lambda c: c.reply(""), Outcome.REFUSED, "mover", False, _mentions("We found no move")),
    Case("chatter_only", lambda c: c.reply("Thanks, nice game so far! 😀"), Outcome.REFUSED, "mover", False),
    Case("illegal_card_not_in_hand", lambda c: c.reply("R9>9 troops" if "R9" not in c.turn() else "O9>9"), Outcome.REFUSED, "mover", False, _mentions("not in your hand")),
    Case("ambiguous_card_without_flag", lambda c: c.reply(c.play().split(">")[0]), Outcome.REFUSED, "mover", False, _mentions("could mean")),
    Case("draw_before_the_card", lambda c: c.reply("troops"), Outcome.REFUSED, "mover", False),
    Case("second_part_illegal_all_or_nothing", lambda c: c.reply(f"{c.play()} {c.play()}"), Outcome.REFUSED, "mover", False),
    Case("past_the_end_of_the_turn", lambda c: c.reply(f"{c.turn()} {c.play()}"), Outcome.REFUSED, "mover", False, _mentions("your turn is over")),
    Case("value_held_twice_asks_which", value_held_twice, Outcome.REFUSED, "mover", False, _names_both),
    Case("negated", lambda c: c.reply(f"don't {c.play()}"), Outcome.REFUSED, "mover", False),
    Case("resign_with_more", lambda c: c.reply(f"resign {c.play()}"), Outcome.REFUSED, "mover", False),
    Case("move_for_the_wrong_seat", wrong_seat, Outcome.REFUSED, "other", False, _mentions("not your turn")),
    Case("stale", lambda c: stale(c, c.turn()), Outcome.STALE, "mover", True, _mentions("moved on")),
    Case("no_in_reply_to_or_references", no_threading, Outcome.REFUSED, "mover", False, _mentions("could not tell")),
    Case("answers_no_email_of_this_game", answering_another_game, Outcome.REFUSED, "mover", False),
    Case("after_the_end_with_a_move", lambda c: after_the_end(c, "R1>1"), Outcome.REFUSED, "mover", True, _mentions("game is over")),
    Case("not_dealt_with_a_move", lambda c: not_dealt(c, "R1>1 troops"), Outcome.REFUSED, CAROL, False),
    Case("crlf_in_message_id", header_injection_in_message_id, Outcome.REFUSED, "mover", False, _no_injection),
    Case("crlf_encoded_in_names_and_subject", header_injection_encoded, Outcome.REFUSED, "mover", False, _no_injection),
    # --- silence
    Case("stale_thanks", lambda c: stale(c, "thanks!"), Outcome.IGNORED, None, True),
    Case("stale_remark", lambda c: stale(c, "Nice play on flag 2! Is flag 7 really still open?"), Outcome.IGNORED, None, True),
    Case("subject_of_ours_is_no_move", lambda c: c.reply(""), Outcome.REFUSED, "mover", False, _mentions("We found no move")),
    Case("after_the_end_thanks", lambda c: after_the_end(c, "Good game, thanks!"), Outcome.IGNORED, None, True),
    Case("not_dealt_chatter", lambda c: not_dealt(c, "Sure, let's play"), Outcome.IGNORED, None),
    Case("wrong_key", lambda c: c.reply(c.turn(), to="play+zzzzzzzzzzzz@localhost"), Outcome.UNKNOWN_KEY),
    Case("malformed_key", lambda c: c.reply(c.turn(), to="play+../../etc@localhost"), Outcome.UNKNOWN_KEY),
    Case("key_of_another_domain", lambda c: c.reply(c.turn(), to=c.row().headers["Reply-To"].replace("@localhost", "@evil.example")), Outcome.UNKNOWN_KEY),
    Case("no_reply_address", lambda c: c.reply(c.turn(), to="battleline@localhost"), Outcome.UNKNOWN_KEY),
    Case("revoked_key", revoke_then_reply, Outcome.UNKNOWN_KEY),
    Case("wrong_sender", lambda c: c.reply(c.turn(), sender="Mallory <mallory@evil.example>"), Outcome.OTHER_SENDER, "mover", False, _mentions("mallory@evil.example")),
    Case("wrong_sender_again_within_the_hour", other_sender_twice, Outcome.OTHER_SENDER, None, False, one_notice),
    Case("the_other_players_address", lambda c: c.reply(c.turn(), to=other_key_to(c)), Outcome.OTHER_SENDER, "other", False),
    Case("two_from_addresses", lambda c: c.reply(c.turn(), sender=f"{c.mover_email}, mallory@evil.example"), Outcome.NO_SENDER),
    Case("unreadable_from", lambda c: c.reply(c.turn(), sender="nobody"), Outcome.NO_SENDER),
    Case("duplicate_message_id", duplicate, Outcome.DUPLICATE, "mover", True, _applied_once),
    Case("same_message_id_other_text", same_id_other_body, Outcome.DUPLICATE, "mover", True),
    Case("no_message_id_same_bytes_twice", without_message_id, Outcome.DUPLICATE, "mover", True, _applied_once),
    Case("auto_submitted_auto_replied", lambda c: c.reply(c.turn(), extra={"Auto-Submitted": "auto-replied"}), Outcome.AUTOMATIC),
    Case("auto_submitted_auto_generated", lambda c: c.reply(c.turn(), extra={"Auto-Submitted": "auto-generated; owner-email=x@y"}), Outcome.AUTOMATIC),
    Case("precedence_bulk", lambda c: c.reply(c.turn(), extra={"Precedence": "bulk"}), Outcome.AUTOMATIC),
    Case("precedence_junk", lambda c: c.reply(c.turn(), extra={"Precedence": "junk"}), Outcome.AUTOMATIC),
    Case("precedence_list", lambda c: c.reply(c.turn(), extra={"Precedence": "list"}), Outcome.AUTOMATIC),
    Case("x_autoreply", lambda c: c.reply(c.turn(), extra={"X-Autoreply": "yes"}), Outcome.AUTOMATIC),
    Case("x_autorespond", lambda c: c.reply(c.turn(), extra={"X-Autorespond": "Out of office"}), Outcome.AUTOMATIC),
    Case("list_id", lambda c: c.reply(c.turn(), extra={"List-Id": "<games.lists.example.org>"}), Outcome.AUTOMATIC),
    Case("out_of_office_subject", lambda c: c.reply("I am away until Monday.", subject="Out of Office: Your turn"), Outcome.AUTOMATIC),
    Case("abwesenheitsnotiz_subject", lambda c: c.reply("Ich bin nicht da.", subject="Abwesenheitsnotiz: Your turn"), Outcome.AUTOMATIC),
    Case("reponse_automatique_subject", lambda c: c.reply("Absent.", subject="=?utf-8?q?R=C3=A9ponse_automatique=C2=A0:_Your_turn?="), Outcome.AUTOMATIC),
    Case("read_receipt_mdn", read_receipt, Outcome.AUTOMATIC),
    Case("read_receipt_by_subject", lambda c: c.reply("Your message was read.", subject=f"Read: {c.row().subject}"), Outcome.AUTOMATIC),
    Case("precedence_auto_reply", lambda c: c.reply(c.turn(), extra={"Precedence": "auto_reply"}), Outcome.AUTOMATIC),
    Case("qmail_failure_notice", qmail_bounce, Outcome.AUTOMATIC),
    Case("null_envelope_sender", lambda c: Inbound(c.reply(c.turn()).raw, envelope_sender=""), Outcome.AUTOMATIC),
    Case("return_path_null", lambda c: c.reply(c.turn(), extra={"Return-Path": "<>"}), Outcome.AUTOMATIC),
    Case("our_own_answer_looping_back", lambda c: c.reply(c.turn(), sender="Battle Line by mail <battleline@localhost>"), Outcome.AUTOMATIC),
    Case("bounce_to_our_bounce_address", lambda c: dsn(c, message_id=c.row().message_id, to=bounce_address_of(c)), Outcome.BOUNCE, None, False, _marked_bouncing),
    Case("bounce_from_a_mailbox_by_its_to_header", lambda c: dsn(c, message_id="<any@mx.example.org>", to=bounce_address_of(c), envelope=False), Outcome.BOUNCE, None, False, _marked_bouncing),
    Case("bounce_knowing_only_the_message_id", lambda c: dsn(c, message_id=c.row().message_id), Outcome.BOUNCE_UNMATCHED, None, False, _nobody_bouncing),
    Case("bounce_of_a_stranger_email", lambda c: dsn(c, message_id="<forged@evil.example>"), Outcome.BOUNCE_UNMATCHED, None, False, _nobody_bouncing),
    Case("bounce_address_only_in_to_of_an_smtp_envelope", lambda c: Inbound(dsn(c, message_id=c.row().message_id, to=bounce_address_of(c)).raw, recipients=(c.row().headers["Reply-To"],), envelope_sender=""), Outcome.BOUNCE_UNMATCHED, None, False, _nobody_bouncing),
    Case("bounce_with_a_forged_token", lambda c: dsn(c, message_id=c.row().message_id, to=forged_token(c)), Outcome.BOUNCE_UNMATCHED, None, False, _nobody_bouncing),
    Case("bounce_to_the_other_seats_address_names_the_mover", other_seats_token_to_the_mover, Outcome.BOUNCE, None, False, _other_marked_not_mover),
    Case("temporary_delivery_delay", lambda c: dsn(c, message_id=c.row().message_id, status="4.4.1", action="delayed", to=bounce_address_of(c)), Outcome.BOUNCE_UNMATCHED, None, False, _nobody_bouncing),
    Case("qmail_bounce_to_our_bounce_address", lambda c: Inbound(qmail_bounce(c, bounce_address_of(c)).raw, recipients=(bounce_address_of(c),), envelope_sender=""), Outcome.BOUNCE, None, False, _marked_bouncing),
    Case("exim_bounce_to_our_bounce_address", lambda c: plain_bounce(c, EXIM_FAILED.format(address=c.mover_email), to=bounce_address_of(c), subject="Mail delivery failed: returning message to sender"), Outcome.BOUNCE, None, False, _marked_bouncing),
    Case("postfix_bounce_to_our_bounce_address", lambda c: plain_bounce(c, POSTFIX_FAILED.format(address=c.mover_email), to=bounce_address_of(c), subject="Undelivered Mail Returned to Sender"), Outcome.BOUNCE, None, False, _marked_bouncing),
    Case("postfix_delay_warning", lambda c: plain_bounce(c, POSTFIX_DELAYED, to=bounce_address_of(c), subject="Delayed Mail (still being retried)"), Outcome.BOUNCE_UNMATCHED, None, False, _nobody_bouncing),
    Case("exim_delay_warning", lambda c: plain_bounce(c, EXIM_DELAYED, to=bounce_address_of(c), subject="Warning: message delayed"), Outcome.BOUNCE_UNMATCHED, None, False, _nobody_bouncing),
    Case("exim_bounce_without_a_token", lambda c: plain_bounce(c, EXIM_FAILED.format(address=c.mover_email), to=c.row().headers["Reply-To"], subject="Mail delivery failed"), Outcome.AUTOMATIC, None, False, _nobody_bouncing),
    Case("auto_reply_to_our_bounce_address", lambda c: Inbound(c.reply("I am away until Monday.", to=bounce_address_of(c), subject="Out of Office").raw, recipients=(bounce_address_of(c),)), Outcome.BOUNCE_UNMATCHED, None, False, _nobody_bouncing),
    Case("oversized", oversized, Outcome.TOO_LARGE),
    Case("rate_limited", rate_limited, Outcome.RATE_LIMITED),
]  # fmt: skip


def test_the_catalogue_is_long_enough() -> None:
    assert len(CASES) >= 40
    assert len({case.name for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_a_reply(app: Flask, client: FlaskClient, case: Case) -> None:
    game_id, start = new_game(app, client)
    other = next(s for s in ADDRESSES if s != start.to_move)
    ctx = Ctx(app, client, game_id, start.to_move, other)
    before = last_outbox_id(app)
    inbound = case.make(ctx)
    # What the case's own set-up played or answered is its business; the email under test:
    log_before = position(app, game_id).log
    answers_before = last_outbox_id(app)
    outcomes = [ctx.receive(inbound) for _ in range(inbound.repeat)]
    assert outcomes[-1] is case.outcome, outcomes

    after = position(app, game_id)
    if case.changes:
        assert after.log != start.log or after.status != start.status
    else:
        assert after.log == log_before, (log_before, after.log)
        assert after.log == start.log

    new_rows = outbox_after(app, before)
    # Nobody but the seats' own addresses ever gets anything.
    assert {r.recipient for r in new_rows} <= {*ADDRESSES.values(), CAROL}
    answers = [r for r in outbox_after(app, answers_before) if r.kind in REPLY_KINDS]
    if case.answered is None:
        assert answers == [] or case.outcome is Outcome.DUPLICATE, [a.kind for a in answers]
    else:
        to = {"mover": ctx.mover_email, "other": ctx.other_email}.get(case.answered, case.answered)
        if case.outcome is not Outcome.DUPLICATE:
            assert [a.recipient for a in answers] == [to]
        for answer in answers:
            assert answer.headers["Auto-Submitted"] == "auto-replied"
            assert answer.headers["Reply-To"].startswith("play+")
    if case.check is not None:
        case.check(ctx, answers)
    rows = inbound_rows(app)
    assert rows and rows[-1].outcome in {o.value for o in Outcome}


def test_the_answer_threads_after_the_players_email(app: Flask, client: FlaskClient) -> None:
    game_id, start = new_game(app, client)
    ctx = Ctx(app, client, game_id, start.to_move, "B")
    row = ctx.row()
    message_id = email.utils.make_msgid(domain="mail.example.org")
    assert ctx.receive(Inbound(reply_bytes(row, ctx.turn(), message_id=message_id))) is (
        Outcome.APPLIED
    )
    receipt = ctx.row(kind="reply_receipt")
    assert receipt.headers["In-Reply-To"] == message_id
    assert receipt.headers["References"].split()[-1] == message_id
    assert receipt.subject.startswith("Played: ")
    assert receipt.ply == position(app, game_id).ply


def test_a_reply_key_is_per_seat_and_revoked_with_the_seats_links(
    app: Flask, client: FlaskClient
) -> None:
    game_id, _ = new_game(app, client)
    a = latest_email(app, game_id, ADDRESSES["A"]).headers["Reply-To"]
    b = latest_email(app, game_id, ADDRESSES["B"]).headers["Reply-To"]
    assert a != b and a.endswith("@localhost") and b.startswith("play+")
    with app.app_context(), session_scope() as session:
        game = session.get(Game, game_id)
        assert game is not None
        seat, _ = read_seats(session, game_id)["A"]
        revoke_seat_links(session, seat)
    ctx = Ctx(app, client, game_id, position(app, game_id).to_move, "B")
    with app.app_context(), session_scope() as session:
        from service.outbox.queue import reply_address

        player = session.exec(select(Player).where(Player.email == ADDRESSES["A"])).one()
        assert player.id is not None
        loaded = load_game(session, game_id)
        assert reply_address(session, loaded, player.id) not in (a, None)
    assert ctx is not None


def test_no_reply_to_without_an_inbound_domain(database_url: str) -> None:
    from tests.service.conftest import make_test_app

    quiet = make_test_app(database_url, INBOUND_DOMAIN="")
    try:
        with quiet.app_context(), session_scope() as session:
            from service.outbox.queue import reply_address

            game = Game(
                id=1, public_id="p1", ruleset="schotten-totten", claims="advanced",
                rules_version="1", seed="s", seed_commitment="c",
            )  # fmt: skip
            nowhere = LoadedGame(game, {}, None, NO_SNAPSHOTS)
            assert reply_address(session, nowhere, 1) is None
    finally:
        from service.db import get_engine

        get_engine(quiet).dispose()


def test_the_received_rows_count_per_address(app: Flask, client: FlaskClient) -> None:
    game_id, start = new_game(app, client)
    ctx = Ctx(app, client, game_id, start.to_move, "B")
    ctx.receive(ctx.reply("hello"))
    ctx.receive(ctx.reply("hello again"))
    rows = inbound_rows(app)
    assert [r.sender for r in rows] == [ctx.mover_email] * 2
    assert all(r.received_at > rows[0].received_at - timedelta(seconds=5) for r in rows)
    assert SimpleNamespace(outcome=rows[-1].outcome).outcome == "refused"


def test_the_receipt_says_what_was_passed_over(app: Flask, client: FlaskClient) -> None:
    """``claim N`` for a flag already the player's is no error: the receipt says so."""
    from service.present.reply_answers import queue_receipt
    from service.present.reply_reading import read_turn

    game_id, start = new_game(app, client)
    reading = read_turn(turn_text(start.state), start.state, start.to_move)
    note = "'claim 3': flag 3 is yours already (claimed before this reply)"
    with app.app_context(), session_scope() as session:
        row = queue_receipt(
            session, load_game(session, game_id), start.state, start.to_move, reading.moves, before=start.state,
            notes=[note], in_reply_to=None,
        )  # fmt: skip
        assert row is not None
        text, html = row.text_body, row.mime
    assert f"Not played: {note}." in " ".join(text.split())
    assert "flag 3 is yours already" in html
