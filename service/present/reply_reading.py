"""Reading a reply by email: the moves a player's words name (the words themselves come out of
the message in ``service.inbound.reply_text``).

Pure: text and a position in, moves out. No database, no app.

The words are cut into sentences (at line ends and ``.`` ``!`` ``?``), then into parts at ``,``
``;`` ``and`` ``then``, and at each new verb; each part names one move, as constraints (an
action, a card, a flag, a deck ...) that must pick exactly one of the legal moves of the position
the part meets. The parts apply in order, each to the position the one before it left: a reply
can hold a whole turn. What is accepted, case-insensitively and with spaces anywhere:

- the notation: ``R7>3``, ``claim 3``, ``draw tactics``, ``REDEPLOY R7@3>5``, ``return R2 FOG``;
- the short codes of ``service.present.choices.move_code``: ``c3``, ``troops``, ``tactics``,
  ``pass``, ``end`` (card moves are their notation);
- plain words: ``play red 7 on flag 3 and draw a tactics card``, ``seven of hearts to 2``,
  ``claim flag three``, ``pass``, ``resign`` (alone: nothing else may be in a resigning reply);
- a value without a colour: ``play the 7 on flag 3``, ``7 to 3``, ``7>3``: the troop of that
  value in hand (asked back, naming the candidates, when several match).

Chat is not read as moves (``Reading.chat``): a part with no word of a move in it (``Hi Bob``,
``thanks!``), and a remark, a part with words that belong to no move that names no whole move
(``Nice play on flag 2!``), or any part of a question that has such words (``Is flag 7 really
still open?``). ``claim N`` for a flag claimed already is noted, not played. Any other part
that picks no legal move, or more than one, stops the whole reply: nothing of it is played.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

import engine
from engine import Action, Deck
from engine.cards import is_troop, troop_parts
from service.present.choices import move_code

MAX_PARTS = 12
"""More parts than any turn has (claims, a card, three Scout draws, a return, a draw)."""

_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"), None)


def normalised(text: str) -> str:
    """Text as the reader compares it: Unicode compatibility forms (full-width letters, the
    ``＞`` of a phone keyboard), no invisible characters, arrows as ``>``."""
    text = unicodedata.normalize("NFKC", text).translate(_INVISIBLE).replace("\u2019", "'")
    # An arrow before a flag's number is the notation's ">" (R7 -> 3); else it means "then".
    text = re.sub(r"\s*(?:->|→|⟶|➔|=>|›|»)\s*(?=[0-9])", ">", text)
    return re.sub(r"->|→|⟶|➔|=>|›|»", ",", text).replace("\xa0", " ")


# ---------------------------------------------------------------------------------------------
# Words into moves

COLOR_WORDS = {
    "red": "R", "orange": "O", "yellow": "Y", "green": "G", "blue": "B", "purple": "P",
    "spade": "S", "spades": "S", "heart": "H", "hearts": "H", "diamond": "D", "diamonds": "D",
    "club": "C", "clubs": "C",
}  # fmt: skip
NUMBER_WORDS = {
    word: value
    for value, word in enumerate(
        (
            "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
            "eleven", "twelve", "thirteen",
        )
    )
}  # fmt: skip
DECK_WORDS = {
    "troops": Deck.TROOPS, "troop": Deck.TROOPS, "tactics": Deck.TACTICS, "tactic": Deck.TACTICS,
    "tactical": Deck.TACTICS,
    # The deck names a German or French player may write.
    "truppen": Deck.TROOPS, "truppe": Deck.TROOPS, "taktik": Deck.TACTICS,
    "troupes": Deck.TROOPS, "troupe": Deck.TROOPS, "tactiques": Deck.TACTICS,
    "tactique": Deck.TACTICS,
}  # fmt: skip
VERBS = {
    "play": Action.PLAY, "put": Action.PLAY, "place": Action.PLAY,
    "claim": Action.CLAIM, "draw": Action.DRAW, "pass": Action.PASS, "end": Action.END,
    "resign": Action.RESIGN, "concede": Action.RESIGN, "return": Action.RETURN,
    "discard": Action.DISCARD, "scout": Action.SCOUT, "redeploy": Action.REDEPLOY,
    "deserter": Action.DESERTER, "traitor": Action.TRAITOR,
}  # fmt: skip
GUILE = {
    "SCOUT": Action.SCOUT,
    "REDEPLOY": Action.REDEPLOY,
    "DESERTER": Action.DESERTER,
    "TRAITOR": Action.TRAITOR,
}
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
SENTENCES = re.compile(r"[^\n.!?]*[\n.!?]*")
SEPARATORS = re.compile(r"[\n;,.!?]+|\b(?:and|then|und|dann|et|puis)\b", re.IGNORECASE)
_TOKEN = re.compile(r"[^\s:()\[\]{}<\"`*_|/]+")
_SHORT_CLAIM = re.compile(r"c([1-9])")
_PLACED = re.compile(r"([a-z]+[0-9]*)(?:@([0-9]+))?(?:>([0-9]+|discard))?")
_VALUE_PLACED = re.compile(r"([0-9]{1,2})>([0-9]{1,2})")
"""``7>3``: a value without a colour, to a flag."""


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
        """The one move these words name in full, legal or not (to ask the engine why not)."""
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


@dataclass(frozen=True)
class ReadPart:
    """One part of a reply and what came of it."""

    words: str
    """What the player wrote for it."""
    move: engine.Move | None = None
    """The legal move it names; None when it names none or several (``problem`` says why)."""
    problem: str | None = None
    options: tuple[engine.Move, ...] = ()
    """The legal moves it could mean, when it names several."""
    note: str | None = None
    """Why it was passed over without a move, the rest being played (``claim 3`` for a flag
    already the player's)."""


@dataclass(frozen=True)
class Reading:
    """What a reply says, part by part, read against the position it answers."""

    parts: tuple[ReadPart, ...] = ()
    ignored: tuple[str, ...] = ()
    """The chat, left out: parts with no word of a move in them (greetings, thanks), remarks and
    questions (``Nice play on flag 2``), in order."""
    problem: str | None = None
    """Why nothing of the reply can be played (the first part that failed, or the reply as a
    whole); None when every part names a legal move."""

    @property
    def moves(self) -> list[engine.Move]:
        return [part.move for part in self.parts if part.move is not None]

    @property
    def playable(self) -> bool:
        return self.problem is None and bool(self.moves)

    @property
    def chat(self) -> tuple[str, ...]:
        """What the player said that is no move: for the opponent, not the game."""
        return self.ignored

    @property
    def notes(self) -> tuple[str, ...]:
        """What was passed over without a move (the rest was played), as a receipt says it."""
        return tuple(f"'{part.words}': {part.note}" for part in self.parts if part.note)


def _card(word: str, ruleset: engine.Ruleset) -> str | None:
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


def _number(word: str) -> int | None:
    """A number as a player writes it: ``3``, ``three``, ``3rd``, ``third``."""
    digits = _ORDINAL.fullmatch(word)
    if digits:
        return int(digits.group(1))
    return NUMBER_WORDS.get(word, ORDINAL_WORDS.get(word))


def _tokens(text: str) -> list[str]:
    """Words, with the notation's ``>`` and ``@`` joined to their neighbours (``R7 > 3`` is
    ``R7>3``), and quotes around a word dropped."""
    words = _TOKEN.findall(re.sub(r"\s*([>@])\s*", r"\1", text))
    return [w for w in (word.strip("'") for word in words) if w]


def _is_anchor(word: str, ruleset: engine.Ruleset) -> bool:
    """A word that can begin a move: a verb, a deck, a card, a short claim code, notation."""
    low = word.lower()
    if low in VERBS or low in DECK_WORDS or _SHORT_CLAIM.fullmatch(low):
        return True
    placed = _PLACED.fullmatch(low)
    return placed is not None and _card(placed.group(1), ruleset) is not None


def _split(text: str, ruleset: engine.Ruleset) -> list[str]:
    """The parts of a reply: at separators, then before each verb, deck word, short code or
    placed card (``R7>3``) that follows a part already naming a move (``R7>3 draw tactics``,
    ``troops troops tactics``). A verb or a deck that completes the part stays in it: ``play
    scout``, ``draw a tactics card``, ``REDEPLOY R7@3>5``; cards after ``return`` stay with it."""
    parts: list[str] = []
    for chunk in SEPARATORS.split(text):
        current: list[str] = []
        verbs: list[str] = []
        named = has_deck = has_placed = False
        for word in _tokens(chunk):
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
                or _SHORT_CLAIM.fullmatch(low) is not None
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
            has_placed = has_placed or (placed and _is_anchor(word, ruleset))
            # "7 to 3 troops": a value that goes to a flag names a move, as a card does.
            valued = low in TO_WORDS and any(_number(w.lower()) is not None for w in current)
            named = named or _is_anchor(word, ruleset) or low in COLOR_WORDS or valued
            named = named or _VALUE_PLACED.fullmatch(low) is not None
        if current:
            parts.append(" ".join(current))
    return [part for part in (p.strip() for p in parts) if part]


def _merge_returns(parts: list[Wanted]) -> list[Wanted]:
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


def wanted(words: str, ruleset: engine.Ruleset) -> Wanted | None:
    """What one part says, or None when it says nothing of a move (no verb, card, deck, short
    code: a greeting)."""
    tokens = [t.lower() for t in _tokens(words)]
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
        elif (short := _SHORT_CLAIM.fullmatch(t)) and seen.action in (None, Action.CLAIM):
            seen.action, seen.flag = Action.CLAIM, int(short.group(1))
        elif t in COLOR_WORDS and _number(nxt) is not None:
            code = f"{COLOR_WORDS[t]}{_number(nxt)}"
            seen.cards.append(_card(code, ruleset) or code.upper())
            i += 1
        elif _number(t) is not None and nxt == "of" and after in COLOR_WORDS:
            code = f"{COLOR_WORDS[after]}{_number(t)}"
            seen.cards.append(_card(code, ruleset) or code.upper())
            i += 2
        elif t in REPEATS:
            seen.times = REPEATS[t]
        elif _number(t) is not None and nxt in TIMES_WORDS:
            seen.times = _number(t) or 1
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
        elif (number := _number(t)) is not None:
            if role == "from":
                seen.source = number
            elif _is_value(seen, role, before, nxt):
                seen.value = number
            else:
                seen.flag = number
            role = None
        elif (value := _VALUE_PLACED.fullmatch(t)) and _is_value(seen, None, before, ">"):
            seen.value, seen.flag = int(value.group(1)), int(value.group(2))
        elif (placed := _PLACED.fullmatch(t)) and (card := _card(placed.group(1), ruleset)):
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


def _another_claim(words: str) -> Wanted | None:
    numbers = [_number(t) for t in (t.lower() for t in _tokens(words)) if t != "flag"]
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


def _why_not(
    state: engine.GameState, seat: str, seen: Wanted, candidates: list[engine.Move]
) -> str:
    if candidates:
        codes = ", ".join(move_code(m) for m in candidates[:12])
        more = f" and {len(candidates) - 12} more" if len(candidates) > 12 else ""
        return f"it could mean {len(candidates)} moves ({codes}{more}): say which one"
    move = seen.move(seat)
    if move is not None:
        try:
            engine.apply(state, move)
        except engine.EngineError as error:
            rule = getattr(error, "rule", None)
            ruling = f" ({rule})" if rule and str(rule) not in str(error) else ""
            return f"{move.action_text()} cannot be played now: {error}{ruling}"
        return f"{move.action_text()} cannot be played now"
    if seen.value is not None:
        hand = state.hands[engine.SEATS.index(seat)]
        held = [c for c in hand if is_troop(c) and troop_parts(c)[1] == seen.value]
        if not held:
            return f"you hold no troop card of value {seen.value}"
        where = f" to flag {seen.flag}" if seen.flag is not None else ""
        return f"your {', '.join(held)} cannot be played{where} now"
    return "it names no move you can make now"


def _sentences(text: str) -> list[tuple[str, bool]]:
    """The sentences of ``text``, each with whether it is a question."""
    found = (m.group(0) for m in SENTENCES.finditer(text))
    return [(sentence, "?" in sentence) for sentence in found if sentence.strip()]


def _is_remark(seen: Wanted) -> bool:
    """A part with words that belong to no move, naming no whole move: ``Nice play on flag 2``;
    ``Nice 10 on flag 6`` (a value names a card only with a verb); ``see you at the end`` (a
    bare end of turn is never said with other words)."""
    if not seen.strangers or seen.action is Action.RESIGN:
        return False
    if seen.action is Action.END:
        return True
    if seen.value is not None:  # "Nice 10 on flag 6!": a value is a move only with a verb
        return not any(word.lower() in VERBS for word in _tokens(seen.words))
    return not seen.cards and seen.move(engine.SEATS[0]) is None


def read_words(text: str, ruleset: engine.Ruleset) -> tuple[list[Wanted], list[str]]:
    """What ``text`` says, whatever the position: the parts that name moves, in order, and the
    chat (parts with no word of a move, remarks, questions with words of no move)."""
    found: list[Wanted] = []
    chat: list[str] = []
    for sentence, question in _sentences(normalised(text)):
        parts = [(words, wanted(words, ruleset)) for words in _split(sentence, ruleset)]
        chatty = question and any(seen is None or seen.strangers for _, seen in parts)
        for words, seen in parts:
            if seen is None and found and found[-1].action is Action.CLAIM and not chatty:
                seen = _another_claim(words)  # "claim 3 and 5"
            if seen is None or chatty or _is_remark(seen):
                chat.append(words)
            else:
                found.append(seen)
    return [again for seen in _merge_returns(found) for again in [seen] * seen.times], chat


def _already_claimed(state: engine.GameState, seat: str, seen: Wanted) -> str | None:
    """What to say of ``claim N`` for a flag claimed already (the automatic claims took it, or
    an earlier reply), or None."""
    flag = seen.flag
    if seen.action is not Action.CLAIM or flag is None or not 1 <= flag <= len(state.flags):
        return None
    holder = state.flags[flag - 1].claimed_by
    if holder is None:
        return None
    if holder == engine.SEATS.index(seat):
        return f"flag {flag} is yours already (claimed before this reply)"
    return f"flag {flag} was claimed already, not by you, before this reply"


def read_turn(text: str, state: engine.GameState, seat: str) -> Reading:
    """The moves ``seat`` asks for in ``text`` (their own words of a reply), read against
    ``state`` part by part. A reading with a ``problem`` plays nothing."""
    found, ignored = read_words(text, state.ruleset)
    if not found:
        return Reading(ignored=tuple(ignored), problem="We found no move in your reply.")
    if len(found) > MAX_PARTS:
        return Reading(
            ignored=tuple(ignored),
            problem=f"Your reply names {len(found)} moves; a turn has at most {MAX_PARTS}.",
        )
    if any(seen.action is Action.RESIGN for seen in found):
        alone = found[0]
        extra = alone.cards or alone.deck or alone.flag is not None or alone.source is not None
        if len(found) != 1 or alone.negated or extra:
            part = ReadPart(words=" ".join(s.words for s in found), problem="resign")
            return Reading(
                parts=(part,), ignored=tuple(ignored),
                problem="To resign, reply with the single word 'resign' and nothing else.",
            )  # fmt: skip
        resign = engine.Move(seat, Action.RESIGN)
        return Reading(parts=(ReadPart(words=found[0].words, move=resign),), ignored=tuple(ignored))
    parts: list[ReadPart] = []
    problem: str | None = None
    for index, seen in enumerate(found):
        if problem is not None:
            parts.append(ReadPart(words=seen.words, problem="not read: an earlier part failed"))
            continue
        if seen.negated:
            problem = f"'{seen.words}' says not to play something: write only the moves to make."
        elif state.result is not None:
            problem = f"'{seen.words}': the game is over."
        elif state.to_move != seat:
            problem = (
                f"'{seen.words}': your turn is over after '{found[index - 1].words}'."
                if index
                else f"'{seen.words}': it is not your turn."
            )
        if problem is not None:
            parts.append(ReadPart(words=seen.words, problem=problem))
            continue
        note = _already_claimed(state, seat, seen)
        if note is not None:
            parts.append(ReadPart(words=seen.words, note=note))
            continue
        candidates = [m for m in engine.legal_moves(state) if seen.matches(m)]
        if len(candidates) == 1:
            move = candidates[0]
            parts.append(ReadPart(words=seen.words, move=move))
            state, _ = engine.apply(state, move)
            continue
        why = _why_not(state, seat, seen, candidates)
        problem = f"'{seen.words}': {why}."
        parts.append(ReadPart(words=seen.words, problem=why, options=tuple(candidates)))
    if problem is None and not any(part.move for part in parts):
        problem = " ".join(f"{note}." for note in Reading(tuple(parts)).notes)
        problem += " Your reply names no other move."
    return Reading(parts=tuple(parts), ignored=tuple(ignored), problem=problem)


def names_a_move(text: str, ruleset: engine.Ruleset) -> bool:
    """Whether any part of ``text`` reads as a move at all (a verb, a card, a deck, a code),
    whatever the position: a reply of thanks after the game names none and is not answered."""
    found, _ = read_words(text, ruleset)
    return bool(found)
