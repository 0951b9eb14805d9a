"""Whole games played through the pages in every variant, on both databases: moves are chosen
from the forms of the private pages (never by asking the engine), and after every move the stored
snapshot equals a replay of the log. The finished game's public page and JSON record are checked,
and the record replays (as ``python -m engine replay`` does) to the same result."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

import engine
from service.db import session_scope
from service.games.move_log import move_log
from service.games.records import game_record
from service.games.rows import get_game
from service.games.snapshots import latest_snapshot
from service.models import GameStatus
from tests.service.play_driver import create_and_accept, move_submissions, pick, seat_to_move

VARIANTS = [
    ("battleline", "advanced"),
    ("battleline", "standard"),
    ("no-tactics", "advanced"),
    ("playing-cards", "advanced"),
    ("schotten-totten", "advanced"),
]
MAX_SUBMISSIONS = 1500


def check_snapshot_is_replay(app: Flask, game_id: int) -> engine.GameState:
    """The latest snapshot is exactly the replay of the log (the log is the truth)."""
    with app.app_context(), session_scope() as session:
        game = get_game(session, game_id)
        entries = move_log(session, game_id)
        assert [e.ply for e in entries] == list(range(len(entries)))
        snapshot = latest_snapshot(session, game_id)
        assert snapshot is not None
        replayed = engine.replay(game_record(game, [e.notation for e in entries]))
        assert snapshot.ply == len(entries) == replayed.ply
        assert snapshot.state == engine.state_to_json(replayed)
        return replayed


def play_to_the_end(
    app: Flask, client: FlaskClient, game: dict[str, Any], rng: random.Random
) -> engine.GameState:
    for _ in range(MAX_SUBMISSIONS):
        found = seat_to_move(client, game)
        if found is None:
            break
        _seat, html = found
        submission = pick(move_submissions(html, rng), rng)
        response = client.post(submission.action, data=submission.data)
        assert response.status_code == 303, (submission, response.get_data(as_text=True))
        state = check_snapshot_is_replay(app, game["id"])
        if state.result is not None:
            return state
    raise AssertionError("the game did not end")


@pytest.mark.parametrize(("ruleset", "claims"), VARIANTS)
def test_full_game_through_the_pages(
    app: Flask, client: FlaskClient, ruleset: str, claims: str
) -> None:
    rng = random.Random(f"{ruleset}-{claims}")
    game = create_and_accept(
        app, client, ruleset=ruleset, claims=claims, visibility="public", seed=f"{ruleset}-{claims}"
    )
    final = play_to_the_end(app, client, game, rng)
    assert final.result is not None

    with app.app_context(), session_scope() as session:
        row = get_game(session, game["id"])
        assert row.status == GameStatus.FINISHED
        assert row.deadline is None
        assert row.result == {
            "winner": final.result.winner,
            "termination": final.result.termination.value,
            "flags_held": engine.public_view(final)["flags_held"],
            "series_points": engine.series_points(final),
            "ply": final.ply,
        }
        seed = row.seed

    # Both private pages show the end and offer no move.
    for seat in ("A", "B"):
        html = client.get(f"/p/{game['token'][seat]}").get_data(as_text=True)
        assert "The game is over" in html
        assert move_submissions(html, rng) == []

    # The public page: the result, the seed revealed, how to verify, the record link.
    page = client.get(f"/games/{game['public_id']}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert seed in html
    assert f"python -m engine deal {seed} --ruleset {ruleset}" in html
    assert f"/games/{game['public_id']}/record.json" in html
    assert "Hands at this position" in html

    # The JSON record replays to the same result.
    exported = client.get(f"/games/{game['public_id']}/record.json")
    assert exported.status_code == 200
    data = json.loads(exported.get_data(as_text=True))
    assert data["seed"] == seed
    assert data["players"] == {"A": "Alice", "B": "Bob"}
    assert len(data["times"]) == len(data["moves"]) == final.ply
    assert engine.seed_commitment(seed) == data["seed_commitment"]
    record = engine.GameRecord.from_json(data)
    replayed = engine.replay(record)
    assert replayed.result == final.result
    assert engine.state_to_json(replayed) == engine.state_to_json(final)
    # The deal is the seed's (R3).
    assert record.deal == engine.deal_from_seed(engine.get_ruleset(ruleset), seed)

    # It is listed on the index of public games.
    assert game["public_id"] in client.get("/games").get_data(as_text=True)
