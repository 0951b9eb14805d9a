"""The new-game form: strict validation shared by the web form and the command line (names and
addresses by ``service.player_fields``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from engine import RULESETS, ClaimTiming
from service.config import MAX_DAYS_PER_MOVE
from service.models import Visibility
from service.player_fields import check_email, check_name
from service.refusal import Refusal
from service.turn_settings import DEFAULT_VACATION_DAYS, MAX_VACATION_DAYS

DEFAULT_DAYS_PER_MOVE = 3


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
