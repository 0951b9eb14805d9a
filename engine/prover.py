"""The claim prover (R12, R13): may a player claim a flag now, and if not, why not.

This is the engine's hot path (every turn checks every flag, playouts do it thousands of times),
so it reasons per formation category with bitmasks and never enumerates the opponent's
completions. The unseen troops are computed once per position (``UnseenTroops.from_visible``)
and shared by the checks of all flags.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from functools import lru_cache

from engine.cards import ENVIRONMENT, Card, is_formation_card, is_tactic
from engine.errors import InvalidSituationError
from engine.formations import (
    FOG,
    FormationValue,
    best_reachable,
    evaluate,
    formation_size,
    split_side,
    troop_table,
)
from engine.rulesets import Ruleset

_COMPLETERS = ("mine", "theirs")


@dataclass(frozen=True, slots=True)
class UnseenTroops:
    """The troop cards no one can see: neither on the board nor in the discards (R13).

    The claimer's hand is not evidence, so its troops are unseen too. Stored as one bitmask of
    values per color (bit v set when that troop is unseen) and a count per value, so the prover
    checks a run or a value with a few bit operations.
    """

    masks: tuple[int, ...]
    """Per color of the ruleset (in ``Ruleset.colors`` order): bit v set if that troop is unseen."""
    counts: tuple[int, ...]
    """Per value (index 0 unused): how many troops of that value are unseen."""
    total: int
    """How many troops are unseen."""

    @classmethod
    def from_visible(cls, visible: Iterable[Card], ruleset: Ruleset) -> UnseenTroops:
        """Every troop of the ruleset that is not among the visible cards.

        ``visible`` is every card face up: both sides of every flag and all discards. Tactics
        cards among them are ignored here.
        """
        full = ((1 << (ruleset.max_value + 1)) - 1) & ~1
        parts = troop_table(ruleset)
        masks = [full] * len(ruleset.colors)
        counts = [0] + [len(masks)] * ruleset.max_value
        total = len(masks) * ruleset.max_value
        for card in visible:
            part = parts.get(card)  # None for a tactics card
            if part is not None:
                ci, value = part
                bit = 1 << value
                if masks[ci] & bit:
                    masks[ci] ^= bit
                    counts[value] -= 1
                    total -= 1
        return cls(tuple(masks), tuple(counts), total)

    def cards(self, ruleset: Ruleset) -> list[Card]:
        """The unseen troops as card codes, color by color, low to high."""
        return [
            f"{color}{v}"
            for color, mask in zip(ruleset.colors, self.masks, strict=True)
            for v in range(1, ruleset.max_value + 1)
            if mask >> v & 1
        ]


class ClaimStatus(enum.StrEnum):
    """Why a flag can or cannot be claimed: the answer as a value, the sentence apart."""

    PROVED = "proved"
    """The claim holds: the opponent can neither beat the formation nor win a tie (R12, R13)."""
    INCOMPLETE = "incomplete"
    """The claimer's formation is not complete yet."""
    BEATABLE = "beatable"
    """The opponent can still beat the formation, or has tied it and wins the tie (R12)."""
    CLAIMED = "claimed"
    """The flag is already held (R14)."""
    DISCARD_DUE = "discard-due"
    """A side holds four cards since the Mud left and must first discard one (R20)."""
    NOT_YOURS = "not-yours"
    """The seat does not contest this flag: on the three-player ring each flag has its own pair
    of seats (V6.2); never given with two players."""


class ClaimMargin(enum.StrEnum):
    """What a proved claim rests on against the opponent's best (R12, R13): the tie cases as a
    value, so that no reader compares formations again."""

    OUT_OF_TROOPS = "out-of-troops"
    """Too few unseen troops remain for the opponent ever to complete the side."""
    OUT_OF_REACH = "out-of-reach"
    """Nothing the opponent can still form reaches the claimer's category."""
    BELOW = "below"
    """The opponent's best reaches the category but stays below the formation."""
    TIE_PLAYS_LAST = "tie-plays-last"
    """The opponent can at best tie, and would play the last card, so loses the tie (R12)."""
    TIE_COMPLETED_LAST = "tie-completed-last"
    """Both sides are complete and tie, and the opponent completed last (R12)."""


def claim_margin(
    mine: FormationValue,
    best: FormationValue | None,
    *,
    out_of_troops: bool,
    opponent_complete: bool,
) -> ClaimMargin:
    """What the proved claim of ``mine`` rests on, against ``best`` (the opponent's best
    reachable formation, ``ClaimProof.best_theirs``): for a reader that kept those fields of a
    proof and not its margin. ``opponent_complete``: the opponent's side was complete, so a tie
    was settled by who completed last."""
    if out_of_troops:
        return ClaimMargin.OUT_OF_TROOPS
    if best is None:
        return ClaimMargin.OUT_OF_REACH
    if best.strength < mine.strength:
        return ClaimMargin.BELOW
    return ClaimMargin.TIE_COMPLETED_LAST if opponent_complete else ClaimMargin.TIE_PLAYS_LAST


@dataclass(frozen=True, slots=True)
class ClaimProof:
    """The prover's answer for one flag."""

    status: ClaimStatus
    """Why the claim holds or fails; ``PROVED`` exactly when it is claimable."""
    reason: str
    """A short sentence for the player: why the claim holds or fails."""
    mine: FormationValue | None
    """The claimer's formation; None while their side is incomplete."""
    best_theirs: FormationValue | None
    """The best formation the opponent can still reach, with concrete cards (the unseen troops
    it would add included), when it reaches at least the claimer's category (any sum under Fog);
    None when it cannot, when the opponent cannot complete, or when the claimer is incomplete."""
    impossible: bool = False
    """True when too few unseen troops remain for the opponent ever to complete the side."""
    margin: ClaimMargin | None = None
    """What the proof rests on (a tie settled by R12 included); None unless ``PROVED``."""

    @property
    def claimable(self) -> bool:
        """True when the claim is proved (R13)."""
        return self.status is ClaimStatus.PROVED


# module-level names for the statuses the prover gives: no enum attribute lookups on the hot path
_PROVED, _INCOMPLETE, _BEATABLE = ClaimStatus.PROVED, ClaimStatus.INCOMPLETE, ClaimStatus.BEATABLE


def prove_claim(
    mine: Collection[Card],
    theirs: Collection[Card],
    env: Collection[Card],
    unseen: UnseenTroops,
    ruleset: Ruleset,
    completed_last: str | None = None,
) -> ClaimProof:
    """Decide whether the claimer may claim a flag (R13), with ties by R12.

    ``mine`` and ``theirs`` are the cards on each side of the flag (troops and morale tactics),
    ``env`` its environment cards, ``unseen`` the unseen troops of the position (the cards of
    this flag must be among the visible ones it was built from). ``completed_last`` is
    ``"mine"`` or ``"theirs"``, who completed their formation here last (R12); it is needed only
    when both sides are complete and tie.

    The opponent may add only troops from the unseen pool; wild cards already on their side take
    any value they may. A claim is proved when the claimer is complete and the opponent can
    neither beat the formation nor win a tie: an incomplete opponent would play the last card, so
    "at best tied" goes to the claimer (R12).

    Raises InvalidSituationError when a side is over its size or holds a card that cannot stand
    in a formation, or when both sides are complete, tie, and ``completed_last`` is missing.
    """
    if completed_last is not None and completed_last not in _COMPLETERS:
        raise InvalidSituationError('completed_last must be "mine" or "theirs"')
    size = formation_size(env, ruleset)
    n_mine = len(mine)
    if n_mine < size:
        return ClaimProof(
            _INCOMPLETE, f"your formation is incomplete ({n_mine} of {size} cards)", None, None
        )
    if n_mine > size or len(theirs) > size:
        raise InvalidSituationError(f"a side at this flag holds at most {size} cards")
    fog = FOG in env
    my_value = _complete_value(tuple(mine), frozenset(env), ruleset)
    need = size - len(theirs)
    if need > unseen.total:
        return ClaimProof(
            _PROVED,
            "too few unseen troops remain to complete the opponent's side",
            my_value,
            None,
            impossible=True,
            margin=ClaimMargin.OUT_OF_TROOPS,
        )
    their_troops, their_wilds = split_side(theirs)
    best = best_reachable(
        their_troops,
        their_wilds,
        need,
        size,
        fog,
        my_value.formation,
        unseen.masks,
        unseen.counts,
        ruleset,
    )
    if best is None:
        return ClaimProof(
            _PROVED,
            f"nothing the opponent can still form reaches {my_value}",
            my_value,
            None,
            margin=ClaimMargin.OUT_OF_REACH,
        )
    theirs_strength = best.strength
    my_strength = my_value.strength
    if theirs_strength > my_strength:
        return ClaimProof(_BEATABLE, f"{best.describe()} would beat {my_value}", my_value, best)
    if theirs_strength < my_strength:
        return ClaimProof(
            _PROVED,
            f"the opponent's best, {best.describe()}, is below {my_value}",
            my_value,
            best,
            margin=ClaimMargin.BELOW,
        )
    # a tie, or at best a tie: whoever completes last loses the flag (R12)
    if need > 0:
        return ClaimProof(
            _PROVED,
            f"{best.describe()} would at best tie {my_value}, and the opponent would play the "
            "last card",
            my_value,
            best,
            margin=ClaimMargin.TIE_PLAYS_LAST,
        )
    if completed_last == "theirs":
        return ClaimProof(
            _PROVED,
            f"{best.describe()} ties {my_value} and the opponent completed last",
            my_value,
            best,
            margin=ClaimMargin.TIE_COMPLETED_LAST,
        )
    if completed_last == "mine":
        return ClaimProof(
            _BEATABLE, f"{best.describe()} ties {my_value} and you completed last", my_value, best
        )
    raise InvalidSituationError(
        "both formations are complete and tied: who completed last (completed_last) is needed"
    )


@lru_cache(maxsize=8192)
def _complete_value(
    cards: tuple[Card, ...], env: frozenset[Card], ruleset: Ruleset
) -> FormationValue:
    """The value of a complete side: a pure function of its cards, so a complete side that stays
    on the board is searched once, not at every turn's claim check."""
    return evaluate(cards, env, ruleset)


def check_situation(
    mine: Iterable[Card],
    theirs: Iterable[Card],
    env: Iterable[Card],
    visible: Iterable[Card],
    ruleset: Ruleset,
) -> None:
    """Check that a flag situation can occur; raise InvalidSituationError saying why not.

    Refused: a code that is not a card of the ruleset (tactics cards in a ruleset without them
    included), a card twice anywhere, a card on a side that cannot stand in a formation, a side
    over its size, and an environment other than Fog and Mud or with one of them twice.
    """
    mine, theirs, env, visible = list(mine), list(theirs), list(env), list(visible)
    seen: set[Card] = set()
    for where, cards in (("mine", mine), ("theirs", theirs), ("env", env), ("visible", visible)):
        for card in cards:
            if card not in ruleset.all_cards:
                if not ruleset.tactics and is_tactic(card):
                    raise InvalidSituationError(
                        f"{card} is a tactics card, and {ruleset.title} has none"
                    )
                raise InvalidSituationError(f"{card} is not a card of {ruleset.title}")
            if card in seen:
                raise InvalidSituationError(f"{card} appears twice")
            seen.add(card)
            if where in ("mine", "theirs") and not is_formation_card(card):
                raise InvalidSituationError(f"{card} cannot stand in a formation ({where})")
            if where == "env" and card not in ENVIRONMENT:
                raise InvalidSituationError(f"{card} is not an environment card (Fog or Mud)")
    size = formation_size(env, ruleset)
    for where, cards in (("mine", mine), ("theirs", theirs)):
        if len(cards) > size:
            raise InvalidSituationError(
                f"{where} holds {len(cards)} cards; a side here holds at most {size}"
            )
