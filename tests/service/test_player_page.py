"""A player page ``/players/<name>`` (issue 24): the games others may see (unlisted ones only to
the players of the game), results per variant, the median time per turn, time-outs; a signed-in
visitor blocks or unblocks from it; its reads do not grow with the number of games."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from service.db import session_scope
from service.games.players import find_player
from service.models import Game
from service.people.player_page import turn_times
from service.players.blocks import blocked_between
from tests.service.conftest import sign_in_as
from tests.service.play_driver import create_and_accept
from tests.service.test_page_reads import play, selects


def _at(minute: int) -> datetime:
    return datetime(2026, 1, 1, 0, minute, tzinfo=UTC)


def test_turn_times_count_from_the_opponents_last_entry_to_the_players_first() -> None:
    entries = [
        (1, "A", _at(0)), (1, "A", _at(1)),  # A's first turn: nothing before it
        (1, "B", _at(5)),
        (1, "A", _at(9)), (1, "A", _at(10)),  # a claim, then a card: one turn, 4 minutes
        (2, "B", _at(0)),
        (2, "A", _at(2)),  # game 2, where the player is B: not A's turns
        (2, "B", _at(3)),
    ]  # fmt: skip
    assert turn_times(entries, {1: "A", 2: "B"}) == [240.0, 60.0]


def _public_game(app: Flask, client: FlaskClient, visibility: str = "public") -> dict[str, Any]:
    return create_and_accept(app, client, visibility=visibility)


def test_others_see_public_games_only(app: Flask, client: FlaskClient) -> None:
    shown = _public_game(app, client)
    hidden = _public_game(app, client, visibility="unlisted")
    client.post("/me/sign-out")
    page = client.get("/players/Alice")
    assert page.status_code == 200
    body = page.get_data(as_text=True)
    assert f"/games/{shown['public_id']}" in body
    assert str(hidden["public_id"]) not in body
    assert "alice@example.org" not in body and "bob@example.org" not in body
    # Alice herself sees both, the unlisted one said to be hers only.
    sign_in_as(app, client, "alice@example.org")
    body = client.get("/players/Alice").get_data(as_text=True)
    assert str(hidden["public_id"]) in body and "only its players see it here" in body


def test_a_player_sees_the_unlisted_games_they_played_on_the_others_page(
    app: Flask, client: FlaskClient
) -> None:
    """Two who met in the lobby (its games are unlisted) each find their game on the other's
    page; a third player does not."""
    hidden = _public_game(app, client, visibility="unlisted")
    bob = app.test_client()
    sign_in_as(app, bob, "bob@example.org", "Bob")
    body = bob.get("/players/Alice").get_data(as_text=True)
    assert str(hidden["public_id"]) in body and "only its players see it here" in body
    carol = app.test_client()
    sign_in_as(app, carol, "carol@example.org", "Carol")
    assert str(hidden["public_id"]) not in carol.get("/players/Alice").get_data(as_text=True)
    assert str(hidden["public_id"]) not in app.test_client().get("/players/Bob").get_data(
        as_text=True
    )


def test_results_median_turn_and_time_outs(app: Flask, client: FlaskClient) -> None:
    game = _public_game(app, client)
    play(app, int(game["id"]), 10_000, random.Random(3))
    with app.app_context(), session_scope() as session:
        finished = session.exec(select(Game).where(Game.id == game["id"])).one()
        assert finished.result is not None
        winner = finished.result["winner"]
    body = client.get("/players/Alice").get_data(as_text=True)
    assert "Results" in body and "Battle Line" in body
    assert "Median time per turn" in body
    assert "Ran out of time in 0 of 1 finished game." in body
    won = "<td>1</td><td>0</td><td>0</td>" if winner == "A" else "<td>0</td><td>1</td><td>0</td>"
    assert won in body


def test_look_alike_and_unknown_names(app: Flask, client: FlaskClient) -> None:
    _public_game(app, client)
    assert client.get("/players/alice").status_code == 200  # the same name, any case
    assert client.get("/players/Nobody-Here").status_code == 404
    # Bob's name is a label Alice typed: a label has no page.
    assert client.get("/players/Bob").status_code == 404


def test_blocking_from_the_page(app: Flask, client: FlaskClient) -> None:
    _public_game(app, client)
    bob = app.test_client()
    sign_in_as(app, bob, "bob@example.org", "Bob")
    assert bob.post("/me/name", data={"name": "Bob"}).status_code == 303
    body = bob.get("/players/Alice").get_data(as_text=True)
    assert "Block Alice" in body
    assert bob.post("/players/Alice/block").status_code == 303
    with app.app_context(), session_scope() as session:
        alice, bobs = (
            find_player(session, "alice@example.org"),
            find_player(session, "bob@example.org"),
        )
        assert alice is not None and bobs is not None and alice.id and bobs.id
        assert blocked_between(session, alice.id, bobs.id)
    assert "Unblock Alice" in bob.get("/players/Alice").get_data(as_text=True)
    # Only its maker lifts a block.
    assert client.post("/players/Bob/unblock").status_code == 303
    with app.app_context(), session_scope() as session:
        assert blocked_between(session, alice.id, bobs.id)
    assert bob.post("/players/Alice/unblock").status_code == 303
    with app.app_context(), session_scope() as session:
        assert not blocked_between(session, alice.id, bobs.id)
    assert bob.post("/players/Bob/block").status_code == 400
    assert app.test_client().post("/players/Alice/block").status_code == 401


def test_a_player_page_reads_the_same_whatever_the_number_of_games(
    app: Flask, client: FlaskClient
) -> None:
    app.config["INVITATIONS_PER_RECIPIENT_PER_DAY"] = 10
    _public_game(app, client)
    client.post("/me/sign-out")
    with selects(app) as one_game:
        assert client.get("/players/Alice").status_code == 200
    for _ in range(4):
        game = _public_game(app, client)
        play(app, int(game["id"]), 40, random.Random(5))
    client.post("/me/sign-out")
    with selects(app) as five_games:
        assert client.get("/players/Alice").status_code == 200
    # The player, their games, the others' names, the move times; their ratings with history.
    assert len(five_games) == len(one_game) <= 5, five_games


def test_chosen_names_link_to_their_pages_on_game_pages(app: Flask, client: FlaskClient) -> None:
    game = _public_game(app, client)
    link = '<a href="/players/Alice">Alice</a>'
    for path in (f"/games/{game['public_id']}", f"/p/{game['token']['B']}"):
        body = app.test_client().get(path).get_data(as_text=True)
        assert link in body, path
        assert "/players/Bob" not in body  # a label someone typed has no page
    assert "/me/name" in client.get("/me").get_data(as_text=True)


def test_a_player_page_in_japanese(app: Flask, client: FlaskClient) -> None:
    game = _public_game(app, client)
    play(app, int(game["id"]), 10_000, random.Random(3))
    client.post("/language", data={"language": "ja", "next": "/players/Alice"})
    body = client.get("/players/Alice").get_data(as_text=True)
    for words in ("成績", "終了した対局", "時間切れ負け", "中央値", f"対局{game['id']}"):
        assert words in body, words
    assert "Results" not in body and "Finished games" not in body


def test_game_pages_show_a_name_chosen_after_they_were_fetched(
    app: Flask, client: FlaskClient
) -> None:
    game = _public_game(app, client)
    public = app.test_client()
    paths = (f"/games/{game['public_id']}", f"/p/{game['token']['B']}")
    tags = {path: public.get(path).headers["ETag"] for path in paths}
    bob = app.test_client()
    sign_in_as(app, bob, "bob@example.org", "Bob")
    assert bob.post("/me/name", data={"name": "Bobby"}).status_code == 303
    for path in paths:
        again = public.get(path, headers={"If-None-Match": tags[path]})
        assert again.status_code == 200, path
        assert '<a href="/players/Bobby">Bobby</a>' in again.get_data(as_text=True)
