"""How a position looks to one seat: the chance it wins each of its flags, and a value of the
whole position built from them. The computer opponent's judgement; no rule lives here.

Each side of an undecided flag gets an *outlook*: how likely it is to end in each formation
category (R10), and with about which sum. It is read from the chance of getting each troop that
could still join the side: a troop face up is gone; a troop in the appraising seat's hand is
likely its own (only likely: a card in hand serves one flag only); a troop it has not seen may
come to either side, in time or too late, the opponent's more likely (its hand is among them).
A side nobody has begun has the same modest outlook whoever's it is: which cards will go there
is not decided yet, and the hand serves every such flag. Two outlooks give the chance of
holding the flag. Two complete sides compare exactly (R10, R12); a complete side that nothing
left can beat is as good as held, and one that the other side can no longer reach is as good as
lost.

The value of a position adds up the chances of the seat's flags, more for adjacent ones that
would win together. A *thrifty* appraiser also misses a card played from the hand at every
other flag it could have served (the strong level's judgement); the normal level's quicker one
judges the other flags with the hand as it was.

Only open information and the appraising seat's own hand are read: the other hands and the
decks of a position (a determinisation, or a simulated future) are never looked at, except by
``Appraiser.knowing``, for the worlds the strong level samples itself from the seat's view.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from engine.cards import LEADERS, Card, Tactic, is_tactic
from engine.claims import visible_cards
from engine.formations import FOG, Formation, FormationValue, best_reachable, evaluate, split_side
from engine.prover import UnseenTroops
from engine.rulesets import Ruleset
from engine.state import FlagState, GameState


@dataclass(frozen=True, slots=True)
class Weights:
    """The knobs of the appraisal (tuned by matches between bots, see docs/bots.md)."""

    in_hand: float = 0.85
    """Chance that a troop in the seat's hand joins a side it has begun."""
    adjacency: float = 0.5
    """Weight of three adjacent flags that would together win the game (R21, V6.5)."""
    tactic_in_hand: float = 0.12
    """Value of a tactics card kept in hand (playing it must gain more)."""
    leader_in_hand: float = 0.3
    """Value of a playable Leader kept in hand."""
    horizon: float = 5.0
    """How many more draws of a seat may still serve a side: a flag is decided within a few
    turns, and a card drawn later comes too late for it."""
    fog_spread: float = 3.0
    """Under Fog, the difference of expected sums that makes one side about three times as
    likely to win as the other."""
    confidence: float = 1.0
    """How far the value believes each undecided flag's chance: a slope on its log-odds. Below
    1, a likely flag counts for less than its chance and a certain one (claimed, or that nothing
    left can change) for all of it. Chances near even were found to say little of who ends up
    with the flag (``python -m bench.calibration``)."""
    empty_sums: float = 1.0
    """The sums a side nobody has begun is expected to reach, as a multiple of those of
    ``_EMPTY_PRIOR``: the higher, the stronger an open side looks, so that a weak card begins a
    flag less readily and a lone card of the opponent's is feared less."""


DEFAULT_WEIGHTS = Weights()

WEIGHTS_2026 = Weights(
    in_hand=0.85,
    adjacency=0.5,
    tactic_in_hand=0.12,
    leader_in_hand=0.3,
    horizon=5.0,
    fog_spread=3.0,
    empty_sums=1.0,
)
"""The weights of the levels before issue 26, frozen for the bench's baselines."""

# what a wild card may stand for (R11), and what it counts under Fog
_WILD_VALUES = {
    Tactic.ALEXANDER.value: None,
    Tactic.DARIUS.value: None,
    Tactic.CAVALRY.value: (8,),
    Tactic.SHIELD.value: (1, 2, 3),
}
_WILD_TOP = {
    Tactic.ALEXANDER.value: 10,
    Tactic.DARIUS.value: 10,
    Tactic.CAVALRY.value: 8,
    Tactic.SHIELD.value: 3,
}

Outlook = tuple[tuple[float, float], ...]
"""A side's likely ends: (chance, strength) pairs, chances summing to 1. Strength is the
category (R10) plus the sum as a fraction below the next category; under Fog, the sum."""

_CANNOT_COMPLETE: Outlook = ((1.0, -1.0),)
"""The outlook of a side that can never be completed: below anything."""


def _at_least(probs: Sequence[float], r: int) -> float:
    """The chance that at least ``r`` of independent events of these chances happen."""
    if r <= 0:
        return 1.0
    if r > len(probs):
        return 0.0
    # dist[j]: chance of exactly j so far (j < r), the rest folded into "done"
    dist = [1.0] + [0.0] * (r - 1)
    done = 0.0
    for p in probs:
        if p <= 0.0:
            continue
        done += dist[r - 1] * p
        for j in range(r - 1, 0, -1):
            dist[j] = dist[j] * (1.0 - p) + dist[j - 1] * p
        dist[0] *= 1.0 - p
    return done


def _expected_top(avail: Sequence[float], need: float) -> float:
    """About the sum of the ``need`` highest values one may get, ``avail[v]`` being how many
    troops of value v one may expect (walked from the top)."""
    total = 0.0
    left = need
    for v in range(len(avail) - 1, 0, -1):
        a = avail[v]
        if a <= 0.0:
            continue
        take = a if a < left else left
        total += take * v
        left -= take
        if left <= 1e-9:
            break
    return total


class _Chances:
    """For one side's owner: the chance of getting each troop, by color and value, and what
    follows from them (memoised: one table serves many flags)."""

    __slots__ = (
        "_battalions",
        "_hosts",
        "_phalanxes",
        "any_value",
        "by_color",
        "by_value",
        "colors",
        "expected",
        "max_value",
        "reachable",
    )

    def __init__(self, by_color: list[list[float]], max_value: int) -> None:
        self.by_color = by_color
        """Per color index, per value: the chance of getting that troop."""
        self.colors = len(by_color)
        self.max_value = max_value
        self.by_value = [[row[v] for row in by_color] for v in range(max_value + 1)]
        """Per value, per color index: the same chances."""
        self.any_value = [0.0] * (max_value + 1)
        """Per value: the chance of getting a troop of that value, of any color."""
        self.expected = [0.0] * (max_value + 1)
        """Per value: how many troops of that value one may expect."""
        for v in range(1, max_value + 1):
            miss = 1.0
            for p in self.by_value[v]:
                miss *= 1.0 - p
            self.any_value[v] = 1.0 - miss
            self.expected[v] = sum(self.by_value[v])
        self.reachable = sum(1 for row in by_color for p in row if p > 0.0)
        """How many troops one may get at all."""
        self._phalanxes: dict[tuple[int, int], float] = {}
        self._battalions: dict[tuple[int, int], tuple[float, float]] = {}
        self._hosts: dict[int, float] = {}

    def phalanx(self, value: int, need: int) -> float:
        """The chance of getting ``need`` more troops of this value."""
        found = self._phalanxes.get((value, need))
        if found is None:
            found = self._phalanxes[value, need] = _at_least(self.by_value[value], need)
        return found

    def battalion(self, color: int, need: int) -> tuple[float, float]:
        """The chance of getting ``need`` more troops of this color, and about the sum of the
        best of them."""
        found = self._battalions.get((color, need))
        if found is None:
            row = self.by_color[color]
            found = (_at_least(row[1:], need), _expected_top(row, need))
            self._battalions[color, need] = found
        return found

    def host(self, need: int) -> float:
        """About the sum of the best ``need`` troops one may get."""
        found = self._hosts.get(need)
        if found is None:
            found = self._hosts[need] = _expected_top(self.expected, need)
        return found


class Appraiser:
    """Appraises positions for one seat while the cards it knows stay the same (its hand plus
    the open cards): one decision's candidate moves, which only move known cards about.

    Build a new one after the seat draws or sees more cards (``Appraiser.of``).
    """

    def __init__(
        self,
        ruleset: Ruleset,
        seat: int,
        hand: Sequence[Card],
        unseen: UnseenTroops,
        q_mine: float,
        opponents: Mapping[int, tuple[UnseenTroops, float, Sequence[Card]]],
        weights: Weights = DEFAULT_WEIGHTS,
        thrifty: bool = True,
    ) -> None:
        """``unseen``: the troops the seat may still draw, each with chance ``q_mine`` of
        coming in time; ``opponents``: per opponent seat, the troops it may still add, the
        chance of each, and those of them known to be in its hand. ``thrifty``: a card played
        from the hand is missed at the other flags it could have served (else every flag is
        judged with the hand as it was, which is quicker)."""
        self.ruleset = ruleset
        self.seat = seat
        self.weights = weights
        self.unseen = unseen
        self.q_mine = q_mine
        self._hand = tuple(hand)
        self.thrifty = thrifty
        self._theirs: dict[int, tuple[UnseenTroops, _Chances]] = {}
        tables: dict[tuple[object, ...], _Chances] = {}
        for opponent, (pool, q, held) in opponents.items():
            key = (pool.masks, q, tuple(held))
            if key not in tables:
                tables[key] = self._chances(pool, q, held, weights.in_hand)
            self._theirs[opponent] = (pool, tables[key])
        self._mine_by_hand: dict[tuple[Card, ...], _Chances] = {}
        self._flag_chances: dict[tuple[int, tuple[Card, ...]], tuple[FlagState, float]] = {}
        self._outlooks: dict[tuple[object, ...], Outlook] = {}
        self._complete: dict[tuple[object, ...], FormationValue] = {}
        self._windows = _windows(ruleset, seat)

    @classmethod
    def of(
        cls,
        state: GameState,
        seat: int,
        weights: Weights = DEFAULT_WEIGHTS,
        thrifty: bool = True,
    ) -> Appraiser:
        """The appraiser for ``seat`` in this position, from what the seat knows: the troops it
        has not seen (neither face up nor in its hand) may come to it, or (likelier: its hand
        is among them) to an opponent."""
        rs = state.ruleset
        known = visible_cards(state)
        known.extend(state.hands[seat])
        unseen = UnseenTroops.from_visible(known, rs)
        n = max(unseen.total, 1)
        hidden = max(0, unseen.total - len(state.troop_deck)) / (rs.players - 1)
        draws = min(len(state.troop_deck) / rs.players, weights.horizon)
        q_theirs = min(1.0, (hidden + draws) / n)
        opponents = {s: (unseen, q_theirs, ()) for s in range(rs.players) if s != seat}
        q_mine = min(1.0, draws / n)
        return cls(rs, seat, state.hands[seat], unseen, q_mine, opponents, weights, thrifty)

    @classmethod
    def knowing(cls, state: GameState, seat: int, weights: Weights = DEFAULT_WEIGHTS) -> Appraiser:
        """The appraiser for ``seat`` that also knows every hand and what is in the decks: for
        a sampled world (a determinisation), where they are known by construction. Every seat
        may draw only from the troop deck; an opponent's hand is likely its own."""
        rs = state.ruleset
        in_deck = set(state.troop_deck)
        deck = UnseenTroops.from_visible([c for c in rs.troops if c not in in_deck], rs)
        n = max(deck.total, 1)
        q = min(1.0, min(len(state.troop_deck) / rs.players, weights.horizon) / n)
        opponents: dict[int, tuple[UnseenTroops, float, Sequence[Card]]] = {}
        for s in range(rs.players):
            if s != seat:
                held = state.hands[s]
                out_of_reach = [c for c in rs.troops if c not in in_deck and c not in held]
                opponents[s] = (UnseenTroops.from_visible(out_of_reach, rs), q, held)
        return cls(rs, seat, state.hands[seat], deck, q, opponents, weights)

    def _chances(
        self, unseen: UnseenTroops, q: float, hand: Sequence[Card], in_hand: float = 0.0
    ) -> _Chances:
        rs = self.ruleset
        by_color = [
            [q if mask >> v & 1 else 0.0 for v in range(rs.max_value + 1)] for mask in unseen.masks
        ]
        index = {color: i for i, color in enumerate(rs.colors)}
        for card in hand:
            if not is_tactic(card):
                by_color[index[card[0]]][int(card[1:])] = in_hand
        return _Chances(by_color, rs.max_value)

    def _mine(self, hand: tuple[Card, ...]) -> _Chances:
        found = self._mine_by_hand.get(hand)
        if found is None:
            found = self._chances(self.unseen, self.q_mine, hand, self.weights.in_hand)
            self._mine_by_hand[hand] = found
        return found

    def _value(self, cards: tuple[Card, ...], env: frozenset[Card]) -> FormationValue:
        key = (cards, env)
        value = self._complete.get(key)
        if value is None:
            value = evaluate(cards, env, self.ruleset)
            self._complete[key] = value
        return value

    # --- one side -----------------------------------------------------------------------------

    def _outlook(
        self, cards: tuple[Card, ...], size: int, fog: bool, who: _Chances, key: object
    ) -> Outlook:
        cache_key = (cards, size, fog, key)
        found = self._outlooks.get(cache_key)
        if found is None:
            found = _side_outlook(cards, size, fog, who, self.ruleset, self.weights.empty_sums)
            self._outlooks[cache_key] = found
        return found

    # --- one flag -----------------------------------------------------------------------------

    def _chance(self, flag: FlagState, side: int, opponent: int, hand: tuple[Card, ...]) -> float:
        rs = self.ruleset
        mine, theirs = flag.cards[side], flag.cards[1 - side]
        env = flag.env_cards if flag.env else frozenset()
        size = flag.size(rs)
        if len(mine) > size or len(theirs) > size:
            return 0.5  # a side owes its Mud discard (R20): undecided until then
        fog = FOG in env
        need_mine, need_theirs = size - len(mine), size - len(theirs)
        if need_mine == 0 and need_theirs == 0:
            a = self._value(mine, env).strength
            b = self._value(theirs, env).strength
            if a != b:
                return 1.0 if a > b else 0.0
            # R12: who completed last loses the tie
            mine_at = flag.completed_at(side, rs) or 0
            theirs_at = flag.completed_at(1 - side, rs) or 0
            return 1.0 if mine_at < theirs_at else 0.0
        pool, their_chances = self._theirs[opponent]
        if need_mine == 0:
            value = self._value(mine, env)
            if need_theirs > pool.total:
                return 1.0
            troops, wilds = split_side(theirs)
            floor = Formation.HOST if fog else value.formation
            best = best_reachable(
                troops, wilds, need_theirs, size, fog, floor, pool.masks, pool.counts, rs
            )
            # nothing left can beat it (an equal one would be completed last and lose, R12)
            if best is None or best.strength <= value.strength:
                return 1.0
            point = ((1.0, _strength(value, size, rs)),)
            return self._compare(
                point, self._outlook(theirs, size, fog, their_chances, opponent), fog
            )
        # the seat's side: its hand counts only once it has begun there (an empty side has the
        # same outlook whatever the hand: the hand serves every such flag)
        chances = self._mine(hand)
        key: object = hand if mine else None
        if need_theirs == 0:
            value = self._value(theirs, env)
            if need_mine > chances.reachable:
                return 0.0
            return self._compare(
                self._outlook(mine, size, fog, chances, key),
                ((1.0, _strength(value, size, rs)),),
                fog,
            )
        return self._compare(
            self._outlook(mine, size, fog, chances, key),
            self._outlook(theirs, size, fog, their_chances, opponent),
            fog,
        )

    def _compare(self, mine: Outlook, theirs: Outlook, fog: bool) -> float:
        """The chance that the seat's side ends above the other's."""
        if fog:
            # under Fog only sums count: their expected values, and a smooth chance between them
            a = sum(p * s for p, s in mine)
            b = sum(p * s for p, s in theirs)
            if a < 0.0 or b < 0.0:
                return 0.5 if (a < 0.0) == (b < 0.0) else (1.0 if b < 0.0 else 0.0)
            x = (a - b) * math.log(3.0) / self.weights.fog_spread
            return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, x))))
        win = 0.0
        for p, s in mine:
            for q, t in theirs:
                if s > t:
                    win += p * q
                elif s == t:
                    win += 0.5 * p * q
        return win

    # --- the whole position -------------------------------------------------------------------

    def chances(self, state: GameState) -> list[tuple[int, float]]:
        """Each flag the seat contests (0-based index) with its chance of holding it."""
        hand = state.hands[self.seat]
        root = self._hand
        if not self.thrifty:
            hand = root
        gone = () if hand == root else tuple(c for c in root if c not in hand)
        rs = self.ruleset
        out = []
        cache = self._flag_chances
        for index, side in rs.seat_flags[self.seat]:
            flag = state.flags[index]
            if flag.claimed_by is not None:
                out.append((index, 1.0 if flag.claimed_by == self.seat else 0.0))
                continue
            # A card gone from the hand matters only to the sides it could have joined: the
            # others keep the chance they had with the whole hand (found again, not recomputed).
            used = hand
            if gone and not any(_joins(card, flag.cards[side], rs) for card in gone):
                used = root
            # flags a move leaves alone are the same objects: look them up by identity (the
            # flag is kept in the entry, so that its id is not reused while cached)
            key = (id(flag), used)
            found = cache.get(key)
            if found is None:
                opponent = rs.flag_pairs[index][1 - side]
                found = (flag, self._chance(flag, side, opponent, used))
                cache[key] = found
            out.append((index, found[1]))
        return out

    def value(self, state: GameState) -> float:
        """The position for the seat: the flags it may expect to hold, more for three adjacent
        ones that would win together (less for three its opponent would), and a little for the
        tactics cards it keeps in hand."""
        w = self.weights
        chance = dict(self.chances(state))
        if w.confidence != 1.0:
            chance = {i: _tempered(p, w.confidence) for i, p in chance.items()}
        total = sum(chance.values())
        if w.adjacency:
            for window, same_opponent in self._windows:
                mine = theirs = 1.0
                for i in window:
                    p = chance[i]
                    mine *= p
                    theirs *= 1.0 - p
                total += w.adjacency * (mine - (theirs if same_opponent else 0.0))
        if self.ruleset.tactics:
            leader_done = state.leader_played[self.seat]
            for card in state.hands[self.seat]:
                if is_tactic(card):
                    if card in LEADERS:
                        total += 0.0 if leader_done else w.leader_in_hand
                    else:
                        total += w.tactic_in_hand
        return total


def _tempered(p: float, slope: float) -> float:
    """The chance ``p`` with its log-odds multiplied by ``slope``; 0 and 1 stay certain."""
    if p <= 0.0 or p >= 1.0:
        return p
    a: float = math.pow(p, slope)
    return a / (a + math.pow(1.0 - p, slope))


def _joins(card: Card, side: tuple[Card, ...], rs: Ruleset) -> bool:
    """Whether a troop from the hand could join this side of the seat's in a formation above a
    Host: its color, or a value close enough to share a run or a Phalanx. An empty or complete
    side takes no troop from the hand into account."""
    if not side or is_tactic(card):
        return False
    color, value = card[0], int(card[1:])
    span = rs.mud_formation_size
    for other in side:
        if is_tactic(other):
            return True
        if other[0] == color or abs(int(other[1:]) - value) < span:
            return True
    return False


def _strength(value: FormationValue, size: int, rs: Ruleset) -> float:
    top = size * rs.max_value + 1
    if value.formation is Formation.SUM:
        return float(value.total)
    return int(value.formation) + value.total / top


def _run_starts(vmask: int, size: int, max_value: int) -> range:
    """Starts of the runs of ``size`` values holding every value of ``vmask``, highest first."""
    hi = max_value - size + 1
    lo = 1
    if vmask:
        hi = min(hi, (vmask & -vmask).bit_length() - 1)
        lo = max(lo, vmask.bit_length() - 1 - size + 1)
    return range(hi, lo - 1, -1)


def _needed(missing: list[tuple[int, float]], wilds: Sequence[Card]) -> float:
    """The chance of getting the ``missing`` (value, chance) troops once the wild cards stand
    for some of them, each the hardest it may take; 0 when a wild card can take none."""
    if not wilds:
        p = 1.0
        for _, x in missing:
            p *= x
        return p
    left = sorted(missing, key=_second)
    for wild in sorted(wilds, key=_wild_freedom):
        allowed = _WILD_VALUES[wild]
        for i, (v, _) in enumerate(left):
            if allowed is None or v in allowed:
                del left[i]
                break
        else:
            return 0.0
    p = 1.0
    for _, x in left:
        p *= x
    return p


def _second(item: tuple[int, float]) -> float:
    return item[1]


def _wild_freedom(wild: Card) -> bool:
    """Sort key: the wild cards with the fewest values first."""
    return _WILD_VALUES[wild] is None


def _combine(options: list[tuple[float, float]]) -> tuple[float, float]:
    """Several alternative ways to one category, each (chance, sum): the chance that one of
    them comes off, and the sum to expect when one does."""
    miss = 1.0
    weight = 0.0
    total = 0.0
    for p, s in options:
        if p > 0.0:
            miss *= 1.0 - p
            weight += p
            total += p * s
    if weight == 0.0:
        return 0.0, 0.0
    return 1.0 - miss, total / weight


def _side_outlook(
    cards: tuple[Card, ...],
    size: int,
    fog: bool,
    who: _Chances,
    rs: Ruleset,
    empty_sums: float = 1.0,
) -> Outlook:
    """The likely ends of a side that is not complete (``empty_sums``: as ``Weights``)."""
    need = size - len(cards)
    if need > who.reachable:
        return _CANNOT_COMPLETE
    if not cards:
        return _empty_outlook(size, fog, rs.max_value, empty_sums)
    return _outlook_of(cards, size, fog, who, rs)


# How the side of a flag that nobody has begun tends to end, whoever's it is: it could become
# anything, and which cards go there is not decided yet. (category, chance, sum per card as a
# share of the top value)
_EMPTY_PRIOR = (
    (Formation.WEDGE, 0.08, 0.6),
    (Formation.PHALANX, 0.07, 0.55),
    (Formation.BATTALION, 0.25, 0.6),
    (Formation.SKIRMISH, 0.25, 0.55),
    (Formation.HOST, 0.35, 0.55),
)


@lru_cache(maxsize=64)
def _empty_outlook(size: int, fog: bool, max_value: int, sums: float) -> Outlook:
    top = size * max_value + 1
    if fog:
        return ((1.0, 0.6 * sums * size * max_value),)
    return tuple(
        (p, int(category) + sums * share * size * max_value / top)
        for category, p, share in _EMPTY_PRIOR
    )


def _outlook_of(
    cards: tuple[Card, ...], size: int, fog: bool, who: _Chances, rs: Ruleset
) -> Outlook:
    troops, wilds = split_side(cards)
    need = size - len(cards)
    top = size * rs.max_value + 1
    colors_of = rs.colors
    parts = [(colors_of.index(c[0]), int(c[1:])) for c in troops]
    tsum = sum(v for _, v in parts) + sum(_WILD_TOP[w] for w in wilds)
    if fog:
        return ((1.0, tsum + who.host(need)),)
    colors = {c for c, _ in parts}
    values = [v for _, v in parts]
    vmask = 0
    for v in values:
        vmask |= 1 << v
    distinct = vmask.bit_count() == len(values)
    same_color = len(colors) <= 1
    color_options = list(colors) if colors else range(who.colors)
    max_value = rs.max_value
    outlook: list[tuple[float, float]] = []
    left = 1.0

    if same_color and distinct:
        options = []
        by_color = who.by_color
        for start in _run_starts(vmask, size, max_value):
            run_sum = float((2 * start + size - 1) * size // 2)
            run = [v for v in range(start, start + size) if not vmask >> v & 1]
            for c in color_options:
                row = by_color[c]
                p = _needed([(v, row[v]) for v in run], wilds)
                if p > 0.0:
                    options.append((p, run_sum))
        p, total = _combine(options)
        if p > 0.0:
            outlook.append((p, int(Formation.WEDGE) + total / top))
            left = 1.0 - p

    if len(set(values)) <= 1:
        options = []
        for v in [values[0]] if values else range(max_value, 0, -1):
            if all(_WILD_VALUES[w] is None or v in (_WILD_VALUES[w] or ()) for w in wilds):
                options.append((who.phalanx(v, need), float(v * size)))
        p, total = _combine(options)
        if p > 0.0:
            outlook.append((left * p, int(Formation.PHALANX) + total / top))
            left *= 1.0 - p

    if same_color:
        options = []
        for c in color_options:
            chance, best = who.battalion(c, need)
            options.append((chance, tsum + best))
        p, total = _combine(options)
        if p > 0.0:
            outlook.append((left * p, int(Formation.BATTALION) + total / top))
            left *= 1.0 - p

    if distinct:
        options = []
        any_value = who.any_value
        for start in _run_starts(vmask, size, max_value):
            missing = [(v, any_value[v]) for v in range(start, start + size) if not vmask >> v & 1]
            p = _needed(missing, wilds)
            if p > 0.0:
                options.append((p, float((2 * start + size - 1) * size // 2)))
        p, total = _combine(options)
        if p > 0.0:
            outlook.append((left * p, int(Formation.SKIRMISH) + total / top))
            left *= 1.0 - p

    if left > 1e-12:
        outlook.append((left, (tsum + who.host(need)) / top))
    return tuple(outlook)


def _windows(rs: Ruleset, seat: int) -> tuple[tuple[tuple[int, ...], bool], ...]:
    """Every run of adjacent flags of the seat that would win together (R21; around the ring,
    V6.5), and whether one opponent faces it all along (so that it would win with it)."""
    n = rs.flags
    run = rs.adjacent_to_win
    mine = {i for i, _ in rs.seat_flags[seat]}
    starts = range(n) if rs.ring else range(n - run + 1)
    out = []
    for start in starts:
        window = tuple((start + k) % n for k in range(run))
        if all(i in mine for i in window):
            opponents = {rs.flag_pairs[i][1 - rs.flag_pairs[i].index(seat)] for i in window}
            out.append((window, len(opponents) == 1))
    return tuple(out)
