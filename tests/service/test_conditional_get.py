"""Conditional GET on the game pages (service.conditional): a browser that holds the page gets a
304 without a body; anything the page shows that changes gives a new tag."""

from __future__ import annotations

from datetime import UTC, timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

import engine
from service.db import session_scope
from service.games.loaded import load_game
from service.games.state import load_state
from tests.service.play_driver import create_and_accept


@pytest.fixture
def game(app: Flask, client: FlaskClient) -> dict[str, Any]:
    return create_and_accept(app, client)


def revalidate(client: FlaskClient, url: str) -> tuple[str, int]:
    """The page's tag, and the status of asking again with it."""
    first = client.get(url)
    assert first.status_code == 200 and first.headers["ETag"], url
    again = client.get(url, headers={"If-None-Match": first.headers["ETag"]})
    return first.headers["ETag"], again.status_code


def play_first_move(app: Flask, client: FlaskClient, game: dict[str, Any]) -> None:
    with app.app_context(), session_scope() as session:
        state = load_state(session, load_game(session, game["id"]))
    move = engine.legal_moves(state)[0]
    token = game["token"][state.to_move]
    response = client.post(f"/p/{token}/move", data={"ply": "0", "move": move.action_text()})
    assert response.status_code == 303


def test_the_private_page_answers_304_until_the_game_moves(
    app: Flask, client: FlaskClient, game: dict[str, Any]
) -> None:
    url = f"/p/{game['token']['A']}"
    tag, status = revalidate(client, url)
    assert status == 304
    response = client.get(url, headers={"If-None-Match": tag})
    assert response.get_data() == b"" and response.headers["ETag"] == f'"{tag.strip(chr(34))}"'
    # Only the player's own browser may keep it, and it must ask every time.
    assert response.headers["Cache-Control"] == "private, no-cache"
    play_first_move(app, client, game)
    after = client.get(url, headers={"If-None-Match": tag})
    assert after.status_code == 200 and after.headers["ETag"] != tag


def test_a_changed_preference_changes_the_private_page(
    client: FlaskClient, game: dict[str, Any]
) -> None:
    token = game["token"]["B"]
    tag, _ = revalidate(client, f"/p/{token}")
    assert client.post(f"/p/{token}/preferences", data={"digest": "on"}).status_code == 303
    assert client.get(f"/p/{token}", headers={"If-None-Match": tag}).status_code == 200


def test_each_seat_and_each_position_has_its_own_tag(
    app: Flask, client: FlaskClient, game: dict[str, Any]
) -> None:
    tag_a, _ = revalidate(client, f"/p/{game['token']['A']}")
    tag_b, _ = revalidate(client, f"/p/{game['token']['B']}")
    assert tag_a != tag_b
    play_first_move(app, client, game)
    public = f"/games/{game['public_id']}"
    tags = set()
    for url in (public, f"{public}?ply=0", f"{public}?ply=1"):
        tag, status = revalidate(client, url)
        assert status == 304, url
        tags.add(tag)
    assert len(tags) == 3
    assert client.get(public).headers["Cache-Control"] == "no-cache"


def test_a_bad_position_is_refused_even_with_a_tag(
    client: FlaskClient, game: dict[str, Any]
) -> None:
    public = f"/games/{game['public_id']}"
    tag, _ = revalidate(client, public)
    # No position "x": the tag of another address proves nothing (PositionError, 404).
    assert client.get(f"{public}?ply=x", headers={"If-None-Match": tag}).status_code == 404


def test_the_private_page_changes_when_its_time_left_does(
    app: Flask, client: FlaskClient, game: dict[str, Any]
) -> None:
    with app.app_context(), session_scope() as session:
        deadline = load_game(session, game["id"]).game.deadline
    assert deadline is not None
    deadline = deadline.replace(tzinfo=UTC)
    url = f"/p/{game['token']['A']}"
    # Over an hour before the deadline the page says whole hours: ten minutes change nothing.
    app.config["CLOCK_NOW"] = deadline - timedelta(hours=5, minutes=30)
    tag, _ = revalidate(client, url)
    app.config["CLOCK_NOW"] = deadline - timedelta(hours=5, minutes=20)
    assert client.get(url, headers={"If-None-Match": tag}).status_code == 304
    app.config["CLOCK_NOW"] = deadline - timedelta(hours=4, minutes=50)
    later = client.get(url, headers={"If-None-Match": tag})
    assert later.status_code == 200 and "4 hours" in later.get_data(as_text=True)
    # Under an hour it counts minutes.
    app.config["CLOCK_NOW"] = deadline - timedelta(minutes=40)
    tag, _ = revalidate(client, url)
    app.config["CLOCK_NOW"] = deadline - timedelta(minutes=39)
    assert client.get(url, headers={"If-None-Match": tag}).status_code == 200
