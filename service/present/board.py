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
class BoardRow:
    """Consecutive flags contested by the same two seats, drawn as one line under their names:
    the whole line with two players, each of the three rows of the ring with three."""

    left: str
    right: str
    flags: tuple[BoardFlag, ...]

    @property
    def first(self) -> int:
        return self.flags[0].flag.number

    @property
    def last(self) -> int:
        return self.flags[-1].flag.number


@dataclass(frozen=True, slots=True)
class Board:
    """The line of flags as one reader sees it, in rows of one pair of seats each."""

    rows: tuple[BoardRow, ...]

    @property
    def flags(self) -> tuple[BoardFlag, ...]:
        return tuple(flag for row in self.rows for flag in row.flags)


def board_of(view: engine.PublicView, reader: str | None) -> Board:
    """The flags of ``view`` with their sides for ``reader`` (a seat, or None: the public)."""
    rows: list[BoardRow] = []
    for flag in view.flags:
        left, right = flag.seats
        if reader == left:
            left, right = right, left
        drawn = BoardFlag(flag, left, right)
        if rows and (rows[-1].left, rows[-1].right) == (left, right):
            last = rows[-1]
            rows[-1] = BoardRow(left, right, (*last.flags, drawn))
        else:
            rows.append(BoardRow(left, right, (drawn,)))
    return Board(tuple(rows))
