"""The ``expert`` computer opponent: information-set Monte Carlo tree search (IS-MCTS) over the
seat's own view.

The tree holds the seat's own decisions of what to play at the start of a turn, keyed by move;
a node stands for everything the seat may know there (its information set), whatever the
cards it cannot see. At the root, the best few moves of the thrifty appraisal are compared by
sequential halving: in each round every move still in play meets the same sampled worlds
(``determinise``, common random numbers), and the better half goes on to the next round. Below
the root, an iteration walks down the tree choosing among the moves legal in its world by UCB,
counting for each move how often it was available (a card drawn in one world is missing in
another). The opponents answer with the normal level's judgement, and every seat draws and
claims as it does (the claim prover deciding the flags); a decision below the tree is the normal
level's too (its judgement as the strong level uses it, ``heuristic.SEARCHING``). At the seat's
next turn below the last node a new node grows (its moves: the few best of the thrifty
appraisal in that world) once its parent has been visited often enough;
the iteration ends there, or when the game ends, and the position is appraised from the seat
with the world's hands known. The move left after the last round is played.

The budget is a number of iterations, not a time: the same view, budget and generator give the
same move on any machine.
"""

from __future__ import annotations

import math
import random

from engine.apply import apply
from engine.bots.appraisal import Appraiser
from engine.bots.determinise import determinise
from engine.bots.heuristic import SEARCHING, Style, normal_move, rank_moves
from engine.bots.search import claim_all, shortlist
from engine.legal import legal_moves
from engine.moves import Action, Move
from engine.state import GameState, Phase
from engine.view import PlayerView

DEFAULT_ITERATIONS = 216
"""Iterations per decision by default: the most that keep a choice within a second (median)
and three (worst) in every variant with room to spare (docs/bots.md has the matches and
times)."""

ROOT_WIDTH = 8
"""How many moves the root compares: the best of the thrifty appraisal's ranking."""

WIDTH = 3
"""How many moves a node below the root compares, in the world that first reaches it."""

EXPAND_AFTER = 8
"""Visits of a move before the seat's next decision after it becomes a node of its own."""

EXPLORE = 0.7
"""UCB's exploration constant, in flags (the unit of the appraisal)."""

PLAYOUT = Style(SEARCHING.weights, thrifty=False)
"""How every seat plays between the tree's decisions: the search levels' weights
(``heuristic.SEARCHING``) with the quicker appraisal, so that more worlds fit in the budget."""


class _Node:
    """One of the seat's decisions: per move, the visits, the sum of values, how often it was
    legal when this node was reached, and the node of the seat's next decision after it."""

    __slots__ = ("available", "children", "totals", "visits")

    def __init__(self) -> None:
        self.visits: dict[Move, int] = {}
        self.totals: dict[Move, float] = {}
        self.available: dict[Move, int] = {}
        self.children: dict[Move, _Node] = {}

    def add(self, moves: list[Move]) -> None:
        for move in moves:
            if move not in self.visits:
                self.visits[move] = 0
                self.totals[move] = 0.0
                self.available[move] = 0

    def select(self, legal: set[Move]) -> Move | None:
        """The move UCB prefers among those legal in this world, an unvisited one first; None
        when no move of the node is legal here."""
        offered = [m for m in self.visits if m in legal]
        if not offered:
            return None
        for move in offered:
            self.available[move] += 1
        best: Move | None = None
        best_score = -math.inf
        for move in offered:
            n = self.visits[move]
            if n == 0:
                return move
            score = self.totals[move] / n + EXPLORE * math.sqrt(math.log(self.available[move]) / n)
            if score > best_score:
                best, best_score = move, score
        return best


def expert_move(view: PlayerView, rng: random.Random, *, budget: int | None = None) -> Move:
    """The expert level's move for ``view.seat``, which must be the seat to move. ``budget`` is
    the number of iterations (default ``DEFAULT_ITERATIONS``; at least one world a round)."""
    iterations = DEFAULT_ITERATIONS if budget is None else max(1, budget)
    state = determinise(view)
    moves = legal_moves(state)
    if state.phase is not Phase.START or any(m.action is Action.CLAIM for m in moves):
        return normal_move(state, rng, SEARCHING, moves)
    alive = shortlist(rank_moves(state, moves, SEARCHING.weights, thrifty=True), ROOT_WIDTH)
    root = _Node()
    root.add(alive)
    me = state.mover
    rounds = max(1, math.ceil(math.log2(len(alive))))
    for _ in range(rounds):
        if len(alive) == 1:
            break
        # every move alive meets the same worlds and chances (common random numbers)
        for _ in range(max(1, iterations // rounds // len(alive))):
            world = determinise(view, rng)
            seed = rng.getrandbits(64)
            for move in alive:
                _iterate(root, move, world, me, random.Random(seed))
        ranked = sorted(alive, key=lambda m: -root.totals[m] / max(1, root.visits[m]))
        alive = ranked[: max(1, len(alive) // 2)]
    return alive[0]


def _iterate(root: _Node, first: Move, world: GameState, me: int, rng: random.Random) -> None:
    """One iteration: ``first`` played in ``world``, then down the tree, then appraise, and
    back up the value."""
    path: list[tuple[_Node, Move]] = []
    node, move = root, first
    state = world
    while True:
        path.append((node, move))
        state = _to_next_turn(state, move, me, rng)
        if state.result is not None:
            break
        state = claim_all(state)
        if state.result is not None:
            break
        child = node.children.get(move)
        if child is None and node.visits[move] + 1 >= EXPAND_AFTER:
            child = node.children[move] = _Node()
            ranked = rank_moves(state, legal_moves(state), SEARCHING.weights, thrifty=True)
            child.add(shortlist(ranked, WIDTH))
        if child is None:
            break
        chosen = child.select(set(legal_moves(state)))
        if chosen is None:
            break
        node, move = child, chosen
    value = _value(state, me)
    for visited, played in path:
        visited.visits[played] += 1
        visited.totals[played] += value


def _to_next_turn(state: GameState, move: Move, me: int, rng: random.Random) -> GameState:
    """``move`` played, then every seat in the normal level's way until the seat is to start
    its next turn (or the game ends)."""
    state, _ = apply(state, move)
    while state.result is None and not (state.mover == me and state.phase is Phase.START):
        state, _ = apply(state, normal_move(state, rng, PLAYOUT))
    return state


def _value(state: GameState, me: int) -> float:
    """The position for the seat, in flags: a game won is worth every flag and a bit more, a
    game lost nothing."""
    rs = state.ruleset
    if state.result is not None:
        seat = rs.seats[me]
        if state.result.winner == seat:
            return rs.flags + 1.0
        if state.result.winner is None and seat in state.result.draw_between:
            return rs.flags / 2
        return 0.0
    return Appraiser.knowing(state, me, SEARCHING.weights).value(state)
