"""Rated or casual is chosen at creation: on the new-game form, in a challenge (and only
standing requests alike are paired); the computer's levels are rated players, casual unless
asked, and their ratings show on the new-game form. On SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

import engine
from engine import ClaimTiming
from service.db import session_scope
from service.games.computer import computer_email
from service.games.loaded import load_game
from service.games.state import apply_moves
from service.lobby.automatch import find_opponent
from service.lobby.challenge_terms import ChallengeTerms
from service.lobby.challenges import accept_challenge, post_challenge
from service.lobby.forms import FormError, parse_new_game
from service.lobby.lifecycle import create_game, deal_when_all_accepted
from service.models import Game, Player
from service.players.challenge_models import ChallengeKind
from tests.service.conftest import VALID_FORM, empty_and_close, make_test_app, sign_in_as
from tests.service.rating_games import (
    QUIET,
    changes,
    end_game,
    play_turns,
    rated_game,
    rating_of,
    signed_in_player,
    state_of,
)


@pytest.fixture
def app(database_url: str) -> Iterator[Flask]:
    """The computer plays at once (its delay is 0)."""
    app = make_test_app(database_url, COMPUTER_DELAY_S=0)
    yield app
    empty_and_close(app)


def _rated(app: Flask, game_id: int) -> bool:
    with app.app_context(), session_scope() as session:
        game = session.get(Game, game_id)
        assert game is not None
        return game.rated


def test_the_form_makes_casual_games_unless_rated_is_chosen(app: Flask) -> None:
    assert parse_new_game(VALID_FORM).rated is False
    assert parse_new_game({**VALID_FORM, "rated": "rated"}).rated is True
    with pytest.raises(FormError) as refused:
        parse_new_game({**VALID_FORM, "rated": "maybe"})
    assert "rated" in refused.value.errors


def test_the_form_page_offers_the_choice(client: FlaskClient) -> None:
    page = client.get("/games/new").get_data(as_text=True)
    assert 'name="rated" value="casual" checked' in page
    assert 'name="rated" value="rated"' in page


def test_game_pages_say_rated_or_casual(app: Flask, client: FlaskClient) -> None:
    for rated, words in ((True, "<dd>Rated</dd>"), (False, "<dd>Casual</dd>")):
        game_id = rated_game(app, rated=rated)
        with app.app_context(), session_scope() as session:
            game = session.get(Game, game_id)
            assert game is not None
            public_id = game.public_id
        assert words in client.get(f"/games/{public_id}").get_data(as_text=True)


def test_rated_and_casual_requests_are_different_games(app: Flask) -> None:
    """The same form once casual and once rated makes two games, not one."""
    with app.app_context(), session_scope() as session:
        casual, _ = create_game(session, parse_new_game(VALID_FORM))
        rated, _ = create_game(session, parse_new_game({**VALID_FORM, "rated": "rated"}))
        assert casual.id != rated.id and rated.rated and not casual.rated


def _player(app: Flask, email: str) -> Player:
    signed_in_player(app, email, email.split("@")[0].title())
    with app.app_context(), session_scope() as session:
        player = session.exec(select(Player).where(Player.email == email)).one()
        session.expunge(player)
        return player


def test_a_rated_challenge_makes_a_rated_game(app: Flask) -> None:
    ann, ben = _player(app, "ann@example.org"), _player(app, "ben@example.org")
    terms = ChallengeTerms("battleline", ClaimTiming.ADVANCED, 3, rated=True)
    with app.app_context(), session_scope() as session:
        poster = session.get(Player, ann.id)
        taker = session.get(Player, ben.id)
        assert poster is not None and taker is not None
        challenge = post_challenge(session, poster, terms, ChallengeKind.OPEN)
        assert challenge.id is not None
        game = accept_challenge(session, challenge.id, taker)
        assert game.rated


def test_lobby_says_rated_or_casual(app: Flask, client: FlaskClient) -> None:
    sign_in_as(app, client, "ann@example.org", "Ann")
    posted = client.post(
        "/lobby/challenges", data={"ruleset": "battleline", "days_per_move": "3", "rated": "rated"}
    )
    assert posted.status_code in (302, 303), posted.get_data(as_text=True)
    assert "Rated." in client.get("/lobby").get_data(as_text=True)
    bad = client.post("/lobby/challenges", data={"ruleset": "battleline", "rated": "x"})
    assert bad.status_code == 422
    assert "A game must be rated or casual." in bad.get_data(as_text=True)


def test_automatch_pairs_only_alike_requests(app: Flask) -> None:
    ann, ben, cal = (_player(app, f"{n}@example.org") for n in ("ann", "ben", "cal"))
    rated = ChallengeTerms("battleline", ClaimTiming.ADVANCED, 3, rated=True)
    casual = ChallengeTerms("battleline", ClaimTiming.ADVANCED, 3)
    with app.app_context(), session_scope() as session:
        first = find_opponent(session, session.get(Player, ann.id), rated)  # type: ignore[arg-type]
        second = find_opponent(session, session.get(Player, ben.id), casual)  # type: ignore[arg-type]
        assert first.game_id is None and second.game_id is None
        third = find_opponent(session, session.get(Player, cal.id), rated)  # type: ignore[arg-type]
        assert third.game_id is not None
        game = session.get(Game, third.game_id)
        assert game is not None and game.rated


def test_the_computer_is_rated_when_asked_and_shown_on_the_form(
    app: Flask, client: FlaskClient
) -> None:
    signed_in_player(app, "alice@example.org", "Alice")
    form = {**VALID_FORM, "b_computer": "strong", "b_name": "", "b_email": "", "rated": "rated"}
    with app.app_context(), session_scope() as session:
        game, _ = create_game(session, parse_new_game(form), creator_present=True)
        assert game.id is not None
        game_id = game.id
    assert _rated(app, game_id)
    state = state_of(app, game_id)
    while state.turn < 5 or state.to_move != "A":
        assert state.result is None
        assert state.to_move == "A", "the computer plays its own turns"
        move = next(m for m in engine.legal_moves(state) if m.action not in QUIET)
        with app.app_context(), session_scope() as session:
            apply_moves(session, game_id, "A", state.ply, [move])
        state = state_of(app, game_id)
    end_game(app, game_id, "A")
    strong = rating_of(app, computer_email("strong"))
    assert strong is not None and strong.rating > 1500
    page = client.get("/games/new").get_data(as_text=True)
    assert "strong: 1662? (Battle Line)" in page.replace("Strong", "strong")


def test_the_next_game_of_a_rated_series_is_rated(app: Flask) -> None:
    signed_in_player(app, "alice@example.org", "Alice")
    signed_in_player(app, "bob@example.org", "Bob")
    form = {**VALID_FORM, "series": "games", "series_games": "3", "rated": "rated"}
    with app.app_context(), session_scope() as session:
        game, seats = create_game(session, parse_new_game(form), creator_present=True)
        assert game.id is not None
        game_id, series_id = game.id, game.series_id
        seats["B"].accepted = True
        session.add(seats["B"])
        deal_when_all_accepted(session, load_game(session, game_id))
    play_turns(app, game_id, 4)
    end_game(app, game_id, "B")
    assert {c.verdict for c in changes(app, game_id)} == {"counted"}
    with app.app_context(), session_scope() as session:
        following = session.exec(
            select(Game).where(Game.series_id == series_id, Game.id != game_id)
        ).one()
        assert following.rated
