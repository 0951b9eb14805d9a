"""What templates may call: how a card looks, and how a time reads. No game state comes in here."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from flask import Flask

from engine.cards import COLOR_NAMES, describe, is_tactic, troop_parts

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


@dataclass(frozen=True)
class CardFace:
    """What a card template draws for a card code."""

    code: str
    label: str
    """Words for screen readers and plain text: ``"red 4"``, ``"Alexander"``."""
    color: str
    """The color letter (CSS class ``card-R``), or ``"T"`` for tactics."""
    value: str
    """The big text on the card: ``"4"``, or the tactics name."""
    mark: str
    """The small text that tells the color without seeing it: ``"R"``, ``"♠"``, ``""``."""


def card_face(code: str) -> CardFace:
    """The face of a card code from a view (``"R4"``, ``"ALEXANDER"``)."""
    label = describe(code)
    if is_tactic(code):
        return CardFace(code=code, label=label, color="T", value=label, mark="")
    color, value = troop_parts(code)
    mark = SUIT_SYMBOLS.get(color, color)
    return CardFace(code=code, label=label, color=color, value=str(value), mark=mark)


def utc_time(moment: datetime | None) -> str:
    """A stored time for people: ``2025-03-01 17:00 UTC``."""
    return "" if moment is None else moment.strftime("%Y-%m-%d %H:%M UTC")


def init_app(app: Flask) -> None:
    """Make the helpers available in every template."""
    app.jinja_env.globals.update(card_face=card_face, COLOR_NAMES=COLOR_NAMES)
    app.jinja_env.filters["utc_time"] = utc_time
