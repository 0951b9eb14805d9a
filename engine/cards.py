"""Cards: codes, kinds, colors and values.

A card is its code, a plain upper-case string (``"R4"``, ``"G10"``, ``"ALEXANDER"``), exactly as
docs/formats.md writes it. Codes are hashable, JSON-ready and compare fast, which the prover and the
playouts need; what a code means is looked up here once.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import TypeAlias

from engine.errors import InvalidCardError, Why

Card: TypeAlias = str
"""A card code, upper-case: a troop (color letter + value) or a tactics card name."""


class Tactic(enum.StrEnum):
    """The ten tactics cards (R1)."""

    ALEXANDER = "ALEXANDER"
    DARIUS = "DARIUS"
    CAVALRY = "CAVALRY"
    SHIELD = "SHIELD"
    FOG = "FOG"
    MUD = "MUD"
    SCOUT = "SCOUT"
    REDEPLOY = "REDEPLOY"
    DESERTER = "DESERTER"
    TRAITOR = "TRAITOR"


class CardKind(enum.Enum):
    """What a card is for: troops and morale tactics go into formations; the others do not."""

    TROOP = "troop"
    MORALE = "morale"
    ENVIRONMENT = "environment"
    GUILE = "guile"


TACTICS: tuple[Card, ...] = tuple(t.value for t in Tactic)
LEADERS: frozenset[Card] = frozenset({Tactic.ALEXANDER, Tactic.DARIUS})
MORALE: frozenset[Card] = LEADERS | {Tactic.CAVALRY, Tactic.SHIELD}
ENVIRONMENT: frozenset[Card] = frozenset({Tactic.FOG, Tactic.MUD})
GUILE: frozenset[Card] = frozenset({Tactic.SCOUT, Tactic.REDEPLOY, Tactic.DESERTER, Tactic.TRAITOR})
_TACTIC_SET: frozenset[Card] = frozenset(TACTICS)

COLOR_NAMES: dict[str, str] = {
    "R": "red",
    "O": "orange",
    "Y": "yellow",
    "G": "green",
    "B": "blue",
    "P": "purple",
    "S": "spades",
    "H": "hearts",
    "D": "diamonds",
    "C": "clubs",
}


def kind(card: Card) -> CardKind:
    """The kind of a card code (which must be valid)."""
    if card not in _TACTIC_SET:
        return CardKind.TROOP
    if card in MORALE:
        return CardKind.MORALE
    if card in ENVIRONMENT:
        return CardKind.ENVIRONMENT
    return CardKind.GUILE


def is_troop(card: Card) -> bool:
    """True for a troop card (not a tactics card)."""
    return card not in _TACTIC_SET


def is_tactic(card: Card) -> bool:
    """True for any of the ten tactics cards."""
    return card in _TACTIC_SET


def is_formation_card(card: Card) -> bool:
    """True for a card that fills a slot of a formation: a troop or a morale tactics card."""
    return card not in _TACTIC_SET or card in MORALE


_TROOP_PARTS: dict[Card, tuple[str, int]] = {}


def troop_parts(card: Card) -> tuple[str, int]:
    """The (color letter, value) of a troop code such as ``"G10"``."""
    parts = _TROOP_PARTS.get(card)
    if parts is None:
        parts = (card[0], int(card[1:]))
        _TROOP_PARTS[card] = parts
    return parts


def troop_code(color: str, value: int) -> Card:
    """The code of a troop card: ``troop_code("R", 4) == "R4"``."""
    return f"{color}{value}"


def parse_card(text: str, colors: Iterable[str], max_value: int, tactics: bool) -> Card:
    """Read a card code, case-insensitively, and check it exists in a deck of these parameters.

    Raises InvalidCardError naming the code when it is not such a card.
    """
    code = text.strip().upper()
    if code in _TACTIC_SET:
        if not tactics:
            raise InvalidCardError(
                f"{code} is a tactics card, and this ruleset has none", Why.NO_TACTICS, card=code
            )
        return code
    if len(code) >= 2 and code[0] in set(colors) and code[1:].isdigit():
        value = int(code[1:])
        if 1 <= value <= max_value and code[1] != "0":
            return code
    raise InvalidCardError(
        f"{text.strip() or repr(text)} is not a card of this ruleset", Why.NOT_A_CARD, text=text
    )


def describe(card: Card) -> str:
    """A card in words: ``"red 4"``, ``"Alexander"``."""
    if is_tactic(card):
        return card.capitalize()
    color, value = troop_parts(card)
    return f"{COLOR_NAMES.get(color, color)} {value}"
