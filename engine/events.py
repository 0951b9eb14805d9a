"""What a move caused, beyond the new state: the service turns these into emails and pages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from engine.state import Outcome, Seat


@dataclass(frozen=True, slots=True)
class FlagClaimed:
    """A seat claimed a flag (1-based); ``reason`` is the prover's explanation."""

    seat: Seat
    flag: int
    reason: str


@dataclass(frozen=True, slots=True)
class TurnStarted:
    """A seat's turn began (the service sends the "your turn" email on it)."""

    seat: Seat
    turn: int


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The game ended with this outcome."""

    outcome: Outcome


Event: TypeAlias = FlagClaimed | TurnStarted | GameEnded
