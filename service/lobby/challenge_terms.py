"""The terms of a challenge as its form gives them (the lobby's form, or "find me an
opponent"): the game offered, and what the poster says and asks. Checked in the reader's words;
nothing about who posts it (``challenges``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from engine import RULESETS, ClaimTiming
from service.catalogue import gettext as _
from service.config import MAX_DAYS_PER_MOVE
from service.lobby.forms import (
    DEFAULT_DAYS_PER_MOVE,
    FormError,
    claims_field,
    rated_field,
    whole_number,
)

MAX_MESSAGE_LENGTH = 500
LOBBY_RULESETS = tuple(name for name, ruleset in RULESETS.items() if len(ruleset.seats) == 2)
"""The variants the lobby offers: games for two (a challenge has one poster and one taker)."""

_HTML = re.compile(r"<\s*/?\s*[a-zA-Z!?]|&[a-zA-Z#][a-zA-Z0-9]*;")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


@dataclass(frozen=True)
class ChallengeTerms:
    """A validated challenge: the game offered, and what the poster says and asks."""

    ruleset: str
    claims: ClaimTiming
    days_per_move: int
    message: str | None = None
    played_only: bool = False
    keep_going: bool = False
    rated: bool = False
    """The game made is rated (``service.ratings``), else casual."""


def parse_terms(form: Mapping[str, str]) -> ChallengeTerms:
    """Validate a posted challenge (in a request: the errors are in the reader's words).
    Raises FormError naming every bad field."""
    errors: dict[str, str] = {}
    ruleset = form.get("ruleset", "battleline")
    if ruleset not in LOBBY_RULESETS:
        errors["ruleset"] = _("Please choose one of the variants offered.")
    default = RULESETS[ruleset].default_claims if ruleset in RULESETS else ClaimTiming.ADVANCED
    claims = claims_field(form, default, errors, _("Claims must be the advanced rule or standard."))
    days = whole_number(
        form, "days_per_move", DEFAULT_DAYS_PER_MOVE, (1, MAX_DAYS_PER_MOVE), errors,
        _("Days per move must be a whole number from 1 to %(max)s.", max=MAX_DAYS_PER_MOVE),
        digits=2,
    )  # fmt: skip
    message = form.get("message", "").strip() or None
    if message is not None:
        if len(message) > MAX_MESSAGE_LENGTH:
            errors["message"] = _(
                "The message must be at most %(max)s characters.", max=MAX_MESSAGE_LENGTH
            )
        elif _CONTROL.search(message.replace("\r\n", "\n")):
            errors["message"] = _("The message must be plain text, without control characters.")
        elif _HTML.search(message):
            errors["message"] = _("The message must be plain text, without HTML.")
    rated = rated_field(form, errors, _("A game must be rated or casual."))
    if errors:
        raise FormError(errors)
    return ChallengeTerms(
        ruleset=ruleset,
        claims=claims,
        days_per_move=days,
        message=message,
        played_only=form.get("played_only", "") in ("1", "on", "yes"),
        keep_going=form.get("keep_going", "") in ("1", "on", "yes"),
        rated=rated,
    )
