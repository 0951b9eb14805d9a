"""A ladder: players on rungs, each challenging those a few rungs above.

Dates come in as day numbers (`datetime.date.toordinal()` in the service), so the rules never
read a clock.
"""

from __future__ import annotations

from dataclasses import dataclass

from tournaments.results import GameResult, PlayerId, TournamentError

CHALLENGE_REACH = 3
"""How many rungs above one's own a player may challenge."""
RECHALLENGE_DAYS = 7
"""Days before the same two players may meet in a challenge again."""


class ChallengeError(TournamentError):
    """A challenge the ladder's rules refuse; the message says which rule."""


@dataclass(frozen=True)
class Ladder:
    rungs: tuple[PlayerId, ...]
    """Players from the top rung down."""

    def __post_init__(self) -> None:
        if len(set(self.rungs)) != len(self.rungs):
            raise TournamentError("a player stands on two rungs")

    def rung(self, player: PlayerId) -> int:
        """The player's rung, 1 at the top."""
        if player not in self.rungs:
            raise ChallengeError(f"player {player} is not on the ladder")
        return self.rungs.index(player) + 1


@dataclass(frozen=True)
class Challenge:
    challenger: PlayerId
    defender: PlayerId
    day: int
    """The day it was made, as a day number."""


def join(ladder: Ladder, player: PlayerId) -> Ladder:
    """A new player starts on the bottom rung."""
    if player in ladder.rungs:
        raise TournamentError(f"player {player} is already on the ladder")
    return Ladder((*ladder.rungs, player))


def leave(ladder: Ladder, player: PlayerId) -> Ladder:
    """A player who leaves frees their rung: everyone below moves up one."""
    ladder.rung(player)
    return Ladder(tuple(p for p in ladder.rungs if p != player))


def check_challenge(
    ladder: Ladder,
    challenge: Challenge,
    earlier: tuple[Challenge, ...],
    playing: frozenset[PlayerId] = frozenset(),
) -> None:
    """Raise `ChallengeError` unless `challenge` may be made: the defender stands 1 to
    `CHALLENGE_REACH` rungs above the challenger, the two have not met in a challenge (either
    way round) in the `RECHALLENGE_DAYS` days before it, and neither is in `playing` (the players
    of the challenges still being played: a player plays one challenge at a time)."""
    challenger, defender = challenge.challenger, challenge.defender
    if challenger == defender:
        raise ChallengeError("a player cannot challenge themself")
    for player in (challenger, defender):
        if player in playing:
            raise ChallengeError(f"player {player} is playing a challenge already")
    distance = ladder.rung(challenger) - ladder.rung(defender)
    if distance < 1:
        raise ChallengeError(f"player {defender} is not above player {challenger}")
    if distance > CHALLENGE_REACH:
        raise ChallengeError(
            f"player {defender} is {distance} rungs up; a challenge reaches {CHALLENGE_REACH}"
        )
    pair = {challenger, defender}
    for before in earlier:
        if {before.challenger, before.defender} == pair and 0 <= (
            challenge.day - before.day
        ) < RECHALLENGE_DAYS:
            raise ChallengeError(
                f"players {challenger} and {defender} met in a challenge on day {before.day}; "
                f"they may meet again from day {before.day + RECHALLENGE_DAYS}"
            )


def after_game(ladder: Ladder, challenge: Challenge, result: GameResult) -> Ladder:
    """The ladder after a challenge's game: when the challenger wins (by play, on time or by
    forfeit) and still stands below the defender, the two swap rungs; otherwise nothing moves."""
    if set(result.players) != {challenge.challenger, challenge.defender}:
        raise TournamentError("this game is not the challenge's")
    if result.winner() != challenge.challenger:
        return ladder
    low, high = ladder.rung(challenge.challenger), ladder.rung(challenge.defender)
    if low < high:
        return ladder
    rungs = list(ladder.rungs)
    rungs[low - 1], rungs[high - 1] = rungs[high - 1], rungs[low - 1]
    return Ladder(tuple(rungs))
