"""The words a reply by email is read with: its characters made comparable, the words of cards,
decks, verbs and numbers as players write them, and the tokens a part is cut into.

Pure: no database, no app. ``service.present.reply_reading`` reads them into moves.
"""

from __future__ import annotations

import re
import unicodedata

import engine
from engine import Action, Deck
from engine.cards import COLOR_NAMES
from engine.cards import GUILE as GUILE_CARDS
from service.present.reply_japanese import is_japanese, reader_words

_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"), None)


def normalised(text: str) -> str:
    """Text as the reader compares it: Unicode compatibility forms (full-width letters, the
    ``＞`` of a phone keyboard), no invisible characters, arrows as ``>``."""
    text = unicodedata.normalize("NFKC", text).translate(_INVISIBLE).replace("\u2019", "'")
    # An arrow before a flag's number is the notation's ">" (R7 -> 3); else it means "then".
    text = re.sub(r"\s*(?:->|→|⟶|➔|=>|›|»)\s*(?=[0-9])", ">", text)
    return re.sub(r"->|→|⟶|➔|=>|›|»", ",", text).replace("\xa0", " ")


COLOR_WORDS = {
    word: letter for letter, name in COLOR_NAMES.items() for word in (name, name.removesuffix("s"))
}
"""The engine's colour names, and their singular: ``red``, ``hearts``, ``heart``."""
NUMBER_WORDS = {
    word: value
    for value, word in enumerate(
        (
            "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
            "eleven", "twelve", "thirteen",
        )
    )
}  # fmt: skip
DECK_WORDS = {deck.value: deck for deck in Deck} | {
    "troop": Deck.TROOPS, "tactic": Deck.TACTICS, "tactical": Deck.TACTICS,
    # The deck names a German or French player may write.
    "truppen": Deck.TROOPS, "truppe": Deck.TROOPS, "taktik": Deck.TACTICS,
    "troupes": Deck.TROOPS, "troupe": Deck.TROOPS, "tactiques": Deck.TACTICS,
    "tactique": Deck.TACTICS,
}  # fmt: skip
"""The notation's deck words (``draw troops``) and the others players write."""
VERBS = {action.value: action for action in Action if action is not Action.TIMEOUT} | {
    "put": Action.PLAY, "place": Action.PLAY, "concede": Action.RESIGN,
}  # fmt: skip
"""The notation's action words (``claim``, ``redeploy``; a timeout is the server's, never a
player's) and the others players write."""
GUILE = {card: Action(card.lower()) for card in sorted(GUILE_CARDS)}
"""A guile card names its move: the notation writes ``REDEPLOY R7@3>5``."""
REPEATS = {"twice": 2, "thrice": 3}
"""Words that repeat a draw: "draw troops twice" (a Scout draws up to three, R16)."""
TIMES_WORDS = frozenset({"times", "mal", "fois"})
"""After a number, these repeat a draw too: "troops 3 times"."""
BACK_VERBS = frozenset({"put", "give", "place"})
"""``put back G2``: these followed by ``back`` put Scout cards back (``return``)."""
PLACING_VERBS = frozenset({"play", "put", "place", "redeploy", "deserter", "traitor", "discard"})
"""Verbs that a card with its flags (``R7@3>5``) completes: ``REDEPLOY R7@3>5``."""
TO_WORDS = frozenset({"to", "on", "onto", "at", "into", "in", ">"})
FROM_WORDS = frozenset({"from", "off", "@"})
NEGATIONS = frozenset(
    ["not", "no", "don't", "dont", "won't", "wont", "never", "nicht", "kein", "keine", "pas", "ne"]
)
"""A part that says one of these is never played: "not R7>3" must not play R7>3."""
FILLER_WORDS = frozenset(
    {
        "a", "an", "the", "my", "your", "i", "i'll", "ill", "i'd", "i'm", "im", "will", "would",
        "want", "like", "please", "pls", "card", "cards", "flag", "flags", "deck", "pile", "top",
        "of", "now", "me", "let", "let's", "lets", "ok", "okay", "so", "just", "also", "with",
        "this", "that", "turn", "number", "no.", "nr", "#",
    }
)  # fmt: skip
"""Words a move is written with that are no part of it: any other word (``nice``, ``really``)
makes a part that names no whole move a remark, and a question with it chat."""
_TOKEN = re.compile(r"[^\s:()\[\]{}<\"`*_|/]+")
SHORT_CLAIM = re.compile(r"c([1-9])")
PLACED = re.compile(r"([a-z]+[0-9]*)(?:@([0-9]+))?(?:>([0-9]+|discard))?")
VALUE_PLACED = re.compile(r"([0-9]{1,2})>([0-9]{1,2})")
"""``7>3``: a value without a colour, to a flag."""


def card_of(word: str, ruleset: engine.Ruleset) -> str | None:
    """The card code ``word`` names in ``ruleset`` (``r7``, ``fog``), or None."""
    try:
        return ruleset.parse_card(word)
    except engine.InvalidCardError:
        return None


ORDINAL_WORDS = {
    word: value
    for value, word in enumerate(
        ("zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
         "ninth"),
    )
}  # fmt: skip
_ORDINAL = re.compile(r"([0-9]{1,2})(?:st|nd|rd|th|\.)?")


def number_of(word: str) -> int | None:
    """A number as a player writes it: ``3``, ``three``, ``3rd``, ``third``."""
    digits = _ORDINAL.fullmatch(word)
    if digits:
        return int(digits.group(1))
    return NUMBER_WORDS.get(word, ORDINAL_WORDS.get(word))


def tokens_of(text: str) -> list[str]:
    """Words, with the notation's ``>`` and ``@`` joined to their neighbours (``R7 > 3`` is
    ``R7>3``), and quotes around a word dropped; Japanese as the English words it says
    (``service.present.reply_japanese``)."""
    if is_japanese(text):
        return reader_words(text)
    words = _TOKEN.findall(re.sub(r"\s*([>@])\s*", r"\1", text))
    return [w for w in (word.strip("'") for word in words) if w]


def written_from(text: str, index: int) -> str:
    """``text`` (not Japanese) from its word ``index`` of ``tokens_of`` on, as written: its
    punctuation kept (``Take care :-)``)."""
    joined = re.sub(r"\s*([>@])\s*", r"\1", text)
    starts = [m.start() for m in _TOKEN.finditer(joined) if m.group(0).strip("'")]
    return joined[starts[index] :].strip()
