"""Series scoring (R23)."""

from __future__ import annotations

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
