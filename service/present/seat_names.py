"""Who sits where, in words: the players' names by seat, the name over each side of a board, and
the vacation days a seat has left. One place for pages and emails alike."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from flask_babel import gettext
from sqlmodel import Session

import engine
from service.games.seats import seats_of
from service.models import Game, Player, Seat

SeatNames = engine.FrozenMap[str, str]
"""Display names by seat letter, in seat order."""


def shown_name(player: Player) -> str:
    """The name others read for ``player``: their display name, or "a former player" in the
    reader's language once they closed their account."""
    if player.closed_at is not None:
        return str(gettext("a former player"))
    return player.display_name


def names_of(seats: Mapping[str, tuple[Seat, Player]]) -> SeatNames:
    """Display names by seat letter."""
    return engine.FrozenMap((letter, shown_name(player)) for letter, (_, player) in seats.items())


def seat_names(session: Session, game: Game) -> SeatNames:
    """The display names of ``game``'s seats (its seats read once per session)."""
    assert game.id is not None
    return names_of(seats_of(session, game.id))


def seat_labels(seats: Iterable[str], names: Mapping[str, str], reader: str | None) -> SeatNames:
    """The name over each side of a board: the players' names, and "You" for the reader."""
    return engine.FrozenMap(
        (seat, "You" if seat == reader else names.get(seat, seat)) for seat in seats
    )


def vacation_left(game: Game, seat: Seat) -> int:
    """The vacation days ``seat`` has left in ``game`` (all players are told when one is used,
    so this is public)."""
    return max(0, game.vacation_days - seat.vacation_days_used)
