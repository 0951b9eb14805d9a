"""When a tournament's next round starts, and what a round deadline does to open games."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from tournaments.results import GameResult, PlayerId, adjudicated_result


class DeadlinePolicy(Enum):
    """What a round deadline does to the games still open."""

    ADJUDICATE = "adjudicate"
    """Each is decided by the flags held (`tournaments.results.adjudicate`) and the next round
    starts."""
    LET_FINISH = "let-finish"
    """They play on; the next round waits for them (its pairing needs their results)."""


@dataclass(frozen=True)
class OpenGame:
    """A game of the round still being played when its deadline passes."""

    round: int
    first: PlayerId
    second: PlayerId
    first_flags: int
    """Flags the first seat has claimed so far."""
    second_flags: int


def at_deadline(open_games: tuple[OpenGame, ...], policy: DeadlinePolicy) -> tuple[GameResult, ...]:
    """The results a passed round deadline gives: every open game adjudicated, or none."""
    if policy is DeadlinePolicy.LET_FINISH:
        return ()
    return tuple(
        adjudicated_result(g.round, g.first, g.second, g.first_flags, g.second_flags)
        for g in open_games
    )


def next_round_may_start(open_games: int, deadline_passed: bool, policy: DeadlinePolicy) -> bool:
    """Whether the next round may be paired: every game of this one has ended, or its deadline
    has passed and the open games were adjudicated."""
    if open_games == 0:
        return True
    return deadline_passed and policy is DeadlinePolicy.ADJUDICATE
