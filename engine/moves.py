"""Moves and their notation (docs/formats.md): parsing and printing mirror each other.

``Move.parse("A: REDEPLOY R7@3>5", ruleset)`` and ``str(move) == "A: REDEPLOY R7@3>5"``.
"""

from __future__ import annotations

import enum
import re
from typing import NamedTuple

from engine.cards import Card, Tactic
from engine.errors import InvalidCardError, InvalidMoveError, Why
from engine.rulesets import Ruleset
from engine.state import SEATS, Seat


class Action(enum.Enum):
    """Every kind of entry in a game's move list."""

    PLAY = "play"
    """A troop, morale or environment card to a flag: ``R7>3``, ``FOG>3``."""
    SCOUT = "scout"
    """Play the Scout (R16); draws and a return follow."""
    RETURN = "return"
    """Put cards back after a Scout: ``return R2 FOG`` (the last listed ends on top)."""
    REDEPLOY = "redeploy"
    """``REDEPLOY R7@3>5`` or ``REDEPLOY R7@3>discard`` (R17)."""
    DESERTER = "deserter"
    """``DESERTER B8@4`` (R18)."""
    TRAITOR = "traitor"
    """``TRAITOR B8@4>7`` (R19)."""
    PASS = "pass"
    """Instead of playing a card (R6)."""
    CLAIM = "claim"
    """``claim 3`` (R4, R5, R13)."""
    DRAW = "draw"
    """``draw troops`` / ``draw tactics``: during a Scout, or the end-of-turn draw (R7)."""
    END = "end"
    """End the turn when no draw is due."""
    DISCARD = "discard"
    """``discard R7@6``: the card given up when Mud leaves a four-card side (R20)."""
    RESIGN = "resign"
    """Give up the game (either seat, at any time)."""
    TIMEOUT = "timeout"
    """The seat lost on time; entered by the server, never offered as a legal move."""


class Deck(enum.StrEnum):
    """The two draw decks."""

    TROOPS = "troops"
    TACTICS = "tactics"


class Move(NamedTuple):
    """One entry of a game's move list (a named tuple: cheap to make, as legal_moves makes many).

    Flags are numbered from 1, as in the notation. ``source`` is the flag a card is taken from
    (the ``@N`` of the notation), ``flag`` the flag a card goes to or that is claimed (``>N``).
    """

    seat: Seat
    action: Action
    card: Card | None = None
    """The card played, moved, taken or discarded."""
    flag: int | None = None
    """Target flag (1-based); None for ``>discard``."""
    source: int | None = None
    """Flag the card is taken from (1-based), for Redeploy, Deserter, Traitor and discard."""
    deck: Deck | None = None
    """The deck drawn from."""
    cards: tuple[Card, ...] = ()
    """Cards put back after a Scout, in order: the last one ends on top of its deck."""

    def action_text(self) -> str:
        """The notation of the action alone, without the seat: ``R7>3``."""
        a = self.action
        if a is Action.PLAY:
            return f"{self.card}>{self.flag}"
        if a is Action.SCOUT:
            return "SCOUT"
        if a is Action.RETURN:
            return " ".join(("return", *self.cards))
        if a is Action.REDEPLOY:
            target = "discard" if self.flag is None else str(self.flag)
            return f"REDEPLOY {self.card}@{self.source}>{target}"
        if a is Action.DESERTER:
            return f"DESERTER {self.card}@{self.source}"
        if a is Action.TRAITOR:
            return f"TRAITOR {self.card}@{self.source}>{self.flag}"
        if a is Action.CLAIM:
            return f"claim {self.flag}"
        if a is Action.DRAW:
            return f"draw {self.deck}"
        if a is Action.DISCARD:
            return f"discard {self.card}@{self.source}"
        return str(a.value)  # pass, end, resign, timeout

    def public_text(self) -> str:
        """The notation as the other seat and spectators may see it during the game.

        Cards put back after a Scout are face down: only how many, and to which decks, shows.
        """
        if self.action is Action.RETURN:
            if not self.cards:
                return f"{self.seat}: return"
            decks = " ".join(_deck_of(card) for card in self.cards)
            return f"{self.seat}: return {len(self.cards)} face down ({decks})"
        return str(self)

    def __str__(self) -> str:
        return f"{self.seat}: {self.action_text()}"

    @classmethod
    def parse(cls, text: str, ruleset: Ruleset) -> Move:
        """Read one entry such as ``"A: R7>3"``; raises InvalidMoveError saying what is wrong."""
        return parse_move(text, ruleset)


def _deck_of(card: Card) -> str:
    return "tactics" if card in Tactic.__members__ else "troops"


_SEAT_RE = re.compile(r"^\s*([A-Za-z])\s*:\s*(.*?)\s*$")
_TARGETED_RE = re.compile(r"^(\S+)@(\d+)(?:>(\S+))?$")


def parse_move(text: str, ruleset: Ruleset) -> Move:
    """Read one move in the notation of docs/formats.md, case-insensitively.

    Raises InvalidMoveError (bad form, unknown seat, flag out of range) or InvalidCardError.
    """
    if not isinstance(text, str):
        raise InvalidMoveError(
            f"a move is a string like 'A: R7>3', not {text!r}", Why.NOT_NOTATION, text=str(text)
        )
    m = _SEAT_RE.match(text)
    if not m:
        raise InvalidMoveError(
            f"{text!r} is not a move: expected 'SEAT: ACTION', e.g. 'A: R7>3'",
            Why.NOT_NOTATION,
            text=text,
        )
    seat = m.group(1).upper()
    if seat not in SEATS[: ruleset.players]:
        raise InvalidMoveError(
            f"{seat!r} is not a seat (seats are {', '.join(SEATS)})", Why.NOT_A_SEAT, seat=seat
        )
    return _parse_action(seat, m.group(2), ruleset, text)


def parse_action(seat: Seat, text: str, ruleset: Ruleset) -> Move:
    """Read the action of one move by ``seat``, the notation without the seat (the mirror of
    ``Move.action_text``): ``parse_action("A", "R7>3", ruleset)``.

    Raises InvalidMoveError (bad form, unknown seat, flag out of range; its message quotes
    ``text`` alone) or InvalidCardError.
    """
    if seat not in SEATS[: ruleset.players]:
        raise InvalidMoveError(
            f"{seat!r} is not a seat (seats are {', '.join(SEATS)})", Why.NOT_A_SEAT, seat=seat
        )
    return _parse_action(seat, text, ruleset, text)


def _parse_action(seat: Seat, action: str, ruleset: Ruleset, text: str) -> Move:
    """``action`` (the notation after the seat) read for ``seat``; ``text``: what the errors
    quote."""
    words = action.split()
    if not words:
        raise InvalidMoveError(f"{text!r} has no action", Why.NOT_NOTATION, text=text)
    head = words[0].lower()
    rest = words[1:]

    def flag_number(word: str) -> int:
        if not word.isdigit() or not 1 <= int(word) <= ruleset.flags:
            raise InvalidMoveError(
                f"{word!r} is not a flag (flags are 1 to {ruleset.flags})",
                Why.NO_SUCH_FLAG,
                text=word,
                count=ruleset.flags,
            )
        return int(word)

    def one_word() -> str:
        if len(rest) != 1:
            raise InvalidMoveError(
                f"{text!r}: '{head}' takes exactly one argument", Why.NOT_NOTATION, text=text
            )
        return rest[0]

    def no_words() -> None:
        if rest:
            raise InvalidMoveError(
                f"{text!r}: '{head}' takes no argument", Why.NOT_NOTATION, text=text
            )

    if head in ("pass", "end", "resign", "timeout", "scout"):
        no_words()
        if head == "scout":
            ruleset.parse_card("SCOUT")
            return Move(seat, Action.SCOUT, card=Tactic.SCOUT.value)
        return Move(seat, Action(head))
    if head == "claim":
        return Move(seat, Action.CLAIM, flag=flag_number(one_word()))
    if head == "draw":
        word = one_word().lower()
        if word not in (Deck.TROOPS, Deck.TACTICS):
            raise InvalidMoveError(
                f"{text!r}: draw from 'troops' or 'tactics'", Why.NOT_NOTATION, text=text
            )
        return Move(seat, Action.DRAW, deck=Deck(word))
    if head == "return":
        return Move(seat, Action.RETURN, cards=tuple(ruleset.parse_card(w) for w in rest))
    if head in ("redeploy", "deserter", "traitor", "discard"):
        card, source, target = _targeted(one_word(), ruleset, text)
        src = flag_number(source)
        if head == "deserter" or head == "discard":
            if target is not None:
                raise InvalidMoveError(
                    f"{text!r}: '{head}' takes CARD@FLAG", Why.NOT_NOTATION, text=text
                )
            return Move(seat, Action(head), card=card, source=src)
        if target is None:
            raise InvalidMoveError(
                f"{text!r}: '{head}' takes CARD@FLAG>FLAG", Why.NOT_NOTATION, text=text
            )
        if head == "redeploy" and target.lower() == "discard":
            return Move(seat, Action.REDEPLOY, card=card, source=src, flag=None)
        return Move(seat, Action(head), card=card, source=src, flag=flag_number(target))
    # A plain play: CARD>FLAG.
    if len(words) == 1 and ">" in words[0]:
        card_text, _, target = words[0].partition(">")
        try:
            card = ruleset.parse_card(card_text)
        except InvalidCardError as e:
            raise _unreadable_card(text, e) from None
        return Move(seat, Action.PLAY, card=card, flag=flag_number(target))
    raise InvalidMoveError(
        f"{text!r} is not a move of the notation (see docs/notation.md)",
        Why.NOT_NOTATION,
        text=text,
    )


def _targeted(word: str, ruleset: Ruleset, text: str) -> tuple[Card, str, str | None]:
    m = _TARGETED_RE.match(word)
    if not m:
        raise InvalidMoveError(
            f"{text!r}: expected CARD@FLAG or CARD@FLAG>FLAG", Why.NOT_NOTATION, text=text
        )
    try:
        card = ruleset.parse_card(m.group(1))
    except InvalidCardError as e:
        raise _unreadable_card(text, e) from None
    return card, m.group(2), m.group(3)


def _unreadable_card(text: str, error: InvalidCardError) -> InvalidMoveError:
    """The move ``text`` is unreadable for the card code in it: the card's why and facts."""
    return InvalidMoveError(f"{text!r}: {error}", error.why, card=error.card, text=error.text)
