"""Formations: what the cards on one side of a flag are worth (R10, R11).

A complete side is a formation (Wedge, Phalanx, Battalion, Skirmish, Host; or a bare sum under
Fog). ``evaluate`` resolves wild cards best for their owner. The search behind it also answers
the prover's question "what is the best formation this side can still reach, adding troops from
a pool": it reasons per category, strongest first, with bitmasks of values, and never enumerates
completions. With an empty pool and nothing to add, the same search evaluates a complete side.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from engine.cards import MORALE, Card, Tactic, is_troop, troop_code
from engine.errors import InvalidSituationError
from engine.rulesets import Ruleset

FOG: Card = Tactic.FOG.value
MUD: Card = Tactic.MUD.value


class Formation(enum.IntEnum):
    """Formation categories, weakest to strongest (R10); SUM is the only one under Fog."""

    SUM = -1
    """Under Fog no formation counts, only the sum of the values (R10)."""
    HOST = 0
    """Any other three (four at Mud) cards."""
    SKIRMISH = 1
    """Consecutive values (Skirmish Line)."""
    BATTALION = 2
    """One color (Battalion Order)."""
    PHALANX = 3
    """One value."""
    WEDGE = 4
    """One color and consecutive values."""

    @property
    def title(self) -> str:
        """The name for people: ``"Wedge"``."""
        return self.name.capitalize()


# module-level names for the members: the search reads them without enum attribute lookups
_SUM, _HOST, _SKIRMISH, _BATTALION, _PHALANX, _WEDGE = Formation


@dataclass(frozen=True, slots=True)
class FormationValue:
    """A complete side as the flag is decided: its category, its sum and its cards.

    Compare two values by ``strength``; equal strengths are a tie (R10, R12).
    """

    formation: Formation
    """The category (``Formation.SUM`` under Fog)."""
    total: int
    """The sum of the card values, wild cards at the values they were given."""
    cards: tuple[Card, ...]
    """The cards as played, ascending by value; wild cards by their own name (``"ALEXANDER"``)."""
    values: tuple[int, ...]
    """The value each card of ``cards`` counts for (a wild card's chosen value)."""

    @property
    def strength(self) -> tuple[int, int]:
        """A key ordering formations as R10 does: category first, then sum."""
        return (int(self.formation), self.total)

    def __str__(self) -> str:
        return f"{self.formation.title} {self.total}"

    def describe(self) -> str:
        """Cards and value, as reasons show them: ``"B8 B9 B10 (Wedge 27)"``."""
        return f"{' '.join(self.cards)} ({self})"

    def to_json(self) -> dict[str, Any]:
        """``{"formation": "wedge", "sum": 27, "cards": ["B8", "B9", "B10"]}``: the category as
        the ``compare`` command names it, the sum and the cards ascending by value."""
        return {
            "formation": self.formation.name.lower(),
            "sum": self.total,
            "cards": list(self.cards),
        }


def formation_size(env: Collection[Card], ruleset: Ruleset) -> int:
    """Cards in a complete formation at a flag with this environment: more with Mud (R10)."""
    return ruleset.mud_formation_size if MUD in env else ruleset.formation_size


class _Deck:
    """Per-ruleset tables the search reads, computed once per ruleset."""

    __slots__ = (
        "codes",
        "color_index",
        "colors",
        "fog_value",
        "max_value",
        "no_counts",
        "no_masks",
        "parts",
        "values",
        "wild_max",
        "wilds",
    )

    def __init__(self, ruleset: Ruleset) -> None:
        self.colors = ruleset.colors
        self.max_value = ruleset.max_value
        self.color_index = {color: i for i, color in enumerate(ruleset.colors)}
        # codes[color index][value], so the search never formats strings in its loops
        self.codes = tuple(
            tuple(troop_code(c, v) if v else "" for v in range(ruleset.max_value + 1))
            for c in ruleset.colors
        )
        # troop -> (color index, value) and card -> value: one dict lookup in the hot loops
        self.parts: dict[Card, tuple[int, int]] = {
            troop_code(c, v): (i, v)
            for i, c in enumerate(ruleset.colors)
            for v in range(1, ruleset.max_value + 1)
        }
        self.values: dict[Card, int] = {card: v for card, (_, v) in self.parts.items()}
        every_value = ((1 << (ruleset.max_value + 1)) - 1) & ~1
        # R11: the values each wild card may take (any color for all of them)
        self.wilds: dict[Card, int] = {
            Tactic.ALEXANDER.value: every_value,
            Tactic.DARIUS.value: every_value,
            Tactic.CAVALRY.value: (1 << 8) & every_value,
            Tactic.SHIELD.value: 0b1110 & every_value,
        }
        self.wild_max = {card: mask.bit_length() - 1 for card, mask in self.wilds.items()}
        # R11: under Fog a Leader counts 10 (the top value), Cavalry 8, Shield 3: its best value
        self.fog_value = self.wild_max
        # an empty pool, for evaluating a complete side with the same search
        self.no_masks = (0,) * len(ruleset.colors)
        self.no_counts = (0,) * (ruleset.max_value + 1)


_DECKS: dict[int, tuple[Ruleset, _Deck]] = {}


def _deck(ruleset: Ruleset) -> _Deck:
    # keyed by id (hashing a dataclass is slow); the ruleset is kept so the id stays its own
    entry = _DECKS.get(id(ruleset))
    if entry is None:
        entry = (ruleset, _Deck(ruleset))
        _DECKS[id(ruleset)] = entry
    return entry[1]


def troop_table(ruleset: Ruleset) -> dict[Card, tuple[int, int]]:
    """Every troop of the ruleset -> (index of its color in ``ruleset.colors``, value).

    Computed once per ruleset; do not modify it.
    """
    return _deck(ruleset).parts


def _run_starts(vmask: int, size: int, max_value: int) -> range:
    """The starts of the runs of ``size`` values that hold every value of ``vmask``, highest
    first (no wrap-around, R10)."""
    hi = max_value - size + 1
    lo = 1
    if vmask:
        top = vmask.bit_length() - 1
        bottom = (vmask & -vmask).bit_length() - 1
        hi = min(hi, bottom)
        lo = max(lo, top - size + 1)
    return range(hi, lo - 1, -1)


def _top_bits(mask: int, n: int) -> list[int]:
    """The n highest values set in mask, highest first."""
    out: list[int] = []
    while n:
        v = mask.bit_length() - 1
        out.append(v)
        mask ^= 1 << v
        n -= 1
    return out


def _match(missing: int, avail: int, allowed: Sequence[int], i: int = 0) -> list[int] | None:
    """Give each wild card (from index i) a distinct value of ``missing`` it may take, so that
    the values left over are all in ``avail`` (the pool can supply them).

    Returns the value of each wild card, or None when no such assignment exists.
    """
    n = len(allowed) - i
    forced = missing & ~avail
    if n == 0:
        return [] if not forced else None
    if forced.bit_count() > n:
        return None
    if n == 1:
        a = allowed[i]
        if forced:
            return [forced.bit_length() - 1] if forced & a else None
        cand = missing & a
        return [cand.bit_length() - 1] if cand else None
    # several wild cards on one side: a tiny backtracking matching, at most 4 deep
    cand = missing & allowed[i]
    while cand:
        b = cand & -cand
        cand ^= b
        rest = _match(missing ^ b, avail, allowed, i + 1)
        if rest is not None:
            return [b.bit_length() - 1, *rest]
    return None


def best_reachable(
    troops: Sequence[Card],
    wilds: Sequence[Card],
    need: int,
    size: int,
    fog: bool,
    floor: Formation,
    masks: Sequence[int],
    counts: Sequence[int],
    ruleset: Ruleset,
) -> FormationValue | None:
    """The best formation a side can reach by adding ``need`` troops from a pool.

    ``troops`` and ``wilds`` are the side's troop and morale tactics cards; the pool is given
    as ``masks`` (per color of the ruleset, bit v set when that troop is available) and
    ``counts`` (per value, how many are available). Wild cards take the best value they may
    (R11). Categories below ``floor`` are not searched: the result is the best formation of
    category ``floor`` or higher, or None when there is none. Under Fog the result is the
    best sum (R10). The caller makes sure the pool holds at least ``need`` troops.
    """
    deck = _deck(ruleset)
    max_value = deck.max_value
    wild_masks = deck.wilds
    allowed = [wild_masks[w] for w in wilds]
    tsum = 0
    vmask = 0
    color = -1
    same_color = True
    value = 0
    same_value = True
    parts = deck.parts
    for card in troops:
        ci, v = parts[card]
        tsum += v
        vmask |= 1 << v
        if color < 0:
            color, value = ci, v
        else:
            same_color = same_color and ci == color
            same_value = same_value and v == value
    distinct = vmask.bit_count() == len(troops)
    ncolors = len(masks)
    colors_to_try: Sequence[int] = range(ncolors) if color < 0 else (color,)

    if fog:
        wsum = sum([deck.fog_value[w] for w in wilds])
        values = _top_by_count(counts, need, max_value)
        added = _pick_by_value(values, masks, deck) if need else []
        return _build(
            _SUM,
            troops,
            wilds,
            [deck.wild_max[w] for w in wilds],
            added,
            tsum + wsum + sum(values),
            deck,
        )

    if same_color and distinct:
        # Wedge: the highest run start that the side's values, its wild cards and the pool of
        # its color can fill; the first hit from the top is the best Wedge (R10)
        run_bits = (1 << size) - 1
        for start in _run_starts(vmask, size, max_value):
            missing = (run_bits << start) & ~vmask
            for ci in colors_to_try:
                avail = masks[ci]
                got = _match(missing, avail, allowed)
                if got is not None:
                    rest = missing
                    for v in got:
                        rest &= ~(1 << v)
                    added = [deck.codes[ci][v] for v in _top_bits(rest, rest.bit_count())]
                    total = (2 * start + size - 1) * size // 2
                    return _build(_WEDGE, troops, wilds, got, added, total, deck)
    if floor > 3:  # Phalanx and below not wanted
        return None

    if same_value:
        # Phalanx: one value for all; the highest value the wild cards allow and the pool has
        candidates: Iterable[int] = range(max_value, 0, -1) if color < 0 else (value,)
        for v in candidates:
            if counts[v] >= need and all(a >> v & 1 for a in allowed):
                added = [deck.codes[ci][v] for ci in range(ncolors) if masks[ci] >> v & 1][:need]
                return _build(_PHALANX, troops, wilds, [v] * len(wilds), added, v * size, deck)
    if floor > 2:  # Battalion and below not wanted
        return None

    wild_best = [deck.wild_max[w] for w in wilds]
    wsum = sum(wild_best)
    if same_color:
        # Battalion: one color; the wild cards at their top values, the top troops of the color
        best_total = -1
        best_added: list[Card] = []
        for ci in colors_to_try:
            avail = masks[ci]
            if avail.bit_count() >= need:
                top_values = _top_bits(avail, need)
                total = tsum + wsum + sum(top_values)
                if total > best_total:
                    best_total = total
                    best_added = [deck.codes[ci][v] for v in top_values]
        if best_total >= 0:
            return _build(_BATTALION, troops, wilds, wild_best, best_added, best_total, deck)
    if floor > 1:  # Skirmish and below not wanted
        return None

    if distinct:
        # Skirmish: as Wedge, but any color may fill each missing value
        any_value = 0
        for m in masks:
            any_value |= m
        run_bits = (1 << size) - 1
        for start in _run_starts(vmask, size, max_value):
            missing = (run_bits << start) & ~vmask
            got = _match(missing, any_value, allowed)
            if got is not None:
                rest = missing
                for v in got:
                    rest &= ~(1 << v)
                added = _pick_by_value(_top_bits(rest, rest.bit_count()), masks, deck)
                total = (2 * start + size - 1) * size // 2
                return _build(_SKIRMISH, troops, wilds, got, added, total, deck)
    if floor > 0:  # Host and below not wanted
        return None

    # Host: whatever is highest; the categories above are out of reach, so this is a Host
    if not need:
        return _build(_HOST, troops, wilds, wild_best, (), tsum + wsum, deck)
    values = _top_by_count(counts, need, max_value)
    return _build(
        _HOST,
        troops,
        wilds,
        wild_best,
        _pick_by_value(values, masks, deck),
        tsum + wsum + sum(values),
        deck,
    )


def _top_by_count(counts: Sequence[int], need: int, max_value: int) -> list[int]:
    """The ``need`` highest values of the pool, counting each value as often as it is there."""
    out: list[int] = []
    v = max_value
    while len(out) < need and v > 0:
        take = min(counts[v], need - len(out))
        out.extend([v] * take)
        v -= 1
    return out


def _pick_by_value(values: Sequence[int], masks: Sequence[int], deck: _Deck) -> list[Card]:
    """Concrete pool troops with these values (a value listed twice takes two colors)."""
    out: list[Card] = []
    used: dict[int, int] = {}
    for v in values:
        skip = used.get(v, 0)
        used[v] = skip + 1
        for ci, m in enumerate(masks):
            if m >> v & 1:
                if skip == 0:
                    out.append(deck.codes[ci][v])
                    break
                skip -= 1
    return out


def _build(
    formation: Formation,
    troops: Sequence[Card],
    wilds: Sequence[Card],
    wild_values: Sequence[int],
    added: Sequence[Card],
    total: int,
    deck: _Deck,
) -> FormationValue:
    """A FormationValue with its cards ascending by value (stable: side's cards first)."""
    values = deck.values
    items = [(values[c], c) for c in troops]
    if wilds:
        items.extend(zip(wild_values, wilds, strict=True))
    if added:
        items.extend([(values[c], c) for c in added])
    items.sort(key=_first)
    card_values, cards = zip(*items, strict=True)
    return FormationValue(formation, total, cards, card_values)


_first = itemgetter(0)


def split_side(cards: Iterable[Card]) -> tuple[list[Card], list[Card]]:
    """Split a side's cards into troops and wild (morale tactics) cards.

    Raises InvalidSituationError for a card that cannot stand in a formation (Fog, Scout, ...).
    """
    troops: list[Card] = []
    wilds: list[Card] = []
    for card in cards:
        if is_troop(card):
            troops.append(card)
        elif card in MORALE:
            wilds.append(card)
        else:
            raise InvalidSituationError(f"{card} cannot stand in a formation")
    return troops, wilds


def evaluate(cards: Iterable[Card], env: Collection[Card], ruleset: Ruleset) -> FormationValue:
    """The value of a complete side at a flag with this environment (R10, R11).

    Wild cards are given the color and value best for their owner; under Fog only the sum
    counts, a Leader as the top value, Cavalry 8, Shield 3. Raises InvalidSituationError when
    the side does not hold exactly a formation's number of cards or holds a card that cannot
    stand in a formation.
    """
    troops, wilds = split_side(cards)
    size = formation_size(env, ruleset)
    if len(troops) + len(wilds) != size:
        raise InvalidSituationError(
            f"a formation here has {size} cards, not {len(troops) + len(wilds)}"
        )
    deck = _deck(ruleset)
    value = best_reachable(
        troops,
        wilds,
        0,
        size,
        FOG in env,
        Formation.HOST,
        deck.no_masks,
        deck.no_counts,
        ruleset,
    )
    assert value is not None  # a Host (or a Fog sum) is always reached with nothing to add
    return value
