"""The public game page (step-through replay, secrets kept until the end), the exported record,
the index of public games and the "my games" link."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

import engine
from service import tokens
from service.db import get_engine, session_scope
from service.games.move_log import append_move
from service.games.rows import get_game
from service.history.my_games import request_my_games_link
from service.models import Player
from tests.service.conftest import PRODUCTION_SETTINGS, make_test_app
from tests.service.play_driver import create_and_accept, move_submissions, pick, seat_to_move


def play_some(client: FlaskClient, game: dict[str, Any], presses: int, seed: int = 3) -> None:
    rng = random.Random(seed)
    for _ in range(presses):
        found = seat_to_move(client, game)
        if found is None:
            return
        submission = pick(move_submissions(found[1], rng), rng)
        assert client.post(submission.action, data=submission.data).status_code == 303


def seed_of(app: Flask, game_id: int) -> str:
    with app.app_context(), session_scope() as session:
        return get_game(session, game_id).seed


def test_public_page_steps_through_positions(app: Flask, client: FlaskClient) -> None:
    game = create_and_accept(app, client, seed="history-steps")
    play_some(client, game, 12)
    url = f"/games/{game['public_id']}"
    html = client.get(url).get_data(as_text=True)
    last = int(re.search(r"Position (\d+) of (\d+)", html).group(2))  # type: ignore[union-attr]
    assert last >= 12
    assert f"Position {last} of {last}" in html
    assert seed_of(app, game["id"]) not in html
    assert "Hands at this position" not in html
    assert "published here when the game ends" in html
    first = client.get(f"{url}?ply=0").get_data(as_text=True)
    assert "Position 0 of" in first and "The deal, before the first turn" in first
    assert f'href="{url}?ply=1"' in first  # next
    middle = client.get(f"{url}?ply=5").get_data(as_text=True)
    for target in (0, 4, 6, last):
        assert f'href="{url}?ply={target}"' in middle
    # Every position says who is to move now (at the latest position), not then.
    mover = seat_to_move(client, game)
    assert mover is not None
    for page in (html, first, middle):
        assert f"It is {'Alice' if mover[0] == 'A' else 'Bob'}'s turn" in page
    for bad in ("-1", "x", str(last + 1), "1e3"):
        response = client.get(f"{url}?ply={bad}")
        assert response.status_code == 404
        assert "Positions of this game run from 0" in response.get_data(as_text=True)
    assert client.get("/games/nope?ply=0").status_code == 404


def test_the_public_page_lists_the_log_up_to_the_games_row(app: Flask, client: FlaskClient) -> None:
    # Read outside a transaction, the page must not list a move committed after it read the
    # game row: here a log entry beyond the row's ply (as a move landing in between leaves it).
    game = create_and_accept(app, client, seed="history-bound")
    play_some(client, game, 4)
    with app.app_context(), session_scope() as session:
        stored = get_game(session, game["id"])
        last = stored.ply
        append_move(session, game["id"], last, "A", "A: pass")
    html = client.get(f"/games/{game['public_id']}").get_data(as_text=True)
    assert f"Position {last} of {last}" in html
    assert f"?ply={last + 1}" not in html and "A: pass" not in html


def test_record_is_refused_until_the_end(app: Flask, client: FlaskClient) -> None:
    game = create_and_accept(app, client, seed="history-record")
    play_some(client, game, 4)
    response = client.get(f"/games/{game['public_id']}/record.json")
    assert response.status_code == 403
    assert response.mimetype == "application/json"
    body = response.get_json()
    assert body["title"] == "The record is published when the game ends"
    assert "deal" not in body and "seed" not in body
    assert client.get("/games/unknown/record.json").status_code == 404
    # After a resignation it is public, and Scout returns and hands are shown in full.
    html = client.get(f"/p/{game['token']['A']}/resign").get_data(as_text=True)
    ply = re.search(r'name="ply" value="(\d+)"', html).group(1)  # type: ignore[union-attr]
    assert (
        client.post(f"/p/{game['token']['A']}/move", data={"ply": ply, "move": "resign"})
    ).status_code == 303
    record = client.get(f"/games/{game['public_id']}/record.json")
    assert record.status_code == 200
    data = record.get_json()
    assert data["seed"] == seed_of(app, game["id"])
    assert data["outcome"]["winner"] == "B" and data["outcome"]["termination"] == "resignation"
    replayed = engine.replay(engine.GameRecord.from_json(data))
    assert replayed.result == engine.Outcome("B", engine.Termination.RESIGNATION)
    page = client.get(f"/games/{game['public_id']}?ply=0").get_data(as_text=True)
    assert "Hands at this position" in page
    assert data["seed"] in page


def test_index_lists_public_games_only(app: Flask, client: FlaskClient) -> None:
    public = create_and_accept(app, client, visibility="public")
    unlisted = create_and_accept(app, client, visibility="unlisted")
    html = client.get("/games").get_data(as_text=True)
    assert public["public_id"] in html
    assert unlisted["public_id"] not in html
    # The unlisted game is still reachable by its public id.
    assert client.get(f"/games/{unlisted['public_id']}").status_code == 200


def test_my_games_request_is_the_same_for_known_and_unknown(
    app: Flask, client: FlaskClient
) -> None:
    create_and_accept(app, client)
    # The same database, served as in production (``app`` empties it afterwards).
    production = make_test_app(
        app.config["DATABASE_URL"], **{**PRODUCTION_SETTINGS, "BASE_URL": "https://bl.example"}
    )
    web = production.test_client()
    known = web.post("/me", data={"email": "ALICE@example.org"})
    unknown = web.post("/me", data={"email": "nobody@example.org"})
    assert known.status_code == unknown.status_code == 200
    assert known.get_data() == unknown.get_data()
    assert b"/me/" not in known.get_data().replace(b'action="/me"', b"")
    with production.app_context(), session_scope() as session:
        link = request_my_games_link(session, "alice@example.org")
        assert link is not None and link.startswith("https://bl.example/me/")
        # Asking made the newcomer a player (tests/service/test_newcomer_sign_in.py).
        assert request_my_games_link(session, "nobody@example.org") is not None
        assert request_my_games_link(session, "never-asked@example.org") is None
    get_engine(production).dispose()


def test_my_games_link_in_development(app: Flask, client: FlaskClient) -> None:
    game = create_and_accept(app, client)
    client.post("/me/sign-out")  # Alice signed in to start it; this is another browser's view
    page = client.get("/me")
    assert page.status_code == 200 and b'name="email"' in page.data
    sent = client.post("/me", data={"email": "bob@example.org"}).get_data(as_text=True)
    link = re.search(r'href="http://bl\.test(/me/[^"]+)"', sent)
    assert link, "development shows the link"
    mine = client.get(link.group(1))
    assert mine.status_code == 200
    html = mine.get_data(as_text=True)
    assert "Bob's games" in html and "against Alice" in html
    # The payload of B's private token (the signature's timestamp may be a second later).
    assert f"/p/{game['token']['B'].split('.')[0]}." in html
    assert seed_of(app, game["id"]) not in html
    # A new address gets the same words, and its own link (it signs a newcomer in).
    other = client.post("/me", data={"email": "carol@example.org"}).get_data(as_text=True)
    assert "A link to sign in is on its way" in other and link.group(1) not in other


@pytest.mark.parametrize(
    ("email", "status"), [("not an address", 422), ("a@b.example\r\nBcc: x@y.example", 422)]
)
def test_my_games_bad_address(client: FlaskClient, email: str, status: int) -> None:
    response = client.post("/me", data={"email": email})
    assert response.status_code == status
    assert b"is not an email address" in response.data or b"one line" in response.data
    assert b"/me/" not in response.data.replace(b'action="/me"', b"")


def test_my_games_oversized_and_bad_tokens(app: Flask, client: FlaskClient) -> None:
    assert client.post("/me", data={"email": "a" * 400 + "@x.example"}).status_code == 422
    assert client.get("/me/not-a-token").status_code == 400
    with app.app_context():
        nobody = tokens.make_games_token(999_999, 0)
    assert client.get(f"/me/{nobody}").status_code == 400
    create_and_accept(app, client)
    with app.app_context(), session_scope() as session:
        player = session.exec(select(Player).where(Player.email == "alice@example.org")).one()
        assert player.id is not None
        old = tokens.make_games_token(player.id, player.token_generation)
        player.token_generation += 1
        session.add(player)
    assert client.get(f"/me/{old}").status_code == 403
