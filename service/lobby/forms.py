"""The new-game form: strict validation shared by the web form and the command line (names and
addresses by ``service.player_fields``)."""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass

from engine import RULESETS, ClaimTiming
from service.catalogue import gettext, lazy_gettext
from service.config import MAX_DAYS_PER_MOVE
from service.games.computer import COMPUTER_LEVELS, computer_email, computer_name
from service.models import Visibility
from service.player_fields import check_email, check_name
from service.refusal import Refusal
from service.turn_settings import DEFAULT_VACATION_DAYS, MAX_VACATION_DAYS

DEFAULT_DAYS_PER_MOVE = 3
THIRD_PLAYER_FIELDS = ("c_name", "c_email")
"""The third player's fields: required for a three-player ruleset, refused for another."""
COMPUTER_FIELDS = {"B": "b_computer", "C": "c_computer"}
"""A computer level in one of these plays that seat: its name and address fields are not used."""

DEFAULT_SERIES_POINTS = 15
"""R23: "the first player to reach 15 points wins"."""
SERIES_POINTS_RANGE = (5, 50)
DEFAULT_SERIES_GAMES = 3
SERIES_GAMES_RANGE = (2, 15)


class SeriesKind(enum.StrEnum):
    SINGLE = "single"
    POINTS = "points"
    """First to ``series_points`` points."""
    GAMES = "games"
    """A fixed number of games, ``series_games``."""


@dataclass(frozen=True)
class NewGame:
    """A validated request for a game. Seat A is the person creating it, B the one invited, and
    in a three-player game C the other one invited (``c_name`` and ``c_email`` are None in a
    two-player game)."""

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
    c_name: str | None = None
    c_email: str | None = None
    computers: tuple[tuple[str, str], ...] = ()
    """(seat, level) of the seats the computer plays (their name and address are the
    computer's)."""
    series: SeriesKind = SeriesKind.SINGLE
    series_points: int = DEFAULT_SERIES_POINTS
    series_games: int = DEFAULT_SERIES_GAMES
    rematch_of: int | None = None
    """The finished game this one plays again (its invitations say so)."""
    rated: bool = False
    """Rated (its end changes the players' ratings, ``service.ratings``) or casual."""
    language: str | None = None
    """The language of the page the form was sent from: the creator's confirmation email is
    written in it if they have chosen none (it is not saved: the address is not proved)."""

    @property
    def players(self) -> tuple[tuple[str, str, str], ...]:
        """(seat, name, email) of every seat, in seat order: the creator first."""
        seats = [("A", self.a_name, self.a_email), ("B", self.b_name, self.b_email)]
        if self.c_name is not None and self.c_email is not None:
            seats.append(("C", self.c_name, self.c_email))
        return tuple(seats)

    @property
    def invited_emails(self) -> tuple[str, ...]:
        """The addresses of the invited people (every seat but the creator's and the
        computer's)."""
        computer = dict(self.computers)
        return tuple(email for seat, _, email in self.players[1:] if seat not in computer)


class FormError(Refusal):
    """What is wrong with a submitted form, field by field (``errors``)."""

    status = 422
    title = lazy_gettext("Please check the form")

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(f"{field}: {message}" for field, message in errors.items()))
        self.errors = errors


def _(message: str, **values: object) -> str:
    """A problem of a field, in the language of the page it is shown on (English on the
    command line)."""
    return str(gettext(message, **values))


def parse_new_game(form: Mapping[str, str]) -> NewGame:
    """Validate a submitted new-game form. Raises FormError naming every bad field.

    Missing optional fields get defaults: the ruleset's claim timing, three days per move,
    seven vacation days, unlisted. The third player (``c_name``, ``c_email``) is required for a
    three-player ruleset and refused for a two-player one (an empty field counts as absent).
    """
    errors: dict[str, str] = {}
    values: dict[str, str] = {}
    ruleset_name = form.get("ruleset", "battleline")
    ruleset = RULESETS.get(ruleset_name)
    if ruleset is None:
        errors["ruleset"] = _("must be one of %(names)s", names=", ".join(RULESETS))

    computers: dict[str, str] = {}
    # An unknown ruleset is checked as a game for two.
    seats = ruleset.seats if ruleset is not None else RULESETS["battleline"].seats
    for seat, field in COMPUTER_FIELDS.items():
        level = form.get(field, "").strip()
        if not level:
            continue
        if level not in COMPUTER_LEVELS:
            errors[field] = _("must be one of %(names)s", names=", ".join(COMPUTER_LEVELS))
        elif seat not in seats:
            errors[field] = _("is only for a game for three")
        else:
            computers[seat] = level
            values[f"{seat.lower()}_name"] = computer_name(level)
            values[f"{seat.lower()}_email"] = computer_email(level)

    fields = [
        (f"{seat.lower()}_{kind}", check)
        for seat in seats
        if seat not in computers
        for kind, check in (("name", check_name), ("email", check_email))
    ]
    third_given = [f for f in THIRD_PLAYER_FIELDS if form.get(f, "").strip()]
    if ruleset is None:
        # Unknown ruleset: still check whatever was typed for the third player.
        fields += [(f, check_name if f == "c_name" else check_email) for f in third_given]
    elif len(ruleset.seats) <= 2:
        for field in third_given:
            errors[field] = _(
                "is only for a game for three: leave it empty, or choose a game for three"
            )
    for field, check in fields:
        try:
            values[field] = check(form.get(field, ""))
        except ValueError as error:
            errors[field] = str(error)
    if "a_email" in values and values["a_email"] == values.get("b_email"):
        errors["b_email"] = _("must be someone else's address than yours")
    if "c_email" in values and "c_email" not in errors and "c_email" in dict(fields):
        if values["c_email"] == values.get("a_email"):
            errors["c_email"] = _("must be someone else's address than yours")
        elif values["c_email"] == values.get("b_email"):
            errors["c_email"] = _("must be another address than your opponent's")
    # One computer of a level plays one seat of a game: two of the same level would be one
    # player at two seats.
    if len(set(computers.values())) < len(computers):
        errors["c_computer"] = _("must be another level than the other computer's")

    series = SeriesKind.SINGLE
    series_text = form.get("series", "").strip()
    if series_text:
        try:
            series = SeriesKind(series_text)
        except ValueError:
            errors["series"] = _("must be single, points or games")
    series_points = whole_number(
        form, "series_points", DEFAULT_SERIES_POINTS, SERIES_POINTS_RANGE, errors
    )
    series_games = whole_number(
        form, "series_games", DEFAULT_SERIES_GAMES, SERIES_GAMES_RANGE, errors
    )

    default_claims = ruleset.default_claims if ruleset else ClaimTiming.ADVANCED
    claims = claims_field(form, default_claims, errors, _("must be advanced or standard"))
    days = whole_number(
        form, "days_per_move", DEFAULT_DAYS_PER_MOVE, (1, MAX_DAYS_PER_MOVE), errors,
        _("must be a whole number of days from %(low)s to %(high)s", low=1,
          high=MAX_DAYS_PER_MOVE), digits=2,
    )  # fmt: skip
    vacation = whole_number(
        form, "vacation_days", DEFAULT_VACATION_DAYS, (0, MAX_VACATION_DAYS), errors,
        _("must be a whole number of days from %(low)s to %(high)s", low=0,
          high=MAX_VACATION_DAYS), digits=2,
    )  # fmt: skip

    visibility = Visibility.UNLISTED
    visibility_text = form.get("visibility", "")
    if visibility_text:
        try:
            visibility = Visibility(visibility_text)
        except ValueError:
            errors["visibility"] = _("must be public or unlisted")

    rated = rated_field(form, errors, _("must be rated or casual"))

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
        c_name=values.get("c_name"),
        c_email=values.get("c_email"),
        computers=tuple(sorted(computers.items())),
        series=series,
        series_points=series_points,
        series_games=series_games,
        rated=rated,
    )


def whole_number(
    form: Mapping[str, str],
    field: str,
    default: int,
    bounds: tuple[int, int],
    errors: dict[str, str],
    wrong: str | None = None,
    digits: int = 3,
) -> int:
    """An optional whole number of at most ``digits`` digits within ``bounds``; a bad one is
    noted in ``errors`` (``wrong``, else "must be a whole number from low to high")."""
    text = form.get(field, "").strip()
    if not text:
        return default
    low, high = bounds
    if not re.fullmatch(f"[0-9]{{1,{digits}}}", text) or not low <= int(text) <= high:
        errors[field] = wrong or _(
            "must be a whole number from %(low)s to %(high)s", low=low, high=high
        )
        return default
    return int(text)


def claims_field(
    form: Mapping[str, str], default: ClaimTiming, errors: dict[str, str], wrong: str
) -> ClaimTiming:
    """The claim timing a form asks for (``default`` when it asks none); a bad one is noted in
    ``errors`` as ``wrong``."""
    text = form.get("claims", "")
    if not text:
        return default
    try:
        return ClaimTiming(text)
    except ValueError:
        errors["claims"] = wrong
        return default


def rated_field(form: Mapping[str, str], errors: dict[str, str], wrong: str) -> bool:
    """Whether a form asks for a rated game (casual when it says nothing); a bad answer is
    noted in ``errors`` as ``wrong``."""
    text = form.get("rated", "").strip() or "casual"
    if text not in ("rated", "casual"):
        errors["rated"] = wrong
    return text == "rated"
