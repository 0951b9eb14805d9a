"""A player's choices about their turns: automatic claims (R5), the daily digest, and the time
zone their deadlines are told in.

Two levels, so that a seat link can never change more than its own game:
- ``players.preferences``: the player's defaults, changed only by the player signed in (or from
  their emailed "my games" link);
- ``seats.preferences``: one game's own choice, changed from that seat's private page.

``automatic_claims`` (default on, R5 for games by mail): at the start of each of their turns
under the advanced rule, the server makes every claim the prover can prove.
``digest`` (default off): this game goes in one email a day listing the games where it is their
turn, instead of a "your turn" email per turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session

from service.catalogue import lazy_gettext
from service.json_columns import TurnChoices
from service.models import Player, Seat
from service.reader_time import MAX_TIME_ZONE_LENGTH, UnknownTimeZoneError, check_time_zone
from service.refusal import Refusal

AUTOMATIC_CLAIMS = "automatic_claims"
DIGEST = "digest"
CHECKED = "on"
"""What a checked box sends; an unchecked box sends nothing."""


class PreferencesFormError(Refusal):
    """A preferences form that was not sent as the page makes it."""

    status = 422
    title = lazy_gettext("These settings could not be read")


@dataclass(frozen=True)
class TurnPreferences:
    """What a player chose (or the defaults)."""

    automatic_claims: bool = True
    digest: bool = False

    def to_json(self) -> TurnChoices:
        return TurnChoices(automatic_claims=self.automatic_claims, digest=self.digest)


def _read(stored: Mapping[str, Any] | None, defaults: TurnPreferences) -> TurnPreferences:
    stored = stored or {}
    return TurnPreferences(
        automatic_claims=bool(stored.get(AUTOMATIC_CLAIMS, defaults.automatic_claims)),
        digest=bool(stored.get(DIGEST, defaults.digest)),
    )


def player_defaults(player: Player) -> TurnPreferences:
    """The player's defaults for games without a choice of their own."""
    return _read(player.preferences, TurnPreferences())


def turn_preferences(player: Player, seat: Seat) -> TurnPreferences:
    """What applies to ``seat``'s game: its own choice, else the player's defaults."""
    return _read(seat.preferences, player_defaults(player))


def parse_preferences_form(
    form: Mapping[str, str], names: Mapping[str, list[str]]
) -> TurnPreferences:
    """The checkboxes of a preferences form: each absent or ``on``, once; anything else is
    refused (PreferencesFormError), never read as "off"."""
    for name in (AUTOMATIC_CLAIMS, DIGEST):
        values = names.get(name, [])
        if len(values) > 1 or (values and values[0] != CHECKED):
            raise PreferencesFormError(
                lazy_gettext(
                    "The setting '%(name)s' takes a checkbox (on or absent). Nothing was changed.",
                    name=name,
                )
            )
    unknown = sorted(set(form) - {AUTOMATIC_CLAIMS, DIGEST})
    if unknown:
        raise PreferencesFormError(
            lazy_gettext(
                "This form has no field %(names)s. Nothing was changed.",
                names=", ".join(repr(n) for n in unknown),
            )
        )
    return TurnPreferences(
        automatic_claims=form.get(AUTOMATIC_CLAIMS) == CHECKED,
        digest=form.get(DIGEST) == CHECKED,
    )


def set_seat_preferences(session: Session, seat: Seat, chosen: TurnPreferences) -> None:
    """This game's own choice (a new dict: JSON columns miss in-place changes)."""
    seat.preferences = chosen.to_json()
    session.add(seat)


def set_player_defaults(session: Session, player: Player, chosen: TurnPreferences) -> None:
    """The player's defaults, for every game without a choice of its own."""
    player.preferences = {**(player.preferences or {}), **chosen.to_json()}
    session.add(player)


TIME_ZONE = "time_zone"


class TimeZoneFormError(Refusal):
    """A time zone that is not one of the IANA names we know, or a form not sent as the page
    makes it."""

    status = 400
    title = lazy_gettext("This time zone is not known")


def parse_time_zone_form(names: Mapping[str, list[str]]) -> str | None:
    """The zone chosen on the games page (``service.reader_time``): an IANA name, or None for
    UTC. Raises TimeZoneFormError for anything else (nothing is changed then)."""
    values = names.get(TIME_ZONE, [])
    if len(values) != 1 or set(names) - {TIME_ZONE}:
        raise TimeZoneFormError(
            lazy_gettext("The form takes one time zone and nothing else. Nothing was changed.")
        )
    chosen = values[0]
    if chosen in ("", "UTC"):
        return None
    try:
        return check_time_zone(chosen)
    except UnknownTimeZoneError:
        raise TimeZoneFormError(
            lazy_gettext(
                "'%(zone)s' is not a time zone we know. Choose one from the list, such as "
                "Europe/Paris. Nothing was changed.",
                zone=chosen[:MAX_TIME_ZONE_LENGTH],
            )
        ) from None


def set_time_zone(session: Session, player: Player, time_zone: str | None) -> None:
    """The zone the player reads every time in, in their emails and pages (None: UTC)."""
    player.time_zone = time_zone
    session.add(player)
