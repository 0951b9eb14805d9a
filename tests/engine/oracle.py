"""A brute-force oracle for formations and claims, independent of engine.formations/prover.

Obviously right rather than fast: a formation is classified straight from its colors and values,
wild cards try every color and every value they may take, and a claim tries every combination
of unseen troops the opponent could add. Shares nothing with the engine but cards and rulesets.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from engine.cards import Card, is_troop, troop_parts
from engine.rulesets import Ruleset

HOST, SKIRMISH, BATTALION, PHALANX, WEDGE = range(5)
SUM = -1
NAMES = {
    SUM: "sum",
    HOST: "host",
    SKIRMISH: "skirmish",
    BATTALION: "battalion",
    PHALANX: "phalanx",
    WEDGE: "wedge",
}

Strength = tuple[int, int]


def classify(cards: Sequence[tuple[str, int]], fog: bool) -> Strength:
    """(category, sum) of concrete (color, value) cards (R10)."""
    values = sorted(v for _, v in cards)
    total = sum(values)
    if fog:
        return (SUM, total)
    one_color = len({c for c, _ in cards}) == 1
    in_sequence = all(values[i + 1] == values[i] + 1 for i in range(len(values) - 1))
    one_value = len(set(values)) == 1
    if one_color and in_sequence:
        return (WEDGE, total)
    if one_value:
        return (PHALANX, total)
    if one_color:
        return (BATTALION, total)
    if in_sequence:
        return (SKIRMISH, total)
    return (HOST, total)


def options(card: Card, ruleset: Ruleset) -> list[tuple[str, int]]:
    """Every (color, value) a card may stand for (R11)."""
    if is_troop(card):
        return [troop_parts(card)]
    if card in ("ALEXANDER", "DARIUS"):
        values = list(range(1, ruleset.max_value + 1))
    elif card == "CAVALRY":
        values = [8]
    elif card == "SHIELD":
        values = [1, 2, 3]
    else:
        raise ValueError(f"{card} is not a formation card")
    return [(c, v) for c in ruleset.colors for v in values]


def best(cards: Sequence[Card], fog: bool, ruleset: Ruleset) -> Strength:
    """The best (category, sum) of a complete side, trying every wild card assignment."""
    return max(
        classify(assignment, fog)
        for assignment in itertools.product(*(options(c, ruleset) for c in cards))
    )


def unseen_troops(seen: Sequence[Card], ruleset: Ruleset) -> list[Card]:
    """Every troop of the ruleset not among the seen cards."""
    seen_set = set(seen)
    return [t for t in ruleset.troops if t not in seen_set]


def claim(
    mine: Sequence[Card],
    theirs: Sequence[Card],
    env: Sequence[Card],
    visible: Sequence[Card],
    ruleset: Ruleset,
    completed_last: str | None = None,
) -> tuple[bool, Strength | None]:
    """(claimable, the opponent's best reachable strength or None) by brute force (R12, R13).

    ``visible`` is every other face-up card; the cards at this flag are seen too.
    """
    size = 4 if "MUD" in env else 3
    fog = "FOG" in env
    if len(mine) < size:
        return (False, None)
    my = best(mine, fog, ruleset)
    pool = unseen_troops([*mine, *theirs, *visible], ruleset)
    need = size - len(theirs)
    if need > len(pool):
        return (True, None)
    their_best = max(
        best([*theirs, *added], fog, ruleset) for added in itertools.combinations(pool, need)
    )
    if their_best > my:
        return (False, their_best)
    if their_best < my:
        return (True, their_best)
    if need > 0:
        return (True, their_best)  # R12: they would play the last card
    return (completed_last == "theirs", their_best)
