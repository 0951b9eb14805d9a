"""The new-game form: strict validation shared by the web form and the command line.

Names and addresses end up in email headers, so any line break or control character is refused
outright, never stripped: "a@b.example\\r\\nBcc: ..." is an attack, not a typo.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from engine import RULESETS, ClaimTiming
from service.config import MAX_DAYS_PER_MOVE
from service.models import Visibility
from service.refusal import Refusal
from service.turns.settings import DEFAULT_VACATION_DAYS, MAX_VACATION_DAYS

MAX_NAME_LENGTH = 40
MAX_EMAIL_LENGTH = 254
MAX_LOCAL_PART_LENGTH = 64
DEFAULT_DAYS_PER_MOVE = 3

# ASCII addresses: a dot-atom local part and a domain of DNS labels with an alphabetic TLD.
_LOCAL_PART = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
_DOMAIN = r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}"
EMAIL_RE = re.compile(rf"{_LOCAL_PART}@{_DOMAIN}")

# Bidirectional overrides can make a name display as something else.
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


@dataclass(frozen=True)
class NewGame:
    """A validated request for a game. Seat A is the person creating it, B the one invited."""

    a_name: str
    a_email: str
    b_name: str
    b_email: str
    ruleset: str
    claims: ClaimTiming
    days_per_move: int
    visibility: Visibility
    vacation_days: int = DEFAULT_VACATION_DAYS
    """Days each player may overrun deadlines before losing on time."""


class FormError(Refusal):
    """What is wrong with a submitted form, field by field (``errors``)."""

    status = 422
    title = "Please check the form"

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(f"{field}: {message}" for field, message in errors.items()))
        self.errors = errors


def _has_line_break(value: str) -> bool:
    return any(ch in value for ch in "\r\n\v\f\x85\u2028\u2029")


def _is_invisible(ch: str) -> bool:
    # Spaces, format characters (zero-width joiners, marks) and combining marks alone draw nothing.
    return ch.isspace() or unicodedata.category(ch) in ("Cf", "Mn", "Me", "Zs", "Co", "Cn")


def check_name(value: str) -> str:
    """A display name, trimmed. Raises ValueError with the reason."""
    if _has_line_break(value):
        raise ValueError("must be on one line")
    name = unicodedata.normalize("NFC", value)
    # Trim invisible characters at either end too, not only spaces.
    while name and _is_invisible(name[0]):
        name = name[1:]
    while name and _is_invisible(name[-1]):
        name = name[:-1]
    if not name:
        raise ValueError("is required (and must show at least one letter, digit or sign)")
    if len(name) > MAX_NAME_LENGTH:
        raise ValueError(f"must be at most {MAX_NAME_LENGTH} characters")
    if any(unicodedata.category(ch) == "Cc" or ch in _BIDI_CONTROLS for ch in name):
        raise ValueError("must not contain control characters")
    return name


def check_email(value: str) -> str:
    """An email address, trimmed and lower-cased. Raises ValueError with the reason."""
    if _has_line_break(value):
        raise ValueError("must be on one line")
    email = value.strip()
    if not email:
        raise ValueError("is required")
    if len(email) > MAX_EMAIL_LENGTH:
        raise ValueError(f"must be at most {MAX_EMAIL_LENGTH} characters")
    if not EMAIL_RE.fullmatch(email) or len(email.split("@")[0]) > MAX_LOCAL_PART_LENGTH:
        raise ValueError("is not an email address like name@example.org")
    # Lower case throughout: one person, one row, however they type it.
    return email.lower()


def parse_new_game(form: Mapping[str, str]) -> NewGame:
    """Validate a submitted new-game form. Raises FormError naming every bad field.

    Missing optional fields get defaults: the ruleset's claim timing, three days per move,
    seven vacation days, unlisted.
    """
    errors: dict[str, str] = {}
    values: dict[str, str] = {}
    for field, check in (
        ("a_name", check_name),
        ("a_email", check_email),
        ("b_name", check_name),
        ("b_email", check_email),
    ):
        try:
            values[field] = check(form.get(field, ""))
        except ValueError as error:
            errors[field] = str(error)
    if "a_email" in values and values["a_email"] == values.get("b_email"):
        errors["b_email"] = "must be someone else's address than yours"

    ruleset_name = form.get("ruleset", "battleline")
    ruleset = RULESETS.get(ruleset_name)
    if ruleset is None:
        errors["ruleset"] = "must be one of " + ", ".join(RULESETS)

    claims = ruleset.default_claims if ruleset else ClaimTiming.ADVANCED
    claims_text = form.get("claims", "")
    if claims_text:
        try:
            claims = ClaimTiming(claims_text)
        except ValueError:
            errors["claims"] = "must be advanced or standard"

    days = DEFAULT_DAYS_PER_MOVE
    days_text = form.get("days_per_move", "").strip()
    if days_text:
        days = int(days_text) if re.fullmatch(r"[0-9]{1,2}", days_text) else 0
        if not 1 <= days <= MAX_DAYS_PER_MOVE:
            errors["days_per_move"] = (
                f"must be a whole number of days from 1 to {MAX_DAYS_PER_MOVE}"
            )

    vacation = DEFAULT_VACATION_DAYS
    vacation_text = form.get("vacation_days", "").strip()
    if vacation_text:
        vacation = int(vacation_text) if re.fullmatch(r"[0-9]{1,2}", vacation_text) else -1
        if not 0 <= vacation <= MAX_VACATION_DAYS:
            errors["vacation_days"] = (
                f"must be a whole number of days from 0 to {MAX_VACATION_DAYS}"
            )

    visibility = Visibility.UNLISTED
    visibility_text = form.get("visibility", "")
    if visibility_text:
        try:
            visibility = Visibility(visibility_text)
        except ValueError:
            errors["visibility"] = "must be public or unlisted"

    if errors:
        raise FormError(errors)
    return NewGame(
        a_name=values["a_name"],
        a_email=values["a_email"],
        b_name=values["b_name"],
        b_email=values["b_email"],
        ruleset=ruleset_name,
        claims=claims,
        days_per_move=days,
        visibility=visibility,
        vacation_days=vacation,
    )
