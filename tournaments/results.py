"""What a tournament is made of: its games' results, its byes, and how they score.

Everything here is plain frozen data. Standings, pairings and the ladder are pure functions of
these values, so the service can recompute any of them from the stored games and compare.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

PlayerId = int
"""A player's id as the service stores it; the tournament core only compares and orders them."""

SERIES_WIN_POINTS = 5
"""The rulebook's series points for the winner of a game (R23); the loser scores its flags."""


class Outcome(Enum):
    """Who won a game, seen from its first seat."""

    FIRST_WINS = "first"
    SECOND_WINS = "second"
    DRAW = "draw"


class Finish(Enum):
    """How a game reached its result."""

    PLAYED = "played"
    """Played to its end: a victory, a stalemate (R22) or a resignation."""
    TIME = "time"
    """Lost on time: a played game, counted as any other loss."""
    ADJUDICATED = "adjudicated"
    """Still open at a round deadline and decided by the flags held (`adjudicate`)."""
    FORFEIT = "forfeit"
    """Not played: a withdrawn player's remaining game, won by the other without flags."""


class Scoring(Enum):
    """A tournament's scoring system."""

    SERIES = "series"
    """The rulebook's series points (R23): the winner 5, the loser the flags it holds; a draw,
    each its flags."""
    GAME = "game"
    """1 for a win, 1/2 for a draw, 0 for a loss."""


class TieBreak(Enum):
    """A tie-break, applied in the order a tournament lists them."""

    DIRECT_ENCOUNTER = "direct-encounter"
    SONNEBORN_BERGER = "sonneborn-berger"
    BUCHHOLZ = "buchholz"


class TournamentError(ValueError):
    """Input a tournament cannot use (a player twice, a game against oneself...); the message says
    exactly what is wrong."""


@dataclass(frozen=True)
class GameResult:
    """One finished game of a tournament."""

    round: int
    """The round, from 1 (a round-robin's schedule round; a ladder game may use 1 throughout)."""
    first: PlayerId
    """The player in the first seat (seat A, the "colour" balanced by the Swiss pairing)."""
    second: PlayerId
    """The player in the second seat."""
    outcome: Outcome
    first_flags: int = 0
    """Flags the first seat held at the end (always 0 in a forfeit)."""
    second_flags: int = 0
    """Flags the second seat held at the end."""
    finish: Finish = Finish.PLAYED

    def __post_init__(self) -> None:
        if self.first == self.second:
            raise TournamentError(f"player {self.first} cannot play against themself")
        if self.round < 1:
            raise TournamentError(f"round {self.round} is not a round: rounds count from 1")
        if self.first_flags < 0 or self.second_flags < 0:
            raise TournamentError("a flag count cannot be negative")
        if self.finish is Finish.FORFEIT and self.outcome is Outcome.DRAW:
            raise TournamentError("a forfeit has a winner")

    @property
    def players(self) -> tuple[PlayerId, PlayerId]:
        return (self.first, self.second)

    @property
    def played(self) -> bool:
        """Whether the players met over the board (a forfeit is not a meeting)."""
        return self.finish is not Finish.FORFEIT

    def opponent_of(self, player: PlayerId) -> PlayerId:
        if player == self.first:
            return self.second
        if player == self.second:
            return self.first
        raise TournamentError(f"player {player} did not play this game")

    def winner(self) -> PlayerId | None:
        if self.outcome is Outcome.FIRST_WINS:
            return self.first
        if self.outcome is Outcome.SECOND_WINS:
            return self.second
        return None

    def points(self, player: PlayerId, scoring: Scoring) -> float:
        """What `player` scores from this game under `scoring`."""
        self.opponent_of(player)  # raises for a player not in this game
        winner = self.winner()
        if scoring is Scoring.GAME:
            if winner is None:
                return 0.5
            return 1.0 if winner == player else 0.0
        if winner == player:
            return float(SERIES_WIN_POINTS)
        if self.finish is Finish.FORFEIT:
            return 0.0
        return float(self.first_flags if player == self.first else self.second_flags)


@dataclass(frozen=True)
class Pairing:
    """One game to deal: who sits first and who second."""

    round: int
    first: PlayerId
    second: PlayerId


@dataclass(frozen=True)
class Bye:
    """A round in which a Swiss tournament's odd player out does not play."""

    round: int
    player: PlayerId


def win_points(scoring: Scoring) -> float:
    """A win's points: what a bye and a forfeit win score."""
    return float(SERIES_WIN_POINTS) if scoring is Scoring.SERIES else 1.0


def adjudicate(first_flags: int, second_flags: int) -> Outcome:
    """The result of a game still open at a round deadline, by the flags each seat holds: more
    flags wins, as many is a draw (as a stalemate ends, R22). docs/tournaments.md."""
    if first_flags < 0 or second_flags < 0:
        raise TournamentError("a flag count cannot be negative")
    if first_flags > second_flags:
        return Outcome.FIRST_WINS
    if second_flags > first_flags:
        return Outcome.SECOND_WINS
    return Outcome.DRAW


def adjudicated_result(
    round: int, first: PlayerId, second: PlayerId, first_flags: int, second_flags: int
) -> GameResult:
    """The `GameResult` of a game adjudicated at a round deadline."""
    return GameResult(
        round=round,
        first=first,
        second=second,
        outcome=adjudicate(first_flags, second_flags),
        first_flags=first_flags,
        second_flags=second_flags,
        finish=Finish.ADJUDICATED,
    )


def forfeit_result(
    round: int, first: PlayerId, second: PlayerId, withdrawn: PlayerId
) -> GameResult:
    """A game not played because `withdrawn` left the tournament: the other wins, no flags."""
    if withdrawn not in (first, second):
        raise TournamentError(f"player {withdrawn} is not in this game")
    outcome = Outcome.SECOND_WINS if withdrawn == first else Outcome.FIRST_WINS
    return GameResult(round, first, second, outcome, finish=Finish.FORFEIT)
