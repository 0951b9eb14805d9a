"""A stalled Redis must never freeze the site or make it lie.

A paused Redis (SIGSTOP) is the worst case for a client: TCP connects still succeed (the kernel
accepts them) and commands are written, but no answer ever comes. Seen on main: a move POST hung
30.7 s, then answered 500 "Nothing was changed" although the move had been committed, and a
``/healthz`` behind it in the same (only) gunicorn worker waited 30.9 s.

Here a Redis of the test's own is paused while a move is played through the HTTP routes: the POST
must answer within ``LIMIT_S`` with the truth (the 303 to the private page, the move in the log),
``/healthz`` sent meanwhile too, and once Redis is back, the turn scan and the outbox sweep deliver
what was not published: each email exactly once.
"""

from __future__ import annotations

import random
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from email.utils import parseaddr
from functools import partial
from typing import Any
from unittest import mock

import pytest
from flask import Flask
from flask.testing import FlaskClient

import engine
from service import tokens
from service.db import get_engine, session_scope
from service.games.loaded import load_game
from service.games.rows import get_game
from service.games.state import load_state
from service.lobby.forms import parse_new_game
from service.lobby.lifecycle import accept_invitation, create_game
from service.models import Game, Player, utcnow
from service.outbox import MailKind, queue_email
from service.turns.start import sweep_unstarted_turns
from tests.service.conftest import VALID_FORM, make_test_app
from tests.service.play_driver import move_submissions
from tests.worker.conftest import (
    PrivateRedis,
    SMTPServer,
    Stack,
    WorkerProcess,
    _empty,
    close_app,
    wait_for,
)

LIMIT_S = 2.0
"""How long any request may take while Redis is stalled."""

EMAILS = {"A": "alice@example.org", "B": "bob@example.org"}


@dataclass
class Answer:
    status: int
    location: str | None
    body: str
    elapsed: float
    """From sending the request to its answer (waiting for the one worker included)."""


def serve(
    client: FlaskClient, one_worker: threading.Lock, method: str, path: str, **kwargs: Any
) -> Answer:
    """One request to a site with a single sync worker (as the gunicorn of the report): it waits
    for the worker, then is served."""
    sent = time.monotonic()
    with one_worker:
        response = client.open(path, method=method, **kwargs)
    return Answer(
        response.status_code,
        response.location,
        response.get_data(as_text=True),
        time.monotonic() - sent,
    )


class InThread:
    """Run ``call`` in a thread; ``result`` waits for it at most ``timeout`` seconds (None if it
    has not finished by then)."""

    def __init__(self, call: Callable[[], Any]) -> None:
        self._done = False
        self._value: Any = None
        self._error: BaseException | None = None
        self.started = time.monotonic()
        self._thread = threading.Thread(target=self._run, args=(call,), daemon=True)
        self._thread.start()

    def _run(self, call: Callable[[], Any]) -> None:
        try:
            self._value = call()
        except BaseException as error:  # reported in the test's thread
            self._error = error
        self._done = True

    def result(self, timeout: float) -> Any:
        self._thread.join(timeout)
        if self._error is not None:
            raise self._error
        return self._value if self._done else None


def hung(redis: PrivateRedis, *calls: InThread) -> None:
    """Fail, saying how long each call took: they did not finish within the limit. Resumes
    Redis first, so that they can finish (on today's code they wait until then)."""
    waited = [f"{time.monotonic() - call.started:.1f}s" for call in calls]
    redis.resume()
    for call in calls:
        call.result(60)
    pytest.fail(
        f"with Redis stalled, no answer after {', '.join(waited)} (each must answer within "
        f"{LIMIT_S}s); they went on only once Redis was resumed",
        pytrace=False,
    )


@pytest.fixture
def own(
    stack: Stack, smtp: SMTPServer, private_redis: PrivateRedis
) -> Iterator[tuple[Stack, Flask]]:
    """A web app and its workers' settings on the workers' database and this test's own Redis."""
    own_stack = Stack(database_url=stack.database_url, redis_url=private_redis.url, smtp=smtp)
    # The request limits count in the same Redis, as in production: they must not stall either.
    own_web = make_test_app(
        own_stack.database_url, **own_stack.app_config(), RATELIMIT_ENABLED=True
    )
    _empty(own_web)
    try:
        yield own_stack, own_web
    finally:
        private_redis.resume()  # a failed test may leave it paused
        close_app(own_web)


def dealt_game(app: Flask) -> int:
    """A game created and accepted through the service (not the creation form)."""
    with app.app_context():
        with session_scope() as session:
            game, _ = create_game(session, parse_new_game(VALID_FORM))
            assert game.id is not None
            game_id = game.id
        with session_scope() as session:
            accept_invitation(session, tokens.read_private_token(private_token(app, game_id, "B")))
    return game_id


def state_of(app: Flask, game_id: int) -> engine.GameState:
    with app.app_context(), session_scope() as session:
        return load_state(session, load_game(session, game_id))


def game_row(app: Flask, game_id: int) -> Game:
    with app.app_context(), session_scope() as session:
        return get_game(session, game_id)


def private_token(app: Flask, game_id: int, seat: str) -> str:
    with app.app_context():
        return tokens.make_private_token(game_id, seat, 0)


def queue_my_games(app: Flask, email: str) -> int:
    """Commit one "my games" email (its ``deliver`` is published after the commit)."""
    with app.app_context(), session_scope() as session:
        player = Player(email=email, display_name="Carol")
        session.add(player)
        session.flush()
        row = queue_email(
            session, MailKind.MY_GAMES, player, subject="Your Battle Line games",
            context={"games_url": "http://bl.test/me/t"},
        )  # fmt: skip
        assert row is not None and row.id is not None
        return row.id


def arrived(smtp: SMTPServer, recipient: str, subject_part: str = "") -> list[Any]:
    return [
        message
        for message in smtp.mailbox.messages()
        if recipient in str(message["To"]) and subject_part in str(message["Subject"])
    ]


def your_turn_count(smtp: SMTPServer) -> Counter[str]:
    """Your-turn emails that arrived, by recipient."""
    counts: Counter[str] = Counter()
    for message in smtp.mailbox.messages():
        body = message.get_body(("plain",))
        assert body is not None
        if "It is your turn" in body.get_content():
            counts[parseaddr(str(message["To"]))[1]] += 1
    return counts


def a_whole_turn(html: str) -> tuple[str, dict[str, str]]:
    """A move button of a private page that ends the turn: a card played, then a draw."""
    submissions = move_submissions(html, random.Random(7))
    whole = [s for s in submissions if ">" in s.move and s.data.get("then") == "draw troops"]
    assert whole, [s.data for s in submissions]
    return whole[0].action, whole[0].data


def test_a_move_while_redis_is_stalled(
    own: tuple[Stack, Flask],
    smtp: SMTPServer,
    private_redis: PrivateRedis,
    start_worker: Callable[..., WorkerProcess],
) -> None:
    own_stack, web = own
    start_worker(stack_=own_stack)
    game_id = dealt_game(web)
    first = state_of(web, game_id).to_move
    second = "B" if first == "A" else "A"
    # Redis healthy: the first turn's email comes through the worker.
    wait_for(lambda: your_turn_count(smtp)[EMAILS[first]] == 1, 30, "the first your-turn email")
    token = private_token(web, game_id, first)
    action, data = a_whole_turn(web.test_client().get(f"/p/{token}").get_data(as_text=True))

    private_redis.pause()
    one_worker = threading.Lock()
    move = InThread(lambda: serve(web.test_client(), one_worker, "POST", action, data=data))
    time.sleep(0.1)  # the move holds the one worker; the health check comes a moment later
    health = InThread(lambda: serve(web.test_client(), one_worker, "GET", "/healthz"))
    moved = move.result(LIMIT_S + 0.5)
    checked = health.result(LIMIT_S + 0.5)
    if moved is None or checked is None:
        hung(private_redis, move, health)
    assert moved.elapsed < LIMIT_S and checked.elapsed < LIMIT_S, (moved.elapsed, checked.elapsed)
    # The truth: the move was made, and the answer says so.
    assert moved.status == 303, (moved.status, moved.body[-2000:])
    assert moved.location is not None and moved.location.endswith(f"/p/{token}")
    assert checked.status == 200 and checked.body == "ok"
    assert state_of(web, game_id).to_move == second
    page = web.test_client().get(f"/p/{token}").get_data(as_text=True)
    # The move is in the list of latest moves: turn 1's first entry.
    entry = r'<ol class="log">\s*<li class="starts"><span class="n">'
    assert re.search(entry + r'<span class="visually-hidden">Turn </span>1</span>', page), page
    assert "Nothing was changed" not in page
    assert game_row(web, game_id).turn_notified == 1  # the second turn's start did not run yet

    # An email committed while Redis is still stalled: the commit is not held up either.
    commit = InThread(lambda: queue_my_games(web, "carol@example.org"))
    if commit.result(LIMIT_S) is None:
        hung(private_redis, commit)

    private_redis.resume()
    # What was not published is found: the lost turn start by the turn scan (here called as the
    # beat's scan would after the grace period), the email by the outbox sweep of the worker.
    grace = timedelta(seconds=float(web.config["TURN_START_GRACE_S"]) + 1)
    with web.app_context():
        sweep_unstarted_turns(utcnow() + grace)
    wait_for(lambda: game_row(web, game_id).turn_notified == 2, 30, "the second turn to be started")
    wait_for(lambda: your_turn_count(smtp)[EMAILS[second]] == 1, 30, "the second your-turn email")
    wait_for(lambda: arrived(smtp, "carol@example.org"), 30, "the email committed during the stall")
    time.sleep(1.5)  # a few more sweeps: nothing arrives twice
    assert your_turn_count(smtp) == Counter({EMAILS[first]: 1, EMAILS[second]: 1})
    assert len(arrived(smtp, "carol@example.org")) == 1
    counts = Counter(smtp.mailbox.message_ids())
    assert max(counts.values()) == 1, counts


def test_publishing_is_bounded_while_redis_is_stalled(
    own: tuple[Stack, Flask], private_redis: PrivateRedis
) -> None:
    """After-commit publishing on the connection kept from a publish while Redis answered, and on
    a new one (a new web process: its TCP connect succeeds, then nothing answers): neither waits
    longer than the bound, and after that failure the process does not wait again for a while
    (``BROKER_PUBLISH_PAUSE_S``)."""
    own_stack, web = own
    queue_my_games(web, "before@example.org")  # Redis answers: the connection is made and kept
    fresh = make_test_app(own_stack.database_url, **own_stack.app_config())
    try:
        private_redis.pause()
        took = []
        for number, app in enumerate([web, fresh, web, fresh]):
            commit = InThread(partial(queue_my_games, app, f"during{number}@example.org"))
            if commit.result(LIMIT_S) is None:
                hung(private_redis, commit)
            took.append(time.monotonic() - commit.started)
        assert max(took) < LIMIT_S and max(took[2:]) < 0.5, took
    finally:
        private_redis.resume()
        fresh.extensions["celery"].close()
        get_engine(fresh).dispose()


@pytest.mark.parametrize("fails", ["before the commit", "after the commit"])
def test_the_500_page_tells_whether_the_move_may_be_saved(
    app: Flask, new_game: Any, fails: str
) -> None:
    """Something fails in a move's request: before its commit the page may say that nothing was
    changed; after it, it must not (the move was made): it sends the player to look."""
    with app.app_context(), session_scope() as session:
        accept_invitation(session, tokens.read_private_token(new_game.token["B"]))
    first = state_of(app, new_game.id).to_move
    token = new_game.token[first]
    client = app.test_client()
    action, data = a_whole_turn(client.get(f"/p/{token}").get_data(as_text=True))
    app.config["PROPAGATE_EXCEPTIONS"] = False  # answer with the 500 page, as in production
    broken = RuntimeError("something broke")
    target = (
        "service.play.routes.apply_to_locked" if fails == "before the commit"
        else "service.play.routes.redirect"
    )  # fmt: skip
    with mock.patch(target, side_effect=broken):
        answer = client.post(action, data=data)
    assert answer.status_code == 500
    page = answer.get_data(as_text=True)
    moved = state_of(app, new_game.id).ply > 0
    if fails == "before the commit":
        assert not moved
        assert "Nothing was changed" in page
    else:
        assert moved
        assert "Nothing was changed" not in page and "nothing was changed" not in page
        assert "may have been saved" in page
