"""Rulesets: every variant (V1-V6) as one set of parameters, never as a separate code path.

The table is a parameter too: with two seats all flags lie in one row between them; with three
(V6) the flags form a ring of rows, one row between each seat and the next. Either way each flag
has one pair of seats (``flag_seats``), and every rule works on that pair.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import cached_property
from typing import TypeAlias

from engine.cards import TACTICS, Card, parse_card, troop_code
from engine.errors import UnknownRulesetError

Seat: TypeAlias = str
"""A seat name: "A", "B" (and "C" with three players)."""

SEATS: tuple[Seat, ...] = ("A", "B", "C")
"""Every seat letter, in seat order; a ruleset seats the first ``players`` of them."""

FIRST_SEAT: Seat = SEATS[0]
"""The seat every ruleset lists first (the service seats a game's creator there). Not the seat
that plays first: the cut decides that (``GameState.first``, R2)."""


class ClaimTiming(enum.StrEnum):
    """When flags may be claimed (R4, R5)."""

    STANDARD = "standard"
    """After playing a card, before drawing (R4)."""
    ADVANCED = "advanced"
    """Only at the start of one's own turn, before playing (R5)."""

    @property
    def moment(self) -> str:
        """When a seat claims, in words to the player: ``"at the start of your turn"``."""
        return "after playing" if self is ClaimTiming.STANDARD else "at the start of your turn"


@dataclass(frozen=True)
class Ruleset:
    """The parameters of one variant of the game."""

    name: str
    """The name used in records and on the command line (``battleline``)."""
    title: str
    """The name for people (``Battle Line``)."""
    colors: tuple[str, ...]
    """Color (suit) letters of the troop cards, in display order."""
    max_value: int
    """Troop values run from 1 to this."""
    flags: int
    """Number of flags in the line."""
    hand_size: int
    """The full hand (R7)."""
    tactics: bool
    """Whether the ten tactics cards are in the game."""
    flags_to_win: int
    """Any this many flags win (an envelopment, R21)."""
    adjacent_to_win: int
    """This many adjacent flags win (a breakthrough, R21)."""
    default_claims: ClaimTiming
    """The claim timing a new game gets unless told otherwise."""
    formation_size: int = 3
    """Cards in a complete formation."""
    mud_formation_size: int = 4
    """Cards in a complete formation at a Mud flag (R10)."""
    players: int = 2
    """Seats at the table, playing in seat order (V6.1). With two, every flag lies between them;
    with three, the flags form a ring of rows, one row between each seat and the next (V6.2)."""
    scout_draws: int = 3
    """Cards a Scout draws at most, one at a time (R16)."""

    @cached_property
    def seats(self) -> tuple[Seat, ...]:
        """The seats of this ruleset in seat order: ``("A", "B")`` or ``("A", "B", "C")``."""
        return SEATS[: self.players]

    def opponents(self, seat: Seat) -> tuple[Seat, ...]:
        """The other seats, in the order they play after ``seat``; raises ValueError for a
        letter that is not a seat of this ruleset."""
        if seat not in self.seats:
            raise ValueError(f"{seat!r} is not a seat of {self.title}")
        i = self.seats.index(seat)
        return self.seats[i + 1 :] + self.seats[:i]

    def flag_seats(self, index: int) -> tuple[Seat, Seat]:
        """The pair of seats that contests flag ``index`` (0-based), the row's first seat first:
        with two players every flag is contested by both; with three, flags 1-3 by A and B, 4-6
        by B and C, 7-9 by C and A (V6.2)."""
        first, second = self.flag_pairs[index]
        return (self.seats[first], self.seats[second])

    @cached_property
    def ring(self) -> bool:
        """Whether the rows of flags close into a ring, so that the last flag is adjacent to the
        first (V6.2, V6.5): with three seats or more, each row meets the next at a corner."""
        return self.players > 2

    @cached_property
    def flag_pairs(self) -> tuple[tuple[int, int], ...]:
        """Per flag (0-based), the seat indices of its pair: the row's first seat, then the
        next seat in turn order. One row between the two seats of a two-player game."""
        rows = self.players if self.ring else 1
        per_row = self.flags // rows
        return tuple(
            (row, (row + 1) % self.players)
            for row in (min(i // per_row, rows - 1) for i in range(self.flags))
        )

    @cached_property
    def seat_flags(self) -> tuple[tuple[tuple[int, int], ...], ...]:
        """Per seat index, the flags it contests, lowest first, each as (flag index, side): its
        side is 0 when it is the first seat of the flag's pair, 1 when the second. A seat's
        cards at a flag are ``flag.cards[side]``."""
        return tuple(
            tuple((i, pair.index(seat)) for i, pair in enumerate(self.flag_pairs) if seat in pair)
            for seat in range(self.players)
        )

    def side(self, index: int, seat: int) -> int | None:
        """The side (0 or 1) of seat index ``seat`` at flag ``index`` (0-based), or None when
        the seat does not contest that flag (V6.2)."""
        first, second = self.flag_pairs[index]
        if seat == first:
            return 0
        if seat == second:
            return 1
        return None

    @cached_property
    def troops(self) -> tuple[Card, ...]:
        """Every troop card of the deck, color by color, low to high."""
        return tuple(
            troop_code(color, value)
            for color in self.colors
            for value in range(1, self.max_value + 1)
        )

    @cached_property
    def tactics_cards(self) -> tuple[Card, ...]:
        """The tactics cards of the deck (none without tactics)."""
        return TACTICS if self.tactics else ()

    @cached_property
    def all_cards(self) -> frozenset[Card]:
        """Every card of the game."""
        return frozenset(self.troops) | frozenset(self.tactics_cards)

    @cached_property
    def card_order(self) -> dict[Card, int]:
        """Each card's place when a hand is shown: troops color by color, low to high, then the
        tactics cards. Use as ``sorted(hand, key=ruleset.card_order.__getitem__)``."""
        return {card: i for i, card in enumerate(self.troops + self.tactics_cards)}

    def parse_card(self, text: str) -> Card:
        """Read a card code of this ruleset, case-insensitively (raises InvalidCardError)."""
        return parse_card(text, self.colors, self.max_value, self.tactics)


BATTLELINE = Ruleset(
    name="battleline",
    title="Battle Line",
    colors=("R", "O", "Y", "G", "B", "P"),
    max_value=10,
    flags=9,
    hand_size=7,
    tactics=True,
    flags_to_win=5,
    adjacent_to_win=3,
    default_claims=ClaimTiming.ADVANCED,
)
"""V1: the standard game (advanced claims are the default for games by mail, R5)."""

NO_TACTICS = Ruleset(
    name="no-tactics",
    title="Battle Line without tactics",
    colors=BATTLELINE.colors,
    max_value=10,
    flags=9,
    hand_size=6,
    tactics=False,
    flags_to_win=5,
    adjacent_to_win=3,
    default_claims=ClaimTiming.ADVANCED,
)
"""V2: no tactics cards, hand of six."""

PLAYING_CARDS = Ruleset(
    name="playing-cards",
    title="Battle Line with playing cards",
    colors=("S", "H", "D", "C"),
    max_value=13,
    flags=7,
    hand_size=7,
    tactics=False,
    flags_to_win=4,
    adjacent_to_win=3,
    default_claims=ClaimTiming.ADVANCED,
)
"""V4: a 52-card deck, seven flags, win on 3 adjacent or 4."""

SCHOTTEN_TOTTEN = Ruleset(
    name="schotten-totten",
    title="Schotten-Totten",
    colors=("R", "O", "Y", "G", "B", "P"),
    max_value=9,
    flags=9,
    hand_size=6,
    tactics=False,
    flags_to_win=5,
    adjacent_to_win=3,
    default_claims=ClaimTiming.ADVANCED,
)
"""V5: values 1-9, no tactics, hand of six, claims at the start of the turn."""

BATTLELINE_3P = Ruleset(
    name="battleline-3p",
    title="Battle Line for three",
    colors=BATTLELINE.colors,
    max_value=10,
    flags=9,
    hand_size=7,
    tactics=True,
    flags_to_win=4,
    adjacent_to_win=3,
    default_claims=ClaimTiming.ADVANCED,
    players=3,
)
"""V6: three seats around a ring of nine flags, win on 3 adjacent or any 4."""

NO_TACTICS_3P = Ruleset(
    name="no-tactics-3p",
    title="Battle Line for three without tactics",
    colors=BATTLELINE.colors,
    max_value=10,
    flags=9,
    hand_size=6,
    tactics=False,
    flags_to_win=4,
    adjacent_to_win=3,
    default_claims=ClaimTiming.ADVANCED,
    players=3,
)
"""V6 without tactics cards (V2): hand of six."""

RULESETS: dict[str, Ruleset] = {
    r.name: r
    for r in (BATTLELINE, NO_TACTICS, PLAYING_CARDS, SCHOTTEN_TOTTEN, BATTLELINE_3P, NO_TACTICS_3P)
}


def get_ruleset(name: str) -> Ruleset:
    """The ruleset of this name; raises UnknownRulesetError naming the known ones."""
    try:
        return RULESETS[name]
    except KeyError:
        known = ", ".join(RULESETS)
        raise UnknownRulesetError(f"unknown ruleset {name!r} (known: {known})") from None
