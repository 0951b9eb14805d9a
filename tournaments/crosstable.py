"""A round-robin's crosstable: each player's points against each other player."""

from __future__ import annotations

from dataclasses import dataclass

from tournaments.results import GameResult, PlayerId, Scoring
from tournaments.standings import check_results, scores


@dataclass(frozen=True)
class CrosstableCell:
    """What one player scored against one opponent."""

    opponent: PlayerId
    points: tuple[float, ...]
    """One entry per finished game against that opponent, in round order (two in a double
    round-robin); empty while none has finished."""
    forfeited: bool
    """Whether one of those games was a forfeit (shown as such, not as a played result)."""


@dataclass(frozen=True)
class CrosstableRow:
    player: PlayerId
    cells: tuple[CrosstableCell | None, ...]
    """In the order of the crosstable's players; None where the player meets itself."""
    score: float


@dataclass(frozen=True)
class Crosstable:
    players: tuple[PlayerId, ...]
    rows: tuple[CrosstableRow, ...]


def crosstable(
    players: tuple[PlayerId, ...], games: tuple[GameResult, ...], scoring: Scoring
) -> Crosstable:
    """The crosstable of a section, rows and columns in `players` order."""
    check_results(players, games, ())
    total = scores(players, games, (), scoring)
    ordered = sorted(games, key=lambda game: game.round)
    rows: list[CrosstableRow] = []
    for player in players:
        cells: list[CrosstableCell | None] = []
        for opponent in players:
            if opponent == player:
                cells.append(None)
                continue
            between = [g for g in ordered if set(g.players) == {player, opponent}]
            cells.append(
                CrosstableCell(
                    opponent=opponent,
                    points=tuple(g.points(player, scoring) for g in between),
                    forfeited=any(not g.played for g in between),
                )
            )
        rows.append(CrosstableRow(player, tuple(cells), total[player]))
    return Crosstable(players, tuple(rows))
