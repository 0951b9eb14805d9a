"""Every ruling of docs/rules.md about the course of a game, one or more named tests each."""

from __future__ import annotations

import random

import pytest

from engine import (
    RULESETS,
    Action,
    ClaimTiming,
    GameEnded,
    IllegalMoveError,
    Phase,
    Termination,
    TurnStarted,
    apply,
    automatic_claims,
    deal,
    deal_from_seed,
    get_ruleset,
    legal_moves,
    parse_move,
    seed_commitment,
    series_points,
    start,
)
from tests.engine.builders import all_cards, moves_of, play, position

WEDGE_8_9_10 = ["R8", "R9", "R10"]


def refused(state, move: str, rule: str = "") -> IllegalMoveError:
    """Apply must refuse the move, name the rule, and leave the state as it was."""
    before = state
    with pytest.raises(IllegalMoveError) as caught:
        apply(state, parse_move(move, state.ruleset))
    assert state == before
    if rule:
        assert caught.value.rule == rule, str(caught.value)
    assert move not in moves_of(state)
    return caught.value


# --- R1-R3: cards and set-up ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,count",
    [("battleline", 70), ("no-tactics", 60), ("playing-cards", 52), ("schotten-totten", 54)],
)
def test_r1_deck_holds_every_card_once(name: str, count: int) -> None:
    rs = get_ruleset(name)
    dealt = deal(rs, random.Random(1))
    cards = [*dealt.hands[0], *dealt.hands[1], *dealt.troops, *dealt.tactics]
    assert len(cards) == len(set(cards)) == count
    assert len(dealt.hands[0]) == len(dealt.hands[1]) == rs.hand_size


def test_r2_cut_decides_who_plays_first_and_is_shown() -> None:
    rs = get_ruleset("battleline")
    for seed in range(200):
        dealt = deal_from_seed(rs, str(seed))
        a, b = dealt.cuts[-1]
        higher = "A" if int(a[1:]) > int(b[1:]) else "B"
        # The higher card deals; the other seat plays first.
        assert dealt.first != higher
        for earlier_a, earlier_b in dealt.cuts[:-1]:
            assert earlier_a[1:] == earlier_b[1:], "only equal values cut again"
        assert dealt.describe_cut().endswith(f"{dealt.first} plays first")
    assert any(len(deal_from_seed(rs, str(s)).cuts) > 1 for s in range(200)), "re-cuts happen"


def test_r2_series_winner_plays_first_without_a_cut() -> None:
    dealt = deal_from_seed(get_ruleset("battleline"), "x", first="B")
    assert dealt.first == "B" and dealt.cuts == ()


def test_r3_seed_commitment_and_redeal() -> None:
    rs = get_ruleset("battleline")
    assert seed_commitment("abc") == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )
    assert deal_from_seed(rs, "s1") == deal_from_seed(rs, "s1")
    assert deal_from_seed(rs, "s1") != deal_from_seed(rs, "s2")


# --- R4, R5: claim timing -------------------------------------------------------------------------


def claimable_position(claims: str):
    return position(
        claims=claims,
        flags={1: {"A": WEDGE_8_9_10}},
        hands={"A": ["G2", "G3"], "B": ["B1"]},
    )


def test_r4_standard_claims_come_after_the_card_before_the_draw() -> None:
    state = claimable_position("standard")
    refused(state, "A: claim 1", "R4")
    state = play(state, "A: G2>2")
    assert "A: claim 1" in moves_of(state)
    state = play(state, "A: claim 1", "A: draw troops")
    assert state.flags[0].claimed_by == 0 and state.to_move == "B"


def test_r4_claiming_is_optional() -> None:
    state = play(claimable_position("standard"), "A: G2>2", "A: draw troops")
    assert state.flags[0].claimed_by is None


def test_r5_advanced_claims_only_at_the_start_of_the_turn() -> None:
    state = claimable_position("advanced")
    assert "A: claim 1" in moves_of(state)
    after = play(state, "A: G2>2")
    refused(after, "A: claim 1", "R5")
    state = play(state, "A: claim 1", "A: G2>2", "A: draw troops")
    assert state.flags[0].claimed_by == 0


# --- R6: pass -------------------------------------------------------------------------------------


def test_r6_no_pass_while_a_troop_can_be_played() -> None:
    refused(position(hands={"A": ["R1", "FOG"]}), "A: pass", "R6")


def test_r6_pass_with_only_tactics_in_hand_but_tactics_may_be_played() -> None:
    state = position(hands={"A": ["FOG", "SCOUT"]})
    moves = moves_of(state)
    assert "A: pass" in moves and "A: FOG>1" in moves and "A: SCOUT" in moves


def test_r6_pass_when_no_free_slot_on_an_unclaimed_flag() -> None:
    troops = get_ruleset("battleline").troops
    flags = {n: {"A": list(troops[3 * n - 3 : 3 * n])} for n in range(1, 10)}
    state = position(flags=flags, hands={"A": ["Y9"]})
    assert moves_of(state) == ["A: pass"]


def test_r6_no_draw_after_a_pass_with_a_full_hand() -> None:
    troops = get_ruleset("battleline").troops
    flags = {n: {"A": list(troops[3 * n - 3 : 3 * n])} for n in range(1, 10)}
    hand = ["G2", "G3", "G4", "G5", "G6", "G7", "G9"]
    state = play(position(flags=flags, hands={"A": hand}), "A: pass")
    assert moves_of(state) == ["A: end"]


# --- R7: drawing ----------------------------------------------------------------------------------


def test_r7_draw_is_mandatory_and_from_either_deck() -> None:
    state = play(position(hands={"A": ["R1"]}), "A: R1>1")
    assert moves_of(state) == ["A: draw troops", "A: draw tactics"]
    refused(state, "A: end", "R7")


def test_r7_one_deck_empty_draw_from_the_other() -> None:
    state = position(hands={"A": ["R1"]}, troop_top=["G5"], empty_decks=True)
    state = play(state, "A: R1>1")
    assert moves_of(state) == ["A: draw troops"]
    refused(state, "A: draw tactics", "R7")
    state = play(state, "A: draw troops")
    assert state.hands[0] == ("G5",)


def test_r7_both_decks_empty_no_draw() -> None:
    state = play(position(hands={"A": ["R1"]}, empty_decks=True), "A: R1>1")
    assert moves_of(state) == ["A: end"]


def test_r7_hand_sizes_per_ruleset() -> None:
    sizes = {name: rs.hand_size for name, rs in RULESETS.items()}
    assert sizes == {
        "battleline": 7,
        "no-tactics": 6,
        "playing-cards": 7,
        "schotten-totten": 6,
        "battleline-3p": 7,
        "no-tactics-3p": 6,
    }


# --- R8, R9: tactics limit and Leaders ------------------------------------------------------------


def test_r8_tactics_limit_one_ahead_is_refused() -> None:
    refused(position(hands={"A": ["FOG", "R1"]}, tactics_played=(1, 0)), "A: FOG>1", "R8")


def test_r8_tactics_limit_equal_counts_may_play() -> None:
    state = position(hands={"A": ["FOG", "R1"]}, tactics_played=(2, 2))
    assert "A: FOG>1" in moves_of(state)


def test_r8_tactics_limit_behind_may_play() -> None:
    state = position(hands={"A": ["CAVALRY", "R1"]}, tactics_played=(0, 1))
    assert "A: CAVALRY>1" in moves_of(state)


def test_r8_counts_tactics_later_removed_from_the_board() -> None:
    state = position(
        hands={"A": ["R1"], "B": ["DESERTER", "B1"]},
        flags={1: {"A": ["ALEXANDER"]}},
        leader_played=(True, False),
        tactics_played=(1, 0),
        to_move="B",
    )
    state = play(state, "B: DESERTER ALEXANDER@1", "B: draw troops", "A: R1>2", "A: draw troops")
    # A played one tactics card (now discarded), B one: A may play again, and only one more.
    assert state.tactics_played == (1, 1)


def test_r9_second_leader_is_unplayable() -> None:
    state = position(hands={"A": ["DARIUS", "R1"]}, leader_played=(True, False))
    refused(state, "A: DARIUS>1", "R9")


def test_r9_second_leader_unplayable_after_the_first_was_deserted() -> None:
    state = position(
        flags={2: {"A": ["ALEXANDER"]}},
        hands={"A": ["DARIUS", "R1"], "B": ["DESERTER", "B5"]},
        to_move="B",
        tactics_played=(1, 0),
        leader_played=(True, False),
    )
    state = play(state, "B: DESERTER ALEXANDER@2", "B: draw troops")
    assert "ALEXANDER" in state.discards[0]
    refused(state, "A: DARIUS>1", "R9")


def test_r9_leader_via_play_marks_it_played() -> None:
    state = play(position(hands={"A": ["ALEXANDER", "DARIUS"]}), "A: ALEXANDER>1")
    assert state.leader_played == (True, False)


# --- R10, R12, R13: formations, ties and proofs inside a game -------------------------------------


def test_r10_mud_side_of_three_is_incomplete() -> None:
    state = position(
        claims="advanced", flags={1: {"A": WEDGE_8_9_10, "env": ["MUD:B"]}}, hands={"A": ["G1"]}
    )
    assert "A: claim 1" not in moves_of(state)
    err = refused(state, "A: claim 1", "R13")
    assert "incomplete" in str(err)


def test_r12_tied_complete_formations_go_against_who_completed_last() -> None:
    # The rulebook's tied Hosts: Y7 B2 G1 and Y3 B3 G4; B's cards arrived last.
    flags = {1: {"A": ["Y7", "B2", "G1"], "B": ["Y3", "B3", "G4"]}}
    a_turn = position(claims="advanced", flags=flags, hands={"A": ["R1"], "B": ["R2"]})
    assert "A: claim 1" in moves_of(a_turn)
    b_turn = position(claims="advanced", flags=flags, hands={"A": ["R1"], "B": ["R2"]}, to_move="B")
    assert "B: claim 1" not in moves_of(b_turn)
    assert "completed last" in str(refused(b_turn, "B: claim 1", "R13"))


def test_r12_completion_order_resets_when_a_card_leaves_and_the_side_is_refilled() -> None:
    flags = {1: {"A": ["Y7", "B2", "G1"], "B": ["Y3", "B3", "G4"]}}
    state = position(flags=flags, hands={"A": ["REDEPLOY", "O1", "P9"], "B": ["P2", "P3"]})
    state = play(state, "A: REDEPLOY G1@1>2", "A: draw troops", "B: P2>5", "B: draw troops")
    state = play(state, "A: O1>1")  # A refills the tie and so completed last now
    refused(state, "A: claim 1", "R13")
    state = play(state, "A: draw troops", "B: P3>5")
    state = play(state, "B: claim 1")
    assert state.flags[0].claimed_by == 1


def test_r12_mud_makes_sides_incomplete_and_the_fourth_card_counts() -> None:
    flags = {1: {"A": ["Y7", "B2", "G1"], "B": ["Y3", "B3", "G4"]}}
    state = position(flags=flags, hands={"A": ["P5", "P7"], "B": ["MUD", "O5", "O9"]}, to_move="B")
    # Before the Mud, B completed last; after it, both must add a fourth card.
    state = play(state, "B: MUD>1", "B: draw troops", "A: P7>2", "A: draw troops")
    state = play(state, "B: O5>1", "B: draw troops", "A: P5>1")  # Hosts of 15 each; A last
    refused(state, "A: claim 1", "R13")
    state = play(state, "A: draw troops", "B: O9>3", "B: claim 1")
    assert state.flags[0].claimed_by == 1


def test_r13_hand_is_no_evidence() -> None:
    # A holds B9 and B10, but they count as available to B: the Wedge B8 B9 B10 may still come.
    state = position(
        claims="advanced",
        flags={1: {"A": ["R4", "R5", "R3"], "B": ["B8"]}},
        hands={"A": ["B9", "B10", "G1"]},
        discards={"B": ["B7"]},
    )
    err = refused(state, "A: claim 1", "R13")
    assert "B8 B9 B10 (Wedge 27) would beat Wedge 12" in str(err)


def test_r13_rulebook_example_claim_once_blue_seven_and_ten_are_seen() -> None:
    state = position(
        claims="advanced",
        flags={1: {"A": ["R4", "R5", "R3"], "B": ["B8"]}, 2: {"B": ["B10"]}},
        hands={"A": ["G1"]},
        discards={"B": ["B7"]},
    )
    assert "A: claim 1" in moves_of(state)


# --- R14: claimed flags ---------------------------------------------------------------------------


def locked_position():
    return position(
        flags={1: {"A": ["R1", "R2", "R3"], "B": ["B1", "B5"]}},
        claimed={1: "A"},
        hands={"A": ["REDEPLOY", "G1"], "B": ["DESERTER", "TRAITOR", "B9"]},
    )


def test_r14_nothing_is_played_at_a_claimed_flag() -> None:
    state = locked_position()
    refused(state, "A: G1>1", "R14")
    b = state.evolve(mover=1)
    refused(b, "B: B9>1", "R14")


def test_r14_no_tactics_card_touches_a_claimed_flag() -> None:
    state = locked_position()
    refused(state, "A: REDEPLOY R1@1>2", "R14")
    b = state.evolve(mover=1)
    refused(b, "B: DESERTER R1@1", "R14")
    refused(b, "B: TRAITOR R2@1>2", "R14")


# --- R15-R20: tactics -----------------------------------------------------------------------------


def test_r15_environment_stays_at_the_flag() -> None:
    state = play(position(hands={"A": ["FOG"], "B": ["B1"]}), "A: FOG>4")
    assert state.flags[3].env == (("FOG", 0),)
    state = play(state, "A: draw troops", "B: B1>4", "B: draw troops")
    assert state.flags[3].env == (("FOG", 0),)


def test_r16_scout_draws_chosen_deck_by_deck_then_returns_in_order() -> None:
    hand = ["SCOUT", "R1", "R2", "R3", "R4", "R5", "R6"]
    state = position(hands={"A": hand}, troop_top=["G1", "G2"], tactics_top=["FOG"])
    state = play(state, "A: SCOUT")
    assert moves_of(state)[:2] == ["A: draw troops", "A: draw tactics"]
    state = play(state, "A: draw troops", "A: draw tactics", "A: draw troops")
    assert {"G1", "G2", "FOG"} <= set(state.hands[0]) and len(state.hands[0]) == 9
    refused(state, "A: draw troops", "R16")
    refused(state, "A: return R1", "R16")
    state = play(state, "A: return R1 R2")
    assert state.troop_deck[:2] == ("R2", "R1"), "the last card listed ends on top"
    assert moves_of(state) == ["A: end"], "no draw follows a Scout"
    state = play(state, "A: end")
    assert state.to_move == "B" and len(state.hands[0]) == 7


def test_r16_scout_may_draw_fewer_and_put_back_fewer() -> None:
    hand = ["SCOUT", "R1", "R2", "R3", "R4", "R5", "R6"]
    state = play(position(hands={"A": hand}), "A: SCOUT", "A: draw tactics")
    assert "A: return" in moves_of(state)
    state = play(state, "A: draw tactics", "A: return DARIUS")  # drawn: ALEXANDER, DARIUS
    assert len(state.hands[0]) == 7


def test_r17_redeploy_moves_own_card_or_discards_it() -> None:
    state = position(
        flags={1: {"A": ["R5", "CAVALRY"]}}, hands={"A": ["REDEPLOY", "R1"]}, tactics_played=(1, 1)
    )
    moved = play(state, "A: REDEPLOY CAVALRY@1>2")
    assert moved.flags[0].cards[0] == ("R5",) and moved.flags[1].cards[0] == ("CAVALRY",)
    gone = play(state, "A: REDEPLOY R5@1>discard")
    assert gone.discards[0] == ("REDEPLOY", "R5")
    refused(state, "A: REDEPLOY R5@1>1", "R17")


def test_r17_redeploy_cannot_move_fog_or_mud() -> None:
    state = position(
        flags={1: {"A": ["R5"], "env": ["FOG:A"]}}, hands={"A": ["REDEPLOY"]}, tactics_played=(1, 1)
    )
    refused(state, "A: REDEPLOY FOG@1>2", "R17")


def test_r18_deserter_discards_any_opposing_card_to_its_owner() -> None:
    state = position(
        flags={1: {"B": ["B5", "SHIELD"], "env": ["FOG:B"]}},
        hands={"A": ["DESERTER"]},
        tactics_played=(2, 2),
    )
    moves = moves_of(state)
    assert {"A: DESERTER B5@1", "A: DESERTER SHIELD@1", "A: DESERTER FOG@1"} <= set(moves)
    after = play(state, "A: DESERTER FOG@1")
    assert after.flags[0].env == () and after.discards == (("DESERTER",), ("FOG",))


def test_r18_deserter_cannot_take_own_cards() -> None:
    state = position(flags={1: {"A": ["R5"]}}, hands={"A": ["DESERTER"]})
    refused(state, "A: DESERTER R5@1")


def test_r19_traitor_takes_a_troop_to_a_free_own_slot() -> None:
    state = position(
        flags={1: {"B": ["B9", "CAVALRY"]}, 2: {"A": ["R1", "R2", "R3"]}},
        hands={"A": ["TRAITOR"]},
        tactics_played=(0, 1),
    )
    after = play(state, "A: TRAITOR B9@1>3")
    assert after.flags[2].cards[0] == ("B9",) and after.flags[0].cards[1] == ("CAVALRY",)
    refused(state, "A: TRAITOR CAVALRY@1>3", "R19")
    refused(state, "A: TRAITOR B9@1>2")  # A's side of flag 2 is full


def test_r20_mud_removed_actor_discards_now_opponent_at_next_turn_start() -> None:
    state = position(
        claims="advanced",
        flags={6: {"A": ["R1", "R2", "R3", "R4"], "B": ["B1", "B2", "B3", "B9"], "env": ["MUD:B"]}},
        hands={"A": ["DESERTER", "G1"], "B": ["G2"]},
        tactics_played=(1, 1),
    )
    state = play(state, "A: DESERTER MUD@6")
    assert state.phase is Phase.MUD_DISCARD
    assert set(moves_of(state)) == {f"A: discard {c}@6" for c in ["R1", "R2", "R3", "R4"]}
    state = play(state, "A: discard R1@6")
    assert moves_of(state) == ["A: draw troops", "A: draw tactics"]
    state = play(state, "A: draw troops")
    # B's first act: the discard, before any claim or play.
    assert state.phase is Phase.MUD_DISCARD and state.to_move == "B"
    refused(state, "B: G2>1")
    state = play(state, "B: discard B9@6")
    assert state.phase is Phase.START
    assert state.discards == (("DESERTER", "R1"), ("MUD", "B9"))


def test_r20_oversized_side_cannot_be_claimed_before_its_discard() -> None:
    state = position(
        flags={6: {"A": ["R1", "R2", "R3"], "B": ["B1", "B2", "B3", "B9"], "env": ["MUD:B"]}},
        hands={"A": ["DESERTER", "G1"]},
        tactics_played=(1, 1),
    )
    state = play(state, "A: DESERTER MUD@6")
    assert state.phase is Phase.AFTER_PLAY
    assert "R20" in str(refused(state, "A: claim 6", "R13"))


# --- R21-R23: the end -----------------------------------------------------------------------------


def test_r21_breakthrough_three_adjacent_ends_the_game_at_once() -> None:
    state = position(
        claims="advanced",
        flags={3: {"A": WEDGE_8_9_10}, 5: {"A": ["G8", "G9", "G10"]}},
        claimed={1: "A", 2: "A"},
        hands={"A": ["Y1"]},
    )
    after, events = apply(state, parse_move("A: claim 3", state.ruleset))
    assert after.result is not None and after.result.termination is Termination.BREAKTHROUGH
    assert any(isinstance(e, GameEnded) for e in events)
    assert legal_moves(after) == []
    refused(after, "A: claim 5")


def test_r21_envelopment_five_flags() -> None:
    state = position(
        claims="advanced",
        flags={9: {"A": WEDGE_8_9_10}},
        claimed={1: "A", 3: "A", 5: "A", 7: "A"},
        hands={"A": ["Y1"]},
    )
    after = play(state, "A: claim 9")
    assert after.result is not None and after.result.termination is Termination.ENVELOPMENT


def test_r21_playing_cards_variant_wins_on_four() -> None:
    state = position(
        ruleset="playing-cards",
        claims="advanced",
        flags={7: {"A": ["S11", "S12", "S13"]}},
        claimed={1: "A", 3: "A", 5: "A"},
        hands={"A": ["H1"]},
    )
    after = play(state, "A: claim 7")
    assert after.result is not None and after.result.termination is Termination.ENVELOPMENT


def test_r22_two_passes_and_nothing_to_claim_is_a_stalemate() -> None:
    state = position(empty_decks=True, claimed={1: "A", 2: "A", 4: "B"})
    state = play(state, "A: pass", "A: end")
    assert state.result is None
    state = play(state, "B: pass", "B: end")
    assert state.result is not None
    assert state.result.termination is Termination.STALEMATE and state.result.winner == "A"


def test_r22_equal_flags_is_a_draw() -> None:
    state = position(empty_decks=True, claimed={1: "A", 4: "B"})
    state = play(state, "A: pass", "A: end", "B: pass", "B: end")
    assert state.result is not None and state.result.winner is None


def test_r22_game_goes_on_while_a_claim_is_possible() -> None:
    state = position(empty_decks=True, claims="advanced", flags={5: {"B": WEDGE_8_9_10}})
    state = play(state, "A: pass", "A: end", "B: pass", "B: end")
    assert state.result is None
    assert "A: claim 5" not in moves_of(state)


def test_r23_series_points() -> None:
    state = position(
        claims="advanced",
        flags={3: {"A": WEDGE_8_9_10}},
        claimed={1: "A", 2: "A", 7: "B", 8: "B"},
        hands={"A": ["Y1"]},
    )
    assert series_points(play(state, "A: claim 3")) == {"A": 5, "B": 2}
    drawn = position(empty_decks=True, claimed={1: "A", 4: "B"})
    drawn = play(drawn, "A: pass", "A: end", "B: pass", "B: end")
    assert series_points(drawn) == {"A": 1, "B": 1}


# --- turn order, resignation, bad input -----------------------------------------------------------


def test_only_the_seat_to_move_plays() -> None:
    err = refused(position(hands={"A": ["R1"], "B": ["B1"]}), "B: B1>1")
    assert "A's turn" in str(err)


def test_card_not_in_hand_is_refused() -> None:
    assert "not in your hand" in str(refused(position(hands={"A": ["R1"]}), "A: R2>1"))


def test_full_side_is_refused() -> None:
    state = position(flags={1: {"A": ["R1", "R2", "R3"]}}, hands={"A": ["R4"]})
    assert "full" in str(refused(state, "A: R4>1"))


def test_either_seat_may_resign_at_any_time() -> None:
    state = position(hands={"A": ["R1"]})
    after, _ = apply(state, parse_move("B: resign", state.ruleset))
    assert after.result is not None and after.result.winner == "A"
    assert after.result.termination is Termination.RESIGNATION


def test_turn_started_event_names_the_next_seat() -> None:
    state = play(position(hands={"A": ["R1"]}), "A: R1>1")
    _, events = apply(state, parse_move("A: draw troops", state.ruleset))
    assert events == [TurnStarted("B", state.turn + 1)]


def test_new_game_from_seed_accounts_for_every_card() -> None:
    for name, rs in RULESETS.items():
        state = start(rs, ClaimTiming.ADVANCED, deal_from_seed(rs, name))
        assert sorted(all_cards(state)) == sorted(rs.all_cards)
        assert any(m.action is Action.PLAY for m in legal_moves(state))


def test_r5_automatic_claims_at_the_start_of_the_turn() -> None:
    state = position(
        claims="advanced",
        flags={1: {"A": WEDGE_8_9_10}, 4: {"A": ["G8", "G9", "G10"]}, 6: {"A": ["Y1", "Y2"]}},
        hands={"A": ["P1"]},
    )
    assert [str(m) for m in automatic_claims(state)] == ["A: claim 1", "A: claim 4"]
    assert automatic_claims(play(state, "A: P1>9")) == []
    assert automatic_claims(state.evolve(claims=ClaimTiming.STANDARD)) == []
