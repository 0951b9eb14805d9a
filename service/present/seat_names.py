"""Who sits where, in words: the players' names by seat, the name over each side of a board, and
the vacation days a seat has left. One place for pages and emails alike."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import engine
from service.catalogue import gettext
from service.game_words import computer_level_name
from service.games.loaded import LoadedGame
from service.honorifics import Unhonoured
from service.models import Game, Player, Seat

SeatNames = engine.FrozenMap[str, str]
"""Display names by seat letter, in seat order."""


def shown_name(player: Player) -> str:
    """The name others read for ``player``: their display name; "a former player" once they
    closed their account; the computer's name (the service's words, not a person's: "Computer
    (normal)") in the reader's language."""
    if player.closed_at is not None:
        return Unhonoured(gettext("a former player"))
    if player.computer is not None:
        return computer_name_words(player.computer)
    return player.display_name


def computer_name_words(level: str) -> str:
    """The computer of ``level``, named in the language being written."""
    return Unhonoured(gettext("Computer (%(level)s)", level=computer_level_name(level)))


def names_of(seats: Mapping[str, tuple[Seat, Player]]) -> SeatNames:
    """Display names by seat letter."""
    return engine.FrozenMap((letter, shown_name(player)) for letter, (_, player) in seats.items())


def people_besides(seats: Mapping[str, tuple[Seat, Player]], seat: str) -> bool:
    """Whether a person holds another seat than ``seat``. Against the computer alone nobody
    does: a game started (or offered again) there invites nobody and is dealt, and no message
    is offered nor kept (nobody would read it)."""
    return any(player.computer is None for s, (_, player) in seats.items() if s != seat)


def seat_names(loaded: LoadedGame) -> SeatNames:
    """The display names of a loaded game's seats."""
    return names_of(loaded.seats)


def seat_labels(seats: Iterable[str], names: Mapping[str, str], reader: str | None) -> SeatNames:
    """The name over each side of a board: the players' names, and "You" for the reader (in
    the language being written)."""
    you = str(gettext("You"))
    return engine.FrozenMap(
        (seat, you if seat == reader else names.get(seat, seat)) for seat in seats
    )


def vacation_left(game: Game, seat: Seat) -> int:
    """The vacation days ``seat`` has left in ``game`` (all players are told when one is used,
    so this is public)."""
    return max(0, game.vacation_days - seat.vacation_days_used)
