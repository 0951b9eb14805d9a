"""Series scoring (R23)."""

from __future__ import annotations

from engine.state import SEATS, GameState, Seat


def series_points(state: GameState) -> dict[Seat, int]:
    """Points of a finished game: the winner 5, the loser one per flag held; a draw, each
    player's flags (R23). Raises ValueError while the game goes on."""
    if state.result is None:
        raise ValueError("the game is not over")
    held = {s: sum(1 for f in state.flags if f.claimed_by == i) for i, s in enumerate(SEATS)}
    winner = state.result.winner
    if winner is None:
        return held
    return {s: 5 if s == winner else held[s] for s in SEATS}
