"""The computer opponent's levels and its one entry point, ``choose_move``."""

from __future__ import annotations

import enum
import random

from engine.bots.determinise import determinise
from engine.bots.expert import expert_move
from engine.bots.heuristic import NORMAL, NORMAL_2026, easy_move, normal_move
from engine.bots.search import STRONG, STRONG_2026, strong_move
from engine.legal import legal_moves
from engine.moves import Action, Move
from engine.view import PlayerView


class BotLevel(enum.StrEnum):
    """How well the computer plays, weakest first (docs/bots.md)."""

    RANDOM = "random"
    """Any legal move, except that it claims every flag it can prove (so that its games end)."""
    EASY = "easy"
    """The normal level's judgement, but now and then a careless card."""
    NORMAL = "normal"
    """A quick heuristic: the move the appraisal likes best, one move deep
    (``engine.bots.heuristic``)."""
    STRONG = "strong"
    """Determinised Monte Carlo search over the unseen cards (``engine.bots.search``)."""
    EXPERT = "expert"
    """Information-set Monte Carlo tree search over the seat's view (``engine.bots.expert``)."""


class Baseline(enum.StrEnum):
    """The normal and strong levels as they were before issue 26, frozen so that the bench can
    measure the levels against them; never offered to a player."""

    NORMAL_2026 = "normal-2026"
    STRONG_2026 = "strong-2026"


def level_of(name: BotLevel | Baseline | str) -> BotLevel | Baseline:
    """The level or baseline called ``name``; ValueError for another name."""
    if isinstance(name, BotLevel | Baseline):
        return name
    try:
        return BotLevel(name)
    except ValueError:
        return Baseline(name)


def choose_move(
    view: PlayerView,
    level: BotLevel | Baseline | str,
    rng: random.Random,
    *,
    budget: int | None = None,
) -> Move:
    """The move the computer makes for ``view.seat``, knowing only ``view``: the seat's own
    hand and what is open to everyone, never another hand or the order of a deck.

    ``rng`` is the only source of chance: the same view, level, budget and generator state give
    the same move. ``budget`` is the strong level's number of sampled worlds per decision, or the
    expert level's number of iterations (each its default when None); the other levels ignore
    it.

    Raises TypeError when ``view`` is not a ``PlayerView`` (a ``GameState`` in particular), and
    ValueError for an unknown level, a finished game or a view whose seat is not the one to
    move.
    """
    if not isinstance(view, PlayerView):
        raise TypeError(f"a computer seat decides from a PlayerView, not a {type(view).__name__}")
    level = level_of(level)
    if view.result is not None or view.to_move is None:
        raise ValueError("the game is over: there is no move to make")
    if view.to_move != view.seat:
        raise ValueError(f"it is {view.to_move}'s turn, not {view.seat}'s")
    if level is BotLevel.EXPERT:
        return expert_move(view, rng, budget=budget)
    if level is BotLevel.STRONG:
        return strong_move(view, rng, STRONG, budget=budget)
    if level is Baseline.STRONG_2026:
        return strong_move(view, rng, STRONG_2026, budget=budget)
    # The hidden cards cannot change the legal moves nor (at these levels) the choice: any
    # world consistent with the view will do, so take the fixed one.
    state = determinise(view)
    if level is BotLevel.NORMAL:
        return normal_move(state, rng, NORMAL)
    if level is Baseline.NORMAL_2026:
        return normal_move(state, rng, NORMAL_2026)
    if level is BotLevel.EASY:
        return easy_move(state, rng)
    moves = legal_moves(state)
    claims = [m for m in moves if m.action is Action.CLAIM]
    return claims[0] if claims else rng.choice(moves)
