"""The message in a reply by email: the words that are no move (``Reading.chat``: greetings,
remarks, questions), as the player wrote them, for the other seats.

A sentence that is all chat is kept whole, its punctuation with it (``Nice play on flag 2!``);
of a sentence that holds moves too, only its chat parts are kept. Pure: no database, no app.
"""

from __future__ import annotations

from collections import Counter

import engine
from service.players.models import MESSAGE_MAX_CHARS
from service.present.reply_parts import sentences, split_parts
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
    for sentence, _question in sentences(normalised(text)):
        kept: list[str] = []
        parts = split_parts(sentence, ruleset)
        for part in parts:
            if chat[part] > 0:
                chat[part] -= 1
                kept.append(part)
        if kept and len(kept) == len(parts):
            lines[-1].append(sentence.strip())
        elif kept:
            lines[-1].append(", ".join(kept))
        if "\n" in sentence and lines[-1]:
            lines.append([])
    said = "\n".join(" ".join(line) for line in lines if line)
    return said.strip()


def too_long(message: str) -> bool:
    """Whether a reply's chat is longer than a message may be: the moves are played, the
    message is not sent, and the receipt says so (docs/rules.md, "Messages")."""
    return len(message) > MESSAGE_MAX_CHARS
