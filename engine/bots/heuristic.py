"""The ``normal`` computer opponent: a quick heuristic, one move deep, judged by the appraisal.

It claims every flag it can prove, as soon as it may. To play, it tries every legal move on
the position and keeps the one the appraisal (``engine.bots.appraisal``) likes best: the card
that most raises its chance of holding the flag it goes to, given the formations still open to
either side there (the cards seen, its hand) and the flags that would win together; a tactics
card only when that gains more than keeping it. It draws a tactics card now and then, troops
otherwise, and after a Scout puts back the cards it misses least.

The normal level judges with the *thrifty* appraisal: a card played is also missed at the other
flags it could have served (``rank_moves``, the search levels' first judgement too). The easy
level and the ``normal-2026`` baseline judge each move by the flag it touches only, the rest of
the hand as it was, and the easy level now and then plays any card at all.

It reads the hand of the seat to move and the open cards of the position only, so it plays the
same on any determinisation of a seat's view, and can play every seat of a simulated game.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import combinations

from engine.apply import apply
from engine.bots.appraisal import DEFAULT_WEIGHTS, WEIGHTS_2026, Appraiser, Weights
from engine.cards import Card, is_tactic
from engine.legal import legal_moves, tactics_allowed
from engine.moves import Action, Deck, Move
from engine.state import GameState, Phase

SCOUT_GAIN = 0.15
"""What three more cards to choose from are worth to the appraisal, beyond the Scout itself."""

EASY_SLIP = 0.35
"""How often the easy level plays any card instead of the one its appraisal likes best."""


@dataclass(frozen=True, slots=True)
class Style:
    """How the one-move-deep player judges: the appraisal's weights, and whether a card played
    is also missed at the other flags it could have served (``thrifty``)."""

    weights: Weights
    thrifty: bool


NORMAL = Style(replace(DEFAULT_WEIGHTS, empty_sums=1.3, confidence=0.2), thrifty=True)
"""The normal level: an open side looks stronger than to the search levels, and a flag's chance
counts for less until it is certain (both tuned by matches against itself, docs/bots.md)."""
SEARCHING = Style(replace(DEFAULT_WEIGHTS, confidence=0.1), thrifty=True)
"""The search levels' judgement (their first ranking, their playouts, their leaves): the normal
level's but for ``empty_sums`` (the normal level's alone) and a flag's chance believed less
still (each tuned by matches, docs/bots.md)."""
NORMAL_2026 = Style(WEIGHTS_2026, thrifty=False)
"""The normal level before issue 26: the bench's baseline."""


def easy_move(state: GameState, rng: random.Random) -> Move:
    """The easy level's move: the normal level's quick judgement, except that now and then it
    plays any card at all; it claims what it can prove, and draws as the normal level does."""
    moves = legal_moves(state)
    choosing = state.phase is Phase.START and not any(m.action is Action.CLAIM for m in moves)
    if choosing and rng.random() < EASY_SLIP:
        return rng.choice(moves)
    return normal_move(state, rng, NORMAL_2026, moves)


def normal_move(
    state: GameState,
    rng: random.Random,
    style: Style = NORMAL,
    moves: Sequence[Move] | None = None,
) -> Move:
    """The move the one-move-deep player of ``style`` makes for the seat to move (``moves``:
    its legal moves, when already known). Raises ValueError when the game is over."""
    weights = style.weights
    if moves is None:
        moves = legal_moves(state)
    if not moves:
        raise ValueError("the game is over: no move to make")
    for move in moves:
        if move.action is Action.CLAIM:
            return move  # a proved flag is held for good: claim it at once
    phase = state.phase
    if phase is Phase.AFTER_PLAY:
        draws = [m for m in moves if m.action is Action.DRAW]
        return draw_choice(state, draws) if draws else moves[0]
    if phase is Phase.SCOUT:
        draws = [m for m in moves if m.action is Action.DRAW]
        if draws:
            return draw_choice(state, draws, scouting=True)
        return scout_return(state, moves, weights)
    ranked = rank_moves(state, moves, weights, style.thrifty)
    best = ranked[0][0]
    ties = [m for score, m in ranked if score >= best - 1e-9]
    return ties[0] if len(ties) == 1 else rng.choice(ties)


def rank_moves(
    state: GameState,
    moves: Sequence[Move],
    weights: Weights = DEFAULT_WEIGHTS,
    thrifty: bool = True,
) -> list[tuple[float, Move]]:
    """Each move of the start of a turn (or of a Mud discard) with the appraisal of the position
    it leads to, best first (stable: equal scores keep the legal order); ``thrifty`` as for
    ``Appraiser``."""
    appraiser = Appraiser.of(state, state.mover, weights, thrifty)
    scored = []
    for move in moves:
        after, _ = apply(state, move)
        score = appraiser.value(after)
        if move.action is Action.SCOUT:
            score += SCOUT_GAIN
        scored.append((score, move))
    scored.sort(key=lambda item: -item[0])
    return scored


def draw_choice(state: GameState, draws: Sequence[Move], scouting: bool = False) -> Move:
    """Which deck to draw from: a tactics card when the hand has none, can play one and has
    troops enough to go on with; troops otherwise."""
    by_deck = {m.deck: m for m in draws}
    if len(by_deck) == 1:
        return draws[0]
    hand = state.hands[state.mover]
    tactics = sum(1 for c in hand if is_tactic(c))
    troops = len(hand) - tactics
    wanted = tactics == 0 and troops >= (3 if scouting else 4) and tactics_allowed(state)
    return by_deck[Deck.TACTICS] if wanted else by_deck[Deck.TROOPS]


def scout_return(state: GameState, moves: Sequence[Move], weights: Weights) -> Move:
    """The cards to put back after a Scout: the set whose loss the appraisal feels least."""
    returns = [m for m in moves if m.action is Action.RETURN]
    if len(returns) == 1:
        return returns[0]
    me = state.mover
    hand = state.hands[me]
    need = len(returns[0].cards)
    appraiser = Appraiser.of(state, me, weights)
    best: tuple[float, frozenset[Card]] | None = None
    for cards in combinations(hand, need):
        kept = list(hand)
        for card in cards:
            kept.remove(card)
        score = appraiser.value(state.evolve(hands=_with_hand(state, tuple(kept))))
        if best is None or score > best[0] + 1e-9:
            best = (score, frozenset(cards))
    assert best is not None
    chosen = best[1]
    return next(m for m in returns if frozenset(m.cards) == chosen)


def _with_hand(state: GameState, hand: tuple[Card, ...]) -> tuple[tuple[Card, ...], ...]:
    me = state.mover
    return state.hands[:me] + (hand,) + state.hands[me + 1 :]
