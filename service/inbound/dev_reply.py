"""A reply as a mail program writes it, for the development outbox's reply box: From the
email's recipient, To its Reply-To, In-Reply-To and References its Message-ID, the text typed,
then the email quoted below an ``On ... wrote:`` line (which the reader must skip)."""

from __future__ import annotations

import email.policy
import email.utils
from datetime import datetime
from email.message import EmailMessage

from service.outbox.models import OutboxMessage

MAX_REPLY_CHARS = 2000


def reply_to(row: OutboxMessage, text: str, *, sender: str, now: datetime) -> bytes:
    """The RFC 5322 bytes of the recipient's reply to the outbox row ``row`` (which must have a
    Reply-To), saying ``text``. ``sender``: our From, for the quote line."""
    message = EmailMessage(policy=email.policy.SMTP)
    message["From"] = email.utils.formataddr((row.recipient_name, row.recipient))
    message["To"] = row.headers["Reply-To"]
    message["Subject"] = f"Re: {row.subject}"
    message["Date"] = email.utils.format_datetime(now)
    message["Message-ID"] = email.utils.make_msgid(idstring="dev-reply", domain="dev.localhost")
    message["In-Reply-To"] = row.message_id
    references = [*row.headers.get("References", "").split(), row.message_id]
    message["References"] = " ".join(dict.fromkeys(references))
    # A pruned row (sent long ago) has no text left to quote.
    quoted = "\n".join(f"> {line}".rstrip() for line in (row.text_body or "").splitlines())
    when = email.utils.format_datetime(row.created_at)
    body = f"{text.strip()}\n\nOn {when}, {sender} wrote:\n{quoted}\n"
    message.set_content(body)
    return message.as_bytes()
