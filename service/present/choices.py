"""The legal moves of the seat to move, grouped the way people choose them: a card, then where it
goes. One builder for the private page (a button per move) and the "your turn" email (a link per
move): both offer exactly ``engine.legal_moves``, in the same groups.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import engine
from engine import Action
from service.present.words import Piece, instruction


def move_code(move: engine.Move) -> str:
    """The shortest way to name ``move`` in a reply by email, listed beside each move in the
    emails and read back by ``service.present.reply_reading``: ``c3`` for a claim, ``troops`` or
    ``tactics`` for a draw, ``pass``, ``end``, and the notation for every card move (``R7>3``,
    ``FOG>3``, ``SCOUT``, ``REDEPLOY R7@3>5``, ``return R2 FOG``)."""
    if move.action is Action.CLAIM:
        return f"c{move.flag}"
    if move.action is Action.DRAW:
        return str(move.deck)
    return move.action_text()


@dataclass(frozen=True, slots=True)
class Choice:
    """One legal move, as a button or a link."""

    move: engine.Move
    index: int
    """Its place in ``engine.legal_moves`` of the position it was listed in: a move link's
    address."""

    @property
    def notation(self) -> str:
        """The move without its seat (``R7>3``): what a form sends."""
        return self.move.action_text()

    @property
    def code(self) -> str:
        """The short code to reply with by email (``move_code``)."""
        return move_code(self.move)

    @property
    def words(self) -> list[Piece]:
        """What the move does, said to the player making it."""
        return instruction(self.move)

    @property
    def text(self) -> str:
        """``words`` as plain text with card codes ("Draw from the troop deck")."""
        return " ".join(p.value for p in self.words if p.value).strip()

    @property
    def flag(self) -> int | None:
        return self.move.flag

    @property
    def source(self) -> int | None:
        return self.move.source

    @property
    def card(self) -> str | None:
        return self.move.card

    @property
    def deck(self) -> str | None:
        return None if self.move.deck is None else str(self.move.deck)


@dataclass(frozen=True, slots=True)
class CardChoices:
    """One card and the moves it can make: a card in hand and the flags it may go to; a card on
    the board (Redeploy, Traitor) and its targets."""

    card: str
    source: int | None
    """The flag the card stands at (Redeploy, Traitor); None for a card in hand."""
    choices: tuple[Choice, ...]


@dataclass(frozen=True, slots=True)
class MoveChoices:
    """Every legal move of one seat now, grouped. Empty when it is not the seat's turn."""

    count: int = 0
    claims: tuple[Choice, ...] = ()
    plays: tuple[CardChoices, ...] = ()
    """Troop and tactics cards played to a flag (or, for a Mud or Fog card, its flag)."""
    scout: Choice | None = None
    redeploys: tuple[CardChoices, ...] = ()
    deserters: tuple[Choice, ...] = ()
    traitors: tuple[CardChoices, ...] = ()
    passing: Choice | None = None
    draws: tuple[Choice, ...] = ()
    end: Choice | None = None
    discards: tuple[Choice, ...] = ()
    """The Mud left a flag where this seat holds one card too many."""
    scout_draws: tuple[Choice, ...] = ()
    scout_return: int | None = None
    """How many cards a Scout puts back now (None: no return is open now)."""
    then: tuple[Choice, ...] = ()
    """The draws (or ``end``) that may follow a card played to a flag at once, of every card
    (``engine.turn_endings_by_move``): one press plays the card and ends the turn. An ``end``
    after a card whose turn ended by itself is already done. Choosing later is always possible
    too."""
    pass_then: tuple[Choice, ...] = ()
    """The same after a pass."""

    @property
    def links(self) -> tuple[Choice, ...]:
        """The moves one link can make, for an email: all but the Scout's return (it names
        cards drawn after the email)."""
        groups = [
            *self.discards,
            *self.claims,
            *(c for group in self.plays for c in group.choices),
            *([self.scout] if self.scout else []),
            *(c for group in self.redeploys for c in group.choices),
            *self.deserters,
            *(c for group in self.traitors for c in group.choices),
            *([self.passing] if self.passing else []),
            *self.scout_draws,
            *self.draws,
            *([self.end] if self.end else []),
        ]
        return tuple(groups)


def move_choices(state: engine.GameState, seat: str) -> MoveChoices:
    """Every legal move of ``seat`` in ``state``, grouped: plays by card, Redeploy by the card
    moved, Traitor by the card taken; ``then`` / ``pass_then`` asked of the engine
    (``engine.turn_endings_by_move``)."""
    if state.result is not None or state.to_move != seat:
        return MoveChoices()
    moves = engine.legal_moves(state)
    claims: list[Choice] = []
    plays: dict[str, list[Choice]] = {}
    redeploys: dict[tuple[str, int], list[Choice]] = {}
    traitors: dict[tuple[str, int], list[Choice]] = {}
    deserters: list[Choice] = []
    draws: list[Choice] = []
    scout_draws: list[Choice] = []
    discards: list[Choice] = []
    scout = passing = end = None
    scout_return: int | None = None
    for index, move in enumerate(moves):
        choice = Choice(move, index)
        a = move.action
        if a is Action.CLAIM:
            claims.append(choice)
        elif a is Action.PLAY:
            assert move.card is not None
            plays.setdefault(move.card, []).append(choice)
        elif a is Action.SCOUT:
            scout = choice
        elif a is Action.REDEPLOY:
            assert move.card is not None and move.source is not None
            redeploys.setdefault((move.card, move.source), []).append(choice)
        elif a is Action.DESERTER:
            deserters.append(choice)
        elif a is Action.TRAITOR:
            assert move.card is not None and move.source is not None
            traitors.setdefault((move.card, move.source), []).append(choice)
        elif a is Action.PASS:
            passing = choice
        elif a is Action.DRAW:
            (scout_draws if state.phase is engine.Phase.SCOUT else draws).append(choice)
        elif a is Action.END:
            end = choice
        elif a is Action.DISCARD:
            discards.append(choice)
        elif a is Action.RETURN and scout_return is None:
            scout_return = len(move.cards)
    endings = engine.turn_endings_by_move(state, moves)
    after_plays = [endings[c.move] for group in plays.values() for c in group]
    return MoveChoices(
        count=len(moves),
        claims=tuple(claims),
        plays=tuple(CardChoices(card, None, tuple(c)) for card, c in plays.items()),
        scout=scout,
        redeploys=tuple(CardChoices(card, src, tuple(c)) for (card, src), c in redeploys.items()),
        deserters=tuple(deserters),
        traitors=tuple(CardChoices(card, src, tuple(c)) for (card, src), c in traitors.items()),
        passing=passing,
        draws=tuple(draws),
        end=end,
        discards=tuple(discards),
        scout_draws=tuple(scout_draws),
        scout_return=scout_return,
        then=_choices(dict.fromkeys(m for found in after_plays for m in found)),
        pass_then=_choices(endings[passing.move]) if passing else (),
    )


def follow_ups(state: engine.GameState, move: engine.Move) -> tuple[Choice, ...]:
    """The draws (or ``end``) that may end the turn right after ``move``: the confirm page of a
    move link offers them, so that one press plays the card and ends the turn."""
    return _choices(engine.turn_endings(state, move))


def _choices(moves: Iterable[engine.Move]) -> tuple[Choice, ...]:
    return tuple(Choice(m, i) for i, m in enumerate(moves))
