"""The message in a reply by email: the words that are no move (``Reading.chat``: greetings,
remarks, questions), as the player wrote them, for the other seats.

A sentence that is all chat is kept whole and as written, its punctuation with it (``Nice play
on flag 2!``, 「いい手ですね！」 with its full-width mark, which the reader compares as ``!``); of a
sentence that holds moves too, only its chat parts are kept. Pure: no database, no app.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import engine
from service.players.models import MESSAGE_MAX_CHARS
from service.present.reply_parts import SENTENCES, split_parts
from service.present.reply_reading import Reading
from service.present.reply_words import normalised


def chat_message(text: str, reading: Reading, ruleset: engine.Ruleset) -> str:
    """The chat of ``text`` (the reply's own words) that ``reading`` set apart, in the words of
    the reply, one sentence after another, lines kept; "" when it holds none."""
    # Counted, not queued: an aside is set apart only once the position is known, after the rest.
    chat = Counter(reading.chat)
    if not chat:
        return ""
    lines: list[list[str]] = [[]]
    for sentence, written in as_written(text):
        if not sentence.strip():
            continue
        kept: list[str] = []
        parts = split_parts(sentence, ruleset)
        for part in parts:
            if chat[part] > 0:
                chat[part] -= 1
                kept.append(part)
        if kept and len(kept) == len(parts):
            lines[-1].append(written.strip())
        elif kept:
            lines[-1].append(", ".join(kept))
        if "\n" in sentence and lines[-1]:
            lines.append([])
    said = "\n".join(" ".join(line) for line in lines if line)
    return said.strip()


LONGEST_FOUND = 1000
"""A sentence longer than this is not looked for as written (nor those after it)."""
WRITTEN_WORK_PER_CHAR = 20
WRITTEN_WORK_MIN = 200_000
"""``as_written`` normalises at most this many characters, plus ``WRITTEN_WORK_PER_CHAR`` for
each character of the reply, in all: then the rest of the sentences go as normalised. Finding a
sentence far from where its normalised length says costs work in the square of its length, and
a reply's size is chosen by whoever sends it."""


@dataclass
class _Budget:
    left: int


def as_written(text: str) -> list[tuple[str, str]]:
    """The sentences of ``normalised(text)`` as the reader cuts them, each with the same words as
    written in ``text``; the normalised ones from where they cannot be found (a normalised
    sentence that no stretch of ``text`` gives, or the work allowed is spent)."""
    found: list[tuple[str, str]] = []
    start: int | None = 0
    budget = _Budget(WRITTEN_WORK_MIN + WRITTEN_WORK_PER_CHAR * len(text))
    for match in SENTENCES.finditer(normalised(text)):
        sentence = match.group(0)
        end = None if start is None else _written_end(text, start, sentence, budget)
        found.append((sentence, sentence if start is None or end is None else text[start:end]))
        start = end
    return found


def _written_end(text: str, start: int, sentence: str, budget: _Budget) -> int | None:
    """Where the stretch of ``text`` from ``start`` ends that normalises to ``sentence``: looked
    for first where as long (most characters are their own normal form), then further away;
    None when not found within the ``budget`` of characters to normalise."""
    if len(sentence) > LONGEST_FOUND:
        return None
    for shift in range(len(sentence) + 1):
        for end in {start + len(sentence) + shift, start + len(sentence) - shift}:
            if not start <= end <= len(text):
                continue
            budget.left -= end - start
            if budget.left < 0:
                return None
            if normalised(text[start:end]) == sentence:
                return end
    return None


def too_long(message: str) -> bool:
    """Whether a reply's chat is longer than a message may be: the moves are played, the
    message is not sent, and the receipt says so (docs/rules.md, "Messages")."""
    return len(message) > MESSAGE_MAX_CHARS
