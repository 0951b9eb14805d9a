"""Which side of the board each seat's cards are drawn on, for pages and emails alike.

The engine says who contests each flag (``FlagView.seats``); this decides only the drawing: the
reader's cards on the right of every flag they contest, the other seat of the pair on the left;
for the public (and at flags the reader does not contest), the pair in seat order.
"""

from __future__ import annotations

from dataclasses import dataclass

import engine


@dataclass(frozen=True, slots=True)
class BoardFlag:
    """One flag as drawn: the engine's flag and the seats on its left and right."""

    flag: engine.FlagView
    left: str
    right: str

    @property
    def left_cards(self) -> tuple[str, ...]:
        return self.flag.cards[self.left]

    @property
    def right_cards(self) -> tuple[str, ...]:
        return self.flag.cards[self.right]

    def env_of(self, seat: str) -> list[str]:
        """The environment tactics (Fog, Mud) ``seat`` played at this flag."""
        return [env.card for env in self.flag.env if env.seat == seat]


@dataclass(frozen=True, slots=True)
class Board:
    """The line of flags as one reader sees it."""

    flags: tuple[BoardFlag, ...]
    head: tuple[str, str] | None
    """The seats over the left and right columns, when every flag has the same two."""


def board_of(view: engine.PublicView, reader: str | None) -> Board:
    """The flags of ``view`` with their sides for ``reader`` (a seat, or None: the public)."""
    flags = []
    for flag in view.flags:
        left, right = flag.seats
        if reader == left:
            left, right = right, left
        flags.append(BoardFlag(flag, left, right))
    sides = {(f.left, f.right) for f in flags}
    return Board(tuple(flags), sides.pop() if len(sides) == 1 else None)
