"""The wire form of an email: a Flask-Mail message built once, when the row is queued.

The row keeps the exact bytes it will send (``OutboxMessage.mime``): every attempt sends the same
message (same Message-ID, Date, boundaries and DKIM signature), so a receiver can drop a repeat,
and a worker only sends bytes. The Date is when the email was queued, when its news happened.
"""

from __future__ import annotations

import email.charset
import secrets
from email.mime.base import MIMEBase
from email.mime.text import MIMEText
from email.policy import compat32
from email.utils import formataddr, parseaddr

import flask_mail

from service import dkim_signing
from service.dkim_signing import SigningKey
from service.outbox.models import OutboxMessage

# Every line break a mail header could be split at, and NUL: a header value must be one line.
_HEADER_BREAKS = frozenset("\r\n\v\f\x00\x85\u2028\u2029")


class HeaderInjectionError(ValueError):
    """A header value (subject, address, name, link) holds a line break: refused, never cleaned."""

    def __init__(self, name: str) -> None:
        super().__init__(f"the {name} header must be one line; refusing a value with a line break")


def check_header_value(name: str, value: str) -> str:
    """``value`` unchanged, or HeaderInjectionError if it could start a new header."""
    if any(ch in _HEADER_BREAKS for ch in value):
        raise HeaderInjectionError(name)
    return value


# Header lines up to SMTP's hard limit: the default folding at 78 would turn a long
# List-Unsubscribe URL or Message-ID into RFC 2047 encoded words that receivers do not decode.
# compat32, not policy.SMTP: Flask-Mail has already encoded every header to ASCII, and
# compat32 writes them as they are, faster (docs/architecture.md).
_POLICY = compat32.clone(linesep="\r\n", max_line_length=998)
# Base64 bodies: 7-bit clean, no line of a template can exceed SMTP's limit, and encoded in C
# (quoted-printable is pure Python, a large part of a delivery's time: docs/architecture.md).
_UTF8 = email.charset.Charset("utf-8")
_UTF8.body_encoding = email.charset.BASE64
# A body that is all ASCII in short lines goes as it is (7bit): base64 would add a third.
_ASCII = email.charset.Charset("us-ascii")  # its body encoding is none: 7bit


def _seven_bit(text: str) -> bool:
    return text.isascii() and all(len(line) < 990 for line in text.splitlines())


def _plain_address(value: str | tuple[str, str]) -> str | None:
    """``Name <address>`` when both are ASCII, the name readable as it is (quoted if need be);
    None otherwise (Flask-Mail's encoded word stays). A name holding "=?" stays encoded too: a
    reader would decode it, even quoted, into other text (RFC 2047)."""
    name, address = parseaddr(value) if isinstance(value, str) else value
    plain = name.isascii() and address.isascii() and "=?" not in name
    return formataddr((name, address)) if plain else None


class MailMessage(flask_mail.Message):
    """A Flask-Mail message with long header lines kept whole, plain ASCII names, 7bit or base64
    bodies, and no multipart/mixed wrapper around the alternative parts."""

    def _mimetext(self, text: str | None, subtype: str = "plain") -> MIMEText:
        charset = _ASCII if _seven_bit(text or "") else _UTF8
        return MIMEText(text or "", _subtype=subtype, _charset=charset)  # type: ignore[arg-type]

    def _message(self) -> MIMEBase:
        message = super()._message()
        # Flask-Mail wraps the alternative parts in a multipart/mixed of one part (a place for
        # attachments we never send): the alternative becomes the message itself.
        parts = message.get_payload() if message.get_content_type() == "multipart/mixed" else None
        if isinstance(parts, list) and len(parts) == 1 and isinstance(parts[0], MIMEBase):
            inner = parts[0]
            # raw_items: the values as Flask-Mail stored them (items() would decode them).
            for name, value in message.raw_items():
                if name.lower() not in ("content-type", "mime-version"):
                    inner[name] = value
            message = inner
        # Flask-Mail encodes every display name (``=?utf-8?q?Bob?=``), ASCII ones too.
        for name, values in (("From", [self.sender]), ("To", self.recipients)):
            plain = _plain_address(values[0]) if len(values) == 1 else None
            if plain is not None:
                message.replace_header(name, plain)
        message.policy = _POLICY
        # A boundary of our own: "_" is not in base64's alphabet and 96 random bits cannot turn up
        # in a 7bit body by chance, so the generator need not search the bodies for a free one.
        for part in message.walk():
            if part.is_multipart():
                part.set_boundary(f"=_bl_{secrets.token_hex(12)}")
        return message


def build_mime(row: OutboxMessage, *, sender: str, signing_key: SigningKey | None = None) -> str:
    """The complete multipart message of ``row`` (its text and HTML parts, subject, recipient,
    Message-ID and headers) from ``sender``, as ASCII, signed with ``signing_key`` (DKIM) when
    given. Raises HeaderInjectionError."""
    assert row.text_body is not None and row.html_body is not None
    for name, value in row.headers.items():
        check_header_value(name, value)
    message = MailMessage(
        subject=check_header_value("Subject", row.subject),
        recipients=[
            (check_header_value("To", row.recipient_name), check_header_value("To", row.recipient))
        ],
        body=row.text_body,
        html=row.html_body,
        sender=sender,
        extra_headers=dict(row.headers),
    )
    # Not in extra_headers: that gives the message two Message-IDs, which Gmail rejects.
    message.msgId = check_header_value("Message-ID", row.message_id)
    if message.has_bad_headers():
        raise HeaderInjectionError("From")
    wire = message.as_bytes()
    if signing_key is not None:
        wire = dkim_signing.sign(wire, signing_key)
    return wire.decode("ascii")
