"""Which words of a page or an email are in another language than its reader's (issue 23), for
every test that looks at what a reader of one language is shown.

- ``visible_text(html, language)``: what a reader meets in an HTML page or email part: its text
  and the attributes that are shown or read aloud, leaving out code (``<code>``, scripts),
  whatever an element's ``lang`` declares to be in another language (the language switch's
  "English" on a Japanese page: a screen reader reads it in English, as it must) and what
  ``translate="no"`` marks as never translated (HTML's own mark, which translating browsers
  follow: the IANA names of time zones).
- ``english_words(text, names)``: the English words left in a text meant for a Japanese reader.
- ``japanese_in(text, names)``: the Japanese left in a text meant for an English reader.

What is never translated, and so is allowed in either language, is listed below with its reason:
people's names (the caller gives them), the service's name, each language's name in itself,
card codes and the move notation (docs/notation.md: the same in every language), addresses, the
names of time zones, and the few words Japanese writes in Latin letters too. Everything else
written in Latin letters in a Japanese text counts as an English word left.
"""

from __future__ import annotations

import re
import zoneinfo
from collections.abc import Iterable
from functools import cache
from html.parser import HTMLParser

from engine.cards import TACTICS
from service.i18n import LANGUAGES

# ------------------------------------------------------------------ what stays as it is written

PEOPLE = ("Reiner Knizia",)
"""Named on every page (the game's designer): a person's name is never translated."""

BRAND = ("Battle Line by mail",)
"""The service's own name, as the sender of every email shows it (``MAIL_DEFAULT_SENDER``)."""

LANGUAGE_NAMES = tuple(language.name for language in LANGUAGES)
"""Each language's name in itself ("English", "日本語"): the language switch shows them so that
each reader finds their own (a page marks them with ``lang``; a text part cannot)."""

NOTATION_WORDS = frozenset(
    {"claim", "draw", "troops", "tactics", "return", "discard", "pass", "end", "resign", "timeout"}
)
"""The lower-case words of the move notation and of the short reply codes (docs/notation.md,
``service.present.choices.move_code``): a reply is written with them in every language. Only
as the notation writes them, in lower case: ``Pass`` or ``End`` on a button is English."""

NOTATION_PHRASES = (
    re.compile(r"\breturn \d+ face down\b"),
    re.compile(r"\bpython -m engine \w+"),
)
"""The notation's public form of a Scout's return (docs/notation.md, "What the other seat
sees"), and the engine's command that replays a game record."""

WRITTEN_IN_LATIN = frozenset({"SHA", "JSON", "UTC", "GMT", "vs"})
"""What Japanese writes in Latin letters too: the names of a hash (SHA-256), a file format and
two time standards, and ``vs`` between the sides of a match (「Alice vs 健二」)."""

SINGLE_CAPITALS = re.compile(r"^[A-Z]$")
"""A seat (``A:``) or a colour letter of a card code (``R = 赤``): notation, not words."""

TACTICS_CODES = frozenset(TACTICS)
"""The codes of the tactics cards in upper case (``SCOUT``, ``ALEXANDER``): card codes, like
``R7``. Their names in words (``Scout``) are English."""

URL = re.compile(r"(?:https?|mailto):[^\s<>\"'）」]+")
ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
TOKEN = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)*")
"""A word as the check sees it: letters and digits together (``R7``, ``seed0``, ``c3`` hold a
digit, so they are codes, never English words)."""
ENGLISH_WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)*")

JAPANESE = re.compile(
    "[\u3000-\u303f\u3040-\u309f\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff01-\uff60\uff61-\uff9f]+"
)
"""Japanese punctuation, kana, kanji and full-width forms."""


@cache
def _time_zones() -> frozenset[str]:
    """IANA's names of time zones ("Asia/Tokyo", "Japan"): identifiers a reader chooses from, in
    every language."""
    return frozenset(zoneinfo.available_timezones())


TIME_ZONE = re.compile(r"[A-Za-z][A-Za-z0-9_+-]*(?:/[A-Za-z0-9_+-]+)*")


def _without_what_stays(text: str, names: Iterable[str]) -> str:
    """``text`` with what is never translated blanked out (each replaced by a space)."""
    text = URL.sub(" ", text)
    text = ADDRESS.sub(" ", text)
    for phrase in sorted({*names, *PEOPLE, *BRAND, *LANGUAGE_NAMES}, key=len, reverse=True):
        if phrase.strip():
            # Whole words only: the name "Ann" leaves "Announce" as it is.
            whole = rf"(?<![A-Za-z]){re.escape(phrase.strip())}(?![A-Za-z])"
            text = re.sub(whole, " ", text)
    for pattern in NOTATION_PHRASES:
        text = pattern.sub(" ", text)
    zones = _time_zones()
    return TIME_ZONE.sub(
        lambda m: " " if m.group() in zones and "/" in m.group() else m.group(), text
    )


def english_words(text: str, names: Iterable[str] = ()) -> list[str]:
    """The English words of ``text`` (meant for a Japanese reader), each once, in the order they
    first appear. ``names``: the people's names the text may hold, in any script."""
    found: list[str] = []
    for token in TOKEN.findall(_without_what_stays(text, names)):
        if not ENGLISH_WORD.fullmatch(token) or token in found:
            continue
        if (
            token in NOTATION_WORDS
            or token in TACTICS_CODES
            or token in WRITTEN_IN_LATIN
            or token in _time_zones()
            or SINGLE_CAPITALS.match(token)
        ):
            continue
        found.append(token)
    return found


def japanese_in(text: str, names: Iterable[str] = ()) -> list[str]:
    """The runs of Japanese in ``text`` (meant for an English reader), each once, in order."""
    found: list[str] = []
    for run in JAPANESE.findall(_without_what_stays(text, names)):
        if run not in found:
            found.append(run)
    return found


def lines_with(text: str, words: Iterable[str], most: int = 3) -> list[str]:
    """The first lines of ``text`` holding any of ``words``: where a failure is to be found."""
    wanted = [re.compile(rf"(?<![A-Za-z]){re.escape(w)}(?![A-Za-z])") for w in words]
    lines = [line.strip() for line in text.splitlines() if any(p.search(line) for p in wanted)]
    return lines[:most]


# ------------------------------------------------------------------ HTML as its reader meets it

SHOWN_ATTRIBUTES = ("alt", "title", "aria-label", "placeholder", "aria-description")
"""Attributes a reader sees (on hover, in place of an image) or hears (a screen reader)."""
CODE_ELEMENTS = frozenset({"code", "kbd", "samp", "script", "style", "template"})
"""Machine text: the notation and commands (``<code>``), the same in every language; scripts."""
BREAKING = frozenset(
    {"br", "button", "dd", "div", "dt", "h1", "h2", "h3", "h4", "li", "option", "p", "td", "th",
     "title", "tr"}
)  # fmt: skip
"""Elements that begin a line of their own (so that a failure can name its line)."""
VOID_ELEMENTS = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
     "wbr"}
)  # fmt: skip


class _Reader(HTMLParser):
    """Collects the text of a document that its reader of ``language`` meets."""

    def __init__(self, language: str) -> None:
        super().__init__(convert_charrefs=True)
        self.language = language
        self.parts: list[str] = []
        self.open: list[tuple[str, bool]] = []
        """The open elements: (tag, whether its content is left out)."""

    def _left_out(self) -> bool:
        return bool(self.open) and self.open[-1][1]

    def _is_foreign(self, attributes: dict[str, str | None]) -> bool:
        """Marked as in another language, or as never translated."""
        if attributes.get("translate") == "no":
            return True
        declared = attributes.get("lang")
        return bool(declared) and str(declared).split("-")[0].lower() != self.language

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        # The document's own ``lang`` is the page's: only an element inside it can differ.
        left_out = (
            self._left_out()
            or tag in CODE_ELEMENTS
            or (tag != "html" and self._is_foreign(attributes))
        )
        # Neighbouring elements' words stay apart ("email" in a label, "Your" in the next).
        self.parts.append("\n" if tag in BREAKING else " ")
        if not left_out:
            self._attributes(tag, attributes)
        if tag not in VOID_ELEMENTS:
            self.open.append((tag, left_out))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if not self._left_out() and not self._is_foreign(dict(attrs)):
            self._attributes(tag, dict(attrs))

    def _attributes(self, tag: str, attributes: dict[str, str | None]) -> None:
        shown = [attributes.get(name) for name in SHOWN_ATTRIBUTES]
        if tag == "input" and attributes.get("type") in ("submit", "button", "reset"):
            shown.append(attributes.get("value"))
        self.parts += [f"\n{value}\n" for value in shown if value]

    def handle_endtag(self, tag: str) -> None:
        self.parts.append("\n" if tag in BREAKING else " ")
        for index in range(len(self.open) - 1, -1, -1):
            if self.open[index][0] == tag:
                del self.open[index:]
                return

    def handle_data(self, data: str) -> None:
        if not self._left_out():
            self.parts.append(data)


def visible_text(html: str, language: str) -> str:
    """The text a reader of ``language`` meets in ``html`` (a page or an email's HTML part)."""
    reader = _Reader(language)
    reader.feed(html)
    reader.close()
    return "".join(reader.parts)


HTML_LANG = re.compile(r"<html\b[^>]*\blang=\"([^\"]*)\"", re.IGNORECASE)


def declared_language(html: str) -> str | None:
    """The ``lang`` of a document's ``<html>`` element, or None."""
    found = HTML_LANG.search(html)
    return found.group(1) if found else None
