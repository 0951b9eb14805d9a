"""The engine's errors said in the reader's language (service/engine_words.py): every reason the
engine gives has a sentence, and each one, reached by a real illegal move on a real position,
reads in Japanese with no English word left, and in English exactly as the engine wrote it."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from flask import Flask

import engine
from engine import Phase, Why
from service.engine_words import SENTENCES, engine_error_sentence
from service.i18n import recipient_language
from tests.engine.builders import play, position

SEVEN = ["R1", "R2", "R3", "R4", "R5", "O1", "O2"]


def _three_player_flag_without_a() -> int:
    ruleset = engine.get_ruleset("battleline-3p")
    return next(i + 1 for i in range(ruleset.flags) if "A" not in ruleset.flag_seats(i))


def _apply(state: engine.GameState, text: str) -> None:
    engine.apply(state, engine.parse_move(text, state.ruleset))


def _parse(text: str, ruleset: str = "battleline") -> None:
    engine.parse_move(text, engine.get_ruleset(ruleset))


CASES: list[tuple[Why, Callable[[], None]]] = [
    (Why.NOT_A_CARD, lambda: _parse("A: R11>1")),
    (Why.NO_TACTICS, lambda: _parse("A: FOG>1", "no-tactics")),
    (Why.NOT_NOTATION, lambda: _parse("A: hello there")),
    (Why.NOT_A_SEAT, lambda: _parse("C: pass")),
    (Why.NO_SUCH_FLAG, lambda: _parse("A: R1>12")),
    (Why.GAME_OVER, lambda: _apply(play(position(hands={"A": ["R1"]}), "B: resign"), "A: R1>1")),
    (Why.NOT_YOUR_TURN, lambda: _apply(position(hands={"B": ["R1"]}), "B: R1>1")),
    (Why.PLAY_FIRST, lambda: _apply(position(hands={"A": ["R1"]}), "A: draw troops")),
    (
        Why.ALREADY_PLAYED,
        lambda: _apply(position(hands={"A": ["R1"]}, phase=Phase.AFTER_PLAY), "A: R1>1"),
    ),
    (Why.SCOUTING, lambda: _apply(position(hands={"A": ["R1"]}, phase=Phase.SCOUT), "A: R1>1")),
    (
        Why.MUD_DISCARD_FIRST,
        lambda: _apply(
            position(hands={"A": ["R1"]}, flags={3: {"A": ["O1", "O2", "O3", "O4"]}}).evolve(
                phase=Phase.MUD_DISCARD, pending_discards=((0, 2),)
            ),
            "A: R1>1",
        ),
    ),
    (
        Why.NO_DRAW_DUE,
        lambda: _apply(position(hands={"A": SEVEN}, phase=Phase.AFTER_PLAY), "A: draw troops"),
    ),
    (
        Why.DRAW_FIRST,
        lambda: _apply(position(hands={"A": SEVEN[:6]}, phase=Phase.AFTER_PLAY), "A: end"),
    ),
    (
        Why.NO_CARD_NAMED,
        lambda: engine.apply(
            position(hands={"A": ["R1"]}), engine.Move("A", engine.Action.PLAY, flag=1)
        ),
    ),
    (Why.CARD_NOT_IN_HAND, lambda: _apply(position(hands={"A": ["R1"]}), "A: R2>1")),
    (
        Why.CARD_NOT_THERE,
        lambda: _apply(
            position(hands={"A": ["REDEPLOY"]}, flags={1: {"A": ["R1"]}}), "A: redeploy R2@1>2"
        ),
    ),
    (
        Why.NOT_PLAYED_TO_FLAG,
        lambda: _apply(position(hands={"A": ["SCOUT", "R1"]}), "A: SCOUT>1"),
    ),
    (
        Why.NOT_YOUR_FLAG,
        lambda: _apply(
            position(ruleset="battleline-3p", hands={"A": ["R1"]}),
            f"A: R1>{_three_player_flag_without_a()}",
        ),
    ),
    (Why.FLAG_CLAIMED, lambda: _apply(position(hands={"A": ["R1"]}, claimed={1: "B"}), "A: R1>1")),
    (
        Why.FLAG_FULL,
        lambda: _apply(
            position(hands={"A": ["R4"]}, flags={1: {"A": ["O1", "O2", "O3"]}}), "A: R4>1"
        ),
    ),
    (Why.MUST_PLAY_TROOP, lambda: _apply(position(hands={"A": ["R1"]}), "A: pass")),
    (
        Why.TACTICS_LIMIT,
        lambda: _apply(position(hands={"A": ["FOG", "R1"]}, tactics_played=(1, 0)), "A: FOG>1"),
    ),
    (
        Why.SECOND_LEADER,
        lambda: _apply(
            position(
                hands={"A": ["DARIUS", "R1"]}, tactics_played=(1, 1), leader_played=(True, False)
            ),
            "A: DARIUS>2",
        ),
    ),
    (
        Why.REDEPLOY_ENVIRONMENT,
        lambda: _apply(
            position(hands={"A": ["REDEPLOY"]}, flags={1: {"A": ["R1"], "env": ["FOG:A"]}}),
            "A: redeploy FOG@1>2",
        ),
    ),
    (
        Why.REDEPLOY_SAME_FLAG,
        lambda: _apply(
            position(hands={"A": ["REDEPLOY"]}, flags={1: {"A": ["R1"]}}), "A: redeploy R1@1>1"
        ),
    ),
    (
        Why.TRAITOR_TACTICS,
        lambda: _apply(
            position(hands={"A": ["TRAITOR"]}, flags={1: {"B": ["ALEXANDER"]}}),
            "A: traitor ALEXANDER@1>2",
        ),
    ),
    (
        Why.SCOUT_DRAWS_DONE,
        lambda: _apply(
            position(hands={"A": SEVEN}, phase=Phase.SCOUT).evolve(scout_draws=3),
            "A: draw troops",
        ),
    ),
    (
        Why.SCOUT_RETURN_COUNT,
        lambda: _apply(
            position(hands={"A": [*SEVEN, "Y1", "Y2"]}, phase=Phase.SCOUT), "A: return R1"
        ),
    ),
    (
        Why.NO_DISCARD_OWED,
        lambda: _apply(
            position(flags={1: {"A": ["R1"]}, 3: {"A": ["O1", "O2", "O3", "O4"]}}).evolve(
                phase=Phase.MUD_DISCARD, pending_discards=((0, 2),)
            ),
            "A: discard R1@1",
        ),
    ),
    (
        Why.DECK_EMPTY,
        lambda: _apply(
            position(
                hands={"A": SEVEN[:6]}, phase=Phase.AFTER_PLAY, troop_top=["Y1"], empty_decks=True
            ),
            "A: draw tactics",
        ),
    ),
    (Why.CLAIM_AFTER_PLAY, lambda: _apply(position(hands={"A": ["R1"]}), "A: claim 1")),
    (
        Why.CLAIM_AT_START,
        lambda: _apply(
            position(claims="advanced", hands={"A": SEVEN[:6]}, phase=Phase.AFTER_PLAY),
            "A: claim 1",
        ),
    ),
    (
        Why.CLAIM_NOT_PROVABLE,
        lambda: _apply(
            position(hands={"A": SEVEN[:6]}, phase=Phase.AFTER_PLAY, flags={1: {"A": ["Y1"]}}),
            "A: claim 1",
        ),
    ),
]

ENGLISH_WORD = re.compile(r"[A-Za-z]{2,}")


def test_every_reason_has_a_sentence_and_a_case() -> None:
    assert set(SENTENCES) == set(Why)
    assert {why for why, _ in CASES} == set(Why)


def _raised(make: Callable[[], None]) -> engine.ExplainedError:
    with pytest.raises(engine.ExplainedError) as caught:
        make()
    return caught.value


@pytest.mark.parametrize(("why", "make"), CASES, ids=[why.value for why, _ in CASES])
def test_each_engine_error_reads_in_japanese_and_in_english_as_the_engine_wrote_it(
    bare_app: Flask, why: Why, make: Callable[[], None]
) -> None:
    error = _raised(make)
    assert error.why is why, str(error)
    with recipient_language("ja"):
        japanese = engine_error_sentence(error, "A")
    # Names and notation stay as written: the card codes, the move and what was typed.
    rest = japanese.replace("「end」", "")
    for fact in (error.text, error.move, error.card, error.seat, error.rule):
        if fact:
            rest = rest.replace(fact, "")
    assert not ENGLISH_WORD.search(rest), japanese
    assert japanese.endswith("。"), japanese
    with recipient_language("en"):
        english = engine_error_sentence(error, "A")
    ruling = f" ({error.rule})" if error.rule and error.rule not in str(error) else ""
    assert english == f"{error}{ruling}."
