"""Public names (issue 24): chosen by their owner, unique whatever the case or look-alike
letters, reserved words and invisible characters refused, changed at most once a month; two
players claiming one name at once get it once."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from service import clock
from service.db import session_scope
from service.games.players import find_or_add_player, find_player
from service.models import Player
from service.players.names import (
    NameRefusedError,
    NameTakenError,
    NameTooSoonError,
    check_public_name,
    choose_name,
    name_key,
)
from tests.service.conftest import VALID_FORM, sign_in_as


@pytest.mark.parametrize(
    "look_alike",
    [
        "alice", "ALICE", "AIice", "A1ice", "A|ice", "\u0410lice", "Al\u0456ce", "Al ice",
        "A.lice", "\uff21\uff4c\uff49\uff43\uff45", "\u0391lice",
    ],
)  # fmt: skip
def test_look_alikes_share_a_key(look_alike: str) -> None:
    assert name_key(look_alike) == name_key("Alice")


@pytest.mark.parametrize("other", ["Alicia", "Alise", "Bob", "Álice", "アリス"])
def test_different_names_have_different_keys(other: str) -> None:
    assert name_key(other) != name_key("Alice")


def test_letter_pairs_drawn_as_one_letter_share_a_key() -> None:
    assert name_key("rnary") == name_key("Mary")
    assert name_key("vvill") == name_key("Will")


@pytest.mark.parametrize(
    "bad",
    [
        "Al\x00ice", "Al\nice", "Ali\u202ece", "\u200fAlice", "Al\u200bice", "Ali\u200dce",
        "\ufeffAlice", "x" * 41, "x" * 200, "", "   ", "a@b.example", "Al/ice", "<b>Al</b>",
        "=?utf-8?q?x?=", "Admin", "ADMIN Bob", "Computer (expert)", "moderator", "System",
        "Support", "Expert", "a former player", "!!!",
    ],
)  # fmt: skip
def test_bad_names_are_refused(bad: str) -> None:
    with pytest.raises(NameRefusedError):
        check_public_name(bad)


@pytest.mark.parametrize("good", ["Alice", "アリス", "Jean-Paul", "Иван", "O'Brien", "x" * 40])
def test_names_of_people_are_taken_as_they_are(good: str) -> None:
    assert check_public_name(f"  {good} ") == good


def _player(app: Flask, email: str, label: str = "label") -> int:
    with app.app_context(), session_scope() as session:
        player = find_or_add_player(session, email, label)
        session.flush()
        assert player.id is not None
        return player.id


def _choose(app: Flask, player_id: int, name: str, days_later: int = 0) -> None:
    with app.app_context(), session_scope() as session:
        player = session.get(Player, player_id)
        assert player is not None
        choose_name(session, player, name, clock.now() + timedelta(days=days_later))


def test_a_look_alike_of_another_players_name_is_taken(app: Flask) -> None:
    alice = _player(app, "alice@example.org")
    mallory = _player(app, "mallory@example.org")
    _choose(app, alice, "Alice")
    for look_alike in ("AIice", "\u0430lice", "alice"):
        with pytest.raises(NameTakenError):
            _choose(app, mallory, look_alike)
    with app.app_context(), session_scope() as session:
        found = session.get(Player, mallory)
        assert found is not None and not found.name_confirmed and found.display_name == "label"


def test_a_name_changes_once_a_month_after_the_first_change(app: Flask) -> None:
    alice = _player(app, "alice@example.org")
    _choose(app, alice, "Alise")
    _choose(app, alice, "Alice")  # the first choice mended at once
    with pytest.raises(NameTooSoonError):
        _choose(app, alice, "Alicia", days_later=29)
    _choose(app, alice, "Alicia", days_later=31)
    with app.app_context(), session_scope() as session:
        assert find_player(session, "alice@example.org").display_name == "Alicia"  # type: ignore[union-attr]


def test_a_name_given_up_is_free_for_another(app: Flask) -> None:
    alice = _player(app, "alice@example.org")
    bob = _player(app, "bob@example.org")
    _choose(app, alice, "Ace")
    _choose(app, alice, "Alice")
    _choose(app, bob, "Ace")


def test_two_players_claiming_one_name_at_once_get_it_once(app: Flask) -> None:
    ids = [_player(app, f"p{n}@example.org") for n in range(4)]
    start = threading.Barrier(len(ids))
    outcomes: list[str] = []

    def claim(player_id: int, name: str) -> None:
        with app.app_context():
            start.wait()
            try:
                _choose(app, player_id, name)
                outcomes.append("won")
            except NameTakenError:
                outcomes.append("taken")

    names = ["Alice", "ALICE", "AIice", "\u0410lice"]
    threads = [threading.Thread(target=claim, args=pair) for pair in zip(ids, names, strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["taken", "taken", "taken", "won"]
    with app.app_context(), session_scope() as session:
        keys = session.exec(select(Player.name_key).where(Player.name_key != None)).all()  # noqa: E711
    assert keys == [name_key("Alice")]


def test_signing_in_without_a_name_asks_for_one_first(app: Flask, client: FlaskClient) -> None:
    from service import tokens

    player_id = _player(app, "bob@example.org", "Idiot")
    with app.app_context():
        token = tokens.make_games_token(player_id, 0)
    response = client.post(f"/me/{token}/sign-in")
    assert response.status_code == 303
    assert response.headers["Location"].endswith("/me/name")
    page = client.get("/me/name").get_data(as_text=True)
    assert "Choose the name other players will see" in page
    response = client.post("/me/name", data={"name": " Bob "})
    assert response.status_code == 303
    assert response.headers["Location"].endswith("/players/Bob")
    with app.app_context(), session_scope() as session:
        bob = session.get(Player, player_id)
        assert bob is not None and bob.display_name == "Bob" and bob.name_confirmed


def test_the_name_form_says_what_is_wrong_and_changes_nothing(
    app: Flask, client: FlaskClient
) -> None:
    sign_in_as(app, client, "alice@example.org", "Alice")
    assert client.post("/me/name", data={"name": "Alice"}).status_code == 303
    other = app.test_client()
    sign_in_as(app, other, "mallory@example.org", "M")
    response = other.post("/me/name", data={"name": "AIice"})
    assert response.status_code == 409
    assert "looks the same" in response.get_data(as_text=True)
    response = other.post("/me/name", data={"name": "x" * 200})
    assert response.status_code == 400
    assert "at most 40 characters" in response.get_data(as_text=True)
    with app.app_context(), session_scope() as session:
        mallory = find_player(session, "mallory@example.org")
        assert mallory is not None and mallory.display_name == "M"


def test_naming_oneself_needs_a_signed_in_browser(client: FlaskClient) -> None:
    assert client.post("/me/name", data={"name": "Alice"}).status_code == 401
    assert client.get("/me/name").status_code == 303


def test_the_name_form_is_in_japanese(app: Flask, client: FlaskClient) -> None:
    sign_in_as(app, client, "alice@example.org", "Alice")
    client.post("/language", data={"language": "ja", "next": "/me/name"})
    page = client.get("/me/name").get_data(as_text=True)
    assert "Choose the name other players will see" not in page
    assert "名前" in page


def test_a_game_started_under_a_name_that_cannot_be_chosen_keeps_the_name_as_it_was(
    app: Flask, client: FlaskClient
) -> None:
    sign_in_as(app, client, "alice@example.org", "Alice")
    assert client.post("/me/name", data={"name": "Alice"}).status_code == 303
    sign_in_as(app, client, "bob@example.org", "Idiot")
    form = {**VALID_FORM, "a_name": "AIice", "a_email": "bob@example.org"}
    form |= {"b_name": "Carol", "b_email": "carol@example.org"}
    assert client.post("/games/new", data=form).status_code == 303  # the game goes ahead
    with app.app_context(), session_scope() as session:
        bob = find_player(session, "bob@example.org")
        assert bob is not None and bob.display_name == "Idiot" and not bob.name_confirmed
