"""Cards in the reader's words: "red 4" and "Alexander" in English, 「赤4」 and 「アレキサンダー」
in Japanese (docs/glossary-ja.md). The engine describes cards in English for its own output;
pages and emails name them through here. Codes (``R4``, ``ALEXANDER``) are never translated."""

from __future__ import annotations

from engine.cards import Tactic, is_tactic, troop_parts
from service.catalogue import gettext, lazy_gettext

COLOUR_WORDS = {
    "R": lazy_gettext("red"),
    "O": lazy_gettext("orange"),
    "Y": lazy_gettext("yellow"),
    "G": lazy_gettext("green"),
    "B": lazy_gettext("blue"),
    "P": lazy_gettext("purple"),
    "S": lazy_gettext("spades"),
    "H": lazy_gettext("hearts"),
    "D": lazy_gettext("diamonds"),
    "C": lazy_gettext("clubs"),
}
TACTICS_WORDS = {
    Tactic.ALEXANDER: lazy_gettext("Alexander"),
    Tactic.DARIUS: lazy_gettext("Darius"),
    Tactic.CAVALRY: lazy_gettext("Cavalry"),
    Tactic.SHIELD: lazy_gettext("Shield"),
    Tactic.FOG: lazy_gettext("Fog"),
    Tactic.MUD: lazy_gettext("Mud"),
    Tactic.SCOUT: lazy_gettext("Scout"),
    Tactic.REDEPLOY: lazy_gettext("Redeploy"),
    Tactic.DESERTER: lazy_gettext("Deserter"),
    Tactic.TRAITOR: lazy_gettext("Traitor"),
}


def card_words(code: str) -> str:
    """A card code in the current language's words: ``"red 4"``, ``"Alexander"``."""
    if is_tactic(code):
        return str(TACTICS_WORDS[Tactic(code)])
    colour, value = troop_parts(code)
    return str(gettext("%(colour)s %(value)s", colour=COLOUR_WORDS[colour], value=value))
