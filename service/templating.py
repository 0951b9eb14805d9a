"""What templates may call: how a card looks, and how a time reads. No game state comes in here."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from flask import Flask, url_for

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


STATIC_MAX_AGE_S = 365 * 24 * 3600
"""Static files are addressed by their content's hash (``static_url``), so they never go stale."""


def _static_versions(folder: str | None) -> dict[str, str]:
    if folder is None:
        return {}
    return {
        path.name: hashlib.sha256(path.read_bytes()).hexdigest()[:12]
        for path in Path(folder).iterdir()
        if path.is_file()
    }


def init_app(app: Flask) -> None:
    """Make the helpers available in every template."""
    versions = _static_versions(app.static_folder)
    if app.config.get("SEND_FILE_MAX_AGE_DEFAULT") is None:
        app.config["SEND_FILE_MAX_AGE_DEFAULT"] = STATIC_MAX_AGE_S

    def static_url(filename: str) -> str:
        """The address of a static file, changing whenever its content does."""
        return url_for("static", filename=filename, v=versions.get(filename, "0"))

    app.jinja_env.globals.update(
        card_face=card_face, COLOR_NAMES=COLOR_NAMES, static_url=static_url
    )
    app.jinja_env.filters["utc_time"] = utc_time
