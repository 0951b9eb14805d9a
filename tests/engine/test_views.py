"""The typed views: what a page needs, computed by the engine (seats, flag pairs, formation sizes,
draws due, Scout counts, claims now, claim proofs as fields), frozen, JSON-ready, and never
holding another seat's hand."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    RULESETS,
    Action,
    ClaimStatus,
    ClaimTiming,
    Deck,
    EnvironmentCard,
    FlagView,
    FrozenMap,
    IllegalMoveError,
    Phase,
    PlayerView,
    PublicView,
    Termination,
    claim_proof_view,
    claim_proof_views,
    claim_proofs,
    flags_held,
    formation_size,
    get_ruleset,
    legal_moves,
    parse_move,
    player_view,
    public_view,
    series_points,
    spectator_view,
    turn_endings,
)
from engine.claims import claim_proof, claims_allowed_now
from tests.engine.builders import play, position
from tests.engine.test_games import claim_timings, random_game, rulesets, strings_in

WEDGE_8_9_10 = ["R8", "R9", "R10"]


def is_json(value: Any) -> bool:
    """True when the value is built only of what JSON has: dicts with str keys, lists, str,
    int, float, bool and None."""
    if value is None or isinstance(value, bool | int | float | str):
        return True
    if isinstance(value, list):
        return all(is_json(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and is_json(v) for k, v in value.items())
    return False


# --- seats ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(n for n, rs in RULESETS.items() if rs.players == 2))
def test_seats_and_flag_pairs_come_from_the_ruleset(name: str) -> None:
    rs = get_ruleset(name)
    assert rs.seats == ("A", "B")
    assert rs.opponents("A") == ("B",) and rs.opponents("B") == ("A",)
    with pytest.raises(ValueError):
        rs.opponents("C")
    seen = spectator_view(position(ruleset=name))
    assert seen.seats == ("A", "B")
    assert len(seen.flags) == rs.flags
    assert [f.number for f in seen.flags] == list(range(1, rs.flags + 1))
    for f in seen.flags:
        assert f.seats == ("A", "B")
        assert tuple(f.cards) == f.seats, "each side's cards are keyed by the seat letter"


def test_player_view_names_the_seat_and_its_opponents() -> None:
    state = position(hands={"A": ["R1", "G5"], "B": ["B2"]})
    a, b = player_view(state, "A"), player_view(state, "B")
    assert (a.seat, a.opponents, a.hand) == ("A", ("B",), ("R1", "G5"))
    assert (b.seat, b.opponents, b.hand) == ("B", ("A",), ("B2",))
    with pytest.raises(ValueError):
        player_view(state, "C")


def test_the_hand_is_sorted_by_color_and_value_tactics_last() -> None:
    state = position(hands={"A": ["FOG", "G5", "R10", "R2"]})
    assert player_view(state, "A").hand == ("R2", "R10", "G5", "FOG")


@pytest.mark.parametrize(("name", "tactics"), [("battleline", True), ("no-tactics", False)])
def test_the_view_says_whether_the_ruleset_has_tactics(name: str, tactics: bool) -> None:
    seen = spectator_view(position(ruleset=name))
    assert seen.tactics is tactics
    assert seen.decks[Deck.TACTICS] == (10 if tactics else 0)
    assert seen.decks["troops"] == get_ruleset(name).max_value * len(get_ruleset(name).colors)


# --- the board ------------------------------------------------------------------------------------


def test_flag_view_cards_environment_formation_size_and_holder() -> None:
    state = position(
        flags={
            3: {"A": ["R7", "R8"], "B": ["B1"], "env": ["MUD:A", "FOG:B"]},
            5: {"A": ["G1"], "B": []},
        },
        claimed={7: "B"},
    )
    seen = spectator_view(state)
    three = seen.flags[2]
    assert three == FlagView(
        number=3,
        seats=("A", "B"),
        cards=FrozenMap({"A": ("R7", "R8"), "B": ("B1",)}),
        env=(EnvironmentCard("MUD", "A"), EnvironmentCard("FOG", "B")),
        formation_size=4,
        claimed_by=None,
    )
    assert [f.formation_size for f in seen.flags] == [3, 3, 4, 3, 3, 3, 3, 3, 3]
    assert seen.formation_size == 3, "the usual size, to tell a Mud flag apart"
    assert seen.flags[6].claimed_by == "B"
    assert seen.flags_held == {"A": 0, "B": 1}


def test_fog_alone_keeps_the_formation_size() -> None:
    seen = spectator_view(position(flags={2: {"env": ["FOG:A"]}}))
    assert seen.flags[1].formation_size == 3 == formation_size(["FOG"], get_ruleset("battleline"))


def test_counts_discards_tactics_and_leaders_per_seat() -> None:
    state = position(
        hands={"A": ["R1", "R2"], "B": ["B1"]},
        discards={"A": ["SCOUT"], "B": ["DESERTER", "G4"]},
        tactics_played=(2, 1),
        leader_played=(True, False),
    )
    seen = spectator_view(state)
    assert seen.hand_sizes == {"A": 2, "B": 1}
    assert seen.discards == {"A": ("SCOUT",), "B": ("DESERTER", "G4")}
    assert seen.tactics_played == {"A": 2, "B": 1}
    assert seen.leader_played == {"A": True, "B": False}
    assert seen.hands is None and seen.result is None and seen.winner is None


def test_flags_held_is_counted_once_for_views_series_and_stalemates() -> None:
    state = position(claimed={1: "A", 2: "A", 9: "B"})
    assert flags_held(state) == {"A": 2, "B": 1}
    assert spectator_view(state).flags_held == {"A": 2, "B": 1}
    assert public_view(state)["flags_held"] == {"A": 2, "B": 1}
    over = play(state, "B: resign")
    assert series_points(over) == {"A": 5, "B": 1}


# --- the turn -------------------------------------------------------------------------------------


def test_draw_due_after_a_play_and_not_before() -> None:
    state = position(hands={"A": ["R1", "R2"]})
    assert not spectator_view(state).draw_due
    after = play(state, "A: R1>1")
    assert spectator_view(after).draw_due and player_view(after, "B").draw_due
    ended = play(after, "A: draw troops")
    assert not spectator_view(ended).draw_due


def test_no_draw_is_due_after_a_pass_with_a_full_hand() -> None:
    hand = ["FOG", "MUD", "SCOUT", "REDEPLOY", "DESERTER", "TRAITOR", "ALEXANDER"]
    state = play(position(hands={"A": hand}, tactics_played=(1, 0)), "A: pass")
    assert state.phase is Phase.AFTER_PLAY
    assert not spectator_view(state).draw_due


def test_scout_draws_left_and_cards_to_put_back() -> None:
    hand = ["SCOUT", "R1", "R2", "R3", "R4", "R5", "R6"]
    state = position(hands={"A": hand})
    before = spectator_view(state)
    assert (before.scout_draws_left, before.scout_returns_due, before.scout_draws_max) == (0, 0, 3)
    assert before.scout_returns_max == 2
    state = play(state, "A: SCOUT")
    seen = []
    for _ in range(3):
        v = spectator_view(state)
        seen.append((v.scout_draws, v.scout_draws_left, v.scout_returns_due))
        state = play(state, "A: draw troops")
    v = player_view(state, "A")
    seen.append((v.scout_draws, v.scout_draws_left, v.scout_returns_due))
    assert seen == [(0, 3, 0), (1, 2, 0), (2, 1, 1), (3, 0, 2)]
    state = play(state, "A: return R1 R2")
    after = spectator_view(state)
    assert (after.scout_draws_left, after.scout_returns_due) == (0, 0)
    assert not after.draw_due, "no draw follows a Scout"


def test_scout_draws_left_never_exceed_the_decks() -> None:
    hand = ["SCOUT", "R1", "R2", "R3", "R4", "R5", "R6"]
    state = position(hands={"A": hand}, troop_top=["G1"], empty_decks=True)
    state = play(state, "A: SCOUT")
    assert spectator_view(state).scout_draws_left == 1


@pytest.mark.parametrize(
    ("claims", "at_start", "after_play"),
    [("standard", False, True), ("advanced", True, False)],
)
def test_claims_now_under_each_claim_timing(claims: str, at_start: bool, after_play: bool) -> None:
    state = position(claims=claims, flags={1: {"A": WEDGE_8_9_10}}, hands={"A": ["G2", "G3"]})
    assert spectator_view(state).claims_now is at_start is claims_allowed_now(state)
    assert spectator_view(state).claims is ClaimTiming(claims)
    a = player_view(state, "A")
    assert a.claimable == ((1,) if at_start else ())
    assert player_view(state, "B").claimable == (), "only the seat to move claims"
    after = play(state, "A: G2>2")
    assert spectator_view(after).claims_now is after_play
    assert player_view(after, "A").claimable == ((1,) if after_play else ())


def test_claimable_is_exactly_the_claim_moves() -> None:
    state = position(
        claims="advanced",
        flags={1: {"A": WEDGE_8_9_10}, 4: {"A": ["G1", "G2", "G3"], "B": ["B8", "B9"]}},
        hands={"A": ["Y2"]},
    )
    moves = [m.flag for m in legal_moves(state) if m.action is Action.CLAIM]
    assert list(player_view(state, "A").claimable) == moves == [1]


def test_pending_discards_after_the_mud_leaves() -> None:
    state = position(
        claims="advanced",
        flags={6: {"A": ["R1", "R2", "R3", "R4"], "B": ["B1", "B2", "B3", "B9"], "env": ["MUD:B"]}},
        hands={"A": ["DESERTER", "G1"], "B": ["G2"]},
        tactics_played=(1, 1),
    )
    state = play(state, "A: DESERTER MUD@6")
    seen = spectator_view(state)
    assert seen.phase is Phase.MUD_DISCARD
    assert [(p.seat, p.flag) for p in seen.pending_discards] == [("A", 6), ("B", 6)]
    assert seen.flags[5].formation_size == 3 and seen.flags[5].env == ()


def test_the_result_the_winner_and_both_hands_once_over() -> None:
    state = position(hands={"A": ["R1"], "B": ["B2", "B1"]})
    over = play(state, "A: resign")
    seen = spectator_view(over)
    assert seen.result is Termination.RESIGNATION and seen.winner == "B"
    assert seen.draw_between == () and seen.to_move is None
    assert seen.hands == {"A": ("R1",), "B": ("B1", "B2")}
    assert not seen.draw_due and not seen.claims_now


def test_a_drawn_game_is_shared_by_both_seats() -> None:
    hand = ["FOG", "MUD", "SCOUT", "REDEPLOY", "DESERTER", "TRAITOR", "ALEXANDER"]
    state = position(hands={"A": hand, "B": ["DARIUS"]}, tactics_played=(1, 0))
    state = state.evolve(previous_passed=True, previous_passes=1)
    state = play(state, "A: pass", "A: end")
    seen = spectator_view(state)
    assert seen.result is Termination.STALEMATE
    assert seen.winner is None and seen.draw_between == ("A", "B")


# --- claim proofs ---------------------------------------------------------------------------------


def test_claim_proofs_as_fields() -> None:
    state = position(
        flags={
            1: {"A": WEDGE_8_9_10},
            2: {"A": ["G4", "G5", "G3"], "B": ["B8"]},
            3: {"A": ["Y1", "Y2"]},
            4: {"A": ["P1", "P2", "P3"], "B": ["O1", "O2", "O3", "O9"], "env": ["MUD:B"]},
        },
        claimed={9: "B"},
    )
    proofs = {p.flag: p for p in claim_proof_views(state, "A")}
    assert sorted(proofs) == [1, 2, 3, 4, 5, 6, 7, 8], "claimed flags have no proof"
    one = proofs[1]
    assert one.provable and one.status is ClaimStatus.PROVED
    assert (one.seat, one.opponent) == ("A", "B")
    assert one.formation is not None and str(one.formation) == "Wedge 27"
    # another color's 8-9-10 would at best tie, and the opponent would complete last (R12)
    assert one.opponent_best is not None and str(one.opponent_best) == "Wedge 27"
    assert not one.opponent_cannot_complete
    two = proofs[2]
    assert not two.provable and two.status is ClaimStatus.BEATABLE
    assert two.opponent_best is not None and str(two.opponent_best) == "Wedge 27"
    assert two.reason == "B8 B9 B10 (Wedge 27) would beat Wedge 12"
    three = proofs[3]
    assert three.status is ClaimStatus.INCOMPLETE and three.formation is None
    assert proofs[4].status is ClaimStatus.INCOMPLETE, "three cards at a Mud flag"
    assert proofs[5].status is ClaimStatus.INCOMPLETE
    assert json.loads(json.dumps(two.to_json())) == {
        "flag": 2,
        "seat": "A",
        "opponent": "B",
        "provable": False,
        "status": "beatable",
        "formation": {"formation": "wedge", "sum": 12, "cards": ["G3", "G4", "G5"]},
        "opponent_best": {"formation": "wedge", "sum": 27, "cards": ["B8", "B9", "B10"]},
        "opponent_cannot_complete": False,
        "reason": two.reason,
    }


def test_claim_proof_status_when_a_side_owes_a_mud_discard() -> None:
    state = position(
        flags={6: {"A": ["R1", "R2", "R3"], "B": ["B1", "B2", "B3", "B9"], "env": ["MUD:B"]}},
        hands={"A": ["DESERTER", "G1"]},
        tactics_played=(1, 1),
    )
    state = play(state, "A: DESERTER MUD@6")
    [six] = [p for p in claim_proof_views(state, "A") if p.flag == 6]
    assert six.status is ClaimStatus.DISCARD_DUE and not six.provable


def test_claim_proof_views_agree_with_claim_proofs() -> None:
    state = position(flags={1: {"A": WEDGE_8_9_10}, 2: {"B": ["G4", "G5", "G3"], "A": ["B8"]}})
    for seat in ("A", "B"):
        typed = {p.flag: (p.provable, p.reason) for p in claim_proof_views(state, seat)}
        plain = {f: (p.claimable, p.reason) for f, p in claim_proofs(state, seat).items()}
        assert typed == plain


@settings(max_examples=25, deadline=None)
@given(rulesets, claim_timings, st.integers(0, 10_000))
def test_the_proof_of_one_flag_is_that_flag_of_all_proofs(
    ruleset: str, claims: ClaimTiming, seed: int
) -> None:
    for before, move, _ in random_game(ruleset, claims, seed):
        if move is None or move.action is not Action.CLAIM:
            continue
        assert move.flag is not None
        one = claim_proof_view(before, move.seat, move.flag)
        assert one == {p.flag: p for p in claim_proof_views(before, move.seat)}[move.flag]
        assert one.provable, "a legal claim is proved"


def test_the_proof_of_one_flag_refuses_a_flag_not_contested_or_claimed() -> None:
    state = position(flags={1: {"A": WEDGE_8_9_10}}, claimed={2: "B"})
    assert claim_proof_view(state, "A", 1).provable
    with pytest.raises(ValueError, match="claimed already"):
        claim_proof_view(state, "A", 2)
    with pytest.raises(ValueError, match="does not contest"):
        claim_proof_view(state, "A", 10)
    with pytest.raises(ValueError, match="not a seat"):
        claim_proof_view(state, "C", 1)


def test_a_held_flag_has_its_own_status_and_is_refused() -> None:
    state = position(claims="advanced", flags={1: {"A": WEDGE_8_9_10}}, claimed={1: "A"})
    assert claim_proof(state, 0, 0).status is ClaimStatus.CLAIMED
    with pytest.raises(IllegalMoveError, match="already held by A"):
        play(state, "A: claim 1")


# --- what may end the turn ------------------------------------------------------------------------


def test_turn_endings_after_a_card_a_pass_and_a_scout() -> None:
    state = position(hands={"A": ["R1", "SCOUT"]})
    rs = state.ruleset
    endings = [str(m) for m in turn_endings(state, parse_move("A: R1>1", rs))]
    assert endings == ["A: draw troops", "A: draw tactics"]
    assert turn_endings(state, parse_move("A: SCOUT", rs)) == []
    full = ["FOG", "MUD", "SCOUT", "REDEPLOY", "DESERTER", "TRAITOR", "ALEXANDER"]
    passing = position(hands={"A": full}, tactics_played=(1, 0))
    # A pass with a full hand leaves only the end, which the service makes by itself.
    assert turn_endings(passing, parse_move("A: pass", rs)) == []
    with pytest.raises(IllegalMoveError):
        turn_endings(state, parse_move("A: G1>1", rs))


# --- JSON, frozen, the old dicts ---------------------------------------------------------------


def test_to_json_shape_of_a_player_view() -> None:
    state = position(
        flags={3: {"A": ["R7"], "B": ["B1"], "env": ["MUD:A"]}},
        hands={"A": ["G5", "R1"], "B": ["B2"]},
    )
    data = player_view(state, "A").to_json()
    assert is_json(data)
    assert json.loads(json.dumps(data)) == data
    assert data["seat"] == "A" and data["opponents"] == ["B"] and data["hand"] == ["R1", "G5"]
    assert data["seats"] == ["A", "B"] and data["claims"] == "standard"
    assert data["phase"] == "start" and data["to_move"] == "A"
    assert data["flags"][2] == {
        "flag": 3,
        "seats": ["A", "B"],
        "cards": {"A": ["R7"], "B": ["B1"]},
        "env": [{"card": "MUD", "seat": "A"}],
        "formation_size": 4,
        "claimed_by": None,
    }
    assert data["decks"] == {"troops": 55, "tactics": 9}
    assert data["hand_sizes"] == {"A": 2, "B": 1}
    assert data["hands"] is None and data["result"] is None
    public = spectator_view(state).to_json()
    assert set(data) - set(public) == {"seat", "opponents", "hand", "claimable", "blocked_tactics"}


def test_the_public_dict_view_is_built_from_the_typed_one() -> None:
    state = position(
        flags={3: {"A": ["R7"], "B": ["B1"], "env": ["MUD:A"]}},
        hands={"A": ["G5", "R1"], "B": ["B2"]},
    )
    old = public_view(state)
    assert old["flags"][2] == {
        "flag": 3,
        "claimed_by": None,
        "A": ["R7"],
        "B": ["B1"],
        "env": ["MUD"],
        "env_sides": {"MUD": "A"},
        "size": 4,
    }
    assert "hands" not in old and "hand" not in old


def test_views_are_frozen() -> None:
    state = position(hands={"A": ["R1"]})
    seen = player_view(state, "A")
    with pytest.raises(dataclasses.FrozenInstanceError):
        seen.hand = ("R2",)
    with pytest.raises(dataclasses.FrozenInstanceError):
        seen.flags[0].claimed_by = "A"
    with pytest.raises(TypeError):
        seen.flags_held["A"] = 5
    with pytest.raises(AttributeError):
        seen.flags_held._items = {}
    assert hash(seen) == hash(player_view(state, "A"))
    assert isinstance(seen, PublicView) and isinstance(seen, PlayerView)


@settings(max_examples=25, deadline=None)
@given(ruleset=rulesets, claims=claim_timings, seed=st.integers(0, 10**9))
def test_a_player_view_never_holds_another_seats_hand(
    ruleset: str, claims: ClaimTiming, seed: int
) -> None:
    for _, _, after in random_game(ruleset, claims, seed):
        decks = set(after.troop_deck) | set(after.tactics_deck)
        for i, seat in enumerate(after.ruleset.seats):
            seen = player_view(after, seat)
            data = seen.to_json()
            assert is_json(data)
            assert data["hand"] == list(seen.hand)
            strings = strings_in(data)
            assert not strings & decks, f"{seat} sees a deck"
            if after.result is None:
                others = {c for j, h in enumerate(after.hands) if j != i for c in h}
                assert not strings & others, f"{seat} sees another hand"
            with pytest.raises(dataclasses.FrozenInstanceError):
                seen.hand = ()
        public = strings_in(spectator_view(after).to_json())
        assert not public & decks
        if after.result is None:
            assert not public & {c for h in after.hands for c in h}
