"""What templates may call: how a card looks, and how a time reads. No game state comes in here."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from flask import Flask, has_request_context, request, url_for
from markupsafe import Markup, escape

from engine.cards import COLOR_NAMES, is_tactic, troop_parts
from service import game_words, reader_time
from service.card_words import card_words
from service.catalogue import lazy_gettext, page_language
from service.game_words import in_words

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
    """The face of a card code from a view (``"R4"``, ``"ALEXANDER"``), in the words of the
    language being written."""
    label = card_words(code)
    if is_tactic(code):
        return CardFace(code=code, label=label, color="T", value=label, mark="")
    color, value = troop_parts(code)
    mark = SUIT_SYMBOLS.get(color, color)
    return CardFace(code=code, label=label, color=color, value=str(value), mark=mark)


def card_html(code: str, extra: str = "") -> Markup:
    """A card drawn in HTML (the pages' ``card`` in ``_cards.html``): Python rather than a Jinja
    macro, because a page draws a few hundred of them and the set of cards is small."""
    return _card_html(code, extra, page_language())


@functools.lru_cache(maxsize=2048)
def _card_html(code: str, extra: str, language: str) -> Markup:
    face = card_face(code)
    classes = f"card card-{face.color}" + (f" {extra}" if extra else "")
    mark = f'<span class="mark" aria-hidden="true">{escape(face.mark)}</span>' if face.mark else ""
    return Markup(
        f'<span class="{escape(classes)}" role="img" aria-label="{escape(face.label)}" '
        f'title="{escape(face.label)}">\n  <span class="value" aria-hidden="true">'
        f"{escape(face.value)}</span>{mark}\n</span>"
    )


def pieces_html(parts: Iterable[Any]) -> Markup:
    """Words with small cards (``service.present.words`` pieces: ``kind`` "card" or "text")."""
    inner = "".join(
        card_html(part.value) if part.kind == "card" else f" {escape(part.value)} "
        for part in parts
    )
    return Markup(f'<span class="pieces">{inner}</span>')


NUMBER_WORDS = (
    lazy_gettext("no"),
    lazy_gettext("one"),
    lazy_gettext("two"),
    lazy_gettext("three"),
    lazy_gettext("four"),
    lazy_gettext("five"),
    lazy_gettext("six"),
    lazy_gettext("seven"),
    lazy_gettext("eight"),
    lazy_gettext("nine"),
    lazy_gettext("ten"),
)


def number_word(count: int) -> str:
    """A small count in words, as a sentence says it: ``three`` (in Japanese, the digit);
    digits from eleven on."""
    return str(NUMBER_WORDS[count]) if 0 <= count < len(NUMBER_WORDS) else str(count)


def utc_time(moment: datetime | None) -> str:
    """A stored time for people: ``2025-03-01 17:00 UTC``."""
    if moment is None:
        return ""
    # Not strftime: a move list formats a hundred times a page, and this costs half as much.
    m = moment
    return f"{m.year:04d}-{m.month:02d}-{m.day:02d} {m.hour:02d}:{m.minute:02d} UTC"


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

    # Every page links the same static files: their addresses are built once per mount point
    # (werkzeug's build of the two, each with its version as a query value, was 0.6% of a
    # private page's instructions, bench.instructions).
    built: dict[tuple[str | None, str], str] = {}

    def static_url(filename: str) -> str:
        """The address of a static file, changing whenever its content does."""
        key = (request.script_root if has_request_context() else None, filename)
        url = built.get(key)
        if url is None:
            url = built[key] = url_for("static", filename=filename, v=versions.get(filename, "0"))
        return url

    app.jinja_env.globals.update(
        card_face=card_face,
        card_html=card_html,
        pieces_html=pieces_html,
        COLOR_NAMES=COLOR_NAMES,
        static_url=static_url,
    )
    app.jinja_env.filters["utc_time"] = utc_time
    reader_time.register(app.jinja_env.filters)
    app.jinja_env.filters["number_word"] = number_word
    app.jinja_env.filters.update(
        claim_moment=game_words.claim_moment,
        claim_timing=game_words.claim_timing_name,
        computer_level_name=game_words.computer_level_name,
        computer_level_words=game_words.computer_level_words,
        in_words=in_words,
        outbox_status=game_words.outbox_status,
        ruleset_title=game_words.ruleset_title,
        status_words=game_words.status_words,
        termination=game_words.termination_words,
    )
