"""What the engine says so that the service never works a rule out again: the seat listed first,
what a proved claim rests on (the tie cases), the turn's endings after each card, what the claim
timing means for the turn, and the automatic claims up to the one that ends the game."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from engine import (
    FIRST_SEAT,
    RULESETS,
    Action,
    ClaimMargin,
    ClaimTiming,
    GameState,
    Move,
    Phase,
    apply_automatic_claims,
    automatic_claims,
    automatic_end,
    claim_margin,
    claim_proof_view,
    parse_move,
    player_view,
    spectator_view,
    turn_endings,
    turn_endings_by_move,
)
from tests.engine.builders import play, position

WEDGE_8_9_10 = ["R8", "R9", "R10"]


def test_the_first_seat_is_the_first_of_every_ruleset() -> None:
    assert {rs.seats[0] for rs in RULESETS.values()} == {FIRST_SEAT}


# --- what a proved claim rests on -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("flag", "hands", "empty_decks", "margin"),
    [
        ({"A": WEDGE_8_9_10, "B": ["G1"]}, {"A": ["Y1"]}, True, ClaimMargin.OUT_OF_TROOPS),
        ({"A": WEDGE_8_9_10, "B": ["G1", "Y5"]}, {}, False, ClaimMargin.OUT_OF_REACH),
        ({"A": WEDGE_8_9_10, "B": ["G1", "G2"]}, {}, False, ClaimMargin.BELOW),
        ({"A": ["R1", "R2", "R3"], "B": ["G1", "G2"]}, {}, False, ClaimMargin.TIE_PLAYS_LAST),
        (
            {"A": ["R1", "R2", "R3"], "B": ["G1", "G2", "G3"]},
            {},
            False,
            ClaimMargin.TIE_COMPLETED_LAST,
        ),
    ],
)
def test_a_proved_claim_says_what_it_rests_on(
    flag: dict[str, list[str]], hands: dict[str, list[str]], empty_decks: bool, margin: ClaimMargin
) -> None:
    state = position(flags={1: flag}, hands=hands, empty_decks=empty_decks)
    proof = claim_proof_view(state, "A", 1)
    assert proof.provable and proof.margin is margin
    assert proof.formation is not None
    kept = claim_margin(
        proof.formation,
        proof.opponent_best,
        out_of_troops=proof.opponent_cannot_complete,
        opponent_complete=len(flag["B"]) == 3,
    )
    assert kept is margin, "the margin worked out again from the kept fields is the same"
    assert "margin" not in proof.to_json(), "the JSON of a proof keeps its shape"


def test_a_claim_not_proved_has_no_margin() -> None:
    state = position(flags={1: {"A": ["R1", "R2", "R3"], "B": ["G8", "G9"]}})
    proof = claim_proof_view(state, "A", 1)
    assert not proof.provable and proof.margin is None
    # A completes last and ties: the tie is A's to lose (R12).
    tied = position(flags={1: {"A": ["R1", "R2"], "B": ["G1", "G2", "G3"]}}, hands={"A": ["R3"]})
    tied = play(tied, "A: R3>1")
    proof = claim_proof_view(tied, "A", 1)
    assert not proof.provable and proof.margin is None


# --- what the claim timing means for the turn -----------------------------------------------------


@pytest.mark.parametrize(("claims", "after_play"), [("standard", True), ("advanced", False)])
def test_claims_after_play_follows_the_claim_timing(claims: str, after_play: bool) -> None:
    state = position(claims=claims, hands={"A": ["R1"]})
    assert spectator_view(state).claims_after_play is after_play
    assert player_view(state, "B").claims_after_play is after_play
    assert "claims_after_play" not in spectator_view(state).to_json()


SCOUTING_HAND = ["SCOUT", "R1", "R2", "R3", "R4", "R5", "R6"]


@pytest.mark.parametrize(
    ("claims", "flags", "ends"),
    [
        ("advanced", {1: {"A": WEDGE_8_9_10}}, True),
        ("standard", {}, True),
        ("standard", {1: {"A": WEDGE_8_9_10}}, False),
    ],
)
def test_whether_a_scout_return_ends_the_turn(
    claims: str, flags: dict[int, dict[str, list[str]]], ends: bool
) -> None:
    state = position(claims=claims, flags=flags, hands={"A": SCOUTING_HAND})
    if claims == "advanced" and flags:
        state = play(state, "A: claim 1")
    assert not spectator_view(state).scout_return_ends_turn, "not scouting yet"
    state = play(state, "A: SCOUT")
    for _ in range(3):
        state = play(state, "A: draw troops")
    assert player_view(state, "A").scout_return_ends_turn is ends
    after = play(state, "A: return R1 R2")
    # What the field says is what happens: the turn ends by itself unless a claim may follow.
    assert (automatic_end(after) is not None) is ends
    assert "scout_return_ends_turn" not in spectator_view(state).to_json()


# --- the endings of the turn after each card ------------------------------------------------------


def _endings_each_alone(state: GameState, moves: list[Move]) -> dict[Move, tuple[Move, ...]]:
    return {m: tuple(turn_endings(state, m)) for m in moves}


def test_turn_endings_by_move_with_a_draw_due_is_the_draw_after_every_card() -> None:
    state = position(hands={"A": ["R1", "G5", "FOG"]})
    found = turn_endings_by_move(state)
    assert found == _endings_each_alone(state, list(found))
    assert {tuple(str(m) for m in e) for e in found.values()} == {
        ("A: draw troops", "A: draw tactics")
    }


def test_turn_endings_differ_by_card_when_only_a_claim_may_follow() -> None:
    # Standard claims and empty decks: no draw follows, and only the card that completes a
    # provable formation leaves the end to choose (after a claim); any other ends the turn.
    state = position(flags={1: {"A": ["R8", "R9"]}}, hands={"A": ["R10", "G1"]}, empty_decks=True)
    rs = state.ruleset
    found = turn_endings_by_move(state)
    assert found == _endings_each_alone(state, list(found))
    assert found[parse_move("A: R10>1", rs)] == (parse_move("A: end", rs),)
    assert found[parse_move("A: G1>2", rs)] == ()


def test_turn_endings_by_move_covers_a_pass_and_only_plays_and_passes() -> None:
    full = ["FOG", "MUD", "SCOUT", "REDEPLOY", "DESERTER", "TRAITOR", "ALEXANDER"]
    state = position(hands={"A": full}, tactics_played=(1, 0))
    found = turn_endings_by_move(state)
    assert {m.action for m in found} <= {Action.PLAY, Action.PASS}
    assert found == _endings_each_alone(state, list(found))


# --- the automatic claims, up to the end of the game ----------------------------------------------


def test_automatic_claims_stop_at_the_claim_that_wins() -> None:
    state = position(
        claims="advanced",
        flags={3: {"A": WEDGE_8_9_10}, 5: {"A": ["G1", "G2", "G3"], "B": ["Y1"]}},
        claimed={1: "A", 2: "A"},
        hands={"A": ["B1"]},
    )
    assert [m.flag for m in automatic_claims(state)] == [3, 5]
    after, made = apply_automatic_claims(state)
    assert [str(m) for m in made] == ["A: claim 3"]
    assert after.result is not None and after.result.winner == "A"


def test_automatic_claims_all_made_when_none_wins() -> None:
    state = position(
        claims="advanced",
        flags={3: {"A": WEDGE_8_9_10}, 5: {"A": ["G1", "G2", "G3"], "B": ["Y1"]}},
        hands={"A": ["B1"]},
    )
    after, made = apply_automatic_claims(state)
    assert [m.flag for m in made] == [3, 5] and after.result is None
    assert after.phase is Phase.START and after.to_move == "A"


def test_no_automatic_claims_under_the_standard_rule() -> None:
    state = position(flags={3: {"A": WEDGE_8_9_10}}, hands={"A": ["B1"]})
    assert apply_automatic_claims(state) == (state, [])


def test_each_claim_timing_says_when_a_seat_claims() -> None:
    assert ClaimTiming.ADVANCED.moment == "at the start of your turn"
    assert ClaimTiming.STANDARD.moment == "after playing"


def _undocumented(path: Path, classes: set[str]) -> list[str]:
    """The fields (annotated names, enum members) of ``classes`` in ``path`` that no docstring
    follows."""
    found = []
    for node in ast.parse(path.read_text()).body:
        if not isinstance(node, ast.ClassDef) or node.name not in classes:
            continue
        body = node.body
        for i, item in enumerate(body):
            if isinstance(item, ast.AnnAssign) or (
                isinstance(item, ast.Assign) and isinstance(item.value, ast.Constant)
            ):
                after = body[i + 1] if i + 1 < len(body) else None
                documented = isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                if not documented:
                    found.append(f"{node.name}.{ast.unparse(item).split(':')[0].split('=')[0]}")
    return found


def test_every_field_of_the_views_and_the_proof_has_a_docstring() -> None:
    engine_dir = Path(__file__).resolve().parents[2] / "engine"
    views = {"PublicView", "PlayerView", "FlagView", "ClaimProofView"}
    assert _undocumented(engine_dir / "view.py", views) == []
    assert _undocumented(engine_dir / "prover.py", {"ClaimProof", "ClaimMargin"}) == []


def test_the_new_view_fields_are_frozen() -> None:
    state = position(hands={"A": ["R1"]})
    seen = player_view(state, "A")
    with pytest.raises(dataclasses.FrozenInstanceError):
        seen.claims_after_play = False
    proof = claim_proof_view(position(flags={1: {"A": WEDGE_8_9_10}}), "A", 1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        proof.margin = None
