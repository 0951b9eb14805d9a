"""A reply's words cut into sentences, and each sentence into the parts that name one move each.

Pure: no database, no app.
"""

from __future__ import annotations

import re

import engine
from service.present.reply_words import (
    COLOR_WORDS,
    DECK_WORDS,
    PLACED,
    PLACING_VERBS,
    SHORT_CLAIM,
    TO_WORDS,
    VALUE_PLACED,
    VERBS,
    card_of,
    number_of,
    tokens_of,
)

SENTENCES = re.compile(r"[^\n.!?]*[\n.!?]*")
SEPARATORS = re.compile(r"[\n;,.!?]+|\b(?:and|then|und|dann|et|puis)\b", re.IGNORECASE)


def sentences(text: str) -> list[tuple[str, bool]]:
    """The sentences of ``text``, each with whether it is a question."""
    found = (m.group(0) for m in SENTENCES.finditer(text))
    return [(sentence, "?" in sentence) for sentence in found if sentence.strip()]


def is_anchor(word: str, ruleset: engine.Ruleset) -> bool:
    """A word that can begin a move: a verb, a deck, a card, a short claim code, notation."""
    low = word.lower()
    if low in VERBS or low in DECK_WORDS or SHORT_CLAIM.fullmatch(low):
        return True
    placed = PLACED.fullmatch(low)
    return placed is not None and card_of(placed.group(1), ruleset) is not None


def split_parts(text: str, ruleset: engine.Ruleset) -> list[str]:
    """The parts of a reply: at separators, then before each verb, deck word, short code or
    placed card (``R7>3``) that follows a part already naming a move (``R7>3 draw tactics``,
    ``troops troops tactics``). A verb or a deck that completes the part stays in it: ``play
    scout``, ``draw a tactics card``, ``REDEPLOY R7@3>5``; cards after ``return`` stay with it."""
    parts: list[str] = []
    for chunk in SEPARATORS.split(text):
        current: list[str] = []
        verbs: list[str] = []
        named = has_deck = has_placed = False
        for word in tokens_of(chunk):
            low = word.lower()
            placed = ">" in low or "@" in low
            completes = (
                (low in DECK_WORDS and verbs == ["draw"] and not has_deck)
                or (low in VERBS and verbs in (["play"], ["put"], ["place"]) and not has_placed)
                or (low == "discard" and verbs == ["redeploy"])
                or (placed and not has_placed and bool(verbs) and set(verbs) <= PLACING_VERBS)
            )
            starts = (
                low in VERBS
                or low in DECK_WORDS
                or SHORT_CLAIM.fullmatch(low) is not None
                or placed
            )
            if named and starts and not completes:
                parts.append(" ".join(current))
                current, verbs = [], []
                named = has_deck = has_placed = False
            current.append(word)
            if low in VERBS:
                verbs.append(low)
            has_deck = has_deck or low in DECK_WORDS
            has_placed = has_placed or (placed and is_anchor(word, ruleset))
            # "7 to 3 troops": a value that goes to a flag names a move, as a card does.
            valued = low in TO_WORDS and any(number_of(w.lower()) is not None for w in current)
            named = named or is_anchor(word, ruleset) or low in COLOR_WORDS or valued
            named = named or VALUE_PLACED.fullmatch(low) is not None
        if current:
            parts.append(" ".join(current))
    return [part for part in (p.strip() for p in parts) if part]
