"""Invariants over whole random games in every variant (hypothesis picks the deals and moves)."""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    RULESETS,
    Action,
    ClaimTiming,
    EngineError,
    GameRecord,
    GameState,
    Move,
    apply,
    claim_proofs,
    deal_from_seed,
    legal_moves,
    parse_move,
    player_view,
    public_view,
    replay,
    replay_states,
    start,
    state_from_json,
    state_to_json,
)
from tests.engine.builders import all_cards

rulesets = st.sampled_from(sorted(RULESETS))
claim_timings = st.sampled_from([ClaimTiming.STANDARD, ClaimTiming.ADVANCED])


def random_game(
    ruleset: str, claims: ClaimTiming, seed: int
) -> Iterator[tuple[GameState, Move | None, GameState]]:
    """A random game to its end: yields (before, move, after). The mover claims whenever it can
    (so games end) and otherwise picks any legal move."""
    rs = RULESETS[ruleset]
    state = start(rs, claims, deal_from_seed(rs, str(seed)))
    rng = random.Random(seed)
    while state.result is None:
        moves = legal_moves(state)
        assert moves, f"no legal move in a running game: {state}"
        claims_now = [m for m in moves if m.action is Action.CLAIM]
        move = claims_now[0] if claims_now else rng.choice(moves)
        after, _ = apply(state, move)
        yield state, move, after
        state = after
        assert state.ply < 2000, "a random game should end"


def strings_in(value: Any) -> set[str]:
    """Every string anywhere inside a JSON-like value (keys included)."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return (
            set().union(*(strings_in(k) | strings_in(v) for k, v in value.items()))
            if value
            else set()
        )
    if isinstance(value, list | tuple):
        return set().union(*(strings_in(v) for v in value)) if value else set()
    return set()


@settings(max_examples=40, deadline=None)
@given(ruleset=rulesets, claims=claim_timings, seed=st.integers(0, 10**9))
def test_every_card_is_always_accounted_for(ruleset: str, claims: ClaimTiming, seed: int) -> None:
    expected = sorted(RULESETS[ruleset].all_cards)
    for _, _, after in random_game(ruleset, claims, seed):
        assert sorted(all_cards(after)) == expected


@settings(max_examples=30, deadline=None)
@given(ruleset=rulesets, claims=claim_timings, seed=st.integers(0, 10**9))
def test_the_proofs_a_state_keeps_are_its_own(ruleset: str, claims: ClaimTiming, seed: int) -> None:
    """A state keeps the claim proofs worked out from it (its legal moves prove its flags); the
    state a move makes from it starts without them: every proof asked of either equals the proof
    of a fresh copy made by the constructor."""
    for before, _, after in random_game(ruleset, claims, seed):
        for state in (before, after):
            fresh = dataclasses.replace(state)
            for seat in state.ruleset.seats:
                assert claim_proofs(state, seat) == claim_proofs(fresh, seat)


@settings(max_examples=40, deadline=None)
@given(ruleset=rulesets, claims=claim_timings, seed=st.integers(0, 10**9))
def test_no_view_shows_a_hidden_card(ruleset: str, claims: ClaimTiming, seed: int) -> None:
    for _, _, after in random_game(ruleset, claims, seed):
        decks = set(after.troop_deck) | set(after.tactics_deck)
        for i, seat in enumerate(after.ruleset.seats):
            seen = strings_in(player_view(after, seat).to_json())
            other_hands = {c for j, hand in enumerate(after.hands) if j != i for c in hand}
            if after.result is None:  # at the end every hand is shown, by design
                assert not seen & other_hands, f"{seat} sees another hand"
            assert not seen & decks, f"{seat} sees the decks"
            json.dumps(player_view(after, seat).to_json())
        public = strings_in(public_view(after))
        assert not public & decks
        if after.result is None:
            assert not public & {c for hand in after.hands for c in hand}


@settings(max_examples=40, deadline=None)
@given(ruleset=rulesets, claims=claim_timings, seed=st.integers(0, 10**9))
def test_apply_accepts_exactly_the_legal_moves(
    ruleset: str, claims: ClaimTiming, seed: int
) -> None:
    rs = RULESETS[ruleset]
    rng = random.Random(seed)
    universe = _candidate_moves(rs)
    for before, _, _ in random_game(ruleset, claims, seed):
        legal = set(legal_moves(before))
        for text in rng.sample(universe, 25):
            move = parse_move(f"{before.to_move}: {text}", rs)
            try:
                apply(before, move)
                accepted = True
            except EngineError:
                accepted = False
            assert accepted == (move in legal), f"{move} accepted={accepted} at {before.phase}"


def _candidate_moves(rs: Any) -> list[str]:
    texts = ["pass", "end", "draw troops", "draw tactics", "return"] + (
        ["SCOUT"] if rs.tactics else []
    )
    texts += [f"claim {f}" for f in range(1, rs.flags + 1)]
    for card in [*rs.troops, *rs.tactics_cards]:
        if card not in ("SCOUT", "REDEPLOY", "DESERTER", "TRAITOR"):
            texts += [f"{card}>{f}" for f in range(1, rs.flags + 1)]
        texts += [f"discard {card}@{f}" for f in range(1, rs.flags + 1)]
        if rs.tactics:
            texts += [f"DESERTER {card}@{f}" for f in range(1, rs.flags + 1)]
            texts += [f"REDEPLOY {card}@{f}>discard" for f in range(1, rs.flags + 1)]
            texts += [f"TRAITOR {card}@{f}>{(f % rs.flags) + 1}" for f in range(1, rs.flags + 1)]
    return texts


@settings(max_examples=40, deadline=None)
@given(ruleset=rulesets, claims=claim_timings, seed=st.integers(0, 10**9))
def test_replaying_the_record_reproduces_the_game(
    ruleset: str, claims: ClaimTiming, seed: int
) -> None:
    rs = RULESETS[ruleset]
    states = [after for _, _, after in random_game(ruleset, claims, seed)]
    moves = [str(m) for _, m, _ in random_game(ruleset, claims, seed)]
    record = GameRecord(rs, claims, deal_from_seed(rs, str(seed)), tuple(moves))
    again = GameRecord.from_json(json.loads(json.dumps(record.to_json())))
    assert list(replay_states(again))[1:] == states
    assert replay(again) == states[-1]


@settings(max_examples=20, deadline=None)
@given(ruleset=rulesets, claims=claim_timings, seed=st.integers(0, 10**9))
def test_snapshot_round_trips(ruleset: str, claims: ClaimTiming, seed: int) -> None:
    for _, _, after in random_game(ruleset, claims, seed):
        assert state_from_json(json.loads(json.dumps(state_to_json(after)))) == after


def test_notation_prints_what_it_parses() -> None:
    for ruleset in RULESETS:
        for _, move, _ in random_game(ruleset, ClaimTiming.ADVANCED, 7):
            assert move is not None
            assert parse_move(str(move), RULESETS[ruleset]) == move
