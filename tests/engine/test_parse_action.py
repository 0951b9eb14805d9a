"""``parse_action``: the notation of one action without its seat, the mirror of
``Move.action_text``."""

from __future__ import annotations

import random

import pytest

from engine import (
    RULESETS,
    ClaimTiming,
    InvalidCardError,
    InvalidMoveError,
    apply,
    deal_from_seed,
    legal_moves,
    parse_action,
    parse_move,
    start,
)


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_every_legal_action_reads_back_as_its_move(name: str) -> None:
    rules = RULESETS[name]
    state = start(rules, ClaimTiming.ADVANCED, deal_from_seed(rules, "seed3"))
    rng = random.Random(3)
    while state.result is None and state.ply < 120:
        moves = legal_moves(state)
        for move in moves:
            assert parse_action(move.seat, move.action_text(), rules) == move
            assert parse_action(move.seat, move.action_text(), rules) == parse_move(
                str(move), rules
            )
        state, _ = apply(state, rng.choice(moves))


@pytest.mark.parametrize(
    ("text", "error", "message"),
    [
        ("R9>12", InvalidMoveError, "'12' is not a flag (flags are 1 to 9)"),
        ("claim 0", InvalidMoveError, "'0' is not a flag"),
        ("draw cards", InvalidMoveError, "'draw cards': draw from 'troops' or 'tactics'"),
        ("R15>3", InvalidMoveError, "'R15>3': R15 is not a card of this ruleset"),
        ("return R15", InvalidCardError, "R15 is not a card of this ruleset"),
        ("", InvalidMoveError, "'' has no action"),
    ],
)
def test_a_wrong_action_says_what_is_wrong_quoting_the_action_alone(
    text: str, error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as raised:
        parse_action("A", text, RULESETS["battleline"])
    assert str(raised.value) == message or message in str(raised.value)
    assert "A:" not in str(raised.value)


def test_a_seat_the_ruleset_has_not_is_refused() -> None:
    with pytest.raises(InvalidMoveError, match="'C' is not a seat"):
        parse_action("C", "R7>3", RULESETS["battleline"])
    assert parse_action("C", "claim 3", RULESETS["battleline-3p"]).seat == "C"
