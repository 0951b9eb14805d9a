"""Rulesets: every variant (V1-V5) as one set of parameters, never as a separate code path."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import cached_property

from engine.cards import TACTICS, Card, parse_card, troop_code
from engine.errors import InvalidCardError, UnknownRulesetError


class ClaimTiming(enum.StrEnum):
    """When flags may be claimed (R4, R5)."""

    STANDARD = "standard"
    """After playing a card, before drawing (R4)."""
    ADVANCED = "advanced"
    """Only at the start of one's own turn, before playing (R5)."""


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
    """Seats at the table. V6 (three players) will give each flag a pair of seats."""

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

    def check_card(self, card: Card) -> Card:
        """Return the card if it is one of this ruleset's, else raise InvalidCardError."""
        if card not in self.all_cards:
            raise InvalidCardError(f"{card} is not a card of {self.title}")
        return card


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

RULESETS: dict[str, Ruleset] = {
    r.name: r for r in (BATTLELINE, NO_TACTICS, PLAYING_CARDS, SCHOTTEN_TOTTEN)
}


def get_ruleset(name: str) -> Ruleset:
    """The ruleset of this name; raises UnknownRulesetError naming the known ones."""
    try:
        return RULESETS[name]
    except KeyError:
        known = ", ".join(RULESETS)
        raise UnknownRulesetError(f"unknown ruleset {name!r} (known: {known})") from None
