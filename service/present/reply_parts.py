"""A reply's words cut into sentences, and each sentence into the parts that name one move each.

Pure: no database, no app.
"""

from __future__ import annotations

import re

import engine
from engine.cards import TACTICS
from service.present.reply_japanese import Kind, is_japanese, words_of
from service.present.reply_wanted import is_remark, wanted
from service.present.reply_words import (
    COLOR_WORDS,
    DECK_WORDS,
    FILLER_WORDS,
    FROM_WORDS,
    NEGATIONS,
    PLACED,
    PLACING_VERBS,
    REPEATS,
    SHORT_CLAIM,
    TIMES_WORDS,
    TO_WORDS,
    VALUE_PLACED,
    VERBS,
    card_of,
    number_of,
    tokens_of,
    written_from,
)

TACTICS_CARDS = frozenset(TACTICS)
GUILE_VERBS = frozenset(("redeploy", "deserter", "traitor"))
"""The guile cards that take a card from a flag (``REDEPLOY R7@3>5``)."""
SENTENCES = re.compile(r"[^\n.!?。]*[\n.!?。]*")
SEPARATORS = re.compile(
    r"[\n;,.!?、。]+|\b(?:and|then|und|dann|et|puis)\b|そして|それから|次に|その後", re.IGNORECASE
)


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


def is_code(word: str, ruleset: engine.Ruleset) -> bool:
    """A short code that is a whole move by itself: a placed card (``R7>3``), a deck
    (``troops``), a claim (``c3``)."""
    low = word.lower()
    if low in DECK_WORDS or SHORT_CLAIM.fullmatch(low):
        return True
    placed = PLACED.fullmatch(low)
    return (
        placed is not None
        and bool(placed.group(3))
        and card_of(placed.group(1), ruleset) is not None
    )


def _is_move_word(low: str, ruleset: engine.Ruleset) -> bool:
    """A word a move may be written with (``reply_wanted.wanted`` reads none of the others)."""
    return (
        low in VERBS or low in DECK_WORDS or low in COLOR_WORDS or low in TO_WORDS
        or low in FROM_WORDS or low in FILLER_WORDS or low in NEGATIONS or low in REPEATS
        or low in TIMES_WORDS or low in ("back", "discard")
        or number_of(low) is not None or is_anchor(low, ruleset)
        or VALUE_PLACED.fullmatch(low) is not None
    )  # fmt: skip


_GOING_ON = (
    frozenset({"card", "cards", "deck", "pile", "top", "of", "please", "pls", "now", *REPEATS})
    | TO_WORDS
    | FROM_WORDS
    | TIMES_WORDS
)
"""Words that go on with the code before them (``tactics deck``, ``R7>3 please``), never the
first word of chat after it."""


def chat_after_codes(words: list[str], ruleset: engine.Ruleset) -> int:
    """Where the words of a chunk turn to chat after a short code (``R3>1 troops Good play``,
    ``troops I'm in Tokyo next week``): the first word after a code that is no code itself,
    when the words from there on hold a word of no move and name no move. ``len(words)`` when
    they do not turn."""
    for index in range(1, len(words)):
        if not is_code(words[index - 1], ruleset) or is_code(words[index], ruleset):
            continue
        if words[index].lower() in _GOING_ON:
            continue
        tail = words[index:]
        if all(_is_move_word(word.lower(), ruleset) for word in tail):
            continue
        seen = wanted(" ".join(tail), ruleset)
        if seen is None or is_remark(seen):
            return index
    return len(words)


def split_parts(text: str, ruleset: engine.Ruleset) -> list[str]:
    """The parts of a reply: at separators, then before each verb, deck word, short code or
    placed card (``R7>3``) that follows a part already naming a move (``R7>3 draw tactics``,
    ``troops troops tactics``). A verb or a deck that completes the part stays in it: ``play
    scout``, ``draw a tactics card``, ``REDEPLOY R7@3>5``; cards after ``return`` stay with it.
    Words of chat after the codes of a move (``chat_after_codes``) are a part of their own."""
    parts: list[str] = []
    for chunk in SEPARATORS.split(text):
        if is_japanese(chunk):
            parts += japanese_parts(chunk, ruleset)
            continue
        words = tokens_of(chunk)
        cut = chat_after_codes(words, ruleset)
        parts += _move_parts(words[:cut], ruleset)
        if cut < len(words):
            parts.append(written_from(chunk, cut))
    return [part for part in (p.strip() for p in parts) if part]


def _move_parts(words: list[str], ruleset: engine.Ruleset) -> list[str]:
    """The parts of a chunk's words of moves, cut before each move that begins."""
    parts: list[str] = []
    current: list[str] = []
    verbs: list[str] = []
    named = has_deck = has_placed = False
    for word in words:
        low = word.lower()
        placed = ">" in low or "@" in low
        completes = (
            (low in DECK_WORDS and verbs == ["draw"] and not has_deck)
            or (low in VERBS and verbs in (["play"], ["put"], ["place"]) and not has_placed)
            or (low == "discard" and verbs == ["redeploy"])
            or (placed and not has_placed and bool(verbs) and set(verbs) <= PLACING_VERBS)
        )
        starts = (
            low in VERBS or low in DECK_WORDS or SHORT_CLAIM.fullmatch(low) is not None or placed
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
    return parts


def japanese_parts(text: str, ruleset: engine.Ruleset) -> list[str]:
    """The parts of Japanese words, as written: a verb ends its part (「赤7をフラッグ3に出して
    部隊カードを引く」), unless it comes first (「確保 2」); a deck, a tactics card or notation
    begins a new part after one naming a move already (「赤7をフラッグ3に戦術カード」); after a
    verb or a code that ends a move, a space does (「R3>1 troops よろしく」)."""
    spans: list[tuple[int, int]] = []
    start: int | None = None
    end = 0
    named = closed = guile = coded = False
    for word in words_of(text):
        # 「R3>1 troops よろしく」: after a whole move, words past a space are the next part.
        gap = text[end : word.start]
        if start is not None and (closed or coded) and gap and not gap.strip():
            spans.append((start, end))
            start, named, closed, guile, coded = None, False, False, False, False
        if word.kind is Kind.FILLER or (closed and word.kind is Kind.NEGATION):
            start = word.start if start is None else start
            end = word.end
            continue
        anchor = word.kind is Kind.ANCHOR or (
            word.kind is Kind.OTHER and is_anchor(word.reader, ruleset)
        )
        # 「脱走でフラッグ8の盾を」: the card a guile card takes stays with it.
        taken = guile and word.reader in TACTICS_CARDS
        if start is not None and (closed or (named and anchor and not taken)):
            spans.append((start, end))
            start, named, closed, guile = None, False, False, False
        # Open while the guile card's target is still to come.
        guile = (guile and not taken and word.kind is not Kind.COLOUR) or (
            word.reader in GUILE_VERBS
        )
        if start is None:
            start = word.start
        else:
            closed = word.kind is Kind.VERB
        end = word.end
        named = named or anchor or word.kind is Kind.COLOUR
        coded = is_code(word.reader, ruleset)
    if start is not None:
        spans.append((start, end))
    return [text[a:b].strip() for a, b in spans if text[a:b].strip()]
