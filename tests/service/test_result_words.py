"""The sentence every game-over email opens with (service.present.game_over_email.result_words)."""

from __future__ import annotations

import engine
from service.present.game_over_email import result_words

NAMES = {"A": "Alice", "B": "Bob", "C": "Carol"}


def resigned(ruleset: str, seat: str) -> engine.GameState:
    rules = engine.get_ruleset(ruleset)
    state = engine.start(rules, engine.ClaimTiming.ADVANCED, engine.deal_from_seed(rules, "7" * 64))
    after, _ = engine.apply(state, engine.parse_move(f"{seat}: resign", rules))
    return after


def test_two_players_one_resigns() -> None:
    state = resigned("battleline", "A")
    assert result_words(state, NAMES, "A") == "Bob won, as Alice resigned."


def test_three_players_one_leaves_and_the_other_two_are_level() -> None:
    """V6.7: of the two who remain, more flags wins; level (no flag yet), they share a draw."""
    state = resigned("battleline-3p", "A")
    assert state.result is not None and state.result.draw_between == ("B", "C")
    assert result_words(state, NAMES, "A") == (
        "The game is a draw between Bob and Carol, as Alice resigned with them level."
    )
