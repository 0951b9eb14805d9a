"""Lines of plain text that fit a monospaced mail program by the columns they take, in any
language: a kana or kanji takes two columns, and Japanese has no spaces to break at.

A line without wide characters is wrapped by ``textwrap`` at its spaces. A line with them is
cut into phrases by BudouX (Google's phrase segmenter, the one browsers use for ``word-break:
auto-phrase``), so that a line breaks between phrases (``バトルラインの / 対局を``) rather than
inside a word, and the rules of Japanese line breaking (kinsoku shori) hold: no line begins with
a closing bracket, a comma, a full stop or a small kana, none ends with an opening bracket. A
word without wide characters (a link, a code) is never cut.

Pure: no app, no database.
"""

from __future__ import annotations

import re
import textwrap
import unicodedata
from functools import cache
from itertools import groupby

import budoux

NO_LINE_START = frozenset(
    ")]},.!?:;%"
    "、。，．・：；？！‐ー―～…‥"
    "）〕］｝〉》」』】〙〗〟’”»"
    "ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶㇰㇱㇲㇳㇴㇵㇶㇷㇸㇹㇺㇻㇼㇽㇾㇿ々ゝゞヽヾ"
)
"""What may not begin a line (JIS X 4051's closing brackets, punctuation and small kana)."""
NO_LINE_END = frozenset("([{（〔［｛〈《「『【〘〖〝‘“«")
"""What may not end a line (opening brackets)."""


def display_width(text: str) -> int:
    """The columns ``text`` takes in a monospaced font: two for a wide character (kana, kanji,
    full-width forms; Unicode's East Asian Width W and F), one for any other."""
    if text.isascii():  # most lines, at the cost of one pass in C
        return len(text)
    return sum(2 if _is_wide(char) else 1 for char in text)


def _is_wide(char: str) -> bool:
    return unicodedata.east_asian_width(char) in "WF"


def has_wide(text: str) -> bool:
    return not text.isascii() and any(map(_is_wide, text))


@cache
def _phrases() -> budoux.Parser:
    return budoux.load_default_japanese_parser()


def wrap_line(text: str, width: int, indent: str = "", hanging: str | None = None) -> list[str]:
    """``text`` in lines of at most ``width`` columns, the first indented by ``indent``, the
    others by ``hanging`` (default: the same). A word too long for a line (a link) keeps a line
    of its own, whole."""
    later = indent if hanging is None else hanging
    if not has_wide(text):
        return textwrap.wrap(
            text,
            width=width,
            initial_indent=indent,
            subsequent_indent=later,
            break_long_words=False,
            break_on_hyphens=False,
        )
    lines: list[str] = []
    line, used = indent, display_width(indent)
    empty = True
    for piece, space in pieces(text):
        gap = "" if empty else space
        needed = display_width(piece)
        if not empty and used + len(gap) + needed > width:
            lines.append(line)
            line, used, gap, empty = later, display_width(later), "", True
        line += gap + piece
        used += len(gap) + needed
        empty = False
    if not empty:
        lines.append(line)
    return lines


_WORD = re.compile(r"(\s*)(\S+)")
"""A word and the spaces before it."""


def pieces(text: str) -> list[tuple[str, str]]:
    """The pieces a line of ``text`` may break between, each with the spaces that stood before
    it (kept where no break falls between, so that columns stay aligned): its words, the words
    with wide characters cut into phrases, each phrase too wide for any line into characters,
    glued where a break would begin or end a line badly."""
    found: list[tuple[str, str]] = []
    for match in _WORD.finditer(text):
        space, word = match.group(1).replace("\t", " "), match.group(2)
        phrases = _phrases().parse(word) if has_wide(word) else [word]
        for at, part in enumerate(p for phrase in phrases for p in _characters(phrase)):
            before = space if at == 0 else ""
            if found and (part[0] in NO_LINE_START or found[-1][0][-1] in NO_LINE_END):
                glued, space_before = found.pop()
                found.append((glued + before + part, space_before))
            else:
                found.append((part, before))
    return found


PHRASE_COLUMNS = 24
"""A phrase wider than this (a long run BudouX left whole) breaks between its characters."""


def _characters(phrase: str) -> list[str]:
    """``phrase`` whole, or if wider than ``PHRASE_COLUMNS`` its wide characters one by one and
    its runs of narrow ones (a name, a number) whole."""
    if display_width(phrase) <= PHRASE_COLUMNS:
        return [phrase]
    parts: list[str] = []
    for wide, run in groupby(phrase, _is_wide):
        characters = list(run)
        parts.extend(characters if wide else ["".join(characters)])
    return parts
