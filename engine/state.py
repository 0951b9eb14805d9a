"""The game state: plain frozen data, replaced (never mutated) by each move.

Seats are "A", "B" (and "C"); inside the state they are indices 0, 1 (and 2) so that per-seat
data are tuples, one entry per seat. A flag holds only its own pair of seats' sides: side 0 is
the first seat of ``Ruleset.flag_seats``, side 1 the second (with two players, A and B). Unchanged
parts are shared between successive states, which keeps a move cheap.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Self

from engine.cards import Card, Tactic
from engine.formations import formation_size
from engine.rulesets import FIRST_SEAT as FIRST_SEAT
from engine.rulesets import SEATS as SEATS
from engine.rulesets import ClaimTiming, Ruleset
from engine.rulesets import Seat as Seat


class Phase(enum.StrEnum):
    """Where the player to move stands within their turn."""

    MUD_DISCARD = "mud-discard"
    """A side of theirs lost its Mud with four cards: discard one first (R20)."""
    START = "start"
    """Start of the turn: claim under the advanced rule (R5), then play a card or pass."""
    SCOUT = "scout"
    """A Scout was played: draw up to three cards, then put cards back (R16)."""
    AFTER_PLAY = "after-play"
    """The card is played: claim under the standard rule (R4), then draw or end the turn."""
    OVER = "over"
    """The game has ended."""


class Termination(enum.StrEnum):
    """How a game ended (docs/formats.md `result`)."""

    BREAKTHROUGH = "breakthrough"
    ENVELOPMENT = "envelopment"
    STALEMATE = "stalemate"
    RESIGNATION = "resignation"
    TIME = "time"


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a finished game."""

    winner: Seat | None
    """The winning seat, or None for a draw (R22, V6.6, V6.7)."""
    termination: Termination
    """Why the game ended."""
    draw_between: tuple[Seat, ...] = ()
    """The seats that share a draw, in seat order (both seats of a two-player draw; two or all
    three in a three-player game, V6.6, V6.7); empty when a seat won."""

    def describe(self, seats: tuple[Seat, ...] = ()) -> str:
        """The result in words: ``"A wins by breakthrough"``, ``"draw (stalemate)"`` for a draw
        shared by all of ``seats``, ``"draw between B and C (resignation)"`` otherwise."""
        if self.winner is not None:
            return f"{self.winner} wins by {self.termination}"
        if not self.draw_between or set(self.draw_between) == set(seats):
            return f"draw ({self.termination})"
        return f"draw between {' and '.join(self.draw_between)} ({self.termination})"

    def __str__(self) -> str:
        return self.describe()


DERIVED_KEY = "_derived"
"""Where a state keeps what was worked out from it (``derived``), in its instance dict."""


class _Evolving:
    """Copy-with-changes for the frozen state classes.

    `dataclasses.replace` re-runs a frozen dataclass's __init__, a hundred times the cost of
    copying the instance dict (docs/architecture.md, measured), and random playouts make hundreds
    of thousands of states. Callers pass only field names (tests check every move's result).
    """

    def evolve(self, **changes: Any) -> Self:
        new = object.__new__(type(self))
        fields = new.__dict__
        fields.update(self.__dict__)
        fields.update(changes)
        fields.pop(DERIVED_KEY, None)  # worked out from the old state, not from this one
        return new


def derived(state: object) -> dict[Any, Any]:
    """What was worked out from this frozen state so far (claim proofs, unseen troops), kept
    with it: a page asks the same of one position several times (its view, its legal moves,
    its proofs). Not a field: equality, JSON and ``evolve`` ignore it."""
    fields = state.__dict__
    found: dict[Any, Any] | None = fields.get(DERIVED_KEY)
    if found is None:
        found = fields[DERIVED_KEY] = {}
    return found


@dataclass(frozen=True)
class FlagState(_Evolving):
    """One flag: the two sides of its pair of seats, the environment cards and who holds it.

    Which seats the sides belong to is the ruleset's (``Ruleset.flag_seats``, V6.2): side 0 is
    the pair's first seat, side 1 its second; ``Ruleset.side`` finds a seat's side.
    """

    cards: tuple[tuple[Card, ...], tuple[Card, ...]]
    """Formation cards (troops and morale tactics) on each side of the pair, in the order
    played."""
    arrivals: tuple[tuple[int, ...], tuple[int, ...]]
    """The ply at which each of those cards arrived: who completed last is read from it (R12)."""
    env: tuple[tuple[Card, int], ...] = ()
    """Environment cards here, each with the seat index whose side it lies on (R15)."""
    claimed_by: int | None = None
    """The seat index that claimed the flag, or None."""

    def has(self, tactic: Tactic) -> bool:
        """True when this environment card lies at the flag."""
        return bool(self.env) and any(card == tactic for card, _ in self.env)

    @property
    def env_cards(self) -> frozenset[Card]:
        """The environment cards at the flag, whoever played them."""
        return frozenset(card for card, _ in self.env)

    def size(self, ruleset: Ruleset) -> int:
        """Cards in a complete formation here (``formation_size``): four at a Mud flag (R10)."""
        # Most flags have no environment card: skip building the set of them.
        if self.env:
            return formation_size(self.env_cards, ruleset)
        return ruleset.formation_size

    def completed_at(self, side: int, ruleset: Ruleset) -> int | None:
        """The ply at which side ``side``'s formation (0 or 1) became complete, or None if it is
        not.

        The side is complete when it holds exactly the formation size; its completion time is
        the arrival of the last card played into it (R12, decided in docs/rules.md).
        """
        if len(self.cards[side]) != self.size(ruleset):
            return None
        return max(self.arrivals[side])


EMPTY_FLAG = FlagState(cards=((), ()), arrivals=((), ()))


@dataclass(frozen=True)
class GameState(_Evolving):
    """Everything about a game at one moment, hidden cards included.

    Pages and emails never see this: they see `engine.player_view` or `engine.spectator_view`.
    """

    ruleset: Ruleset
    claims: ClaimTiming
    """When flags may be claimed (R4, R5)."""
    flags: tuple[FlagState, ...]
    hands: tuple[tuple[Card, ...], ...]
    """Each seat's hand, by seat index."""
    troop_deck: tuple[Card, ...]
    """Top first."""
    tactics_deck: tuple[Card, ...]
    """Top first."""
    discards: tuple[tuple[Card, ...], ...]
    """Face-up cards out of play on each seat's side: guile tactics played, cards discarded."""
    tactics_played: tuple[int, ...]
    """Tactics cards each seat has played so far, all kinds (R8, V6.4)."""
    leader_played: tuple[bool, ...]
    """Whether each seat has played its one Leader (R9, V6.4)."""
    first: int
    """The seat index that played first."""
    mover: int
    """The seat index whose turn it is."""
    phase: Phase
    ply: int = 0
    """Moves applied so far."""
    turn: int = 1
    """Turns begun so far."""
    played: bool = False
    """Whether the player to move has played a card (or passed) this turn."""
    passed: bool = False
    """Whether the current turn's play was a pass (R6)."""
    scouted: bool = False
    """Whether the current turn's play was a Scout: no draw follows it (R16)."""
    scout_draws: int = 0
    """Cards drawn so far with the Scout being played (R16)."""
    previous_passed: bool = False
    """Whether the previous turn ended with a pass (R22)."""
    previous_passes: int = 0
    """How many turns in a row ended with a pass just before this one, counted up to one fewer
    than the seats (R22, V6.6: every seat passing in succession); ``previous_passed`` is
    whether it is above 0."""
    pending_discards: tuple[tuple[int, int], ...] = ()
    """(seat index, flag index) sides holding four cards after their Mud left (R20)."""
    result: Outcome | None = None

    @property
    def to_move(self) -> Seat:
        """The seat whose turn it is ("A", "B" or "C")."""
        return SEATS[self.mover]
