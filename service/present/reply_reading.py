"""Reading a reply by email: first the words the player wrote, then the moves those words name.

Pure: a parsed message in, text out; text and a position in, moves out. No database, no app.

**The player's words** (``written_text``): the text part of the message (or its HTML part turned
into text, blockquotes as ``>`` quotes, when there is no text part), without the quoted email,
the ``On ... wrote:`` / ``From: ... Sent: ...`` headers that mail programs write in many
languages, and the signature after ``-- `` (the maintained mail-parser-reply library finds those,
given every language it knows).

**The moves** (``read_turn``): the words are cut into parts at line ends and at ``,`` ``;`` ``.``
``and`` ``then``, and at each new verb; each part names one move, as constraints (an action, a
card, a flag, a deck ...) that must pick exactly one of the legal moves of the position the part
meets. The parts apply in order, each to the position the one before it left: a reply can hold a
whole turn. What is accepted, case-insensitively and with spaces anywhere:

- the notation: ``R7>3``, ``claim 3``, ``draw tactics``, ``REDEPLOY R7@3>5``, ``return R2 FOG``;
- the short codes of ``service.present.choices.move_code``: ``c3``, ``troops``, ``tactics``,
  ``pass``, ``end`` (card moves are their notation);
- plain words: ``play red 7 on flag 3 and draw a tactics card``, ``seven of hearts to 2``,
  ``claim flag three``, ``pass``, ``resign`` (alone: nothing else may be in a resigning reply).

A part with no word of a move in it (``Hi Bob``, ``thanks!``) is ignored; a part with one that
picks no legal move, or more than one, stops the whole reply: nothing of it is played.
"""

from __future__ import annotations

import email.message
import re
import unicodedata
from dataclasses import dataclass, field
from html.parser import HTMLParser

from mailparser_reply import EmailMessage as ReplyText
from mailparser_reply.constants import MAIL_LANGUAGES

import engine
from engine import Action, Deck
from service.present.choices import move_code

MAX_WRITTEN_CHARS = 4000
"""The most of a reply's own words that are read: a turn is a line or two."""
MAX_SCANNED_CHARS = 40_000
"""The most text handed to the reply trimmer (its patterns are not made for megabytes)."""
MAX_PARTS = 12
"""More parts than any turn has (claims, a card, three Scout draws, a return, a draw)."""

# ---------------------------------------------------------------------------------------------
# The player's own words


class _HtmlText(HTMLParser):
    """HTML as the text a mail program would quote: block elements on their own lines,
    blockquotes as ``>`` quotes, a rule as Outlook's line of underscores (a separator the reply
    trimmer knows), no head, style or script."""

    BLOCKS = frozenset(
        {
            "address", "article", "aside", "div", "dl", "dt", "dd", "fieldset", "figure",
            "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "li", "main", "nav",
            "ol", "p", "pre", "section", "table", "tbody", "thead", "tfoot", "tr", "ul",
        }
    )  # fmt: skip
    HIDDEN = frozenset({"head", "style", "script", "title", "template"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.line: list[str] = []
        self.depth = 0
        self.hidden = 0

    def _flush(self, *, keep_empty: bool = False) -> None:
        text = re.sub(r"[ \t\r\n\f\xa0]+", " ", "".join(self.line)).strip()
        if text or keep_empty:
            self.lines.append("> " * self.depth + text)
        self.line = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.HIDDEN:
            self.hidden += 1
        elif tag == "br":
            self._flush(keep_empty=True)
        elif tag == "hr":
            self._flush()
            self.lines += ["", "_" * 32]
        elif tag == "blockquote":
            self._flush()
            self.depth += 1
        elif tag in self.BLOCKS:
            self._flush()

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag == "blockquote":
            self._flush()
            self.depth = max(0, self.depth - 1)
        elif tag in self.BLOCKS:
            self._flush()

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.line.append(data)

    def text(self) -> str:
        self._flush()
        return "\n".join(self.lines)


def html_to_text(html: str) -> str:
    """The text of an HTML body, quotes marked with ``>`` as a mail program quotes."""
    parser = _HtmlText()
    parser.feed(html)
    parser.close()
    return parser.text()


def _unflow(text: str, delsp: bool) -> str:
    """A ``format=flowed`` text (RFC 3676) with its soft line breaks joined."""
    out: list[str] = []
    pending = ""
    for line in text.split("\n"):
        if line != "-- " and line.endswith(" ") and not line.startswith(">"):
            pending += line[:-1] if delsp else line
            continue
        out.append(pending + line)
        pending = ""
    if pending:
        out.append(pending)
    return "\n".join(out)


def _part_text(part: email.message.Message) -> str:
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    charset = part.get_content_charset() or "utf-8"
    try:
        return payload.decode(charset, errors="replace")
    except LookupError:  # a charset Python does not know
        return payload.decode("utf-8", errors="replace")


def body_text(message: email.message.Message) -> str:
    """The message's text: its first text/plain part, else its first text/html part as text
    (attachments are never read)."""
    plain = html = None
    for part in message.walk():
        if part.is_multipart() or part.get_content_disposition() == "attachment":
            continue
        kind = part.get_content_type()
        if kind == "text/plain" and plain is None:
            plain = part
        elif kind == "text/html" and html is None:
            html = part
    if plain is not None:
        text = _part_text(plain).replace("\r\n", "\n").replace("\r", "\n")
        if plain.get_param("format", "", header="content-type") == "flowed":
            delsp = str(plain.get_param("delsp", "no", header="content-type")).lower() == "yes"
            text = _unflow(text, delsp)
        return text
    if html is not None:
        return html_to_text(_part_text(html))
    return ""


_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"), None)
_QUOTED = re.compile(r"^[ \t]*>")
LANGUAGES = sorted(MAIL_LANGUAGES)
"""Every language the reply trimmer knows: a player's mail program may speak any of them."""


def normalised(text: str) -> str:
    """Text as the reader compares it: Unicode compatibility forms (full-width letters, the
    ``＞`` of a phone keyboard), no invisible characters, arrows as ``>``."""
    text = unicodedata.normalize("NFKC", text).translate(_INVISIBLE).replace("\u2019", "'")
    # An arrow before a flag's number is the notation's ">" (R7 -> 3); else it means "then".
    text = re.sub(r"\s*(?:->|→|⟶|➔|=>|›|»)\s*(?=[0-9])", ">", text)
    return re.sub(r"->|→|⟶|➔|=>|›|»", ",", text).replace("\xa0", " ")


def _attributions(lines: list[str]) -> set[str]:
    """The lines that introduce a quote, whatever their language: a line ending with ``:``
    that a quoted line follows, maybe after a blank line (``* Alice <a@b> [2026-01-05]:``,
    ``05.01.2026 10:00 Alice <a@b>:``)."""
    found: set[str] = set()
    for index, line in enumerate(lines):
        following = [n for n in lines[index + 1 : index + 3] if n.strip()][:1]
        quoted = bool(following) and _QUOTED.match(following[0]) is not None
        if quoted and not _QUOTED.match(line) and line.rstrip().endswith(":"):
            found.add(line.strip())
    return found


def own_words(text: str) -> str:
    """The lines the player wrote in a reply's text: quoted lines (``>``) dropped, then the
    quote headers (``On ... wrote:``, ``From: ... Sent: ...`` above an unquoted copy), the
    signature and the disclaimers cut by mail-parser-reply (the first reply it finds is the
    player's), and a line introducing a quote in a form it does not know."""
    lines = normalised(text).split("\n")
    attributions = _attributions(lines)
    unquoted = "\n".join(line for line in lines if not _QUOTED.match(line))
    parsed = ReplyText(
        text=unquoted[:MAX_SCANNED_CHARS], languages=list(LANGUAGES), keep_hyphen_lists=True
    ).read()
    for reply in parsed.replies:
        body = "\n".join(
            line for line in str(reply.body).split("\n") if line.strip() not in attributions
        ).strip()
        if body:
            return body[:MAX_WRITTEN_CHARS]
    return ""


def written_text(message: email.message.Message) -> str:
    """What the player wrote in a reply: the text (or HTML) body without the quoted email, the
    quote headers and the signature."""
    return own_words(body_text(message))


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
SEPARATORS = re.compile(r"[\n;,.!?]+|\b(?:and|then|und|dann|et|puis)\b", re.IGNORECASE)
_TOKEN = re.compile(r"[^\s:()\[\]{}<\"`*_|/]+")
_SHORT_CLAIM = re.compile(r"c([1-9])")
_PLACED = re.compile(r"([a-z]+[0-9]*)(?:@([0-9]+))?(?:>([0-9]+|discard))?")


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


@dataclass(frozen=True)
class Reading:
    """What a reply says, part by part, read against the position it answers."""

    parts: tuple[ReadPart, ...] = ()
    ignored: tuple[str, ...] = ()
    """Parts with no word of a move in them (greetings, thanks), left out."""
    problem: str | None = None
    """Why nothing of the reply can be played (the first part that failed, or the reply as a
    whole); None when every part names a legal move."""

    @property
    def moves(self) -> list[engine.Move]:
        return [part.move for part in self.parts if part.move is not None]

    @property
    def playable(self) -> bool:
        return self.problem is None and bool(self.parts)


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
            named = named or _is_anchor(word, ruleset) or low in COLOR_WORDS
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
            else:
                seen.flag = number
            role = None
        elif (placed := _PLACED.fullmatch(t)) and (card := _card(placed.group(1), ruleset)):
            seen.cards.append(card)
            if placed.group(2):
                seen.source = int(placed.group(2))
            if placed.group(3) == "discard":
                seen.to_discard = True
            elif placed.group(3):
                seen.flag = int(placed.group(3))
    _settle(seen)
    flagged = "flag" in tokens and (seen.flag is not None or seen.source is not None)
    if seen.action is Action.DRAW and seen.flag in (2, 3) and not flagged:
        seen.times, seen.flag = seen.flag, None  # "draw two troops": a Scout's draws
    if seen.action is None and not seen.cards and seen.deck is None and not flagged:
        return None  # no word of a move: a greeting, thanks, a number in a sentence
    if seen.action is Action.PLAY and not seen.cards and seen.flag is None:
        return None  # "Good play!": the verb alone names no move
    return seen


def _another_claim(words: str) -> Wanted | None:
    numbers = [_number(t) for t in (t.lower() for t in _tokens(words)) if t != "flag"]
    if len(numbers) == 1 and numbers[0] is not None:
        return Wanted(words=words, action=Action.CLAIM, flag=numbers[0])
    return None


def _settle(seen: Wanted) -> None:
    """Fill in what the words imply: the guile card named is the verb; Deserter and a Mud
    discard name the flag a card comes from."""
    cards = seen.cards
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
    return "it names no move you can make now"


def read_turn(text: str, state: engine.GameState, seat: str) -> Reading:
    """The moves ``seat`` asks for in ``text`` (their own words of a reply), read against
    ``state`` part by part. A reading with a ``problem`` plays nothing."""
    ruleset = state.ruleset
    found: list[Wanted] = []
    ignored: list[str] = []
    for words in _split(normalised(text), ruleset):
        seen = wanted(words, ruleset)
        if seen is None and found and found[-1].action is Action.CLAIM:
            seen = _another_claim(words)  # "claim 3 and 5"
        if seen is None:
            ignored.append(words)
        else:
            found.append(seen)
    found = [again for seen in _merge_returns(found) for again in [seen] * seen.times]
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
        candidates = [m for m in engine.legal_moves(state) if seen.matches(m)]
        if len(candidates) == 1:
            move = candidates[0]
            parts.append(ReadPart(words=seen.words, move=move))
            state, _ = engine.apply(state, move)
            continue
        why = _why_not(state, seat, seen, candidates)
        problem = f"'{seen.words}': {why}."
        parts.append(ReadPart(words=seen.words, problem=why, options=tuple(candidates)))
    return Reading(parts=tuple(parts), ignored=tuple(ignored), problem=problem)


def names_a_move(text: str, ruleset: engine.Ruleset) -> bool:
    """Whether any part of ``text`` reads as a move at all (a verb, a card, a deck, a code),
    whatever the position: a reply of thanks after the game names none and is not answered."""
    return any(wanted(words, ruleset) is not None for words in _split(normalised(text), ruleset))
