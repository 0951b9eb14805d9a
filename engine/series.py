"""Series (R23): the points of a finished game, and when a series ends and who won it."""

from __future__ import annotations

from collections.abc import Mapping

from engine.claims import flags_held
from engine.state import GameState, Seat


def series_points(state: GameState) -> dict[Seat, int]:
    """Points of a finished game: the winner 5, the loser one per flag held; a draw, each
    player's flags (R23). Raises ValueError while the game goes on."""
    if state.result is None:
        raise ValueError("the game is not over")
    held = flags_held(state)
    winner = state.result.winner
    if winner is None:
        return held
    return {s: 5 if s == winner else n for s, n in held.items()}


def series_leaders(totals: Mapping[Seat, int]) -> list[Seat]:
    """The seats with the most points so far (all of them, level, at the start)."""
    top = max(totals.values(), default=0)
    return [seat for seat, points in totals.items() if points == top]


def series_over(
    totals: Mapping[Seat, int],
    finished_games: int,
    *,
    target_points: int | None = None,
    games_planned: int | None = None,
) -> bool:
    """Whether a series ends after its finished games (R23; docs/rules.md 28): a series "first
    to ``target_points``" once one seat alone leads at or above the target (seats level there
    play on); a series of ``games_planned`` games after the last of them."""
    if target_points is not None:
        reached = any(points >= target_points for points in totals.values())
        return reached and len(series_leaders(totals)) == 1
    if games_planned is None:
        raise ValueError("a series ends at a number of points or after a number of games")
    return finished_games >= games_planned


def series_winner(
    totals: Mapping[Seat, int],
    finished_games: int,
    *,
    target_points: int | None = None,
    games_planned: int | None = None,
) -> Seat | None:
    """The seat that won a series that is over; None while it goes on, or when it ended with
    the leaders level (a drawn series of a number of games)."""
    over = series_over(
        totals, finished_games, target_points=target_points, games_planned=games_planned
    )
    leaders = series_leaders(totals)
    return leaders[0] if over and len(leaders) == 1 else None
