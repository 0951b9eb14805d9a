"""The answers to a reply by email are typed (``service.present.reply_answers``): what their
templates get is the game's facts and the fields of the answer's dataclasses. On SQLite and
PostgreSQL (the ``app`` fixture)."""

from __future__ import annotations

import dataclasses

from flask import Flask
from flask.testing import FlaskClient

from service.db import session_scope
from service.games.loaded import load_game
from service.present.reply_answers import (
    RefusalEmail,
    TurnNow,
    played_rows,
    reading_rows,
    template_values,
    turn_now,
)
from service.present.reply_reading import read_turn
from tests.service.replies import new_game, turn_text


def test_the_templates_get_the_game_facts_then_each_answers_fields(
    app: Flask, client: FlaskClient
) -> None:
    game_id, start = new_game(app, client)
    reading = read_turn(f"hi! {turn_text(start.state)}", start.state, start.to_move)
    with app.test_request_context(), session_scope() as session:
        loaded = load_game(session, game_id)
        game = loaded.game
        turn = turn_now(loaded, start.state, start.to_move)
        refusal = RefusalEmail(
            reason="why", written="hi", parts=reading_rows(reading), ignored=reading.ignored
        )
        values = template_values(game, turn, refusal)
    assert turn.your_turn and not turn.game_over and turn.codes
    assert values["game_number"] == game_id
    for answer in (turn, refusal):
        for name in (f.name for f in dataclasses.fields(answer)):
            assert values[name] is getattr(answer, name)
    assert [part.move.code for part in refusal.parts if part.move] == turn_text(start.state).split()
    assert refusal.ignored == ("hi",)


def test_before_the_deal_an_answer_names_no_turn() -> None:
    turn = TurnNow(private_url="https://example.org/p")
    assert (turn.game_over, turn.your_turn, turn.to_move_name, turn.codes) == (
        False, False, None, (),
    )  # fmt: skip


def test_a_draw_played_names_the_card_it_drew(app: Flask, client: FlaskClient) -> None:
    _, start = new_game(app, client)
    moves = read_turn(turn_text(start.state), start.state, start.to_move).moves
    with app.test_request_context():
        rows = played_rows(start.state, start.to_move, moves)
    assert [row.drawn is None for row in rows] == [True, False]
    assert rows[-1].drawn_text
