"""Bounces: a mail system's report that one of our emails could not be delivered.

Every email goes out with its own envelope sender, ``bounces+<token>@INBOUND_DOMAIN``, the token
naming its outbox row, signed by us (``service.outbox.bounce_address``). A bounce goes back to
that address, so it is believed only when it arrives there: the token (read from the envelope's
recipients, else what the mailbox recorded: Delivered-To, X-Original-To, To) says which email,
and so which recipient, failed. Nothing the bounce itself says (a Message-ID, an address) is
trusted: anyone can write those.

What counts as a failure for good: a delivery-status report (RFC 3464) with a recipient whose
action is ``failed`` and whose status is 5.x.x, or the plain-text report of qmail, Exim, Postfix
or Sendmail saying the message could not be delivered (never their delay warnings). A report to
no bounce address of ours, or with a token we did not sign, changes nothing.
"""

from __future__ import annotations

import email.message
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session

from service.inbound import headers
from service.models import Player
from service.outbox.addresses import mark_bouncing
from service.outbox.bounce_address import is_bounce_address, outbox_id_of
from service.outbox.models import OutboxMessage

MAX_TEXT_READ = 64 * 1024
"""The first characters of a report's text read for its wording: a report's own words come first,
the returned message after them."""

PLAIN_BOUNCES: tuple[tuple[str, re.Pattern[str]], ...] = (
    # qmail-send writes a bounce only when it has given up (it sends no delay warnings).
    ("qmail", re.compile(r"this is the qmail-send program")),
    ("exim", re.compile(r"could not be delivered to one or more of its recipients")),
    ("postfix", re.compile(r"sorry to have to inform you that your message could not")),
    ("sendmail", re.compile(r"the following addresses had permanent fatal errors")),
    ("generic", re.compile(r"delivery to the following recipients? failed permanently")),
)
"""The wording of each mail system's plain-text report that a message failed for good."""
DELAY_WARNING = re.compile(
    r"warning only|will be retried|still being retried|has not yet been delivered"
    r"|not been delivered yet|delivery (?:has been |is )?delayed|still undelivered"
)
"""The wording of a report that a message is late, not lost: never a bounce."""
STATUS_CODE = re.compile(r"#?\b(5\.\d{1,3}\.\d{1,3})\b")


@dataclass(frozen=True)
class Failure:
    """What a report says failed for good."""

    form: str
    """``delivery-status`` or the mail system whose plain text it is (``qmail``, ``exim`` ...)."""
    reason: str
    """The status and diagnostic, kept as the address's bounce reason."""


@dataclass(frozen=True)
class Verdict:
    """What came of a bounce: whether a recipient was marked bouncing, and why (or why not)."""

    marked: bool
    detail: str


def report_text(message: email.message.Message) -> str:
    """The report's own words (its first text part), lower case, spaces collapsed."""
    for part in message.walk():
        if part.get_content_type() == "message/rfc822":
            break  # the returned message: its words are not the report's
        if part.get_content_type() == "text/plain":
            payload = part.get_payload(decode=True)
            if isinstance(payload, bytes):
                text = payload[:MAX_TEXT_READ].decode("utf-8", errors="replace")
                return " ".join(text.lower().split())
    return ""


def failure(message: email.message.Message) -> Failure | None:
    """The permanent failure a report states (module docstring), or None."""
    if headers.is_delivery_report(message):
        failed = headers.delivery_report(message).failed
        if not failed:
            return None
        first = failed[0]
        return Failure("delivery-status", f"{first.status} {first.diagnostic}".strip())
    text = report_text(message)
    if DELAY_WARNING.search(text):
        return None
    for form, wording in PLAIN_BOUNCES:
        if wording.search(text):
            code = STATUS_CODE.search(text)
            return Failure(form, f"{code.group(1) if code else '5.0.0'} ({form} report)")
    return None


def returned_rows(
    config: Mapping[str, Any], message: email.message.Message, recipients: Sequence[str]
) -> list[int]:
    """The outbox rows named by the signed bounce addresses this message was delivered to: the
    envelope's recipients when there is an envelope (the SMTP receiver), else what the mailbox
    recorded (Delivered-To, X-Original-To) and To."""
    candidates = list(recipients)
    if not candidates:
        for name in ("Delivered-To", "X-Original-To", "To"):
            candidates += headers.addresses(message.get_all(name) or [])
    found: list[int] = []
    for address in candidates:
        outbox_id = outbox_id_of(config, address)
        if outbox_id is not None and outbox_id not in found:
            found.append(outbox_id)
    return found


def judge(
    session: Session,
    config: Mapping[str, Any],
    message: email.message.Message,
    recipients: Sequence[str],
) -> Verdict | None:
    """Mark the recipient of the email a bounce returns as bouncing, when the bounce came to that
    email's signed bounce address and states a permanent failure. None when the message is no
    bounce and came to no bounce address (it is read as a reply, or dropped as automatic)."""
    rows = returned_rows(config, message, recipients)
    if not rows:
        if headers.is_delivery_report(message):
            return Verdict(False, "a delivery report to no signed bounce address: nothing marked")
        domain = str(config.get("INBOUND_DOMAIN") or "")
        if domain and any(is_bounce_address(address, domain) for address in recipients):
            return Verdict(False, "to a bounce address with a token we did not sign")
        return None
    found = failure(message)
    if found is None:
        return Verdict(False, "to a bounce address, but no permanent failure stated")
    marked: list[str] = []
    for outbox_id in rows:
        row = session.get(OutboxMessage, outbox_id)
        if row is None or row.player_id is None:
            continue
        player = session.get(Player, row.player_id)
        # The address the email went to must still be the player's: an old bounce of an address
        # the player has left says nothing of the new one.
        if player is None or player.email != row.recipient:
            continue
        mark_bouncing(session, row.player_id, found.reason)
        marked.append(row.recipient)
    if not marked:
        return Verdict(False, f"returns email {rows[0]}, whose recipient is no player's address")
    return Verdict(True, f"bouncing ({found.form}): " + ", ".join(marked))
