"""The work a move link does: its POST reads the position once and applies each move once, under
the game's lock; the GETs of the playing area that only read open no write transaction."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

import engine
from service.games import state as game_state
from service.games.snapshots import snapshot_at_or_before
from service.history import routes as history_routes
from service.mail import routes as mail_routes
from service.play import move_links, routes
from tests.service.play_driver import create_and_accept
from tests.service.test_play_moves import first_play_index, link_for, log_of, to_move


@pytest.fixture
def game(app: Flask, client: FlaskClient) -> dict[str, Any]:
    return create_and_accept(app, client)


class Counts:
    """Counted until the first commit begins: the move's own transaction, not the next turn's
    start (a transaction of its own after the commit)."""

    loads = 0
    applies = 0
    committed = False

    def reset(self) -> None:
        self.loads = self.applies = 0
        self.committed = False


@pytest.fixture
def counts(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Counts:
    """Position reads (each starts from a stored snapshot) and engine applies, anywhere: the
    service calls ``engine.apply``, the engine's own helpers the function in ``engine.apply``."""
    counted = Counts()
    read = snapshot_at_or_before
    apply_module = sys.modules["engine.apply"]
    real_apply: Callable[..., Any] = apply_module.apply

    def counted_read(*args: Any) -> Any:
        counted.loads += not counted.committed
        return read(*args)

    def counted_apply(*args: Any) -> Any:
        counted.applies += not counted.committed
        return real_apply(*args)

    def committed(_session: Any) -> None:
        counted.committed = True

    sa.event.listen(Session, "before_commit", committed)
    request.addfinalizer(lambda: sa.event.remove(Session, "before_commit", committed))

    monkeypatch.setattr(game_state, "snapshot_at_or_before", counted_read)
    monkeypatch.setattr(apply_module, "apply", counted_apply)
    monkeypatch.setattr(engine, "apply", counted_apply)
    return counted


def test_a_move_link_post_reads_once_and_applies_each_move_once(
    app: Flask, client: FlaskClient, game: dict[str, Any], counts: Counts
) -> None:
    seat, _, state = to_move(app, game)
    index = first_play_index(state)
    url = link_for(app, game["id"], seat, 0, index)
    counts.reset()
    assert client.post(url, data={"then": "draw troops"}).status_code == 303
    assert len(log_of(app, game["id"])) == 2  # the card and the draw
    assert (counts.loads, counts.applies) == (1, 2)


def test_a_move_link_post_alone_applies_once(
    app: Flask, client: FlaskClient, game: dict[str, Any], counts: Counts
) -> None:
    seat, _, state = to_move(app, game)
    index = first_play_index(state)
    url = link_for(app, game["id"], seat, 0, index)
    counts.reset()
    assert client.post(url).status_code == 303
    assert len(log_of(app, game["id"])) == 1
    assert (counts.loads, counts.applies) == (1, 1)


def test_a_move_link_post_refuses_a_then_that_does_not_end_the_turn(
    app: Flask, client: FlaskClient, game: dict[str, Any]
) -> None:
    seat, _, state = to_move(app, game)
    url = link_for(app, game["id"], seat, 0, first_play_index(state))
    for then in ("resign", "end", "draw nothing", "B: draw troops", "R1>2"):
        refused = client.post(url, data={"then": then})
        assert refused.status_code == 400, then
        assert log_of(app, game["id"]) == []


@pytest.fixture
def no_write_scope(monkeypatch: pytest.MonkeyPatch) -> None:
    """The views of these modules may open only the read scope."""

    @contextmanager
    def refused() -> Iterator[Any]:
        raise AssertionError("a page that only reads opened a write transaction")
        yield  # pragma: no cover

    for module in (routes, move_links, history_routes, mail_routes):
        monkeypatch.setattr(module, "session_scope", refused)


def test_pages_that_only_read_open_no_write_transaction(
    app: Flask, client: FlaskClient, game: dict[str, Any], no_write_scope: None
) -> None:
    seat, token, state = to_move(app, game)
    link = link_for(app, game["id"], seat, 0, first_play_index(state))
    for url in (f"/p/{token}", link, f"/p/{token}/resign", f"/p/{token}/leave-series"):
        response = client.get(url)
        assert response.status_code in (200, 409), url
    assert log_of(app, game["id"]) == []


def test_public_pages_and_lists_open_no_write_transaction(
    app: Flask, client: FlaskClient, game: dict[str, Any], no_write_scope: None
) -> None:
    public = game["public_id"]
    for url in ("/games", "/me", f"/games/{public}/record.json"):
        assert client.get(url).status_code in (200, 403), url  # 403: a record of a game in play
