"""Positions rebuilt from one seat's view: the open parts exactly, the hidden parts sampled.

A computer seat never sees a ``GameState``. It rebuilds one from its ``PlayerView``: the board,
the discards, the counts and its own hand as the view shows them, and the cards it cannot see
(the other hands and the decks) dealt out at random among those places, in the numbers the view
gives. Such a position is a *determinisation*: one world consistent with all the seat knows.
Every legal move of the seat depends only on what it may see, so ``legal_moves`` of any
determinisation is the seat's true list of legal moves.
"""

from __future__ import annotations

import random

from engine.cards import Card, is_tactic
from engine.moves import Deck
from engine.rulesets import get_ruleset
from engine.state import SEATS, FlagState, GameState
from engine.view import PlayerView


def seen_cards(view: PlayerView) -> frozenset[Card]:
    """Every card the seat can see: its hand, both sides of every flag, the environment cards
    and every discard pile."""
    seen: set[Card] = set(view.hand)
    for flag in view.flags:
        for cards in flag.cards.values():
            seen.update(cards)
        seen.update(e.card for e in flag.env)
    for cards in view.discards.values():
        seen.update(cards)
    return frozenset(seen)


def unseen_cards(view: PlayerView) -> tuple[Card, ...]:
    """Every card the seat cannot see (in another seat's hand or in a deck), in the order a hand
    is shown: troops color by color, then the tactics cards."""
    rs = get_ruleset(view.ruleset)
    seen = seen_cards(view)
    return tuple(card for card in (*rs.troops, *rs.tactics_cards) if card not in seen)


def determinise(view: PlayerView, rng: random.Random | None = None) -> GameState:
    """A position consistent with ``view``: what the seat sees exactly, the unseen cards dealt at
    random (by ``rng``) to the other hands and the decks in the numbers the view shows; without
    ``rng``, dealt in card order (a fixed world, for when the hidden cards do not matter).

    Tactics cards go only to the tactics deck and to hands, troops only to the troop deck and to
    hands, so every count matches the view. Raises ValueError when the view is of a finished
    game, or its counts do not add up (a view this engine did not make).
    """
    if view.result is not None or view.to_move is None:
        raise ValueError("the game is over: there is no position to play on")
    if any(len(f.arrivals) != 2 for f in view.flags):
        raise ValueError("the view's flags lack the arrival of their cards (R12)")
    rs = get_ruleset(view.ruleset)
    me = SEATS.index(view.seat)
    unseen = unseen_cards(view)
    troops = [c for c in unseen if not is_tactic(c)]
    tactics = [c for c in unseen if is_tactic(c)]
    others = [i for i in range(rs.players) if i != me]
    in_hands = sum(view.hand_sizes[SEATS[i]] for i in others)
    troop_deck_size = view.decks[Deck.TROOPS]
    tactics_deck_size = view.decks[Deck.TACTICS]
    hidden_tactics = len(tactics) - tactics_deck_size
    hidden_troops = len(troops) - troop_deck_size
    if hidden_tactics < 0 or hidden_troops < 0 or hidden_tactics + hidden_troops != in_hands:
        raise ValueError("the view's counts of hands and decks do not match its unseen cards")
    if rng is not None:
        rng.shuffle(troops)
        rng.shuffle(tactics)
    # The other hands hold exactly the unseen cards the decks do not: which of them is chance.
    held = tactics[:hidden_tactics] + troops[:hidden_troops]
    if rng is not None:
        rng.shuffle(held)
    hands: list[tuple[Card, ...]] = [()] * rs.players
    hands[me] = view.hand
    at = 0
    for i in others:
        size = view.hand_sizes[SEATS[i]]
        hands[i] = tuple(held[at : at + size])
        at += size
    flags = tuple(
        FlagState(
            cards=(f.cards[f.seats[0]], f.cards[f.seats[1]]),
            arrivals=(f.arrivals[f.seats[0]], f.arrivals[f.seats[1]]),
            env=tuple((e.card, SEATS.index(e.seat)) for e in f.env),
            claimed_by=None if f.claimed_by is None else SEATS.index(f.claimed_by),
        )
        for f in view.flags
    )
    return GameState(
        ruleset=rs,
        claims=view.claims,
        flags=flags,
        hands=tuple(hands),
        troop_deck=tuple(troops[hidden_troops:]),
        tactics_deck=tuple(tactics[hidden_tactics:]),
        discards=tuple(view.discards[s] for s in rs.seats),
        tactics_played=tuple(view.tactics_played[s] for s in rs.seats),
        leader_played=tuple(view.leader_played[s] for s in rs.seats),
        first=SEATS.index(view.first),
        mover=SEATS.index(view.to_move),
        phase=view.phase,
        ply=view.ply,
        turn=view.turn,
        played=view.played,
        passed=view.passed,
        scouted=view.scouted,
        scout_draws=view.scout_draws,
        previous_passed=view.passes_before > 0,
        previous_passes=view.passes_before,
        pending_discards=tuple((SEATS.index(p.seat), p.flag - 1) for p in view.pending_discards),
    )
