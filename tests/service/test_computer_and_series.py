"""The computer opponent and series of games, in the service (issue 11), on SQLite and PostgreSQL:
a game against the computer to its end, its delay, no email to it, its seat's view only; a series
to points and of a number of games, who plays first (R2), the score (R23), leaving, the series
page."""

from __future__ import annotations

import random
import re
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy.pool import NullPool
from sqlmodel import col, select

import engine
from engine.bots import choose_move
from service import tokens
from service.db import session_scope
from service.games.computer import COMPUTER_LEVEL_WORDS, computer_email
from service.games.loaded import load_game
from service.games.move_log import move_log
from service.games.players import find_or_add_player
from service.games.rows import get_game
from service.games.seats import read_seats
from service.games.series import series_score
from service.games.state import apply_moves, load_state
from service.inbound.outcomes import Outcome
from service.inbound.receive import receive
from service.lobby.forms import FormError, parse_new_game
from service.lobby.lifecycle import accept_invitation, create_game
from service.models import Game, GameStatus, Series, SeriesStatus
from service.outbox.models import OutboxMessage
from service.players.models import GameMessage
from service.turns.scan import Checked, check_game
from tests.service.conftest import VALID_FORM, empty_and_close, make_test_app, sign_in_as
from tests.service.replies import reply_bytes, turn_text


@pytest.fixture
def app(database_url: str) -> Iterator[Flask]:
    """The test app with a computer that plays at once (its delay is 0)."""
    app = make_test_app(database_url, COMPUTER_DELAY_S=0)
    yield app
    empty_and_close(app)


_CAROL = {"c_name": "Carol", "c_email": "carol@example.org"}


def new_game(app: Flask, **fields: str) -> int:
    """A game made by its creator's own browser (so nothing waits for a confirmation)."""
    form = {**VALID_FORM, **fields}
    with app.app_context(), session_scope() as session:
        game, _ = create_game(session, parse_new_game(form), creator_present=True)
        assert game.id is not None
        return game.id


def play_people(app: Flask, game_id: int, rng: random.Random, *, limit: int = 400) -> Game:
    """Play random legal moves for the people's seats until the game ends (the computer's
    turns play themselves after each commit). Returns the game row at the end."""
    with app.app_context():
        for _ in range(limit):
            with session_scope() as session:
                loaded = load_game(session, game_id)
                if loaded.game.status != GameStatus.ACTIVE:
                    return loaded.game
                state = load_state(session, loaded)
                seat = state.to_move
                assert seat is not None
                _, player = loaded.seats[seat]
                assert player.computer is None, "the computer's turn was not played"
                move = rng.choice(engine.legal_moves(state))
                apply_moves(session, game_id, seat, state.ply, [move])
        raise AssertionError("the game did not end")


def outbox_to(app: Flask, email: str) -> list[OutboxMessage]:
    with app.app_context(), session_scope() as session:
        return list(
            session.exec(
                select(OutboxMessage)
                .where(OutboxMessage.recipient == email)
                .order_by(col(OutboxMessage.id))  # queued order (a row's place moves when sent)
            ).all()
        )


# --- the computer --------------------------------------------------------------------------


def test_a_game_against_the_computer_is_dealt_at_once_and_played_to_its_end(app: Flask) -> None:
    game_id = new_game(app, b_computer="normal", b_name="", b_email="")
    game = play_people(app, game_id, random.Random(1))
    assert game.status == GameStatus.FINISHED
    with app.app_context(), session_scope() as session:
        seats = read_seats(session, game_id)
        assert seats["B"][1].computer == "normal"
        assert seats["B"][0].accepted
        log = move_log(session, game_id)
    assert {entry.seat for entry in log} == {"A", "B"}
    # The computer reads no email; its opponent got their turns and the end.
    assert outbox_to(app, computer_email("normal")) == []
    kinds = {row.kind for row in outbox_to(app, VALID_FORM["a_email"])}
    assert {"game_started", "game_over"} <= kinds


def _games_are_free(database_url: str) -> bool:
    """Whether another connection could lock any game at once: on SQLite a write transaction
    (one lock for the whole database), on PostgreSQL every game's row."""
    if database_url.startswith("sqlite"):
        other = sqlite3.connect(database_url.removeprefix("sqlite:///"), timeout=0.05)
        other.isolation_level = None
        try:
            other.execute("BEGIN IMMEDIATE")
            other.execute("ROLLBACK")
            return True
        except sqlite3.OperationalError:
            return False
        finally:
            other.close()
    probe = sa.create_engine(database_url, poolclass=NullPool)
    try:
        with probe.connect() as connection:
            connection.exec_driver_sql("SET lock_timeout = '50ms'")
            connection.exec_driver_sql("SELECT id FROM games FOR UPDATE")
            return True
    except sa.exc.OperationalError:
        return False
    finally:
        probe.dispose()


def test_the_computer_searches_before_the_game_is_locked(
    app: Flask, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search takes up to a second of CPU: it runs with nothing locked (on SQLite a lock holds
    up every writer of every game), and the moves it chose are the ones played."""
    free: list[bool] = []
    chosen: list[engine.Move] = []

    def probing(view: engine.PlayerView, level: str, rng: random.Random) -> engine.Move:
        free.append(_games_are_free(database_url))
        move = choose_move(view, level, rng)
        chosen.append(move)
        return move

    monkeypatch.setattr("service.games.computer.choose_move", probing)
    game_id = new_game(app, b_computer="normal", b_name="", b_email="")  # B may move first
    rng = random.Random(4)
    with app.app_context():
        for _ in range(12):  # the person's moves; the computer's turns play after each commit
            with session_scope() as session:
                loaded = load_game(session, game_id)
                state = load_state(session, loaded)
                if state.result is not None:
                    break
                assert state.to_move == "A", "the computer's turn was not played"
                move = rng.choice(engine.legal_moves(state))
                apply_moves(session, game_id, "A", state.ply, [move])
        with session_scope() as session:
            played = [e.notation for e in move_log(session, game_id) if e.seat == "B"]
    assert free and all(free), f"{free.count(False)} of {len(free)} choices under a lock"
    assert played == [str(move) for move in chosen] and len(played) >= 6


@pytest.mark.parametrize(
    ("fields", "talk"),
    [
        ({"b_computer": "normal", "b_name": "", "b_email": ""}, False),
        ({"ruleset": "battleline-3p", "b_computer": "random", "c_computer": "easy"}, False),
        ({"ruleset": "battleline-3p", "b_computer": "random"} | _CAROL, True),
    ],
    ids=["computer", "two-computers", "computer-and-a-person"],
)
def test_nobody_to_write_to_against_the_computer_alone(
    app: Flask, fields: dict[str, str], talk: bool
) -> None:
    """Against the computer alone the pages offer no message, mute or block: nobody would
    read it. With a person among the others they do."""
    game_id = new_game(app, **fields)
    client = app.test_client()
    if talk:
        with app.app_context(), session_scope() as session:
            accept_invitation(session, tokens.SeatToken(game_id=game_id, seat="C", generation=0))
    with app.app_context(), session_scope() as session:  # after the computer's turns
        loaded = load_game(session, game_id)
        state = load_state(session, loaded)
        mover = state.to_move
        assert mover is not None
        assert loaded.seats[mover][1].computer is None  # its turns play themselves at once
        private = tokens.make_private_token(game_id, mover, 0)
        move_token = tokens.make_move_token(game_id, mover, 0, state.ply)
    index = next(
        i for i, m in enumerate(engine.legal_moves(state)) if m.action is engine.Action.PLAY
    )
    page = client.get(f"/p/{private}").get_data(as_text=True)
    confirm = client.get(f"/m/{move_token}/{index}").get_data(as_text=True)
    assert "Confirm this move" in confirm and "Your hand" in page
    for shown in ('name="message"', 'id="conversation"', "Mute the other players"):
        assert (shown in page) is talk, shown
    assert ('name="message"' in confirm) is talk


def test_a_replys_chat_against_the_computer_alone_plays_and_keeps_no_message(app: Flask) -> None:
    game_id = new_game(app, b_computer="normal", b_name="", b_email="")
    with app.app_context(), session_scope() as session:
        state = load_state(session, load_game(session, game_id))
    assert state.to_move == "A"  # the computer's first turn, if it had one, played itself
    (turn,) = [r for r in outbox_to(app, VALID_FORM["a_email"]) if r.kind == "your_turn"][-1:]
    raw = reply_bytes(turn, f"Good luck, machine! {turn_text(state)}")
    with app.app_context():
        assert receive(raw).outcome is Outcome.APPLIED
    with app.app_context(), session_scope() as session:
        assert len(move_log(session, game_id)) > state.ply
        kept = session.exec(select(GameMessage).where(GameMessage.game_id == game_id)).all()
    assert kept == []


@pytest.mark.parametrize("ruleset", ["schotten-totten", "battleline-3p"])
def test_the_computer_plays_every_variant(app: Flask, ruleset: str) -> None:
    fields = {"ruleset": ruleset, "b_computer": "random"}
    if ruleset.endswith("3p"):
        fields |= {"c_name": "Carol", "c_email": "carol@example.org"}
    game_id = new_game(app, **fields)
    with app.app_context(), session_scope() as session:
        game = get_game(session, game_id)
        if ruleset.endswith("3p"):
            # Carol is invited; the computer is in already.
            assert game.status == GameStatus.INVITED
            seats = read_seats(session, game_id)
            assert seats["B"][0].accepted and not seats["C"][0].accepted
            token = tokens.SeatToken(game_id=game_id, seat="C", generation=0)
            accept_invitation(session, token)
    game = play_people(app, game_id, random.Random(2))
    assert game.status == GameStatus.FINISHED


def test_two_computer_seats_in_a_game_for_three(app: Flask) -> None:
    game_id = new_game(app, ruleset="battleline-3p", b_computer="random", c_computer="normal")
    game = play_people(app, game_id, random.Random(3))
    assert game.status == GameStatus.FINISHED
    with app.app_context(), session_scope() as session:
        seats = read_seats(session, game_id)
    assert [seats[s][1].computer for s in "ABC"] == [None, "random", "normal"]


def test_the_computer_waits_its_delay_then_the_scan_plays_its_turn(database_url: str) -> None:
    app = make_test_app(database_url, COMPUTER_DELAY_S=300)
    start = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
    app.config["CLOCK_NOW"] = start
    try:
        game_id = new_game(app, b_computer="random")
        with app.app_context(), session_scope() as session:
            state = load_state(session, load_game(session, game_id))
        if state.to_move == "A":
            with app.app_context(), session_scope() as session:
                state = load_state(session, load_game(session, game_id))
                apply_moves(session, game_id, "A", state.ply, [engine.legal_moves(state)[0]])
                # ... and the rest of A's turn, until the computer is to move.
            with app.app_context():
                _finish_turn(game_id, "A")
        with app.app_context(), session_scope() as session:
            game = get_game(session, game_id)
            ply = game.ply
            assert game.to_move == "B" and game.next_check_at is not None
            assert game.next_check_at == game.turn_started_at + timedelta(seconds=300)
        with app.app_context():
            assert check_game(game_id, start + timedelta(seconds=299)) is Checked.NOTHING
            with session_scope() as session:
                assert get_game(session, game_id).ply == ply
            app.config["CLOCK_NOW"] = start + timedelta(seconds=301)
            assert check_game(game_id, start + timedelta(seconds=301)) is Checked.COMPUTER_PLAYED
            assert check_game(game_id, start + timedelta(seconds=302)) is Checked.NOTHING
            with session_scope() as session:
                game = get_game(session, game_id)
                assert game.ply > ply and game.to_move == "A"
    finally:
        empty_and_close(app)


def _finish_turn(game_id: int, seat: str) -> None:
    """Play ``seat``'s first legal moves until its turn ends."""
    while True:
        with session_scope() as session:
            state = load_state(session, load_game(session, game_id))
            if state.to_move != seat or state.result is not None:
                return
            apply_moves(session, game_id, seat, state.ply, [engine.legal_moves(state)[0]])


def test_the_form_offers_every_level_weakest_first_in_words_a_player_understands(
    app: Flask,
) -> None:
    page = app.test_client().get("/games/new").get_data(as_text=True)
    places = []
    for level in ("random", "easy", "normal", "strong", "expert"):
        words = COMPUTER_LEVEL_WORDS[level]
        assert f"The computer, {level}: {words}</option>" in page
        places.append(page.index(words))
    assert places == sorted(places)
    assert "2026" not in page, "the bench's baselines are not offered"


def test_nobody_can_name_the_computer_s_address_or_an_unknown_level() -> None:
    with pytest.raises(FormError) as error:
        parse_new_game({**VALID_FORM, "b_email": computer_email("strong")})
    assert "b_email" in error.value.errors
    with pytest.raises(FormError) as error:
        parse_new_game({**VALID_FORM, "b_computer": "godlike"})
    assert "b_computer" in error.value.errors
    with pytest.raises(FormError) as error:
        parse_new_game({**VALID_FORM, "c_computer": "normal"})
    assert "c_computer" in error.value.errors


# --- series ----------------------------------------------------------------------------------


def _series_of(app: Flask, game_id: int) -> tuple[Series, list[Game]]:
    with app.app_context(), session_scope() as session:
        game = get_game(session, game_id)
        assert game.series_id is not None
        series = session.get(Series, game.series_id)
        assert series is not None
        score = series_score(session, series)
        return series, list(score.games)


def test_a_series_of_three_games_deals_each_next_game_and_ends(app: Flask) -> None:
    first_id = new_game(app, b_computer="random", series="games", series_games="3")
    rng = random.Random(4)
    game_id = first_id
    seen: list[Game] = []
    for number in range(1, 4):
        game = play_people(app, game_id, rng)
        series, games = _series_of(app, first_id)
        assert [g.id for g in games[:number]] == [g.id for g in [*seen, game]][:number]
        seen.append(game)
        if number < 3:
            assert len(games) == number + 1
            following = games[-1]
            assert following.status == GameStatus.ACTIVE
            # R2: the winner of the previous game plays first; after a draw, the cut decides.
            assert following.deal is not None
            if game.result and game.result["winner"]:
                assert following.deal["first"] == game.result["winner"]
                assert not following.deal.get("cuts")
            assert following.id is not None
            game_id = following.id
        else:
            assert len(games) == 3
            assert series.status == SeriesStatus.FINISHED
    # R23: the score is the sum of each game's points.
    with app.app_context(), session_scope() as session:
        series = session.get(Series, seen[0].series_id)
        assert series is not None
        score = series_score(session, series)
    expected: dict[str, int] = {"A": 0, "B": 0}
    for game in seen:
        assert game.result is not None
        for seat, points in game.result["series_points"].items():
            expected[seat] += points
    assert score.totals == expected
    # The game-over emails of the series told its score; the last one its end.
    overs = [r for r in outbox_to(app, VALID_FORM["a_email"]) if r.kind == "game_over"]
    assert len(overs) == 3
    assert "after game 1" in overs[0].text_body and "The next game is dealt" in overs[0].text_body
    assert "The series is over" in overs[-1].text_body


def test_a_series_to_points_ends_when_one_player_reaches_them(app: Flask) -> None:
    first_id = new_game(app, b_computer="random", series="points", series_points="5")
    rng = random.Random(5)
    game_id = first_id
    for _ in range(10):
        play_people(app, game_id, rng)
        series, games = _series_of(app, first_id)
        if series.status != SeriesStatus.PLAYING:
            break
        assert games[-1].id is not None
        game_id = games[-1].id
    assert series.status == SeriesStatus.FINISHED
    with app.app_context(), session_scope() as session:
        score = series_score(session, series)
    assert max(score.totals.values()) >= 5 and score.winner is not None


def test_leaving_a_series_tells_the_others_and_deals_no_next_game(
    app: Flask, client: FlaskClient
) -> None:
    game_id = new_game(app, series="games", series_games="5")
    with app.app_context(), session_scope() as session:
        from service.lobby.lifecycle import accept_invitation

        accept_invitation(session, tokens.SeatToken(game_id=game_id, seat="B", generation=0))
        token = tokens.make_private_token(game_id, "B", 0)
    page = client.get(f"/p/{token}/leave-series")
    assert page.status_code == 200 and "Leave this series?" in page.get_data(as_text=True)
    assert client.post(f"/p/{token}/leave-series").status_code == 303
    assert client.post(f"/p/{token}/leave-series").status_code == 303  # twice: nothing more
    told = [r for r in outbox_to(app, VALID_FORM["a_email"]) if r.kind == "series_left"]
    assert len(told) == 1 and "Bob left your series" in told[0].text_body
    game = play_people(app, game_id, random.Random(6))
    series, games = _series_of(app, game_id)
    assert series.status == SeriesStatus.LEFT and series.left_by == "B"
    assert [g.id for g in games] == [game.id]
    assert client.get(f"/p/{token}/leave-series").status_code == 409


def test_a_games_pages_change_their_tag_when_its_series_does(
    app: Flask, client: FlaskClient
) -> None:
    # The series note of a game's pages (score, status, the latest game) changes when a later
    # game ends or a player leaves, while the game's own row stays as it was.
    first_id = new_game(app, b_computer="random", series="games", series_games="3")
    rng = random.Random(8)
    first = play_people(app, first_id, rng)
    with app.app_context():
        token = tokens.make_private_token(first_id, "A", 0)
    pages = [f"/p/{token}", f"/games/{first.public_id}"]

    def tags() -> list[str]:
        return [client.get(url).headers["ETag"] for url in pages]

    before = tags()
    assert [
        client.get(u, headers={"If-None-Match": t}).status_code
        for u, t in zip(pages, before, strict=True)
    ] == [304, 304]
    _, games = _series_of(app, first_id)
    assert games[-1].id is not None
    play_people(app, games[-1].id, rng)
    after_game_two = tags()
    assert all(a != b for a, b in zip(before, after_game_two, strict=True))
    assert client.post(f"/p/{token}/leave-series").status_code == 303
    after_leaving = tags()
    assert all(a != b for a, b in zip(after_game_two, after_leaving, strict=True))
    assert "left" in client.get(pages[0]).get_data(as_text=True)


def test_leaving_a_single_game_is_refused(app: Flask, client: FlaskClient) -> None:
    game_id = new_game(app)
    with app.app_context():
        token = tokens.make_private_token(game_id, "A", 0)
    response = client.post(f"/p/{token}/leave-series")
    assert response.status_code == 409


def test_the_series_page_shows_each_game_its_points_and_the_running_score(
    app: Flask, client: FlaskClient
) -> None:
    first_id = new_game(app, b_computer="random", series="games", series_games="2")
    rng = random.Random(7)
    play_people(app, first_id, rng)
    series, games = _series_of(app, first_id)
    assert games[-1].id is not None
    play_people(app, games[-1].id, rng)
    series, games = _series_of(app, first_id)
    page = client.get(f"/series/{series.public_id}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    for game in games:
        assert f"/games/{game.public_id}" in html
    assert "Game 2" in html and "(total " in html
    assert client.get("/series/no-such-series").status_code == 404


# --- a rematch -------------------------------------------------------------------------------


def test_a_rematch_invites_the_other_player_who_accepts_from_their_email(
    app: Flask, client: FlaskClient
) -> None:
    game_id = new_game(app)
    with app.app_context(), session_scope() as session:
        from service.lobby.lifecycle import accept_invitation

        accept_invitation(session, tokens.SeatToken(game_id=game_id, seat="B", generation=0))
    play_people(app, game_id, random.Random(8))
    with app.app_context():
        bob = tokens.make_private_token(game_id, "B", 0)
    over = [r for r in outbox_to(app, "bob@example.org") if r.kind == "game_over"]
    assert f"/p/{bob.split('.')[0]}" in over[0].text_body and "/rematch" in over[0].text_body
    assert client.get(f"/p/{bob}/rematch").status_code == 200
    sign_in_as(app, client, "bob@example.org", "Bob")  # a seat link alone asks by email
    response = client.post(f"/p/{bob}/rematch")
    assert response.status_code == 303
    again = client.post(f"/p/{bob}/rematch")  # pressed twice: the same new game
    assert again.headers["Location"].split(".")[0] == response.headers["Location"].split(".")[0]
    with app.app_context(), session_scope() as session:
        games = session.exec(select(Game).order_by(Game.id)).all()
        assert len(games) == 2
        rematch = games[1]
        assert rematch.status == GameStatus.INVITED and rematch.id is not None
        seats = read_seats(session, rematch.id)
        # Bob offered it: he sits at A, Alice is invited.
        assert seats["A"][1].email == "bob@example.org" and seats["A"][0].accepted
        assert seats["B"][1].email == "alice@example.org" and not seats["B"][0].accepted
    invitations = [r for r in outbox_to(app, "alice@example.org") if r.kind == "invitation"]
    assert len(invitations) == 1 and invitations[0].game_id == rematch.id


def test_a_rematch_is_refused_while_the_game_goes_on(app: Flask, client: FlaskClient) -> None:
    game_id = new_game(app, b_computer="random")
    with app.app_context():
        token = tokens.make_private_token(game_id, "A", 0)
    assert client.get(f"/p/{token}/rematch").status_code == 409
    assert client.post(f"/p/{token}/rematch").status_code == 409


def test_a_rematch_against_the_computer_is_dealt_at_once(app: Flask, client: FlaskClient) -> None:
    game_id = new_game(app, b_computer="random")
    play_people(app, game_id, random.Random(9))
    with app.app_context():
        token = tokens.make_private_token(game_id, "A", 0)
    sign_in_as(app, client, "alice@example.org")
    assert client.post(f"/p/{token}/rematch").status_code == 303
    with app.app_context(), session_scope() as session:
        games = session.exec(select(Game).order_by(Game.id)).all()
        assert [g.status for g in games] == [GameStatus.FINISHED, GameStatus.ACTIVE]


def test_the_computer_is_named_in_the_readers_language(app: Flask, client: FlaskClient) -> None:
    """The computer's name is the service's words, not a person's: "Computer (normal)" on an
    English page or email, コンピューター (ふつう) on a Japanese one."""
    with app.app_context(), session_scope() as session:
        find_or_add_player(session, VALID_FORM["a_email"], "Alice").language = "ja"
    game_id = new_game(app, b_computer="normal", b_name="", b_email="")
    with app.app_context():
        token = tokens.make_private_token(game_id, "A", 0)
    japanese = client.get(f"/p/{token}", headers={"Accept-Language": "ja"}).get_data(as_text=True)
    assert "コンピューター (ふつう)" in japanese and "Computer (normal)" not in japanese
    english = client.get(f"/p/{token}", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Computer (normal)" in english
    (started, *_) = outbox_to(app, VALID_FORM["a_email"])
    assert started.text_body is not None
    assert "コンピューター (ふつう)" in started.text_body
    assert "Computer (normal)" not in started.text_body


def test_a_game_against_the_computer_alone_is_dealt_not_sent(
    app: Flask, client: FlaskClient
) -> None:
    """Nobody is invited to a game against the computer alone: from the creator's inbox it
    asks them to deal the cards, not to send an invitation."""
    form = {**VALID_FORM, "b_computer": "normal", "b_name": "", "b_email": ""}
    created = client.post("/games/new", data=form)
    assert created.status_code == 303 and created.location.endswith("/games/new/sent?deal=1")
    sent = client.get(created.location).get_data(as_text=True)
    assert "<strong>Deal the cards</strong>" in sent and "Send the invitation" not in sent
    (confirmation,) = outbox_to(app, VALID_FORM["a_email"])
    for body in (confirmation.text_body, confirmation.html_body):
        assert body is not None
        assert '"Deal the cards"' in body.replace("&#34;", '"').replace("&quot;", '"'), body
        assert "Send the invitation" not in body and "Nothing has been sent" not in body
    token = re.search(r"/p/([\w.-]+)", confirmation.text_body or "")
    assert token is not None
    page = client.get(f"/p/{token.group(1)}").get_data(as_text=True)
    assert ">Deal the cards</button>" in page and "Send the invitation" not in page
    assert client.post(f"/p/{token.group(1)}/invite").status_code == 303
    with app.app_context(), session_scope() as session:
        assert load_game(session, tokens.read_private_token(token.group(1)).game_id).game.deal


def test_a_game_with_a_person_still_sends_its_invitation(app: Flask, client: FlaskClient) -> None:
    created = client.post("/games/new", data=VALID_FORM)
    assert created.location.endswith("/games/new/sent")
    assert "<strong>Send the invitation</strong>" in client.get(created.location).get_data(
        as_text=True
    )


def test_the_deal_against_the_computer_says_nobody_accepted(app: Flask) -> None:
    new_game(app, b_computer="normal", b_name="", b_email="")
    started = [row for row in outbox_to(app, VALID_FORM["a_email"]) if row.kind == "game_started"]
    assert len(started) == 1 and started[0].text_body is not None
    assert "The game of Battle Line between Alice and Computer (normal) is dealt." in (
        " ".join(started[0].text_body.split())
    )
    assert "accepted" not in started[0].text_body
