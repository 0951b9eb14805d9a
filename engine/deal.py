"""The deal: the simulated cut (R2), the shuffle and the seed commitment (R3).

Chance is a step of its own: a game is a deal plus a list of moves, so it replays without any
random generator. The only randomness is a `random.Random` made from the game's seed, which the
server publishes as a hash at the start and reveals at the end, so anyone can re-deal.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from engine.cards import Card, troop_parts
from engine.rulesets import ClaimTiming, Ruleset
from engine.state import EMPTY_FLAG, SEATS, GameState, Phase, Seat


@dataclass(frozen=True, slots=True)
class Deal:
    """Who cut what, who plays first, and the order of every card."""

    cuts: tuple[tuple[Card, Card], ...]
    """Each cut as (A's card, B's card); more than one when values were equal (R2)."""
    first: Seat
    """The seat that plays first: the one that did not deal."""
    hands: tuple[tuple[Card, ...], tuple[Card, ...]]
    """The opening hands of A and B."""
    troops: tuple[Card, ...]
    """The troop deck after dealing, top first."""
    tactics: tuple[Card, ...]
    """The tactics deck, top first."""

    def describe_cut(self) -> str:
        """The cut in words, as shown to both players (R2)."""
        if not self.cuts:
            return f"{self.first} plays first (winner of the previous game)"
        lines = [f"A cut {a}, B cut {b}" for a, b in self.cuts]
        dealer = SEATS[1 - SEATS.index(self.first)]
        return "; ".join(lines) + f": {dealer} deals, {self.first} plays first"


def seed_commitment(seed: str) -> str:
    """The SHA-256 of the seed, published when the game starts (R3)."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


def deal_from_seed(ruleset: Ruleset, seed: str, first: Seat | None = None) -> Deal:
    """The deal a seed produces; anyone holding the revealed seed can repeat it (R3)."""
    return deal(ruleset, random.Random(seed), first)


def deal(ruleset: Ruleset, rng: random.Random, first: Seat | None = None) -> Deal:
    """Cut (unless `first` is given, as in a series, R2), shuffle and deal.

    Each player cuts the troop deck and shows a card; the higher value deals, equal values
    cut again. The non-dealer plays first and is dealt to first.
    """
    cuts: list[tuple[Card, Card]] = []
    if first is None:
        while first is None:
            a, b = rng.sample(ruleset.troops, 2)
            cuts.append((a, b))
            va, vb = troop_parts(a)[1], troop_parts(b)[1]
            if va != vb:
                first = "B" if va > vb else "A"
    troops = list(ruleset.troops)
    rng.shuffle(troops)
    tactics = list(ruleset.tactics_cards)
    rng.shuffle(tactics)
    size = ruleset.hand_size
    order = [SEATS.index(first), 1 - SEATS.index(first)]
    hands: list[list[Card]] = [[], []]
    for i in range(size * 2):
        hands[order[i % 2]].append(troops[i])
    return Deal(
        cuts=tuple(cuts),
        first=first,
        hands=(tuple(hands[0]), tuple(hands[1])),
        troops=tuple(troops[size * 2 :]),
        tactics=tuple(tactics),
    )


def start(ruleset: Ruleset, claims: ClaimTiming, deal: Deal) -> GameState:
    """The position before the first move."""
    first = SEATS.index(deal.first)
    return GameState(
        ruleset=ruleset,
        claims=claims,
        flags=(EMPTY_FLAG,) * ruleset.flags,
        hands=deal.hands,
        troop_deck=deal.troops,
        tactics_deck=deal.tactics,
        discards=((), ()),
        tactics_played=(0, 0),
        leader_played=(False, False),
        first=first,
        mover=first,
        phase=Phase.START,
    )
