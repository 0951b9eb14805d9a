"""The ``strong`` computer opponent: determinised Monte Carlo search over the unseen cards.

At the start of its turn it ranks its moves with the thrifty appraisal (a card played is also
missed at the other flags it could have served, ``engine.bots.appraisal``) and shortlists the
best few. Then it samples worlds consistent with its view (``determinise``: the other hands and
the deck order dealt at random from the cards it has not seen). In each world it plays every
shortlisted move and lets the game go on, every seat played by the normal level (its own draw,
each opponent's whole turn, the claim prover deciding the flags), up to the start of its own
next turn; then it makes the claims it may and appraises the position from its seat, now with
the world's hands known (a game that ended counts as won or lost outright). Every move meets
the same worlds and the same chances (common random numbers), so their differences are
measured, not their luck. The move with the best mean is played. Claims, draws, the Scout's
draws and returns and Mud discards are the normal level's. "The normal level" here is its
judgement as the search levels tune it (``heuristic.SEARCHING``): the appraisal's own sums for
a side nobody has begun, and a flag's chance believed less than the normal level does.

The budget is a number of worlds, not a time: the same view, budget and generator give the
same move on any machine.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine.apply import apply
from engine.bots.appraisal import Appraiser
from engine.bots.determinise import determinise
from engine.bots.heuristic import NORMAL_2026, SEARCHING, Style, normal_move, rank_moves
from engine.legal import legal_moves
from engine.moves import Action, Move
from engine.state import GameState, Phase
from engine.view import PlayerView

DEFAULT_BUDGET = 12
"""Worlds sampled per decision by default: well under a second of one core for a move
(docs/bots.md has the measurements)."""

SHORTLIST = 6
"""How many moves the search compares: the best of the thrifty appraisal's ranking."""

WIN = 100.0
"""The appraisal of a game won (a lost one is its negative): above any position."""


@dataclass(frozen=True, slots=True)
class Search:
    """What the search plays: the one-move-deep ``playout`` style every seat of a sampled world
    follows, and the worlds sampled when no budget is given."""

    playout: Style
    worlds: int


STRONG = Search(SEARCHING, DEFAULT_BUDGET)
STRONG_2026 = Search(NORMAL_2026, 12)
"""The strong level before issue 26: the bench's baseline."""


def strong_move(
    view: PlayerView,
    rng: random.Random,
    search: Search = STRONG,
    *,
    budget: int | None = None,
) -> Move:
    """The strong level's move for ``view.seat``, which must be the seat to move. ``budget`` is
    the number of worlds sampled (default ``search.worlds``; at least 1)."""
    worlds = search.worlds if budget is None else max(1, budget)
    weights = search.playout.weights
    state = determinise(view)
    moves = legal_moves(state)
    if state.phase is not Phase.START or any(m.action is Action.CLAIM for m in moves):
        return normal_move(state, rng, Style(weights, thrifty=True), moves)
    candidates = shortlist(rank_moves(state, moves, weights, thrifty=True), SHORTLIST)
    if len(candidates) == 1:
        return candidates[0]
    me = state.mover
    totals = [0.0] * len(candidates)
    for _ in range(worlds):
        world = determinise(view, rng)
        seed = rng.getrandbits(64)
        for i, move in enumerate(candidates):
            totals[i] += play_out(world, move, me, random.Random(seed), search.playout)
    best = max(range(len(candidates)), key=lambda i: (totals[i], -i))
    return candidates[best]


def shortlist(ranked: list[tuple[float, Move]], size: int) -> list[Move]:
    """The best moves of a ranking, one of each set the appraisal cannot tell apart (the same
    card to any of several flags nobody has begun): the search compares different ideas."""
    chosen: list[Move] = []
    seen: set[tuple[float, Move]] = set()
    for score, move in ranked:
        same = (round(score, 9), move._replace(flag=None))
        if same in seen:
            continue
        seen.add(same)
        chosen.append(move)
        if len(chosen) == size:
            break
    return chosen


def play_out(world: GameState, move: Move, me: int, rng: random.Random, style: Style) -> float:
    """Play ``move`` in ``world``, let every seat go on in ``style`` until the seat is to start
    its next turn, and appraise what it finds then (``WIN`` or ``-WIN`` if the game ended)."""
    state, _ = apply(world, move)
    while state.result is None and not (state.mover == me and state.phase is Phase.START):
        state, _ = apply(state, normal_move(state, rng, style))
    if state.result is None:
        state = claim_all(state)  # the claims it may make at once count as made
    if state.result is not None:
        return _result(state, me)
    return Appraiser.knowing(state, me, style.weights).value(state)


def claim_all(state: GameState) -> GameState:
    """The position after the claims the seat to move may make at once."""
    while state.result is None:
        claims = [m for m in legal_moves(state) if m.action is Action.CLAIM]
        if not claims:
            break
        state, _ = apply(state, claims[0])
    return state


def _result(state: GameState, me: int) -> float:
    assert state.result is not None
    seat = state.ruleset.seats[me]
    if state.result.winner == seat:
        return WIN
    if state.result.winner is None and seat in state.result.draw_between:
        return 0.0
    return -WIN
