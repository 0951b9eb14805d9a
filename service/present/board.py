"""Which side of the board each seat's cards are drawn on, for pages and emails alike.

The engine says who contests each flag (``FlagView.seats``); this decides only the drawing: the
reader's cards on the right of every flag they contest, the other seat of the pair on the left;
for the public (and at flags the reader does not contest), the pair in seat order.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from markupsafe import Markup, escape

import engine
from service.catalogue import gettext, ngettext
from service.templating import card_html


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


def board_html(
    board: Board,
    labels: Mapping[str, str],
    formation_size: int,
    marked: Collection[str] = (),
) -> Markup:
    """The board as HTML (``play/_board.html``'s ``board``): for each row of one pair of seats,
    their names over a list of flags, each flag a list item with the left seat's side, the
    stake (number, who holds it, a formation size changed by Mud) and the right seat's side.
    Each side is a group named by whose it is and which flag, so that a screen reader says
    "Alice, flag 5: purple 8" as the eye sees it; the cards in ``marked`` (those the last turn
    put there) are marked as played last, to the eye and in words. Drawn by Python: every page
    draws it."""
    parts: list[str] = []
    held_by = escape(gettext("held by "))
    flag_word = escape(gettext("Flag "))
    words = _SideWords(
        escape(gettext("(played last)")),
        escape(gettext("no card")),
        str(gettext("%(name)s, flag %(flag)s", name="\x00", flag="\x01")),
    )
    for row in board.rows:
        left, right = escape(labels[row.left]), escape(labels[row.right])
        if len(board.rows) == 1:
            label = escape(gettext("The flags, from 1 to %(last)s", last=row.last))
        else:
            label = escape(
                gettext(
                    "Flags %(first)s to %(last)s, between %(left)s and %(right)s",
                    first=row.first,
                    last=row.last,
                    left=labels[row.left],
                    right=labels[row.right],
                )
            )
        start = f'start="{row.first}" ' if row.first != 1 else ""
        parts.append(
            f'\n<div class="line-head" aria-hidden="true"><span class="left">{left}</span>'
            f"<span></span><span>{right}</span></div>\n"
            f'<ol class="line" {start}aria-label="{label}">'
        )
        for drawn in row.flags:
            flag = drawn.flag
            held = (
                "held-left"
                if flag.claimed_by == row.left
                else "held-right"
                if flag.claimed_by == row.right
                else ""
            )
            holder = (
                f'<span class="holder"><span aria-hidden="true">⚑ </span>'
                f'<span class="visually-hidden">{held_by}</span>{escape(labels[flag.claimed_by])}'
                "</span>"
                if flag.claimed_by
                else ""
            )
            size = (
                f'<span class="size">{escape(cards_word(flag.formation_size))}</span>'
                if flag.formation_size != formation_size
                else ""
            )
            left_side = _side_html(drawn, row.left, "left", labels[row.left], marked, words)
            right_side = _side_html(drawn, row.right, "right", labels[row.right], marked, words)
            parts.append(
                f'\n  <li class="{held}">\n    {left_side}'
                f'\n    <div class="stake">\n      <span class="num">'
                f'<span class="visually-hidden">{flag_word}</span>{flag.number}</span>'
                f"{holder}{size}\n    </div>\n    {right_side}\n  </li>"
            )
        parts.append("\n</ol>")
    return Markup("".join(parts))


@dataclass(frozen=True, slots=True)
class _SideWords:
    """The words of a side of a flag, in the language being written (escaped)."""

    last_played: str
    no_card: str
    side: str
    """``"%(name)s, flag %(flag)s"`` translated, with \\x00 and \\x01 for the two."""


def cards_word(count: int) -> str:
    """A flag's formation size changed by Mud: "4 cards"."""
    return str(ngettext("%(num)d card", "%(num)d cards", count))


def _card(code: str, marked: Collection[str], words: _SideWords, extra: str = "") -> str:
    if code not in marked:
        return str(card_html(code, extra))
    last = f'<span class="visually-hidden">{words.last_played}</span>'
    return str(card_html(code, f"{extra} last-played".strip())) + last


def _side_html(
    drawn: BoardFlag, seat: str, where: str, label: str, marked: Collection[str], words: _SideWords
) -> str:
    cards = "".join(_card(code, marked, words) for code in drawn.flag.cards[seat])
    env = "".join(_card(code, marked, words, "env") for code in drawn.env_of(seat))
    empty = f'<span class="visually-hidden">{words.no_card}</span>' if not cards and not env else ""
    name = escape(words.side.replace("\x00", label).replace("\x01", str(drawn.flag.number)))
    return f'<div class="side {where}" role="group" aria-label="{name}">{cards}{env}{empty}</div>'
