"""Three players (V6): one named test or more for each of V6.1-V6.8, the two-player rules
they reuse on the ring (R13, R20), the views, and whole random games in both three-player
rulesets under both claim timings."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    RULESETS,
    ClaimStatus,
    ClaimTiming,
    EngineError,
    GameEnded,
    GameRecord,
    IllegalMoveError,
    Outcome,
    Phase,
    Termination,
    TurnStarted,
    apply,
    automatic_claims,
    claim_proof_views,
    claim_proofs,
    deal,
    deal_from_seed,
    describe_cut,
    flags_held,
    get_ruleset,
    legal_moves,
    parse_move,
    player_view,
    replay,
    replay_states,
    series_points,
    spectator_view,
    start,
    state_from_json,
    state_to_json,
)
from engine.claims import claim_proof
from tests.engine.builders import all_cards, moves_of, play, position
from tests.engine.test_games import _candidate_moves, random_game, strings_in
from tests.engine.test_views import is_json

THREE = ("battleline-3p", "no-tactics-3p")
WEDGE_8_9_10 = ["R8", "R9", "R10"]
A_FLAGS, B_FLAGS, C_FLAGS = [1, 2, 3, 7, 8, 9], [1, 2, 3, 4, 5, 6], [4, 5, 6, 7, 8, 9]

three_rulesets = st.sampled_from(THREE)
claim_timings = st.sampled_from([ClaimTiming.STANDARD, ClaimTiming.ADVANCED])


def three(**kwargs: object):
    """A three-player position (``builders.position`` with ``battleline-3p``)."""
    return position(ruleset="battleline-3p", **kwargs)  # type: ignore[arg-type]


def refused(state, move: str, rule: str = "") -> IllegalMoveError:
    """Apply must refuse the move, name the rule, leave the state as it was, and legal_moves
    must not list it."""
    before = state
    with pytest.raises(IllegalMoveError) as caught:
        apply(state, parse_move(move, state.ruleset))
    assert state == before
    if rule:
        assert caught.value.rule == rule, str(caught.value)
    assert move not in moves_of(state)
    return caught.value


def flags_of(moves: list[str], prefix: str) -> list[int]:
    """The target flags of the moves that start with ``prefix`` (``"A: R1>"``)."""
    return [int(m.rsplit(">", 1)[1]) for m in moves if m.startswith(prefix)]


# --- the rulesets ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "hand", "cards"), [(THREE[0], 7, 70), (THREE[1], 6, 60)])
def test_v6_rulesets_hand_size_deck_and_targets(name: str, hand: int, cards: int) -> None:
    rs = get_ruleset(name)
    assert (rs.players, rs.seats, rs.flags, rs.hand_size) == (3, ("A", "B", "C"), 9, hand)
    assert len(rs.all_cards) == cards and rs.tactics is (cards == 70)
    assert (rs.flags_to_win, rs.adjacent_to_win, rs.ring) == (4, 3, True)
    assert rs.default_claims is ClaimTiming.ADVANCED


# --- V6.1: seats, order, cut and deal -------------------------------------------------------------


def test_v6_1_seats_play_in_turn_order_a_b_c() -> None:
    state = three(hands={"A": ["R1"], "B": ["B1"], "C": ["G1"]})
    seen = []
    for move in ("A: R1>1", "A: draw troops", "B: B1>4", "B: draw troops", "C: G1>7"):
        state, events = apply(state, parse_move(move, state.ruleset))
        seen += [e.seat for e in events if isinstance(e, TurnStarted)]
    state = play(state, "C: draw troops")
    assert seen == ["B", "C"] and state.to_move == "A"
    refused(three(hands={"A": ["R1"], "C": ["G1"]}), "C: G1>7")


def test_v6_1_cut_by_all_three_only_the_tied_highest_cut_again() -> None:
    rs = get_ruleset("battleline-3p")
    recut_by_two = False
    for seed in range(400):
        dealt = deal_from_seed(rs, str(seed))
        assert None not in dealt.cuts[0], "all three cut first"
        for cut, again in zip(dealt.cuts, dealt.cuts[1:], strict=False):
            values = {i: int(c[1:]) for i, c in enumerate(cut) if c is not None}
            top = max(values.values())
            tied = {i for i, v in values.items() if v == top}
            assert len(tied) > 1, "only equal highest values cut again"
            assert {i for i, c in enumerate(again) if c is not None} == tied
            recut_by_two = recut_by_two or len(tied) == 2
        last = {i: int(c[1:]) for i, c in enumerate(dealt.cuts[-1]) if c is not None}
        dealer = max(last, key=last.__getitem__)
        assert list(last.values()).count(last[dealer]) == 1
        # the highest deals, the next seat after the dealer plays first
        assert dealt.first == rs.seats[(dealer + 1) % 3]
        assert dealt.describe_cut().endswith(f"{rs.seats[dealer]} deals, {dealt.first} plays first")
    assert recut_by_two, "a re-cut between two of the three happens"


def test_v6_1_cut_words_name_only_the_seats_that_cut() -> None:
    rs = get_ruleset("battleline-3p")
    dealt = next(d for d in (deal_from_seed(rs, str(s)) for s in range(400)) if None in d.cuts[-1])
    words = dealt.describe_cut().split(": ")[0].split("; ")
    for cut, text in zip(dealt.cuts, words, strict=True):
        assert text == ", ".join(
            f"{s} cut {c}" for s, c in zip("ABC", cut, strict=True) if c is not None
        )


@pytest.mark.parametrize("name", ["battleline", "battleline-3p"])
def test_r2_cut_words_from_a_records_stored_fields(name: str) -> None:
    # Pages say the cut from the record's "first" and "cuts" alone, never reading the deck.
    rs = get_ruleset(name)
    for dealt in [deal_from_seed(rs, str(seed)) for seed in range(60)] + [
        deal(rs, random.Random(1), first="B")
    ]:
        data = GameRecord(rs, ClaimTiming.ADVANCED, dealt, ()).to_json()
        words = describe_cut(data["first"], data.get("cuts", []), len(rs.seats))
        assert words == dealt.describe_cut()
    assert describe_cut("B", [], 2) == "B plays first (winner of the previous game)"
    assert describe_cut("A", [["R3", "Y7"]], 2) == "A cut R3, B cut Y7: B deals, A plays first"


@pytest.mark.parametrize("name", THREE)
def test_v6_1_deal_one_card_at_a_time_from_the_first_seat(name: str) -> None:
    rs = get_ruleset(name)
    dealt = deal(rs, random.Random(5), first="B")
    assert dealt.cuts == () and dealt.first == "B"
    shuffled = list(rs.troops)
    random.Random(5).shuffle(shuffled)
    size = rs.hand_size
    b, c, a = (tuple(shuffled[k : 3 * size : 3]) for k in range(3))
    assert dealt.hands == (a, b, c)
    assert dealt.troops == tuple(shuffled[3 * size :])
    assert len(dealt.troops) == 60 - 3 * size and len(dealt.tactics) == len(rs.tactics_cards)
    cards = [*dealt.hands[0], *dealt.hands[1], *dealt.hands[2], *dealt.troops, *dealt.tactics]
    assert sorted(cards) == sorted(rs.all_cards)


def test_v6_1_one_troop_deck_and_one_tactics_deck_shared() -> None:
    state = three(hands={"A": ["R1"], "B": ["B1"]}, troop_top=["G5", "G6"], tactics_top=["FOG"])
    state = play(state, "A: R1>1", "A: draw troops", "B: B1>4", "B: draw troops")
    assert state.hands[0] == ("G5",) and state.hands[1] == ("G6",)
    assert spectator_view(state).decks == {"troops": 60 - 4, "tactics": 10}


@pytest.mark.parametrize("first", ["A", "B", "C"])
def test_v6_1_a_record_has_a_c_hand_and_any_seat_first(first: str) -> None:
    rs = get_ruleset("battleline-3p")
    dealt = deal_from_seed(rs, "record", first=first)
    record = GameRecord(rs, ClaimTiming.ADVANCED, dealt, ())
    data = record.to_json()
    assert list(data["deal"]) == ["A", "B", "C", "troops", "tactics"]
    assert data["first"] == first and data["deal"]["C"] == list(dealt.hands[2])
    again = GameRecord.from_json(json.loads(json.dumps(data)))
    assert again == record and replay(again).to_move == first
    bad = {**data, "first": "D"}
    with pytest.raises(EngineError, match="first must be 'A', 'B' or 'C', not 'D'"):
        GameRecord.from_json(bad)
    no_c = {**data, "deal": {k: v for k, v in data["deal"].items() if k != "C"}}
    with pytest.raises(EngineError, match=r"deal\.C must be a list"):
        GameRecord.from_json(no_c)


def test_v6_1_recorded_cuts_keep_null_for_seats_that_sat_out() -> None:
    rs = get_ruleset("battleline-3p")
    dealt = next(d for d in (deal_from_seed(rs, str(s)) for s in range(400)) if None in d.cuts[-1])
    data = GameRecord(rs, ClaimTiming.ADVANCED, dealt, ()).to_json()
    assert None in data["cuts"][-1] and all(len(cut) == 3 for cut in data["cuts"])
    again = GameRecord.from_json(json.loads(json.dumps(data)))
    assert again.deal.cuts == dealt.cuts
    assert again.deal.describe_cut() == dealt.describe_cut()


# --- V6.2: the ring of flags ----------------------------------------------------------------------


def test_v6_2_each_flag_has_its_pair_around_the_ring() -> None:
    rs = get_ruleset("battleline-3p")
    pairs = [rs.flag_seats(i) for i in range(9)]
    assert pairs == [("A", "B")] * 3 + [("B", "C")] * 3 + [("C", "A")] * 3
    for seat, own in zip("ABC", (A_FLAGS, B_FLAGS, C_FLAGS), strict=True):
        assert [i + 1 for i, _ in rs.seat_flags["ABC".index(seat)]] == own
    state = three(flags={8: {"C": ["G5"], "A": ["R5", "R6"]}})
    eight = spectator_view(state).flags[7]
    assert eight.seats == ("C", "A") and dict(eight.cards) == {"C": ("G5",), "A": ("R5", "R6")}
    assert state.flags[7].cards == (("G5",), ("R5", "R6")), "sides in the pair's order"
    assert spectator_view(state).seats == ("A", "B", "C")


@pytest.mark.parametrize(("seat", "own"), [("A", A_FLAGS), ("B", B_FLAGS), ("C", C_FLAGS)])
def test_v6_2_each_seat_plays_only_at_its_six_flags(seat: str, own: list[int]) -> None:
    state = three(hands={seat: ["Y5"]}, to_move=seat)
    assert flags_of(moves_of(state), f"{seat}: Y5>") == own
    stranger = next(f for f in range(1, 10) if f not in own)
    err = refused(state, f"{seat}: Y5>{stranger}", "V6.2")
    assert "only at your own flags" in str(err)


def test_v6_2_claims_only_at_your_own_flags() -> None:
    state = three(
        claims="advanced",
        flags={5: {"B": WEDGE_8_9_10}, 8: {"A": ["G8", "G9", "G10"]}},
        hands={"A": ["Y1"]},
    )
    assert [str(m) for m in automatic_claims(state)] == ["A: claim 8"]
    refused(state, "A: claim 5", "V6.2")
    assert claim_proof(state, 0, 4).status is ClaimStatus.NOT_YOURS
    assert sorted(claim_proofs(state, "A")) == A_FLAGS
    assert [p.flag for p in claim_proof_views(state, "A")] == A_FLAGS
    assert {p.flag: p.opponent for p in claim_proof_views(state, "C")} == {
        4: "B",
        5: "B",
        6: "B",
        7: "A",
        8: "A",
        9: "A",
    }
    b_turn = state.evolve(mover=1)
    assert [str(m) for m in automatic_claims(b_turn)] == ["B: claim 5"]


def test_v6_2_a_flag_is_decided_between_its_pair() -> None:
    # C's Phalanx of 9s against B's Wedge at flag 5: B wins it; A's cards elsewhere do not count
    state = three(
        claims="advanced",
        flags={5: {"B": ["Y5", "Y6", "Y7"], "C": ["G9", "P9", "B9"]}, 8: {"A": ["R9"]}},
        hands={"B": ["Y1"], "C": ["G1"]},
        to_move="C",
    )
    assert "C: claim 5" not in moves_of(state)
    proof = claim_proof(state, 2, 4)
    assert proof.status is ClaimStatus.BEATABLE and "Wedge 18" in proof.reason
    assert "B: claim 5" in moves_of(state.evolve(mover=1))


# --- V6.3: reach of tactics -----------------------------------------------------------------------


def test_v6_3_fog_and_mud_only_at_your_own_flags() -> None:
    state = three(hands={"A": ["FOG", "MUD"]})
    assert flags_of(moves_of(state), "A: FOG>") == A_FLAGS
    refused(state, "A: MUD>5", "V6.3")
    after = play(state, "A: FOG>8")
    assert spectator_view(after).flags[7].env[0].seat == "A"


def test_v6_3_deserter_takes_from_the_other_seat_of_your_flag() -> None:
    state = three(
        flags={
            2: {"A": ["R5"], "B": ["B5"]},
            5: {"B": ["B6"], "C": ["G6"], "env": ["MUD:C"]},
            8: {"C": ["G5", "SHIELD"], "A": ["R6"], "env": ["FOG:C"]},
        },
        hands={"A": ["DESERTER"]},
        tactics_played=(0, 1, 2),
    )
    deserters = {m for m in moves_of(state) if "DESERTER" in m}
    assert deserters == {
        "A: DESERTER B5@2",
        "A: DESERTER G5@8",
        "A: DESERTER SHIELD@8",
        "A: DESERTER FOG@8",
    }
    refused(state, "A: DESERTER G6@5", "V6.3")
    refused(state, "A: DESERTER MUD@5", "V6.3")
    refused(state, "A: DESERTER R6@8")
    after = play(state, "A: DESERTER G5@8")
    assert after.discards == (("DESERTER",), (), ("G5",))
    assert after.flags[7].cards == (("SHIELD",), ("R6",))


def test_v6_3_traitor_takes_from_your_flag_and_places_on_your_flag() -> None:
    state = three(
        flags={5: {"B": ["B6"], "C": ["G6"]}, 8: {"C": ["G5"]}},
        hands={"A": ["TRAITOR"]},
    )
    traitors = {m for m in moves_of(state) if "TRAITOR" in m}
    assert traitors == {f"A: TRAITOR G5@8>{f}" for f in A_FLAGS}
    refused(state, "A: TRAITOR G6@5>1", "V6.3")
    refused(state, "A: TRAITOR G5@8>4", "V6.3")
    after = play(state, "A: TRAITOR G5@8>1")
    assert after.flags[0].cards == (("G5",), ()) and after.flags[7].cards == ((), ())


def test_v6_3_redeploy_places_only_on_your_flags() -> None:
    state = three(flags={8: {"A": ["R5"]}}, hands={"A": ["REDEPLOY"]})
    redeploys = {m for m in moves_of(state) if "REDEPLOY" in m}
    assert redeploys == {f"A: REDEPLOY R5@8>{f}" for f in [1, 2, 3, 7, 9]} | {
        "A: REDEPLOY R5@8>discard"
    }
    refused(state, "A: REDEPLOY R5@8>4", "V6.3")
    after = play(state, "A: REDEPLOY R5@8>2")
    assert after.flags[1].cards == (("R5",), ()) and after.flags[7].cards == ((), ())


# --- V6.4: tactics limit --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("played", "allowed"),
    [
        ((1, 2, 0), False),
        ((1, 0, 2), False),
        ((1, 1, 2), True),
        ((1, 1, 1), True),
        ((0, 3, 0), True),
    ],
)
def test_v6_4_tactics_limit_against_the_fewer_of_two_opponents(
    played: tuple[int, int, int], allowed: bool
) -> None:
    state = three(hands={"A": ["FOG", "R1"]}, tactics_played=played)
    if allowed:
        assert "A: FOG>1" in moves_of(state)
    else:
        assert "either opponent" in str(refused(state, "A: FOG>1", "V6.4"))


def test_v6_4_one_leader_per_seat() -> None:
    state = three(
        flags={1: {"A": ["ALEXANDER"]}},
        hands={"A": ["R1"], "B": ["DARIUS", "B1"]},
        tactics_played=(1, 0, 0),
        leader_played=(True, False, False),
        to_move="B",
    )
    assert "B: DARIUS>1" in moves_of(state)
    a_turn = three(hands={"A": ["DARIUS", "R1"]}, leader_played=(True, False, False))
    refused(a_turn, "A: DARIUS>1", "R9")


# --- V6.5: victory --------------------------------------------------------------------------------


def claim_to_end(seat: str, flag: int, held: dict[int, str]):
    """``seat`` claims ``flag`` (a Wedge 8-9-10 against nothing) holding ``held`` already."""
    state = three(
        claims="advanced",
        flags={flag: {seat: WEDGE_8_9_10}},
        claimed=held,
        hands={seat: ["Y1"]},
        to_move=seat,
    )
    return play(state, f"{seat}: claim {flag}")


@pytest.mark.parametrize(
    ("seat", "flag", "held"),
    [
        ("A", 3, {1: "A", 2: "A"}),
        ("B", 6, {4: "B", 5: "B"}),
        ("A", 1, {8: "A", 9: "A"}),  # A's corner: 9 and 1 meet
        ("A", 1, {9: "A", 2: "A"}),
        ("B", 4, {2: "B", 3: "B"}),  # B's corner: 3 and 4 meet
        ("C", 7, {5: "C", 6: "C"}),  # C's corner: 6 and 7 meet
        ("C", 5, {4: "C", 6: "C"}),
    ],
)
def test_v6_5_three_adjacent_flags_around_the_ring_win(
    seat: str, flag: int, held: dict[int, str]
) -> None:
    after = claim_to_end(seat, flag, held)
    assert after.result == Outcome(seat, Termination.BREAKTHROUGH)
    assert legal_moves(after) == []


def test_v6_5_any_four_flags_win() -> None:
    # 9 and 1 meet at A's corner, but no three of 1, 3, 7, 9 are adjacent
    after = claim_to_end("A", 9, {1: "A", 3: "A", 7: "A", 5: "B"})
    assert after.result == Outcome("A", Termination.ENVELOPMENT)


@pytest.mark.parametrize(
    ("seat", "flag", "held"),
    [("A", 8, {1: "A", 3: "A"}), ("B", 6, {1: "B", 3: "B"}), ("C", 9, {4: "C", 6: "C"})],
)
def test_v6_5_three_flags_not_adjacent_do_not_win(
    seat: str, flag: int, held: dict[int, str]
) -> None:
    after = claim_to_end(seat, flag, held)
    assert after.result is None and flags_held(after)[seat] == 3


# --- V6.6: ties -----------------------------------------------------------------------------------


def test_v6_6_all_nine_flags_held_is_a_three_way_draw() -> None:
    held = {1: "A", 3: "A", 8: "A", 2: "B", 4: "B", 6: "B", 5: "C", 7: "C"}
    state = three(
        claims="advanced",
        flags={9: {"C": ["G8", "G9", "G10"]}},
        claimed=held,
        hands={"C": ["Y1"]},
        to_move="C",
    )
    after, events = apply(state, parse_move("C: claim 9", state.ruleset))
    expected = Outcome(None, Termination.STALEMATE, ("A", "B", "C"))
    assert after.result == expected and events[-1] == GameEnded(expected)
    seen = spectator_view(after)
    assert seen.winner is None and seen.draw_between == ("A", "B", "C")
    assert seen.flags_held == {"A": 3, "B": 3, "C": 3}
    assert str(after.result) == "draw between A and B and C (stalemate)"


def test_v6_6_three_passes_in_succession_end_the_game() -> None:
    state = three(empty_decks=True, claimed={1: "A", 2: "A", 4: "B"})
    state = play(state, "A: pass", "A: end", "B: pass", "B: end")
    assert state.result is None, "two passes are not yet every seat"
    state = play(state, "C: pass", "C: end")
    assert state.result == Outcome("A", Termination.STALEMATE)


def test_v6_6_a_turn_without_a_pass_starts_the_count_again() -> None:
    state = three(empty_decks=True, hands={"B": ["B1"]})
    state = play(state, "A: pass", "A: end", "B: B1>4", "B: end", "C: pass", "C: end")
    state = play(state, "A: pass", "A: end")
    assert state.result is None
    state = play(state, "B: pass", "B: end")
    assert state.result == Outcome(None, Termination.STALEMATE, ("A", "B", "C"))


def test_v6_6_seats_level_on_the_most_share_a_draw() -> None:
    state = three(empty_decks=True, claimed={1: "A", 4: "B"})
    state = play(state, "A: pass", "A: end", "B: pass", "B: end", "C: pass", "C: end")
    assert state.result == Outcome(None, Termination.STALEMATE, ("A", "B"))
    assert spectator_view(state).draw_between == ("A", "B")
    assert series_points(state) == {"A": 1, "B": 1, "C": 0}


def test_v6_6_the_game_goes_on_while_a_claim_is_possible() -> None:
    state = three(empty_decks=True, claims="advanced", flags={5: {"B": WEDGE_8_9_10}})
    state = play(state, "A: pass", "A: end", "B: pass", "B: end", "C: pass", "C: end")
    assert state.result is None
    state = play(state, "A: pass", "A: end")
    assert moves_of(state)[0] == "B: claim 5"


# --- V6.7: leaving --------------------------------------------------------------------------------


def test_v6_7_resignation_the_other_seat_with_more_flags_wins() -> None:
    state = three(hands={"A": ["R1"]}, claimed={1: "A", 2: "A", 5: "B", 4: "B", 7: "C"})
    after, events = apply(state, parse_move("A: resign", state.ruleset))
    assert after.result == Outcome("B", Termination.RESIGNATION)
    assert events == [GameEnded(after.result)] and legal_moves(after) == []


def test_v6_7_level_is_a_draw_between_the_other_two() -> None:
    state = three(hands={"A": ["R1"]}, claimed={1: "A", 2: "A", 3: "A", 5: "B", 7: "C"})
    after = play(state, "A: resign")
    assert after.result == Outcome(None, Termination.RESIGNATION, ("B", "C"))
    seen = player_view(after, "B")
    assert seen.winner is None and seen.draw_between == ("B", "C")
    assert str(after.result) == "draw between B and C (resignation)"
    assert series_points(after) == {"A": 3, "B": 1, "C": 1}


def test_v6_7_a_loss_on_time_and_any_seat_at_any_moment() -> None:
    state = three(hands={"A": ["R1"]}, claimed={9: "C"})
    after = play(state, "B: timeout")
    assert after.result == Outcome("C", Termination.TIME)
    quitter = play(state, "C: resign")
    assert quitter.result == Outcome(None, Termination.RESIGNATION, ("A", "B"))
    with pytest.raises(IllegalMoveError, match="draw between A and B"):
        play(quitter, "A: resign")


# --- V6.8: series ---------------------------------------------------------------------------------


def test_v6_8_series_points() -> None:
    won = claim_to_end("A", 3, {1: "A", 2: "A", 4: "B", 7: "C", 9: "C"})
    assert series_points(won) == {"A": 5, "B": 1, "C": 2}
    drawn = three(empty_decks=True, claimed={1: "A", 5: "B", 6: "B", 7: "C", 8: "C"})
    drawn = play(drawn, "A: pass", "A: end", "B: pass", "B: end", "C: pass", "C: end")
    assert series_points(drawn) == {"A": 1, "B": 2, "C": 2}


# --- the two-player rulings on the ring -----------------------------------------------------------


def test_v6_r13_both_other_hands_and_the_decks_are_unseen() -> None:
    # B9 and B10 lie in C's hand: they count as still available to B at flag 1
    state = three(
        claims="advanced",
        flags={1: {"A": ["R4", "R5", "R3"], "B": ["B8"]}},
        hands={"A": ["G1"], "C": ["B9", "B10"]},
        discards={"B": ["B7"]},
    )
    err = refused(state, "A: claim 1", "R13")
    assert "B8 B9 B10 (Wedge 27) would beat Wedge 12" in str(err)


def test_v6_r13_cards_on_the_row_of_the_other_two_are_seen() -> None:
    state = three(
        claims="advanced",
        flags={1: {"A": ["R4", "R5", "R3"], "B": ["B8"]}, 5: {"C": ["B10"]}},
        hands={"A": ["G1"]},
        discards={"C": ["B7"]},
    )
    assert "A: claim 1" in moves_of(state)


def test_v6_r12_ties_go_against_who_completed_last_at_the_corner() -> None:
    flags = {8: {"C": ["Y7", "B2", "G1"], "A": ["Y3", "B3", "G4"]}}  # A completed last
    state = three(claims="advanced", flags=flags, hands={"A": ["R1"], "C": ["R2"]}, to_move="C")
    assert "C: claim 8" in moves_of(state)
    assert "completed last" in str(refused(state.evolve(mover=0), "A: claim 8", "R13"))


def test_v6_r20_other_seat_discards_at_its_own_next_turn() -> None:
    state = three(
        claims="advanced",
        flags={8: {"C": ["G1", "G2", "G3", "G4"], "A": ["R1", "R2", "R3", "R4"], "env": ["MUD:C"]}},
        hands={"A": ["DESERTER", "Y9"], "B": ["B1"], "C": ["P1"]},
        tactics_played=(1, 1, 1),
    )
    state = play(state, "A: DESERTER MUD@8")
    assert state.phase is Phase.MUD_DISCARD
    assert state.pending_discards == ((0, 7), (2, 7))
    state = play(state, "A: discard R1@8", "A: draw troops")
    assert state.phase is Phase.START and state.to_move == "B", "B owes nothing"
    assert claim_proof(state, 2, 7).status is ClaimStatus.DISCARD_DUE
    state = play(state, "B: B1>4", "B: draw troops")
    assert state.phase is Phase.MUD_DISCARD and state.to_move == "C"
    assert set(moves_of(state)) == {f"C: discard G{v}@8" for v in (1, 2, 3, 4)}
    refused(state, "C: P1>9")
    state = play(state, "C: discard G4@8")
    assert state.phase is Phase.START
    assert state.discards == (("DESERTER", "R1"), (), ("MUD", "G4"))


def test_v6_r6_pass_when_your_own_flags_are_full() -> None:
    troops = get_ruleset("battleline-3p").troops
    flags = {n: {"A": list(troops[3 * i : 3 * i + 3])} for i, n in enumerate(A_FLAGS)}
    state = three(flags=flags, hands={"A": ["Y9"]})
    assert moves_of(state) == ["A: pass"], "flags 4-6 have room, but they are not A's"


# --- views ----------------------------------------------------------------------------------------


def test_v6_player_view_shows_only_its_own_hand_and_both_opponents() -> None:
    state = three(hands={"A": ["R1", "FOG"], "B": ["B2"], "C": ["G3", "G4"]})
    a, b, c = (player_view(state, s) for s in "ABC")
    assert (a.hand, a.opponents) == (("R1", "FOG"), ("B", "C"))
    assert (b.hand, b.opponents) == (("B2",), ("C", "A"))
    assert (c.hand, c.opponents) == (("G3", "G4"), ("A", "B"))
    assert a.hand_sizes == {"A": 2, "B": 1, "C": 2}
    for seen, others in ((a, {"B2", "G3", "G4"}), (b, {"R1", "G3", "G4"}), (c, {"R1", "B2"})):
        data = seen.to_json()
        assert is_json(data) and not strings_in(data) & others
        assert data["opponents"] == list(seen.opponents)
        assert [f["seats"] for f in data["flags"]] == [["A", "B"]] * 3 + [["B", "C"]] * 3 + [
            ["C", "A"]
        ] * 3
    with pytest.raises(ValueError):
        player_view(state, "D")


def test_v6_views_count_every_seat() -> None:
    state = three(
        claimed={1: "A", 5: "C"},
        discards={"C": ["SCOUT"]},
        tactics_played=(0, 0, 1),
        hands={"C": ["R1"]},
    )
    seen = spectator_view(state)
    assert seen.flags_held == {"A": 1, "B": 0, "C": 1} == flags_held(state)
    assert seen.tactics_played == {"A": 0, "B": 0, "C": 1}
    assert seen.discards["C"] == ("SCOUT",) and seen.hands is None
    over = spectator_view(play(state, "B: resign"))
    assert over.hands is not None and set(over.hands) == {"A", "B", "C"}


def test_v6_snapshots_round_trip_and_two_player_snapshots_keep_their_keys() -> None:
    drawn = play(three(hands={"A": ["R1"]}, claimed={1: "A", 7: "C"}), "B: resign")
    data = state_to_json(drawn)
    assert data["result"]["draw_between"] == ["A", "C"] and "previous_passes" in data
    assert state_from_json(json.loads(json.dumps(data))) == drawn
    two = play(position(hands={"A": ["R1"]}), "A: resign")
    two_data = state_to_json(two)
    assert "previous_passes" not in two_data
    assert two_data["result"] == {"winner": "B", "termination": "resignation"}
    stalemate = play(
        position(empty_decks=True, claimed={1: "A", 4: "B"}), "A: pass", "A: end", "B: pass"
    )
    stalemate = play(stalemate, "B: end")
    assert state_to_json(stalemate)["result"] == {"winner": None, "termination": "stalemate"}
    assert state_from_json(state_to_json(stalemate)).result == Outcome(
        None, Termination.STALEMATE, ("A", "B")
    )


# --- whole games: hypothesis picks the deals and moves ------------------------------------------


@settings(max_examples=20, deadline=None)
@given(ruleset=three_rulesets, claims=claim_timings, seed=st.integers(0, 10**9))
def test_v6_playouts_account_for_every_card(ruleset: str, claims: ClaimTiming, seed: int) -> None:
    expected = sorted(RULESETS[ruleset].all_cards)
    assert len(expected) == (70 if ruleset == "battleline-3p" else 60)
    for _, _, after in random_game(ruleset, claims, seed):
        assert sorted(all_cards(after)) == expected
        assert len(after.hands) == len(after.discards) == len(after.tactics_played) == 3


@settings(max_examples=20, deadline=None)
@given(ruleset=three_rulesets, claims=claim_timings, seed=st.integers(0, 10**9))
def test_v6_playouts_apply_accepts_exactly_the_legal_moves(
    ruleset: str, claims: ClaimTiming, seed: int
) -> None:
    rs = RULESETS[ruleset]
    rng = random.Random(seed)
    universe = _candidate_moves(rs)
    for before, _, _ in random_game(ruleset, claims, seed):
        legal = set(legal_moves(before))
        for text in rng.sample(universe, 20):
            seat = before.to_move if rng.random() < 0.9 else rng.choice(rs.seats)
            move = parse_move(f"{seat}: {text}", rs)
            try:
                apply(before, move)
                accepted = True
            except EngineError:
                accepted = False
            assert accepted == (move in legal), f"{move} accepted={accepted} at {before.phase}"


@settings(max_examples=20, deadline=None)
@given(ruleset=three_rulesets, claims=claim_timings, seed=st.integers(0, 10**9))
def test_v6_playouts_no_player_view_shows_another_seats_hand(
    ruleset: str, claims: ClaimTiming, seed: int
) -> None:
    for _, _, after in random_game(ruleset, claims, seed):
        decks = set(after.troop_deck) | set(after.tactics_deck)
        for i, seat in enumerate(after.ruleset.seats):
            strings = strings_in(player_view(after, seat).to_json())
            assert not strings & decks, f"{seat} sees a deck"
            if after.result is None:
                others = {c for j, hand in enumerate(after.hands) if j != i for c in hand}
                assert not strings & others, f"{seat} sees another hand"
        if after.result is None:
            public = strings_in(spectator_view(after).to_json())
            assert not public & ({c for h in after.hands for c in h} | decks)


@settings(max_examples=20, deadline=None)
@given(ruleset=three_rulesets, claims=claim_timings, seed=st.integers(0, 10**9))
def test_v6_playouts_records_replay_exactly(ruleset: str, claims: ClaimTiming, seed: int) -> None:
    rs = RULESETS[ruleset]
    game = list(random_game(ruleset, claims, seed))
    states = [after for _, _, after in game]
    record = GameRecord(
        rs, claims, deal_from_seed(rs, str(seed)), tuple(str(m) for _, m, _ in game)
    )
    again = GameRecord.from_json(json.loads(json.dumps(record.to_json())))
    assert list(replay_states(again))[1:] == states
    final = states[-1]
    assert final.result is not None
    assert state_from_json(json.loads(json.dumps(state_to_json(final)))) == final
    if final.result.winner is None:
        assert len(final.result.draw_between) >= 2
    for s in states[:: max(1, len(states) // 10)]:
        assert state_from_json(json.loads(json.dumps(state_to_json(s)))) == s


def test_v6_start_of_a_fresh_game() -> None:
    for name in THREE:
        rs = RULESETS[name]
        state = start(rs, ClaimTiming.ADVANCED, deal_from_seed(rs, name))
        assert sorted(all_cards(state)) == sorted(rs.all_cards)
        assert [len(h) for h in state.hands] == [rs.hand_size] * 3
        own = {"A": A_FLAGS, "B": B_FLAGS, "C": C_FLAGS}[state.to_move]
        assert {m.flag for m in legal_moves(state)} == set(own)
