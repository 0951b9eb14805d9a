"""A player's name and email address as typed into a form: strict checks.

Names and addresses end up in email headers, so any line break or control character is refused
outright, never stripped: "a@b.example\\r\\nBcc: ..." is an attack, not a typo.
"""

from __future__ import annotations

import re
import unicodedata

from service.catalogue import gettext

MAX_NAME_LENGTH = 40
MAX_EMAIL_LENGTH = 254
MAX_LOCAL_PART_LENGTH = 64

# ASCII addresses: a dot-atom local part and a domain of DNS labels with an alphabetic TLD.
_LOCAL_PART = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
_DOMAIN = r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}"
EMAIL_RE = re.compile(rf"{_LOCAL_PART}@{_DOMAIN}")

# Bidirectional overrides can make a name display as something else.
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _has_line_break(value: str) -> bool:
    return any(ch in value for ch in "\r\n\v\f\x85\u2028\u2029")


def _is_invisible(ch: str) -> bool:
    # Spaces, format characters (zero-width joiners, marks) and combining marks alone draw nothing.
    return ch.isspace() or unicodedata.category(ch) in ("Cf", "Mn", "Me", "Zs", "Co", "Cn")


def check_name(value: str) -> str:
    """A display name, trimmed. Raises ValueError with the reason, a fragment that follows the
    field's label ("Your name must be on one line"), in the language being written."""
    if _has_line_break(value):
        raise ValueError(gettext("must be on one line"))
    name = unicodedata.normalize("NFC", value)
    # Trim invisible characters at either end too, not only spaces.
    while name and _is_invisible(name[0]):
        name = name[1:]
    while name and _is_invisible(name[-1]):
        name = name[:-1]
    if not name:
        raise ValueError(gettext("is required (and must show at least one letter, digit or sign)"))
    if len(name) > MAX_NAME_LENGTH:
        raise ValueError(gettext("must be at most %(num)d characters", num=MAX_NAME_LENGTH))
    if any(unicodedata.category(ch) == "Cc" or ch in _BIDI_CONTROLS for ch in name):
        raise ValueError(gettext("must not contain control characters"))
    # A mail reader decodes an RFC 2047 encoded word in To: ("=?utf-8?q?...?=") into other text.
    if "=?" in name:
        raise ValueError(gettext('must not contain "=?" (it reads as encoded text)'))
    return name


def check_email(value: str) -> str:
    """An email address, trimmed and lower-cased. Raises ValueError with the reason (as
    ``check_name``)."""
    if _has_line_break(value):
        raise ValueError(gettext("must be on one line"))
    email = value.strip()
    if not email:
        raise ValueError(gettext("is required"))
    if len(email) > MAX_EMAIL_LENGTH:
        raise ValueError(gettext("must be at most %(num)d characters", num=MAX_EMAIL_LENGTH))
    if not EMAIL_RE.fullmatch(email) or len(email.split("@")[0]) > MAX_LOCAL_PART_LENGTH:
        raise ValueError(gettext("is not an email address like name@example.org"))
    # The computer's players live at .invalid addresses (RFC 2606: never deliverable), so no
    # form may name one, or anyone else's address there.
    if email.lower().endswith(".invalid"):
        raise ValueError(gettext("is not an address mail can reach (.invalid)"))
    # Lower case throughout: one person, one row, however they type it.
    return email.lower()
