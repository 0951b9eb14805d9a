"""The computer opponent's levels and its one entry point, ``choose_move``."""

from __future__ import annotations

import enum
import random

from engine.bots.determinise import determinise
from engine.bots.heuristic import normal_move
from engine.bots.search import strong_move
from engine.legal import legal_moves
from engine.moves import Action, Move
from engine.view import PlayerView


class BotLevel(enum.StrEnum):
    """How well the computer plays (docs/bots.md)."""

    RANDOM = "random"
    """Any legal move, except that it claims every flag it can prove (so that its games end)."""
    NORMAL = "normal"
    """A quick heuristic: the move that most improves the chance of holding the flag it
    touches (``engine.bots.heuristic``)."""
    STRONG = "strong"
    """Determinised Monte Carlo search over the unseen cards (``engine.bots.search``)."""


def choose_move(
    view: PlayerView,
    level: BotLevel | str,
    rng: random.Random,
    *,
    budget: int | None = None,
) -> Move:
    """The move the computer makes for ``view.seat``, knowing only ``view``: the seat's own
    hand and what is open to everyone, never another hand or the order of a deck.

    ``rng`` is the only source of chance: the same view, level, budget and generator state give
    the same move. ``budget`` is the strong level's number of sampled worlds per decision
    (default ``engine.bots.search.DEFAULT_BUDGET``); the other levels ignore it.

    Raises TypeError when ``view`` is not a ``PlayerView`` (a ``GameState`` in particular), and
    ValueError for an unknown level, a finished game or a view whose seat is not the one to
    move.
    """
    if not isinstance(view, PlayerView):
        raise TypeError(f"a computer seat decides from a PlayerView, not a {type(view).__name__}")
    level = BotLevel(level)
    if view.result is not None or view.to_move is None:
        raise ValueError("the game is over: there is no move to make")
    if view.to_move != view.seat:
        raise ValueError(f"it is {view.to_move}'s turn, not {view.seat}'s")
    if level is BotLevel.STRONG:
        return strong_move(view, rng, budget=budget)
    # The hidden cards cannot change the legal moves nor (at these levels) the choice: any
    # world consistent with the view will do, so take the fixed one.
    state = determinise(view)
    if level is BotLevel.NORMAL:
        return normal_move(state, rng)
    moves = legal_moves(state)
    claims = [m for m in moves if m.action is Action.CLAIM]
    return claims[0] if claims else rng.choice(moves)
