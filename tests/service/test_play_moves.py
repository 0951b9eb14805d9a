"""Making moves: the private page's forms, move links (GET shows, POST plays), ``apply_moves``
itself, and every way a request can be refused with the game left as it was."""

from __future__ import annotations

import base64
import json
import random
import re
from datetime import timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

import engine
from service import tokens
from service.db import session_scope
from service.games.loaded import load_game
from service.games.move_log import move_log
from service.games.refusals import (
    AlreadyPlayedError,
    IllegalMoveRefusal,
    StaleMoveError,
    UnreadableMoveError,
    WrongSeatError,
)
from service.games.rows import get_game, lock_game
from service.games.seats import read_seats, revoke_seat_links
from service.games.state import (
    add_move_listener,
    apply_moves,
    load_state,
)
from service.models import Game, GameStatus, utcnow
from service.present.choices import move_choices
from service.present.move_links import move_link_url, move_link_urls
from tests.service.play_driver import create_and_accept, move_submissions, seat_to_move


@pytest.fixture
def game(app: Flask, client: FlaskClient) -> dict[str, Any]:
    return create_and_accept(app, client)


def assert_private_page_of(app: Flask, location: str | None, token: str) -> None:
    """A redirect to the same seat's private page (a fresh token: its timestamp may differ)."""
    assert location is not None and location.startswith("/p/")
    with app.app_context():
        assert tokens.read_private_token(location.removeprefix("/p/")) == tokens.read_private_token(
            token
        )


def state_of(app: Flask, game_id: int) -> engine.GameState:
    with app.app_context(), session_scope() as session:
        return load_state(session, load_game(session, game_id))


def log_of(app: Flask, game_id: int) -> list[str]:
    with app.app_context(), session_scope() as session:
        return [e.notation for e in move_log(session, game_id)]


def game_row(app: Flask, game_id: int) -> Game:
    with app.app_context(), session_scope() as session:
        return get_game(session, game_id)


def to_move(app: Flask, game: dict[str, Any]) -> tuple[str, str, engine.GameState]:
    """(seat to move, their private token, the state)."""
    state = state_of(app, game["id"])
    return state.to_move, game["token"][state.to_move], state


def link_for(app: Flask, game_id: int, seat: str, ply: int, index: int) -> str:
    with app.app_context(), session_scope() as session:
        row = read_seats(session, game_id)[seat][0]
        return move_link_url(row, ply, index).removeprefix("http://bl.test")


def first_play_index(state: engine.GameState) -> int:
    return next(
        i for i, m in enumerate(engine.legal_moves(state)) if m.action is engine.Action.PLAY
    )


# --- the private page's forms -----------------------------------------------------------------


def test_private_page_offers_every_legal_move(
    app: Flask, client: FlaskClient, game: dict[str, Any]
) -> None:
    seat, token, state = to_move(app, game)
    html = client.get(f"/p/{token}").get_data(as_text=True)
    offered = {s.move for s in move_submissions(html, random.Random(1))}
    legal = {m.action_text() for m in engine.legal_moves(state)}
    assert offered == legal
    assert 'name="ply" value="0"' in html
    # The other seat sees the board but no move form, and its own hand.
    other = "B" if seat == "A" else "A"
    other_html = client.get(f"/p/{game['token'][other]}").get_data(as_text=True)
    assert move_submissions(other_html, random.Random(1)) == []
    assert "Waiting for" in other_html


def test_a_card_and_a_draw_in_one_press(
    app: Flask, client: FlaskClient, game: dict[str, Any]
) -> None:
    seat, token, state = to_move(app, game)
    play = engine.legal_moves(state)[first_play_index(state)]
    response = client.post(
        f"/p/{token}/move", data={"ply": "0", "move": play.action_text(), "then": "draw troops"}
    )
    assert response.status_code == 303
    assert_private_page_of(app, response.location, token)
    assert log_of(app, game["id"]) == [str(play), f"{seat}: draw troops"]
    after = state_of(app, game["id"])
    assert after.to_move != seat and after.ply == 2
    row = game_row(app, game["id"])
    assert row.deadline is not None
    assert utcnow() + timedelta(days=3) - row.deadline < timedelta(minutes=1)


@pytest.mark.parametrize("then", ["resign", "RESIGN", "claim 3", "pass", "R7>3"])
def test_a_card_and_anything_but_a_turn_ending_in_one_press_is_refused(
    app: Flask, client: FlaskClient, game: dict[str, Any], then: str
) -> None:
    """A form with a card and ``then=resign`` played the card and resigned the game."""
    _seat, token, state = to_move(app, game)
    play = engine.legal_moves(state)[first_play_index(state)]
    response = client.post(
        f"/p/{token}/move", data={"ply": "0", "move": play.action_text(), "then": then}
    )
    assert response.status_code == 400
    assert "could not be read" in response.get_data(as_text=True)
    assert log_of(app, game["id"]) == []
    assert state_of(app, game["id"]) == state
    assert game_row(app, game["id"]).status == GameStatus.ACTIVE


def test_all_or_nothing(app: Flask, client: FlaskClient, game: dict[str, Any]) -> None:
    _seat, token, state = to_move(app, game)
    play = engine.legal_moves(state)[first_play_index(state)]
    # A play followed by 'end' while a draw is due: the draw is missing, nothing is stored.
    response = client.post(
        f"/p/{token}/move", data={"ply": "0", "move": play.action_text(), "then": "end"}
    )
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "you must draw a card before your turn ends" in html
    assert f'href="/p/{token}"' in html
    assert log_of(app, game["id"]) == []
    assert state_of(app, game["id"]) == state


def test_illegal_move_shows_the_rule(app: Flask, client: FlaskClient, game: dict[str, Any]) -> None:
    seat, token, state = to_move(app, game)
    hand = list(engine.player_view(state, seat).hand)
    absent = next(c for c in sorted(state.ruleset.troops) if c not in hand)
    response = client.post(f"/p/{token}/move", data={"ply": "0", "move": f"{absent}>1"})
    assert response.status_code == 422
    assert "not in your hand" in response.get_data(as_text=True)
    as_json = client.post(
        f"/p/{token}/move",
        data={"ply": "0", "move": "claim 1"},
        headers={"Accept": "application/json"},
    )
    assert as_json.status_code == 422
    body = as_json.get_json()
    assert body["title"] == "That move is not allowed"
    assert "R13" in body["message"] and body["private_page"] == f"/p/{token}"
    assert log_of(app, game["id"]) == []


def test_not_your_turn(app: Flask, client: FlaskClient, game: dict[str, Any]) -> None:
    seat, _, _state = to_move(app, game)
    other = "B" if seat == "A" else "A"
    response = client.post(f"/p/{game['token'][other]}/move", data={"ply": "0", "move": "pass"})
    assert response.status_code == 422
    # In words, not seat letters ("B" is also blue).
    page = response.get_data(as_text=True)
    assert "it is not your turn yet" in page and f"{seat}&#39;s turn" not in page
    assert log_of(app, game["id"]) == []


@pytest.mark.parametrize(
    ("data", "status", "words"),
    [
        ({"move": "pass"}, 400, "did not say"),
        ({"ply": "zero", "move": "pass"}, 400, "not a number"),
        ({"ply": "-1", "move": "pass"}, 400, "not a number"),
        ({"ply": "0"}, 400, "did not say"),
        ({"ply": "0", "move": "x" * 101}, 400, "longer than any move"),
        ({"ply": "0", "move": "R7>>3"}, 400, "could not be read"),
        ({"ply": "0", "move": "R7>3", "then": "draw gold"}, 400, "could not be read"),
        ({"ply": "0", "move": "timeout"}, 400, "Only the server"),
        ({"ply": "0", "move": "B: pass"}, 403, "another player&#39;s seat"),
    ],
)
def test_malformed_forms(
    app: Flask,
    client: FlaskClient,
    game: dict[str, Any],
    data: dict[str, str],
    status: int,
    words: str,
) -> None:
    token = game["token"]["A"]
    response = client.post(f"/p/{token}/move", data=data)
    assert response.status_code == status, response.get_data(as_text=True)
    assert words in response.get_data(as_text=True)
    assert log_of(app, game["id"]) == []


def test_oversized_body_is_413(app: Flask, client: FlaskClient, game: dict[str, Any]) -> None:
    response = client.post(
        f"/p/{game['token']['A']}/move", data={"ply": "0", "move": "pass", "pad": "x" * 70_000}
    )
    assert response.status_code == 413
    assert log_of(app, game["id"]) == []


def test_repeated_fields_are_refused(app: Flask, client: FlaskClient, game: dict[str, Any]) -> None:
    response = client.post(
        f"/p/{game['token']['A']}/move", data={"ply": ["0", "0"], "move": "pass"}
    )
    assert response.status_code == 400
    assert log_of(app, game["id"]) == []


def test_get_of_the_move_address_changes_nothing(
    app: Flask, client: FlaskClient, game: dict[str, Any]
) -> None:
    _, token, _ = to_move(app, game)
    assert client.get(f"/p/{token}/move").status_code == 405
    assert client.head(f"/p/{token}/move").status_code == 405
    assert log_of(app, game["id"]) == []


def test_same_form_twice_says_already_played(
    app: Flask, client: FlaskClient, game: dict[str, Any]
) -> None:
    _seat, token, state = to_move(app, game)
    play = engine.legal_moves(state)[first_play_index(state)].action_text()
    assert client.post(f"/p/{token}/move", data={"ply": "0", "move": play}).status_code == 303
    again = client.post(f"/p/{token}/move", data={"ply": "0", "move": play})
    assert again.status_code == 200
    assert "Already played" in again.get_data(as_text=True)
    # A different move from the same old page is merely stale.
    stale = client.post(f"/p/{token}/move", data={"ply": "0", "move": "claim 1"})
    assert stale.status_code == 409
    html = stale.get_data(as_text=True)
    assert "The game has moved on" in html and f'href="/p/{token}"' in html
    # Said in moves made since, not in ply numbers nobody sees.
    assert "one move has been made since" in html and "move 1," not in html
    assert len(log_of(app, game["id"])) == 1


def test_unknown_game_and_bad_tokens(app: Flask, client: FlaskClient, game: dict[str, Any]) -> None:
    with app.app_context():
        nowhere = tokens.make_private_token(999_999, "A", 0)
    assert client.post(f"/p/{nowhere}/move", data={"ply": "0", "move": "pass"}).status_code == 404
    tampered = game["token"]["A"][:-2] + "xx"
    response = client.post(f"/p/{tampered}/move", data={"ply": "0", "move": "pass"})
    assert response.status_code == 400
    assert "changed or cut short" in response.get_data(as_text=True)
    assert log_of(app, game["id"]) == []


def test_revoked_private_link(app: Flask, client: FlaskClient, game: dict[str, Any]) -> None:
    seat, token, state = to_move(app, game)
    with app.app_context(), session_scope() as session:
        lock_game(session, game["id"])
        revoke_seat_links(session, read_seats(session, game["id"])[seat][0])
    play = engine.legal_moves(state)[first_play_index(state)].action_text()
    response = client.post(f"/p/{token}/move", data={"ply": "0", "move": play})
    assert response.status_code == 403
    assert log_of(app, game["id"]) == []


def test_resign_asks_first(app: Flask, client: FlaskClient, game: dict[str, Any]) -> None:
    seat, _, _ = to_move(app, game)
    other = "B" if seat == "A" else "A"
    token = game["token"][other]  # resigning is allowed out of turn
    page = client.get(f"/p/{token}/resign")
    assert page.status_code == 200
    assert "Yes, resign the game" in page.get_data(as_text=True)
    assert client.head(f"/p/{token}/resign").status_code == 200
    assert log_of(app, game["id"]) == []
    response = client.post(f"/p/{token}/move", data={"ply": "0", "move": "resign"})
    assert response.status_code == 303
    row = game_row(app, game["id"])
    assert row.status == GameStatus.FINISHED
    assert row.result is not None
    assert row.result["winner"] == seat and row.result["termination"] == "resignation"
    assert log_of(app, game["id"]) == [f"{other}: resign"]
    assert client.get(f"/p/{token}/resign").status_code == 409
    after = client.post(f"/p/{token}/move", data={"ply": "1", "move": "pass"})
    assert after.status_code == 409 and "finished" in after.get_data(as_text=True)


def test_other_rules_version_is_refused(
    app: Flask, client: FlaskClient, game: dict[str, Any]
) -> None:
    with app.app_context(), session_scope() as session:
        row = get_game(session, game["id"])
        row.rules_version = "0-old"
        session.add(row)
    page = client.get(f"/p/{game['token']['A']}")
    assert page.status_code == 409
    assert "rules version 0-old" in page.get_data(as_text=True)
    response = client.post(f"/p/{game['token']['A']}/move", data={"ply": "0", "move": "pass"})
    assert response.status_code == 409
    assert client.get(f"/games/{game['public_id']}").status_code == 409
    assert log_of(app, game["id"]) == []


# --- move links -------------------------------------------------------------------------------


def test_move_link_get_and_head_change_nothing(
    app: Flask, client: FlaskClient, game: dict[str, Any]
) -> None:
    seat, _, state = to_move(app, game)
    index = first_play_index(state)
    move = engine.legal_moves(state)[index]
    url = link_for(app, game["id"], seat, 0, index)
    page = client.get(url)
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "Confirm this move" in html and f'action="{url}"' in html
    assert f"to flag {move.flag}" in html
    assert "<script" not in html
    assert client.head(url).status_code == 200
    assert log_of(app, game["id"]) == []
    assert state_of(app, game["id"]) == state
    # No card in the token: its payload names game, seat, generation and ply only.
    token = url.split("/")[2]
    payload = token.split(".")[0]
    decoded = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    assert set(decoded) == {"g", "s", "n", "p"}


def test_move_link_post_plays_then_says_already_played(
    app: Flask, client: FlaskClient, game: dict[str, Any]
) -> None:
    seat, token, state = to_move(app, game)
    index = first_play_index(state)
    move = engine.legal_moves(state)[index]
    url = link_for(app, game["id"], seat, 0, index)
    response = client.post(url)
    assert response.status_code == 303
    assert_private_page_of(app, response.location, token)
    assert log_of(app, game["id"]) == [str(move)]
    for method in (client.post, client.get):
        again = method(url)
        assert again.status_code == 200
        html = again.get_data(as_text=True)
        assert "Already played" in html
        private = re.search(r'href="/p/([^"]+)"', html)
        assert private is not None  # a fresh link to the same seat's private page
        with app.app_context():
            assert tokens.read_private_token(private.group(1)).seat == seat
    # Another move of the same (now past) ply is stale, and says where to go.
    other = link_for(app, game["id"], seat, 0, index + 1)
    stale = client.post(other)
    assert stale.status_code == 409
    assert "The game has moved on" in stale.get_data(as_text=True)
    assert client.get(other).status_code == 409
    assert log_of(app, game["id"]) == [str(move)]


def test_move_link_refusals(app: Flask, client: FlaskClient, game: dict[str, Any]) -> None:
    seat, _, state = to_move(app, game)
    other = "B" if seat == "A" else "A"
    url = link_for(app, game["id"], seat, 0, 0)
    token = url.split("/")[2]
    # Tampered.
    assert client.post(f"/m/{token[:-3]}abc/0").status_code == 400
    # An index that names no move.
    beyond = client.post(f"/m/{token}/{len(engine.legal_moves(state))}")
    assert beyond.status_code == 400
    assert "names no move" in beyond.get_data(as_text=True)
    # The other seat's link at this ply.
    wrong = client.get(link_for(app, game["id"], other, 0, 0))
    assert wrong.status_code == 403
    # A ply the game has not reached.
    future = client.post(link_for(app, game["id"], seat, 5, 0))
    assert future.status_code == 409
    # A private-page token is not a move token.
    assert client.post(f"/m/{game['token'][seat]}/0").status_code == 400
    assert log_of(app, game["id"]) == []


def test_expired_move_link(app: Flask, client: FlaskClient, game: dict[str, Any]) -> None:
    from unittest import mock

    from itsdangerous import SignatureExpired

    seat, _, _ = to_move(app, game)
    url = link_for(app, game["id"], seat, 0, 0)

    def expired(*_args: Any, **_kw: Any) -> Any:
        raise SignatureExpired("old")

    with mock.patch("itsdangerous.URLSafeTimedSerializer.loads", expired):
        response = client.post(url)
    assert response.status_code == 410
    assert "expired" in response.get_data(as_text=True)
    assert log_of(app, game["id"]) == []


def test_move_links_for_mail(app: Flask, game: dict[str, Any]) -> None:
    """One link per legal move, all with one token, grouped by the same builder as the page."""
    seat, _, state = to_move(app, game)
    legal = engine.legal_moves(state)
    with app.app_context(), session_scope() as session:
        seats = read_seats(session, game["id"])
        choices = move_choices(state, seat)
        urls = move_link_urls(seats[seat][0], state.ply, choices.count)
    assert choices.count == len(legal) == len(set(urls))
    assert all(url.startswith("http://bl.test/m/") for url in urls)
    assert all(legal[c.index] == c.move for c in choices.links)
    grouped = [c.move for group in choices.plays for c in group.choices]
    assert grouped == [m for m in legal if m.action is engine.Action.PLAY]
    other = next(s for s in state.ruleset.seats if s != seat)
    assert move_choices(state, other).count == 0


# --- apply_moves directly ---------------------------------------------------------------------


def test_apply_moves_refusals_and_events(app: Flask, game: dict[str, Any]) -> None:
    seat, _, state = to_move(app, game)
    other = "B" if seat == "A" else "A"
    play = engine.legal_moves(state)[first_play_index(state)]
    seen: list[list[engine.Event]] = []
    add_move_listener(app, lambda _s, _g, _st, events: seen.append(events))
    with app.app_context():
        with pytest.raises(WrongSeatError), session_scope() as session:
            apply_moves(session, game["id"], other, 0, [play])
        with pytest.raises(UnreadableMoveError), session_scope() as session:
            apply_moves(session, game["id"], seat, 0, [])
        with pytest.raises(IllegalMoveRefusal), session_scope() as session:
            apply_moves(session, game["id"], seat, 0, ["end"])
        with pytest.raises(StaleMoveError), session_scope() as session:
            apply_moves(session, game["id"], seat, 3, [play])
        assert seen == []
        with session_scope() as session:
            after, events = apply_moves(
                session,
                game["id"],
                seat,
                0,
                [play, engine.Move(seat, engine.Action.DRAW, deck=engine.Deck.TROOPS)],
            )
        assert after.ply == 2 and after.to_move == other
        assert events == [engine.TurnStarted(other, 2)]
        assert seen == [events]
        with pytest.raises(AlreadyPlayedError), session_scope() as session:
            apply_moves(session, game["id"], seat, 0, [str(play), "draw troops"])
        with session_scope() as session:
            final, ended = apply_moves(session, game["id"], other, 2, ["timeout"], by_server=True)
    assert final.result == engine.Outcome(seat, engine.Termination.TIME)
    assert isinstance(ended[-1], engine.GameEnded)
    row = game_row(app, game["id"])
    assert row.status == GameStatus.FINISHED and row.deadline is None


def test_turn_passing_moves_the_deadline_only_then(app: Flask, client: FlaskClient) -> None:
    game = create_and_accept(app, client, claims="standard")
    rng = random.Random(7)
    _, html = seat_to_move(client, game) or ("", "")
    play = next(s for s in move_submissions(html, rng) if ">" in s.move)
    before = game_row(app, game["id"]).deadline
    response = client.post(play.action, data={**play.data, "then": ""})
    assert response.status_code == 303
    # Played but not drawn: still the same turn, the deadline stands.
    assert game_row(app, game["id"]).deadline == before
