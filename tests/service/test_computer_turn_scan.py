"""The deadline scan and a computer turn waiting out its delay (issue 27, item 3), on SQLite and
PostgreSQL: a computer turn not due yet is neither locked nor taken for a lost turn start, its
check plays it when due, and a computer turn whose start really was lost is still started. The
pages say when the computer will play (issue 20)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

import pytest
from flask import Flask
from flask.testing import FlaskClient

import engine
from service.db import session_scope
from service.games.loaded import load_game, lock_loaded_game
from service.games.rows import get_game
from service.games.seats import read_seats
from service.games.state import apply_moves, load_state
from service.links import private_page_url
from service.models import Game
from service.turns import scan, start
from service.turns.scan import Checked, check_game, scan_deadlines
from tests.service.conftest import VALID_FORM, empty_and_close, make_test_app
from tests.service.test_computer_and_series import new_game
from tests.worker.turn_games import create_confirm_accept

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
DELAY = timedelta(seconds=300)


@pytest.fixture
def app(database_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Flask]:
    """A computer that waits 300 s, on a clock the test moves; the scan's check tasks are queued
    for a worker that does not run them yet (as in production, where they run apart)."""
    app = make_test_app(database_url, COMPUTER_DELAY_S=300, CLOCK_NOW=START)
    monkeypatch.setattr(scan, "publish_after_commit", lambda *args: None)
    yield app
    empty_and_close(app)


@pytest.fixture
def turn_starts(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """Every ``start_turn`` that the scan's sweep of lost turn starts makes (each locks a game)."""
    calls: list[tuple[int, int]] = []
    real: Callable[[int, int], start.Started] = start.start_turn

    def spy(game_id: int, turn: int) -> start.Started:
        calls.append((game_id, turn))
        return real(game_id, turn)

    monkeypatch.setattr(start, "start_turn", spy)
    return calls


def computer_to_move(app: Flask) -> int:
    """A game against the computer where the computer's turn began at ``START``."""
    game_id = new_game(app, b_computer="random")
    with app.app_context():
        while True:
            with session_scope() as session:
                state = load_state(session, load_game(session, game_id))
                if state.to_move == "B":
                    break
                apply_moves(session, game_id, "A", state.ply, [engine.legal_moves(state)[0]])
    return game_id


def the_game(app: Flask, game_id: int) -> Game:
    with app.app_context(), session_scope() as session:
        return get_game(session, game_id)


def scan_at(app: Flask, moment: datetime) -> scan.ScanReport:
    app.config["CLOCK_NOW"] = moment
    with app.app_context():
        return scan_deadlines(moment)


def test_a_computer_turn_waiting_out_its_delay_is_not_a_lost_turn_start(
    app: Flask, turn_starts: list[tuple[int, int]], caplog: pytest.LogCaptureFixture
) -> None:
    game_id = computer_to_move(app)
    ply = the_game(app, game_id).ply
    caplog.set_level(logging.WARNING, logger=start.__name__)
    turn_starts.clear()  # the starts of the turns played so far

    # Past the grace of a lost start, before the delay is over: nothing to do, nothing locked.
    report = scan_at(app, START + timedelta(seconds=60))
    assert report.checked == [] and report.turns_started == []
    assert turn_starts == []

    # Due: the scan claims the game for its check (queued, not run yet), and its sweep leaves
    # the turn to that check instead of playing it itself and calling the start lost.
    report = scan_at(app, START + DELAY + timedelta(seconds=45))
    assert report.checked == [game_id] and report.turns_started == []
    assert turn_starts == []
    assert the_game(app, game_id).ply == ply
    assert "by the sweep" not in caplog.text

    # The check plays it.
    with app.app_context():
        assert check_game(game_id, START + DELAY + timedelta(seconds=46)) is Checked.COMPUTER_PLAYED
    game = the_game(app, game_id)
    assert game.ply > ply and game.to_move == "A"


def test_a_computer_turn_whose_start_was_lost_is_still_played_by_the_sweep(
    app: Flask, caplog: pytest.LogCaptureFixture
) -> None:
    game_id = computer_to_move(app)
    ply = the_game(app, game_id).ply
    # The check took the turn (it clears the next check) and its start never ran.
    with app.app_context(), session_scope() as session:
        game = lock_loaded_game(session, game_id).game
        game.next_check_at = None
        session.add(game)
    caplog.set_level(logging.WARNING, logger=start.__name__)
    report = scan_at(app, START + DELAY + timedelta(seconds=45))
    assert report.turns_started == [game_id]
    assert "by the sweep" in caplog.text
    game = the_game(app, game_id)
    assert game.ply > ply and game.to_move == "A"


def test_a_person_s_lost_turn_start_is_still_found(
    app: Flask, turn_starts: list[tuple[int, int]]
) -> None:
    game_id = computer_to_move(app)
    app.config["CLOCK_NOW"] = START + DELAY
    with app.app_context():
        assert check_game(game_id, START + DELAY) is Checked.COMPUTER_PLAYED
    # The computer's move began A's turn; its start task (run after the commit) is undone here,
    # as if it had been lost.
    with app.app_context(), session_scope() as session:
        game = lock_loaded_game(session, game_id).game
        game.turn_notified = game.current_turn - 1
        turn = game.current_turn
        session.add(game)
    turn_starts.clear()
    report = scan_at(app, START + DELAY + timedelta(seconds=60))
    assert report.turns_started == [game_id]
    assert turn_starts == [(game_id, turn)]


def test_the_pages_say_when_the_computer_will_play(app: Flask) -> None:
    game_id = computer_to_move(app)
    client = app.test_client()
    with app.test_request_context(), session_scope() as session:
        seat = read_seats(session, game_id)["A"][0]
        private = private_page_url(seat).removeprefix(app.config["BASE_URL"])
        public = f"/games/{get_game(session, game_id).public_id}"
    app.config["CLOCK_NOW"] = the_game(app, game_id).turn_started_at
    assert "Computer (random) will play in about 5 minutes." in page_text(client, private)
    assert "Computer (random) will play in about 5 minutes." in page_text(client, public)
    app.config["CLOCK_NOW"] += timedelta(minutes=4)
    # The page tells the time left, never an old answer from the browser's cache.
    assert "Computer (random) will play in about 1 minute." in page_text(client, private)
    app.config["CLOCK_NOW"] += timedelta(seconds=55)
    assert "Computer (random) will play in a few seconds." in page_text(client, private)


def page_text(client: FlaskClient, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200
    return " ".join(response.get_data(as_text=True).split())


def test_the_checks_of_the_computer_s_games_go_to_its_queue(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its checks are where it searches: a task of their own, routed to the computer's queue
    (``worker.TASK_QUEUES``), so that a person's reminder never waits behind its search."""
    thinking = computer_to_move(app)
    people = create_confirm_accept(app, app.test_client(), VALID_FORM)
    published: list[tuple[str, tuple[object, ...]]] = []
    monkeypatch.setattr(
        scan, "publish_after_commit", lambda _celery, sends, _what: published.extend(sends)
    )
    report = scan_at(app, START + timedelta(days=30))
    assert sorted(report.checked) == sorted([thinking, people])
    moment = (START + timedelta(days=30)).isoformat()
    assert sorted(published) == sorted(
        [(scan.CHECK_TASK, (moment, people)), (scan.COMPUTER_CHECK_TASK, (moment, thinking))]
    )
