"""The deal: the simulated cut (R2, V6.1), the shuffle and the seed commitment (R3).

Chance is a step of its own: a game is a deal plus a list of moves, so it replays without any
random generator. The only randomness is a `random.Random` made from the game's seed, which the
server publishes as a hash at the start and reveals at the end, so anyone can re-deal.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass

from engine.cards import Card, troop_parts
from engine.rulesets import ClaimTiming, Ruleset
from engine.state import EMPTY_FLAG, SEATS, GameState, Phase, Seat


@dataclass(frozen=True, slots=True)
class Deal:
    """Who cut what, who plays first, and the order of every card."""

    cuts: tuple[tuple[Card | None, ...], ...]
    """Each round of the cut, one card per seat in seat order (A's card, B's card, ...); more
    than one round when the highest values were equal, and then only the seats tied for the
    highest cut again, the others' entries being None (R2, V6.1)."""
    first: Seat
    """The seat that plays first: the one after the dealer."""
    hands: tuple[tuple[Card, ...], ...]
    """The opening hands, by seat in seat order."""
    troops: tuple[Card, ...]
    """The troop deck after dealing, top first."""
    tactics: tuple[Card, ...]
    """The tactics deck, top first."""

    def describe_cut(self) -> str:
        """The cut in words, as shown to every player (R2, V6.1)."""
        return describe_cut(self.first, self.cuts, len(self.hands))


def describe_cut(first: str, cuts: Sequence[Sequence[str | None]], players: int) -> str:
    """A deal's cut in words from its stored fields (``first``, ``cuts`` of a docs/formats.md
    record): "A cut Y7, B cut R3: B deals, A plays first". Pages show it on every view, without
    reading the whole deal."""
    if not cuts:
        return f"{first} plays first (winner of the previous game)"
    seats = SEATS[:players]
    lines = [
        ", ".join(
            f"{seat} cut {card}" for seat, card in zip(seats, cut, strict=True) if card is not None
        )
        for cut in cuts
    ]
    dealer = seats[seats.index(first) - 1]
    return "; ".join(lines) + f": {dealer} deals, {first} plays first"


def seed_commitment(seed: str) -> str:
    """The SHA-256 of the seed, published when the game starts (R3)."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


def deal_from_seed(ruleset: Ruleset, seed: str, first: Seat | None = None) -> Deal:
    """The deal a seed produces; anyone holding the revealed seed can repeat it (R3)."""
    return deal(ruleset, random.Random(seed), first)


def deal(ruleset: Ruleset, rng: random.Random, first: Seat | None = None) -> Deal:
    """Cut (unless `first` is given, as in a series, R2), shuffle and deal.

    Every seat cuts the troop deck and shows a card; the highest value deals, and when the
    highest value is shown more than once only the seats that showed it cut again (V6.1; with
    two seats, both). The seat after the dealer plays first and is dealt to first, then the
    others in turn order, one card at a time.
    """
    seats = ruleset.seats
    cuts: list[tuple[Card | None, ...]] = []
    if first is None:
        cutters = list(range(len(seats)))
        while first is None:
            shown = rng.sample(ruleset.troops, len(cutters))
            row: list[Card | None] = [None] * len(seats)
            for seat, card in zip(cutters, shown, strict=True):
                row[seat] = card
            cuts.append(tuple(row))
            values = [troop_parts(card)[1] for card in shown]
            top = max(values)
            cutters = [seat for seat, v in zip(cutters, values, strict=True) if v == top]
            if len(cutters) == 1:
                first = seats[(cutters[0] + 1) % len(seats)]
    troops = list(ruleset.troops)
    rng.shuffle(troops)
    tactics = list(ruleset.tactics_cards)
    rng.shuffle(tactics)
    size = ruleset.hand_size
    start_at = seats.index(first)
    order = [(start_at + k) % len(seats) for k in range(len(seats))]
    hands: list[list[Card]] = [[] for _ in seats]
    for i in range(size * len(seats)):
        hands[order[i % len(seats)]].append(troops[i])
    return Deal(
        cuts=tuple(cuts),
        first=first,
        hands=tuple(tuple(hand) for hand in hands),
        troops=tuple(troops[size * len(seats) :]),
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
        discards=((),) * ruleset.players,
        tactics_played=(0,) * ruleset.players,
        leader_played=(False,) * ruleset.players,
        first=first,
        mover=first,
        phase=Phase.START,
    )
