"""What one part of a reply says about the move it means (``Wanted``): an action, a card, a
flag, a deck ... each None when the words do not say it; a legal move matches it or not.

Pure: no database, no app.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import engine
from engine import Action, Deck
from engine.cards import is_troop, troop_parts
from service.present.reply_words import (
    BACK_VERBS,
    COLOR_WORDS,
    DECK_WORDS,
    FILLER_WORDS,
    FROM_WORDS,
    GUILE,
    NEGATIONS,
    PLACED,
    REPEATS,
    SHORT_CLAIM,
    TIMES_WORDS,
    TO_WORDS,
    VALUE_PLACED,
    VERBS,
    card_of,
    number_of,
    tokens_of,
)


@dataclass
class Wanted:
    """What one part of a reply says about the move it means; None: not said."""

    words: str
    action: Action | None = None
    card: str | None = None
    flag: int | None = None
    to_discard: bool = False
    """``>discard`` (Redeploy to the discard pile)."""
    source: int | None = None
    deck: Deck | None = None
    cards: list[str] = field(default_factory=list)
    """Every card named, in order (``return R2 FOG``)."""
    negated: bool = False
    value: int | None = None
    """A troop's value named without its colour (``play the 7 on flag 3``)."""
    strangers: list[str] = field(default_factory=list)
    """The words that belong to no move (``nice``, ``really``): chat, unless a move is named."""
    times: int = 1
    """How many times the move is asked for in a row ("draw troops twice")."""

    def matches(self, move: engine.Move) -> bool:
        if self.action is not None and move.action is not self.action:
            return False
        if self.action is Action.RETURN:
            return list(move.cards) == self.cards
        if self.action in (Action.DRAW, Action.PASS, Action.END):
            # "draw one tactics card": a number says nothing about a draw.
            return self.deck is None or move.deck == self.deck
        if self.card is not None and move.card != self.card:
            return False
        if self.value is not None and not (
            move.card is not None
            and is_troop(move.card)
            and troop_parts(move.card)[1] == self.value
        ):
            return False
        if self.to_discard and not (move.action is Action.REDEPLOY and move.flag is None):
            return False
        if self.flag is not None and move.flag != self.flag:
            return False
        if self.source is not None and move.source != self.source:
            return False
        return self.deck is None or move.deck == self.deck

    def move(self, seat: str) -> engine.Move | None:
        """The one move these words name in full, its cards and flags as written, legal or not:
        the engine's parser reads its notation (``engine.parse_action``) to say why not. None
        when the words leave part of the move unsaid."""
        a, card, flag, source = self.action, self.card, self.flag, self.source
        if a is None and card is not None and flag is not None:
            a = Action.PLAY
        if a in (Action.PASS, Action.END, Action.RESIGN):
            return engine.Move(seat, a)
        if a is Action.SCOUT:
            return engine.Move(seat, a, card="SCOUT")
        if a is Action.RETURN:
            return engine.Move(seat, a, cards=tuple(self.cards))
        if a is Action.DRAW and self.deck is not None:
            return engine.Move(seat, a, deck=self.deck)
        if a is Action.CLAIM and flag is not None:
            return engine.Move(seat, a, flag=flag)
        if card is None:
            return None
        if a is Action.PLAY and flag is not None:
            return engine.Move(seat, a, card=card, flag=flag)
        if source is None:
            return None
        if a in (Action.DESERTER, Action.DISCARD):
            return engine.Move(seat, a, card=card, source=source)
        if a is Action.REDEPLOY and (flag is not None or self.to_discard):
            return engine.Move(seat, a, card=card, source=source, flag=flag)
        if a is Action.TRAITOR and flag is not None:
            return engine.Move(seat, a, card=card, source=source, flag=flag)
        return None


def wanted(words: str, ruleset: engine.Ruleset) -> Wanted | None:
    """What one part says, or None when it says nothing of a move (no verb, card, deck, short
    code: a greeting)."""
    tokens = [t.lower() for t in tokens_of(words)]
    seen = Wanted(words=words)
    role: str | None = None
    i = 0
    while i < len(tokens):
        t = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        after = tokens[i + 2] if i + 2 < len(tokens) else ""
        before = tokens[i - 1] if i else ""
        i += 1
        if t in NEGATIONS:
            seen.negated = True
        elif (short := SHORT_CLAIM.fullmatch(t)) and seen.action in (None, Action.CLAIM):
            seen.action, seen.flag = Action.CLAIM, int(short.group(1))
        elif t in COLOR_WORDS and number_of(nxt) is not None:
            code = f"{COLOR_WORDS[t]}{number_of(nxt)}"
            seen.cards.append(card_of(code, ruleset) or code.upper())
            i += 1
        elif number_of(t) is not None and nxt == "of" and after in COLOR_WORDS:
            code = f"{COLOR_WORDS[after]}{number_of(t)}"
            seen.cards.append(card_of(code, ruleset) or code.upper())
            i += 2
        elif t in REPEATS:
            seen.times = REPEATS[t]
        elif number_of(t) is not None and nxt in TIMES_WORDS:
            seen.times = number_of(t) or 1
            i += 1
        elif t == "back" and i >= 2 and tokens[i - 2] in BACK_VERBS:
            seen.action = Action.RETURN  # "put back the green 2"
        elif t in VERBS and not (t == "discard" and seen.action is Action.REDEPLOY):
            verb = VERBS[t]
            # "play scout": the guile card is the verb; "play ... claim": the later verb.
            if seen.action is None or (seen.action is Action.PLAY and verb is not Action.PLAY):
                seen.action = verb
            if t == "end" and nxt == "turn":
                i += 1
        elif t == "discard" or (t in TO_WORDS and nxt == "discard"):
            seen.to_discard = True
            i += 0 if t == "discard" else 1
        elif t in DECK_WORDS:
            seen.deck = DECK_WORDS[t]
            if seen.action is None:
                seen.action = Action.DRAW
        elif t in TO_WORDS:
            role = "to"
        elif t in FROM_WORDS:
            role = "from"
        elif (number := number_of(t)) is not None:
            if role == "from":
                seen.source = number
            elif _is_value(seen, role, before, nxt):
                seen.value = number
            else:
                seen.flag = number
            role = None
        elif (value := VALUE_PLACED.fullmatch(t)) and _is_value(seen, None, before, ">"):
            seen.value, seen.flag = int(value.group(1)), int(value.group(2))
        elif (placed := PLACED.fullmatch(t)) and (card := card_of(placed.group(1), ruleset)):
            seen.cards.append(card)
            if placed.group(2):
                seen.source = int(placed.group(2))
            if placed.group(3) == "discard":
                seen.to_discard = True
            elif placed.group(3):
                seen.flag = int(placed.group(3))
        elif t not in FILLER_WORDS:
            seen.strangers.append(t)
    _settle(seen)
    flagged = "flag" in tokens and (seen.flag is not None or seen.source is not None)
    if seen.action is Action.DRAW and seen.flag in (2, 3) and not flagged:
        seen.times, seen.flag = seen.flag, None  # "draw two troops": a Scout's draws
    named = seen.action is not None or seen.cards or seen.deck is not None or seen.value is not None
    if not named and not flagged:
        return None  # no word of a move: a greeting, thanks, a number in a sentence
    if seen.action is Action.PLAY and not seen.cards and seen.flag is None:
        return None  # "Good play!": the verb alone names no move
    return seen


def _is_value(seen: Wanted, role: str | None, before: str, nxt: str) -> bool:
    """Whether a number is a troop's value rather than a flag: it comes first, before a word
    that leads to the flag (``play the 7 on flag 3``, ``7 to 3``), in a part naming no card."""
    return (
        role is None
        and nxt in TO_WORDS
        and before != "flag"
        and seen.value is None
        and seen.flag is None
        and not seen.cards
        and seen.action in (None, Action.PLAY)
    )


def listed_claims(words: str) -> list[Wanted]:
    """``claim 2 3``, 「フラッグ2と3を確保」: a claim verb with several flags and nothing else is a
    claim of each (one flag would be taken for the other otherwise); [] for any other part."""
    tokens = [t.lower() for t in tokens_of(words)]
    if "claim" not in tokens:
        return []
    numbers = [number_of(t) for t in tokens if t not in ("claim", "flag", "flags")]
    if len(numbers) < 2 or None in numbers:
        return []
    return [Wanted(words=words, action=Action.CLAIM, flag=flag) for flag in numbers]


def another_claim(words: str) -> Wanted | None:
    numbers = [number_of(t) for t in (t.lower() for t in tokens_of(words)) if t != "flag"]
    if len(numbers) == 1 and numbers[0] is not None:
        return Wanted(words=words, action=Action.CLAIM, flag=numbers[0])
    return None


def _settle(seen: Wanted) -> None:
    """Fill in what the words imply: the guile card named is the verb; Deserter and a Mud
    discard name the flag a card comes from."""
    cards = seen.cards
    if seen.action is None and seen.value is not None:
        seen.action = Action.PLAY
    if seen.action in (None, Action.PLAY) and cards and cards[0] in GUILE:
        seen.action = GUILE[cards[0]]
        cards.pop(0)
    guile = seen.action in (Action.SCOUT, Action.REDEPLOY, Action.DESERTER, Action.TRAITOR)
    if guile and cards and seen.action is not None and cards[0] == seen.action.value.upper():
        cards.pop(0)
    if seen.action is not Action.RETURN and cards:
        seen.card = cards[0]
    if seen.action in (Action.DESERTER, Action.DISCARD) and seen.source is None:
        seen.source, seen.flag = seen.flag, None


def merge_returns(parts: list[Wanted]) -> list[Wanted]:
    """``return R2, FOG``: the cards after a return that stand alone belong to it."""
    merged: list[Wanted] = []
    for part in parts:
        previous = merged[-1] if merged else None
        alone = part.action is None and part.cards and part.flag is None and part.source is None
        if previous is not None and previous.action is Action.RETURN and alone:
            previous.cards += part.cards
            previous.words += ", " + part.words
            continue
        merged.append(part)
    return merged


def is_remark(seen: Wanted) -> bool:
    """A part with words that belong to no move, naming no whole move: ``Nice play on flag 2``;
    ``Nice 10 on flag 6`` (a value names a card only with a verb); ``see you at the end`` (a
    bare end of turn is never said with other words)."""
    if not seen.strangers or seen.action is Action.RESIGN:
        return False
    if seen.action is Action.END:
        return True
    if seen.value is not None:  # "Nice 10 on flag 6!": a value is a move only with a verb
        return not any(word.lower() in VERBS for word in tokens_of(seen.words))
    # Any seat will do: the question is whether the words name a move at all.
    return not seen.cards and seen.move(engine.FIRST_SEAT) is None


def is_aside(seen: Wanted) -> bool:
    """A part that names a card, a deck or a flag among words of no move, with no verb and no
    notation: ``Great move with the red 7``, ``That Fog on flag 5 hurt``. Chat, when no move it
    could mean can be made now (``reply_reading.read_turn`` asks); a move otherwise."""
    if not seen.strangers:
        return False
    tokens = [word.lower() for word in tokens_of(seen.words)]
    return not any(t in VERBS or ">" in t or "@" in t for t in tokens)
