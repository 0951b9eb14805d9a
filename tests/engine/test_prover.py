"""The claim prover (R12, R13) against the rulebook and against the brute-force oracle."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import InvalidSituationError
from engine.formations import Formation, formation_size
from engine.prover import ClaimProof, UnseenTroops, check_situation, prove_claim
from engine.rulesets import BATTLELINE, NO_TACTICS, PLAYING_CARDS, RULESETS, Ruleset
from tests.engine import oracle


def prove(
    mine: list[str],
    theirs: list[str],
    visible: list[str] | None = None,
    env: list[str] | None = None,
    completed_last: str | None = None,
    ruleset: Ruleset = BATTLELINE,
) -> ClaimProof:
    unseen = UnseenTroops.from_visible([*mine, *theirs, *(visible or [])], ruleset)
    return prove_claim(mine, theirs, env or [], unseen, ruleset, completed_last)


def visible_all_but(keep: list[str], ruleset: Ruleset = BATTLELINE) -> list[str]:
    """Every troop except these: the unseen pool is exactly ``keep``."""
    return [t for t in ruleset.troops if t not in keep]


# R13: the rulebook's examples
def test_r13_wedge_beats_complete_phalanx() -> None:
    """Rulebook: Wedge R4R5R3 beats Phalanx Y8R8G8 to claim the flag."""
    proof = prove(["R4", "R5", "R3"], ["Y8", "R8", "G8"])
    assert proof.claimable
    assert proof.mine is not None and str(proof.mine) == "Wedge 12"


def test_r13_phalanx_beats_r7_g6() -> None:
    """Rulebook: Phalanx Y2R2G2 beats R7G6 (they can form neither a Wedge nor a Phalanx)."""
    assert prove(["Y2", "R2", "G2"], ["R7", "G6"]).claimable


def test_r13_wedge_beats_b8_when_b7_and_b10_are_visible() -> None:
    """Rulebook and docs/formats.md: Wedge R4R5R3 beats B8 once B7 and B10 have been played."""
    assert prove(["R4", "R5", "R3"], ["B8"], ["B7", "B10"]).claimable
    proof = prove(["R4", "R5", "R3"], ["B8"], ["B7"])
    assert not proof.claimable
    assert proof.reason == "B8 B9 B10 (Wedge 27) would beat Wedge 12"
    assert proof.best_theirs is not None and proof.best_theirs.cards == ("B8", "B9", "B10")


def test_r13_incomplete_side_cannot_claim() -> None:
    proof = prove(["R4", "R5"], [])
    assert not proof.claimable
    assert proof.reason == "your formation is incomplete (2 of 3 cards)"
    assert not prove(["R4", "R5", "R3"], [], env=["MUD"]).claimable


def test_r13_hand_is_not_evidence() -> None:
    """The claimer's hand is no input: B9 in hand is still available to the opponent."""
    assert not prove(["R4", "R5", "R3"], ["B8", "B10"]).claimable


def test_r13_too_few_unseen_troops() -> None:
    proof = prove(["R1", "G2", "Y4"], ["B10"], visible_all_but(["B9"]))
    assert proof.claimable and proof.impossible
    assert proof.reason == "too few unseen troops remain to complete the opponent's side"


def test_r13_last_unseen_card_of_a_value_still_counts() -> None:
    """Bug seen elsewhere: the last unseen card of a value counted as gone.

    R8 O8 Y8 are visible and the opponent holds G8 B8: P8, the last 8, still makes a Phalanx.
    """
    proof = prove(["R7", "O7", "Y7"], ["G8", "B8"], ["R8", "O8", "Y8"])
    assert not proof.claimable
    assert proof.reason == "G8 B8 P8 (Phalanx 24) would beat Phalanx 21"
    assert prove(["R7", "O7", "Y7"], ["G8", "B8"], ["R8", "O8", "Y8", "P8"]).claimable
    # the same for a run: O8 is the last card that completes O7 _ O9
    proof = prove(["Y1", "Y2", "Y3"], ["O7", "O9"], [])
    assert proof.reason == "O7 O8 O9 (Wedge 24) would beat Wedge 6"


def test_r13_unplayed_tactics_cannot_stop_a_claim() -> None:
    """The opponent adds troops only: no Leader from their hand completes O7 _ O9."""
    assert prove(["Y1", "Y2", "Y3"], ["O7", "O9"], ["O8"]).claimable


def test_r13_wilds_on_the_opponent_side_take_any_value() -> None:
    """A Leader already on the opponent's side is any value: ALEXANDER + B8 reaches B8 B9 B10."""
    proof = prove(["R4", "R5", "R3"], ["ALEXANDER", "B8"], ["B7", "B10"])
    assert not proof.claimable
    assert proof.best_theirs is not None and proof.best_theirs.strength == (Formation.WEDGE, 27)
    assert proof.reason == "B8 B9 ALEXANDER (Wedge 27) would beat Wedge 12"


def test_r13_wilds_on_both_sides() -> None:
    # mine: DARIUS CAVALRY R9 -> Wedge 8 9 10 = 27; theirs SHIELD + two unseen can't beat
    assert prove(["DARIUS", "CAVALRY", "R9"], ["SHIELD"]).claimable
    # theirs: ALEXANDER CAVALRY + a 9 of any color makes Wedge 27 too: at best tied -> claim
    proof = prove(["DARIUS", "SHIELD", "R2"], ["ALEXANDER", "CAVALRY"])
    assert not proof.claimable  # mine is Wedge 1-2-3 = 6 (Shield 1, Darius 3): they beat it


# R12: ties
def test_r12_tie_between_complete_sides_goes_against_last_completer() -> None:
    """Bug seen elsewhere: a tie given to the claimer whoever completed first."""
    mine, theirs = ["Y7", "B2", "G1"], ["Y3", "B3", "G4"]  # the rulebook's tied Hosts
    lost = prove(mine, theirs, completed_last="mine")
    assert not lost.claimable
    assert lost.reason == "Y3 B3 G4 (Host 10) ties Host 10 and you completed last"
    assert prove(mine, theirs, completed_last="theirs").claimable


def test_r12_tie_between_complete_sides_needs_completed_last() -> None:
    with pytest.raises(InvalidSituationError):
        prove(["Y7", "B2", "G1"], ["Y3", "B3", "G4"])
    # no tie: not needed
    assert prove(["R4", "R5", "R3"], ["Y8", "R8", "G8"]).claimable


def test_r12_at_best_tied_goes_to_the_claimer() -> None:
    """Bug seen elsewhere: "at best tied" never awarded. The opponent would play the last card."""
    # mine Wedge 8-9-10 in red; the opponent's G8 G9 can at best reach G10: Wedge 27 too
    proof = prove(["R8", "R9", "R10"], ["G8", "G9"])
    assert proof.claimable
    assert proof.best_theirs is not None and proof.best_theirs.strength == (Formation.WEDGE, 27)
    assert "at best tie" in proof.reason


# Mud and Fog
def test_r10_mud_four_in_sequence() -> None:
    assert prove(["R7", "R8", "R9", "R10"], ["B5", "B6"], env=["MUD"]).claimable
    proof = prove(["R1", "R2", "R3", "R4"], ["B5", "B6"], env=["MUD"])
    assert not proof.claimable
    assert proof.reason == "B5 B6 B7 B8 (Wedge 26) would beat Wedge 10"


def test_r10_mud_against_an_empty_side() -> None:
    proof = prove(["R1", "R2", "R3", "R4"], [], env=["MUD"])
    assert not proof.claimable
    assert proof.reason == "R7 R8 R9 R10 (Wedge 34) would beat Wedge 10"
    four_tens = ["R10", "O10", "Y10", "G10"]
    # every four-card run needs a 4 or a 7; with all of them visible, and four 10s ours,
    # nothing beats Phalanx 40 (B10 P10 are the only 10s left)
    blockers = [f"{c}{v}" for c in "ROYGBP" for v in (4, 7)]
    assert prove(four_tens, [], blockers, env=["MUD"]).claimable


def test_r10_fog_sum_only() -> None:
    assert not prove(["R1", "R2", "R3"], ["B10"], env=["FOG"]).claimable
    assert prove(["R10", "O10", "ALEXANDER"], ["B10", "Y10"], env=["FOG"]).claimable  # at best tied
    proof = prove(["R9", "O9", "Y9"], [], env=["FOG"])
    assert proof.reason == "R10 O10 Y10 (Sum 30) would beat Sum 27"


def test_r10_fog_and_mud() -> None:
    """Four cards, sum only: the opponent's P10 reaches at best 10+10+10+9 = 39."""
    tied = prove(["R10", "O10", "Y10", "G9"], ["P10"], env=["FOG", "MUD"])
    assert tied.claimable and "at best tie" in tied.reason
    proof = prove(["R10", "O10", "Y10", "G8"], ["P10"], env=["FOG", "MUD"])
    assert not proof.claimable
    assert proof.reason == "R9 P10 G10 B10 (Sum 39) would beat Sum 38"


def test_other_rulesets_claims() -> None:
    assert prove(["S11", "S12", "S13"], [], ruleset=PLAYING_CARDS).claimable
    assert not prove(["S10", "S11", "S12"], [], ruleset=PLAYING_CARDS).claimable


# check_situation
@pytest.mark.parametrize(
    ("mine", "theirs", "env", "visible", "ruleset", "message"),
    [
        (["R4", "R5"], ["R4"], [], [], BATTLELINE, "twice"),
        (["R4"], [], ["FOG"], ["FOG"], BATTLELINE, "twice"),
        (["R4", "R5", "R6", "R7"], [], [], [], BATTLELINE, "at most 3"),
        (["R4", "R5", "R6", "R7", "R8"], [], ["MUD"], [], BATTLELINE, "at most 4"),
        (["R11"], [], [], [], BATTLELINE, "not a card"),
        (["FOG"], [], [], [], BATTLELINE, "cannot stand"),
        (["R4"], [], ["SCOUT"], [], BATTLELINE, "environment"),
        (["R4"], [], ["MUD", "MUD"], [], BATTLELINE, "twice"),
        (["ALEXANDER"], [], [], [], NO_TACTICS, "tactics card"),
    ],
)
def test_check_situation_refuses(
    mine: list[str],
    theirs: list[str],
    env: list[str],
    visible: list[str],
    ruleset: Ruleset,
    message: str,
) -> None:
    with pytest.raises(InvalidSituationError, match=message):
        check_situation(mine, theirs, env, visible, ruleset)


def test_check_situation_accepts() -> None:
    check_situation(["R4", "ALEXANDER"], ["B8"], ["FOG", "MUD"], ["SCOUT", "R1"], BATTLELINE)


# the oracle, on random situations
WILDS = ("ALEXANDER", "CAVALRY", "SHIELD")
_BUDGET = 6000  # oracle work per example: combinations x wild assignments


@st.composite
def situations(
    draw: st.DrawFn, big_pool: bool = False
) -> tuple[Ruleset, list[str], list[str], list[str], list[str], str]:
    ruleset = RULESETS[draw(st.sampled_from(sorted(RULESETS)))]
    env = draw(st.sampled_from([[], ["FOG"], ["MUD"], ["FOG", "MUD"]]))
    size = formation_size(env, ruleset)
    deck = list(draw(st.permutations(ruleset.troops)))
    wild_pool = list(WILDS) if ruleset.tactics and not big_pool else []

    def side(n: int) -> list[str]:
        cards: list[str] = []
        for _ in range(n):
            if wild_pool and draw(st.integers(0, 4)) == 0:
                cards.append(wild_pool.pop(draw(st.integers(0, len(wild_pool) - 1))))
            else:
                cards.append(deck.pop())
        return cards

    mine = side(size if draw(st.integers(0, 9)) else draw(st.integers(0, size - 1)))
    theirs = side(draw(st.integers(0, size)))
    need = size - len(theirs)
    assignments = math.prod(len(oracle.options(c, ruleset)) for c in theirs)
    limit = 40 if big_pool else 16
    k = draw(st.integers(0, limit))
    while k and math.comb(k, need) * assignments > (_BUDGET * 20 if big_pool else _BUDGET):
        k -= 1
    unseen, visible = deck[:k], deck[k:]
    del unseen
    completed_last = draw(st.sampled_from(["mine", "theirs"]))
    return ruleset, env, mine, theirs, visible, completed_last


def check_against_oracle(
    case: tuple[Ruleset, list[str], list[str], list[str], list[str], str],
) -> None:
    ruleset, env, mine, theirs, visible, completed_last = case
    proof = prove(mine, theirs, visible, env, completed_last, ruleset)
    claimable, their_best = oracle.claim(mine, theirs, env, visible, ruleset, completed_last)
    assert proof.claimable == claimable, proof
    if proof.best_theirs is not None:
        # R13: the best the prover reports is the true best, built from their cards and the pool
        assert proof.best_theirs.strength == their_best
        pool = set(oracle.unseen_troops([*mine, *theirs, *visible], ruleset))
        added = [c for c in proof.best_theirs.cards if c not in theirs]
        assert len(added) == formation_size(env, ruleset) - len(theirs)
        assert set(added) <= pool
        if not any(c in WILDS for c in theirs):
            concrete = [(c[0], int(c[1:])) for c in proof.best_theirs.cards]
            assert oracle.classify(concrete, "FOG" in env) == their_best


@settings(max_examples=1500, deadline=None)
@given(situations())
def test_r12_r13_prover_agrees_with_oracle(
    case: tuple[Ruleset, list[str], list[str], list[str], list[str], str],
) -> None:
    check_against_oracle(case)


@settings(max_examples=150, deadline=None)
@given(situations(big_pool=True))
def test_r12_r13_prover_agrees_with_oracle_large_pools(
    case: tuple[Ruleset, list[str], list[str], list[str], list[str], str],
) -> None:
    check_against_oracle(case)
