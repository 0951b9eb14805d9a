"""Formations and their comparison (R10), wild cards (R11), Fog and Mud."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import InvalidSituationError
from engine.formations import Formation, FormationValue, evaluate, formation_size
from engine.rulesets import BATTLELINE, NO_TACTICS, PLAYING_CARDS, RULESETS, SCHOTTEN_TOTTEN
from tests.engine import oracle

W, P, B, S, H, SUM = (
    Formation.WEDGE,
    Formation.PHALANX,
    Formation.BATTALION,
    Formation.SKIRMISH,
    Formation.HOST,
    Formation.SUM,
)


def value(cards: list[str], env: list[str] | None = None) -> FormationValue:
    return evaluate(cards, env or [], BATTLELINE)


# R10: the rulebook's own examples of each formation
@pytest.mark.parametrize(
    ("cards", "formation", "total"),
    [
        (["R4", "R5", "R3"], W, 12),
        (["Y8", "R8", "G8"], P, 24),
        (["B2", "B7", "B4"], B, 13),
        (["Y4", "R6", "G5"], S, 15),
        (["Y5", "B5", "G3"], H, 13),
    ],
)
def test_r10_rulebook_formations(cards: list[str], formation: Formation, total: int) -> None:
    fv = value(cards)
    assert (fv.formation, fv.total) == (formation, total)


def test_r10_order_of_categories() -> None:
    assert H < S < B < P < W
    assert int(H) == 0


def test_r10_wedge_beats_phalanx() -> None:
    """Rulebook: Wedge R4R5R3 beats Phalanx Y8R8G8."""
    assert value(["R4", "R5", "R3"]).strength > value(["Y8", "R8", "G8"]).strength


def test_r10_higher_sum_wins_within_battalion() -> None:
    """Rulebook: red Battalion R4R6R3 beats blue Battalion B7B1B3."""
    red, blue = value(["R4", "R6", "R3"]), value(["B7", "B1", "B3"])
    assert red.formation == blue.formation == B
    assert red.strength > blue.strength


def test_r10_equal_hosts_tie() -> None:
    """Rulebook: Host Y7B2G1 is tied with Host Y3B3G4."""
    assert value(["Y7", "B2", "G1"]).strength == value(["Y3", "B3", "G4"]).strength


def test_r10_no_wrap_around() -> None:
    assert value(["R9", "R10", "R1"]).formation == B
    assert value(["Y9", "R10", "G1"]).formation == H


def test_r10_str_and_cards_ascending() -> None:
    fv = value(["R4", "R5", "R3"])
    assert str(fv) == "Wedge 12"
    assert fv.cards == ("R3", "R4", "R5")
    assert fv.describe() == "R3 R4 R5 (Wedge 12)"


def test_r10_mud_needs_four_cards() -> None:
    assert formation_size(["MUD"], BATTLELINE) == 4
    assert formation_size(["FOG"], BATTLELINE) == 3
    assert value(["R1", "R2", "R3", "R4"], ["MUD"]).strength == (W, 10)
    assert value(["R1", "G1", "Y1", "B1"], ["MUD"]).strength == (P, 4)
    assert value(["R1", "R2", "R3", "R9"], ["MUD"]).strength == (B, 15)
    assert value(["R1", "G2", "R3", "R4"], ["MUD"]).strength == (S, 10)
    with pytest.raises(InvalidSituationError):
        value(["R1", "R2", "R3"], ["MUD"])


def test_r10_fog_counts_only_the_sum() -> None:
    assert value(["R4", "R5", "R3"], ["FOG"]).strength == (SUM, 12)
    assert value(["Y8", "R8", "G8"], ["FOG"]).strength > value(["R4", "R5", "R3"], ["FOG"]).strength
    assert str(value(["R4", "R5", "R3"], ["FOG"])) == "Sum 12"


def test_r10_fog_and_mud_four_cards_sum_only() -> None:
    fv = value(["R1", "R2", "R3", "R4"], ["FOG", "MUD"])
    assert fv.strength == (SUM, 10)
    with pytest.raises(InvalidSituationError):
        value(["R1", "R2", "R3"], ["FOG", "MUD"])


# R11: wild cards
def test_r11_leader_completes_wedge_at_the_top() -> None:
    """Rulebook: a Leader beside B8 may be a blue 6, 7, 9 or 10 (here with B9: B10)."""
    fv = value(["B8", "B9", "ALEXANDER"])
    assert fv.strength == (W, 27)
    assert fv.cards == ("B8", "B9", "ALEXANDER") and fv.values == (8, 9, 10)


def test_r11_leader_shield_troop_is_a_wedge_not_a_phalanx() -> None:
    """Bug seen in open-source engines: ALEXANDER SHIELD R3 scored as Phalanx 3-3-3.

    Best for the owner is the Wedge 2-3-4 (Shield 2, Leader 4) = 9, which beats any Phalanx.
    """
    fv = value(["ALEXANDER", "SHIELD", "R3"])
    assert fv.strength == (W, 9)
    assert fv.cards == ("SHIELD", "R3", "ALEXANDER")


def test_r11_shield_never_above_three_in_a_phalanx() -> None:
    """Bug seen elsewhere: Shield counted as any value. R4 G4 SHIELD is no Phalanx."""
    assert value(["R4", "G4", "SHIELD"]).formation != P
    assert value(["R3", "G3", "SHIELD"]).strength == (P, 9)
    assert value(["R4", "G4", "SHIELD"]).strength == (H, 11)


def test_r11_cavalry_is_eight_in_runs() -> None:
    assert value(["R9", "R10", "CAVALRY"]).strength == (W, 27)
    assert value(["R6", "G7", "CAVALRY"]).strength == (S, 21)
    assert value(["R9", "G10", "CAVALRY"]).strength == (S, 27)
    assert value(["R1", "R2", "CAVALRY"]).strength == (B, 11)
    assert value(["R8", "G8", "CAVALRY"]).strength == (P, 24)


def test_r11_wild_may_copy_a_troop_in_play() -> None:
    """A wild card may take the color and value of a troop also in play: R8 R8 R8 is a Phalanx."""
    # Cavalry can only be an 8, so beside R8 no run exists: 8 8 8 is the best, a Phalanx
    assert value(["R8", "CAVALRY", "ALEXANDER"]).strength == (P, 24)
    assert value(["R1", "G1", "ALEXANDER"]).strength == (P, 3)


def test_r11_two_leaders_and_cavalry_mud() -> None:
    assert value(["ALEXANDER", "CAVALRY", "SHIELD", "R2"], ["MUD"]).strength == (B, 23)
    assert value(["ALEXANDER", "R1", "R2", "R3"], ["MUD"]).strength == (W, 10)


def test_r11_fog_wild_values() -> None:
    """Under Fog a Leader counts 10, Cavalry 8, Shield 3."""
    assert value(["ALEXANDER", "CAVALRY", "SHIELD"], ["FOG"]).strength == (SUM, 21)


def test_other_rulesets() -> None:
    assert evaluate(["S11", "S12", "S13"], [], PLAYING_CARDS).strength == (W, 36)
    assert evaluate(["S13", "H13", "D13"], [], PLAYING_CARDS).strength == (P, 39)
    assert evaluate(["R7", "R8", "R9"], [], SCHOTTEN_TOTTEN).strength == (W, 24)
    assert evaluate(["R7", "O8", "R9"], [], NO_TACTICS).strength == (S, 24)


def test_evaluate_rejects_non_formation_cards() -> None:
    with pytest.raises(InvalidSituationError):
        value(["R1", "R2", "FOG"])


@st.composite
def complete_sides(draw: st.DrawFn) -> tuple[str, list[str], list[str]]:
    name = draw(st.sampled_from(sorted(RULESETS)))
    ruleset = RULESETS[name]
    env = draw(st.sampled_from([[], ["FOG"], ["MUD"], ["FOG", "MUD"]]))
    size = formation_size(env, ruleset)
    pool = list(ruleset.troops)
    if ruleset.tactics:
        # at most two wild cards keep the oracle's product of assignments small
        pool += ["ALEXANDER", "CAVALRY", "SHIELD"]
    cards = draw(st.lists(st.sampled_from(pool), min_size=size, max_size=size, unique=True))
    wilds = [c for c in cards if c in ("ALEXANDER", "CAVALRY", "SHIELD")]
    if len(wilds) > 2:
        cards.remove(wilds[0])
        cards.append(next(t for t in ruleset.troops if t not in cards))
    return name, env, cards


@settings(max_examples=600, deadline=None)
@given(complete_sides())
def test_r10_r11_evaluate_agrees_with_oracle(case: tuple[str, list[str], list[str]]) -> None:
    name, env, cards = case
    ruleset = RULESETS[name]
    fv = evaluate(cards, env, ruleset)
    assert fv.strength == oracle.best(cards, "FOG" in env, ruleset)
    # the cards are the side's own, ascending by the values they were given
    assert sorted(fv.cards) == sorted(cards)
    assert sum(fv.values) == fv.total
    assert list(fv.values) == sorted(fv.values)
