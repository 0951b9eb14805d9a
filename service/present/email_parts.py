"""What several emails of a game show alike: the line of flags as rows (the HTML part; the text
part draws ``plain_text.board_lines``), and a claim with why it held."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import engine
from service.catalogue import gettext as _
from service.present.board import board_of
from service.present.claims import ClaimExplained
from service.present.plain_text import pieces_text, wrap
from service.present.seat_names import seat_labels
from service.present.words import Piece, with_cards


@dataclass(frozen=True, slots=True)
class FlagCells:
    """One flag of the board in an email: the cards on each side, the environment, the holder."""

    flag: int
    left: tuple[str, ...]
    right: tuple[str, ...]
    env: tuple[str, ...]
    held_by: str | None
    """The name of who holds the flag (the reader's label when it is the reader)."""
    held_by_you: bool
    held_by_left: bool


@dataclass(frozen=True, slots=True)
class FlagsRow:
    """Consecutive flags between the same two seats, under their names."""

    left_name: str
    right_name: str
    flags: tuple[FlagCells, ...]
    first: int
    last: int


def board_rows(
    view: engine.PublicView, names: Mapping[str, str], reader: str | None
) -> tuple[FlagsRow, ...]:
    """The line of flags as ``reader`` sees it (None: the public), as on the pages: in rows of
    one pair of seats each (the whole line with two players, the three rows of the ring with
    three), at each flag the other seat's cards on the left and the reader's on the right, the
    environment cards and who holds it."""
    labels = seat_labels(view.seats, names, reader)
    return tuple(
        FlagsRow(
            left_name=labels[row.left],
            right_name=labels[row.right],
            flags=tuple(
                FlagCells(
                    flag=drawn.flag.number,
                    left=drawn.left_cards,
                    right=drawn.right_cards,
                    env=tuple(sorted(env.card for env in drawn.flag.env)),
                    held_by=labels[drawn.flag.claimed_by] if drawn.flag.claimed_by else None,
                    held_by_you=reader is not None and drawn.flag.claimed_by == reader,
                    held_by_left=drawn.flag.claimed_by is not None
                    and drawn.flag.claimed_by == row.left,
                )
                for drawn in row.flags
            ),
            first=row.first,
            last=row.last,
        )
        for row in board_of(view, reader).rows
    )


@dataclass(frozen=True, slots=True)
class ClaimLines:
    """A claim for the emails: why it held, in pieces (HTML) and in plain-text lines."""

    flag: int
    reason_pieces: list[Piece]
    reason_lines: tuple[str, ...]


def claim_lines(
    flag: int,
    reason: str,
    explained: ClaimExplained | None,
    names: Mapping[str, str],
    reader: str,
    ruleset: engine.Ruleset,
) -> ClaimLines:
    """Why a claim held, said to ``reader`` (the engine's sentence when the proof's fields are
    not at hand)."""
    pieces = explained.words(names, reader) if explained else with_cards(reason, ruleset)
    text = _("Flag %(flag)d: %(why)s", flag=flag, why=pieces_text(pieces, codes=True))
    return ClaimLines(flag, pieces, tuple(wrap(text, "  - ", "    ")))
