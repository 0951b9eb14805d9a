"""The engine's exceptions: each names exactly what was wrong, in words a player can read."""

from __future__ import annotations

import enum


class EngineError(Exception):
    """Base class of every error the engine raises."""


class Why(enum.StrEnum):
    """What was wrong with a move or a card code, as a value: a reader that does not write
    English says it in its own words from this and the error's facts (the message is English)."""

    # reading (InvalidCardError, InvalidMoveError)
    NOT_A_CARD = "not_a_card"
    """``text`` is no card of the ruleset."""
    NO_TACTICS = "no_tactics"
    """``card`` is a tactics card, and the ruleset has none."""
    NOT_NOTATION = "not_notation"
    """``text`` is not written in the move notation."""
    NOT_A_SEAT = "not_a_seat"
    """``seat`` is not a seat of the game."""
    NO_SUCH_FLAG = "no_such_flag"
    """``flag`` (a number, or the ``text`` read as one) is not a flag; ``count``: the flags."""
    # turn order (IllegalMoveError)
    GAME_OVER = "game_over"
    """The game is over."""
    NOT_YOUR_TURN = "not_your_turn"
    """``seat`` moved while it is another seat's turn."""
    PLAY_FIRST = "play_first"
    """``move`` comes later in the turn: first a card is played (or the turn passed, R6)."""
    ALREADY_PLAYED = "already_played"
    """A card was played this turn already: ``move`` is not possible now."""
    SCOUTING = "scouting"
    """A Scout is being played: draw up to ``count`` cards, then put cards back (R16)."""
    MUD_DISCARD_FIRST = "mud_discard_first"
    """The mover owes a discard at ``flag`` since the Mud left (R20)."""
    NO_DRAW_DUE = "no_draw_due"
    """No draw is due: the turn ends with ``end``."""
    DRAW_FIRST = "draw_first"
    """A card must be drawn before the turn ends (R7)."""
    # cards and flags
    NO_CARD_NAMED = "no_card_named"
    """The move names no card."""
    CARD_NOT_IN_HAND = "card_not_in_hand"
    """``card`` is not in the mover's hand."""
    CARD_NOT_THERE = "card_not_there"
    """``card`` is not on ``seat``'s side of ``flag`` (``seat``: the mover's or the opponent's)."""
    NOT_PLAYED_TO_FLAG = "not_played_to_flag"
    """``card`` is a tactics card that is not played to a flag."""
    NOT_YOUR_FLAG = "not_your_flag"
    """``flag`` lies between two other seats (V6.2, V6.3)."""
    FLAG_CLAIMED = "flag_claimed"
    """``flag`` is claimed (by ``seat``): nothing may be played there nor taken (R14)."""
    FLAG_FULL = "flag_full"
    """The mover's side of ``flag`` is full."""
    MUST_PLAY_TROOP = "must_play_troop"
    """A pass while a troop could be played (R6)."""
    # tactics
    TACTICS_LIMIT = "tactics_limit"
    """The mover played ``count`` tactics cards, an opponent ``other_count`` (R8, V6.4)."""
    SECOND_LEADER = "second_leader"
    """A second Leader (R9)."""
    REDEPLOY_ENVIRONMENT = "redeploy_environment"
    """Redeploy moves troop and morale cards, not Fog or Mud (R17)."""
    REDEPLOY_SAME_FLAG = "redeploy_same_flag"
    """Redeploy moves a card to another flag, or discards it (R17)."""
    TRAITOR_TACTICS = "traitor_tactics"
    """Traitor takes a troop card, not a tactics card (R19)."""
    SCOUT_DRAWS_DONE = "scout_draws_done"
    """The Scout drew its ``count`` cards: now cards go back (R16)."""
    SCOUT_RETURN_COUNT = "scout_return_count"
    """A Scout puts back exactly ``count`` cards, to bring the hand back to ``other_count``."""
    NO_DISCARD_OWED = "no_discard_owed"
    """No discard is owed at ``flag`` (R20)."""
    DECK_EMPTY = "deck_empty"
    """The ``deck`` to draw from is empty (R7)."""
    # claims
    CLAIM_AFTER_PLAY = "claim_after_play"
    """Flags are claimed after the card is played, before the draw (R4)."""
    CLAIM_AT_START = "claim_at_start"
    """Under the advanced rule flags are claimed at the start of the turn only (R5)."""
    CLAIM_NOT_PROVABLE = "claim_not_provable"
    """``flag`` cannot be claimed: ``claim_status`` says why (a ``ClaimStatus`` value)."""


class ExplainedError(EngineError):
    """An error with ``why`` and the facts its sentence names, each None when it names none."""

    def __init__(
        self,
        message: str,
        why: Why,
        rule: str = "",
        *,
        card: str | None = None,
        flag: int | None = None,
        seat: str | None = None,
        count: int | None = None,
        other_count: int | None = None,
        text: str | None = None,
        move: str | None = None,
        deck: str | None = None,
        claim_status: str | None = None,
    ) -> None:
        super().__init__(message)
        self.why = why
        """What was wrong."""
        self.rule = rule
        """The ruling that forbids it (``"R8"``), or ``""``."""
        self.card = card
        """The card code concerned."""
        self.flag = flag
        """The flag concerned (1-based)."""
        self.seat = seat
        """The seat concerned (a letter)."""
        self.count = count
        """A number the sentence names (see ``Why``)."""
        self.other_count = other_count
        """A second number the sentence names (see ``Why``)."""
        self.text = text
        """What was written, as it was given."""
        self.move = move
        """The move's action in the notation (``Move.action_text``)."""
        self.deck = deck
        """The deck concerned ("troops", "tactics")."""
        self.claim_status = claim_status
        """Why a flag cannot be claimed (``ClaimStatus``'s value)."""


class InvalidCardError(ExplainedError, ValueError):
    """A card code that is not a card of the ruleset (``"R11"``, ``"KING"``)."""


class InvalidMoveError(ExplainedError, ValueError):
    """A move that cannot be read at all (bad notation, unknown flag number)."""


class IllegalMoveError(ExplainedError):
    """A well-formed move that the rules forbid now.

    ``rule`` is the ruling that forbids it (``"R8"``), or ``""`` for plain turn order.
    """


class InvalidSituationError(EngineError, ValueError):
    """A described position that cannot occur: a card twice, a side over its size."""


class InvalidRecordError(EngineError, ValueError):
    """A game record that cannot be read (missing field, bad deal, unknown ruleset)."""


class UnknownRulesetError(EngineError, ValueError):
    """A ruleset name that is not one of the known variants."""
