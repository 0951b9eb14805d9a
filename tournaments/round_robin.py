"""A round-robin section: everyone plays everyone, by the FIDE Berger tables.

By mail every game of a section starts at once (a correspondence section), so the rounds of the
schedule only order the games on the page and give each its seats; nobody waits for a round.
"""

from __future__ import annotations

from dataclasses import dataclass

from tournaments.results import Pairing, PlayerId, TournamentError

MIN_PLAYERS = 3
MAX_PLAYERS = 12


@dataclass(frozen=True)
class Schedule:
    """A section's games, and the rest round of each player when the count is odd."""

    pairings: tuple[Pairing, ...]
    rests: tuple[tuple[int, PlayerId], ...]
    """(round, player) for each player's round without a game (odd sections only)."""
    rounds: int


def berger_round(size: int, round: int) -> tuple[tuple[int, int], ...]:
    """The FIDE Berger table of `size` (even) numbers for one round (from 1), board by board, as
    (first seat, second seat) starting numbers from 1. The last number stays in place and changes
    seat each round; the others turn around it."""
    if size < 2 or size % 2:
        raise TournamentError(f"a Berger table has an even size, not {size}")
    if not 1 <= round <= size - 1:
        raise TournamentError(f"a table of {size} has rounds 1 to {size - 1}, not {round}")
    turning = size - 1
    top = ((round - 1) * (size // 2)) % turning + 1

    def number(value: int) -> int:
        return (value - 1) % turning + 1

    boards = [(size, top) if round % 2 == 0 else (top, size)]
    for step in range(1, size // 2):
        boards.append((number(top + step), number(top - step)))
    return tuple(boards)


def schedule(players: tuple[PlayerId, ...], *, double: bool = False) -> Schedule:
    """The games of a section. `players` in starting-number order (the service draws or sorts
    it); with an odd count, the player meeting the phantom last number rests that round. With
    `double`, a second cycle repeats the first with the seats swapped."""
    if len(set(players)) != len(players):
        raise TournamentError("a player appears twice in the section")
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise TournamentError(
            f"a round-robin section has {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(players)}"
        )
    size = len(players) + len(players) % 2
    cycle = size - 1
    pairings: list[Pairing] = []
    rests: list[tuple[int, PlayerId]] = []
    for leg in range(2 if double else 1):
        for table_round in range(1, cycle + 1):
            round = leg * cycle + table_round
            for first, second in berger_round(size, table_round):
                if leg:
                    first, second = second, first
                if max(first, second) > len(players):
                    rests.append((round, players[min(first, second) - 1]))
                    continue
                pairings.append(Pairing(round, players[first - 1], players[second - 1]))
    return Schedule(tuple(pairings), tuple(rests), cycle * (2 if double else 1))
