"""Standings: scores and tie-breaks, a pure function of a tournament's results.

The service stores games; the page shows `standings(...)` of them, and a check can recompute it
at any time and compare. The conventions (byes, forfeits, the virtual opponent) are written in
docs/tournaments.md.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations

from tournaments.results import (
    Bye,
    GameResult,
    PlayerId,
    Scoring,
    TieBreak,
    TournamentError,
    win_points,
)

ROUND_ROBIN_TIE_BREAKS = (TieBreak.DIRECT_ENCOUNTER, TieBreak.SONNEBORN_BERGER)
"""The default order in a round-robin, where every Buchholz is alike (everyone met everyone)."""
SWISS_TIE_BREAKS = (TieBreak.BUCHHOLZ, TieBreak.SONNEBORN_BERGER, TieBreak.DIRECT_ENCOUNTER)
"""The default order in a Swiss, where the strength of the opponents met differs."""


@dataclass(frozen=True)
class StandingRow:
    """One player's line of the standings."""

    rank: int
    """From 1; players level on score and every tie-break share a rank."""
    player: PlayerId
    score: float
    games: int
    """Games with a result (played, adjudicated or forfeited); byes not counted."""
    byes: int
    tie_breaks: tuple[float, ...]
    """The values of the tournament's tie-breaks, in its order. A direct encounter's value is the
    points scored among the players still level when it was applied (0 where it could not be)."""


@dataclass(frozen=True)
class Standings:
    scoring: Scoring
    tie_breaks: tuple[TieBreak, ...]
    rows: tuple[StandingRow, ...]


@dataclass(frozen=True)
class _Round:
    """A player's round as the tie-breaks see it."""

    opponent: PlayerId | None
    """None for an unplayed round (a bye or a forfeit), met by a virtual opponent."""
    points: float


def check_results(
    players: tuple[PlayerId, ...], games: Iterable[GameResult], byes: Iterable[Bye]
) -> None:
    """Raise `TournamentError` when the results cannot belong to these players: a stranger, a
    player twice in a round, a bye in a round the player also played."""
    known = set(players)
    if len(known) != len(players):
        raise TournamentError("a player appears twice in the tournament")
    seen: set[tuple[int, PlayerId]] = set()
    entries: list[tuple[int, tuple[PlayerId, ...]]] = [(g.round, g.players) for g in games]
    entries += [(bye.round, (bye.player,)) for bye in byes]
    for round, who in entries:
        for player in who:
            if player not in known:
                raise TournamentError(f"player {player} is not in this tournament")
            if (round, player) in seen:
                raise TournamentError(f"player {player} has two results in round {round}")
            seen.add((round, player))


def scores(
    players: tuple[PlayerId, ...],
    games: Iterable[GameResult],
    byes: Iterable[Bye],
    scoring: Scoring,
) -> dict[PlayerId, float]:
    """Every player's total: its games' points plus a win's points for each bye."""
    total = dict.fromkeys(players, 0.0)
    for game in games:
        for player in game.players:
            total[player] += game.points(player, scoring)
    for bye in byes:
        total[bye.player] += win_points(scoring)
    return total


def standings(
    players: tuple[PlayerId, ...],
    games: tuple[GameResult, ...],
    byes: tuple[Bye, ...],
    scoring: Scoring,
    tie_breaks: tuple[TieBreak, ...],
) -> Standings:
    """The standings: by score, then each tie-break in order among those still level. Players
    level on all of them share a rank and stay in `players` order (starting order)."""
    check_results(players, games, byes)
    total = scores(players, games, byes, scoring)
    rounds = _rounds(players, games, byes, scoring)
    full = win_points(scoring)
    values: dict[PlayerId, list[float]] = {player: [] for player in players}
    order = {player: index for index, player in enumerate(players)}
    groups = _split(sorted(players, key=order.__getitem__), total)
    for tie_break in tie_breaks:
        refined: list[list[PlayerId]] = []
        for group in groups:
            if tie_break is TieBreak.DIRECT_ENCOUNTER:
                value = direct_encounter(tuple(group), games, scoring)
            else:
                value = {
                    player: _opponent_sum(player, rounds[player], total, full, tie_break)
                    for player in group
                }
            for player in group:
                values[player].append(value[player])
            refined += _split(group, value)
        groups = refined
    rows: list[StandingRow] = []
    for group in groups:
        rank = len(rows) + 1
        for player in group:
            rows.append(
                StandingRow(
                    rank=rank,
                    player=player,
                    score=total[player],
                    games=sum(1 for g in games if player in g.players),
                    byes=sum(1 for b in byes if b.player == player),
                    tie_breaks=tuple(values[player]),
                )
            )
    return Standings(scoring, tie_breaks, tuple(rows))


def direct_encounter(
    group: tuple[PlayerId, ...], games: Iterable[GameResult], scoring: Scoring
) -> dict[PlayerId, float]:
    """Points each player of `group` scored in the games played among them, when every two of
    them met; otherwise 0 for all (the encounter does not decide)."""
    members = set(group)
    among = [g for g in games if g.played and set(g.players) <= members]
    met = {frozenset(g.players) for g in among}
    if len(group) < 2 or any(frozenset(pair) not in met for pair in combinations(group, 2)):
        return dict.fromkeys(group, 0.0)
    points = dict.fromkeys(group, 0.0)
    for game in among:
        for player in game.players:
            points[player] += game.points(player, scoring)
    return points


def _rounds(
    players: tuple[PlayerId, ...],
    games: Iterable[GameResult],
    byes: Iterable[Bye],
    scoring: Scoring,
) -> dict[PlayerId, list[_Round]]:
    rounds: dict[PlayerId, list[_Round]] = {player: [] for player in players}
    for game in games:
        for player in game.players:
            opponent = game.opponent_of(player) if game.played else None
            rounds[player].append(_Round(opponent, game.points(player, scoring)))
    for bye in byes:
        rounds[bye.player].append(_Round(None, win_points(scoring)))
    return rounds


def _opponent_sum(
    player: PlayerId,
    rounds: list[_Round],
    total: dict[PlayerId, float],
    full: float,
    tie_break: TieBreak,
) -> float:
    """Buchholz (opponents' scores) or Sonneborn-Berger (each weighted by the share of a win
    scored against them). An unplayed round meets a virtual opponent with the player's own
    score."""
    value = 0.0
    for entry in rounds:
        opponent_score = total[player] if entry.opponent is None else total[entry.opponent]
        weight = 1.0 if tie_break is TieBreak.BUCHHOLZ else entry.points / full
        value += opponent_score * weight
    # Series weights are fifths: rounding keeps equal sums equal whatever the order of addition.
    return round(value, 9)


def _split(group: list[PlayerId], value: dict[PlayerId, float]) -> list[list[PlayerId]]:
    """`group` in runs of equal value, the highest first, each run in `group`'s order."""
    runs: dict[float, list[PlayerId]] = defaultdict(list)
    for player in group:
        runs[value[player]].append(player)
    return [runs[key] for key in sorted(runs, reverse=True)]
