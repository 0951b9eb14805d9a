"""The invited player accepts or declines through their signed link: GET shows, POST acts."""

from __future__ import annotations

import re
from datetime import timedelta
from types import SimpleNamespace

import pytest
from alembic import command
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

import engine
from service import tokens
from service.db import alembic_config, session_scope, upgrade_schema
from service.games.players import find_or_add_player
from service.games.records import cut_words, game_record
from service.games.rows import get_game
from service.games.seats import read_seats
from service.games.snapshots import latest_snapshot
from service.lobby.forms import parse_new_game
from service.lobby.lifecycle import create_game
from service.models import Game, Snapshot, utcnow
from service.outbox import MailKind
from service.outbox.addresses import mark_bouncing
from tests.service.conftest import VALID_FORM
from tests.service.test_leaks import THREE_PLAYERS
from tests.worker.outbox_rows import rows


def _game(app: Flask, game_id: int) -> Game:
    with app.app_context(), session_scope() as session:
        return get_game(session, game_id)


@pytest.mark.parametrize("answer", ["accept", "decline"])
def test_get_and_head_change_nothing(
    app: Flask, client: FlaskClient, new_game: SimpleNamespace, answer: str
) -> None:
    url = f"/p/{new_game.token['B']}/{answer}"
    page = client.get(url)
    assert page.status_code == 200
    assert f'action="{url}"' in page.get_data(as_text=True)
    assert b"Opening this page changed nothing" in page.data
    assert client.head(url).status_code == 200
    assert client.get(f"/p/{new_game.token['B']}").status_code == 200
    assert _game(app, new_game.id).status == "invited"


def test_accept_deals_and_starts(
    app: Flask, client: FlaskClient, new_game: SimpleNamespace
) -> None:
    before = utcnow()
    response = client.post(f"/p/{new_game.token['B']}/accept")
    assert response.status_code == 303
    assert response.location == f"/p/{new_game.token['B']}"
    game = _game(app, new_game.id)
    assert game.status == "active"
    assert game.deal is not None
    assert game.deal["first"] in ("A", "B")
    dealt = game.deal["deal"]
    assert len(dealt["A"]) == len(dealt["B"]) == 7
    assert len(dealt["troops"]) == 60 - 14 and len(dealt["tactics"]) == 10
    assert game.deadline is not None
    assert before + timedelta(days=3) <= game.deadline <= utcnow() + timedelta(days=3)
    with app.app_context(), session_scope() as session:
        seats = read_seats(session, new_game.id)
        assert seats["B"][0].accepted
        snapshots = session.exec(select(Snapshot).where(Snapshot.game_id == new_game.id)).all()
        assert [s.ply for s in snapshots] == [0]
    page = client.get(response.location).get_data(as_text=True)
    assert "active" in page and "Accept and deal" not in page
    assert game.seed not in page


def test_deal_comes_from_the_seed(
    app: Flask, client: FlaskClient, new_game: SimpleNamespace
) -> None:
    client.post(f"/p/{new_game.token['B']}/accept")
    game = _game(app, new_game.id)
    deal = engine.deal_from_seed(engine.get_ruleset("battleline"), game.seed)
    record = game_record(game)
    assert record.deal == deal
    # The stored snapshot is the engine's starting position, and it reads back.
    with app.app_context(), session_scope() as session:
        snapshot = latest_snapshot(session, new_game.id)
        assert snapshot is not None
        state = engine.state_from_json(snapshot.state)
    assert state == engine.start(record.ruleset, record.claims, deal)
    assert state.to_move == deal.first
    # The cut is shown (R2).
    page = client.get(f"/games/{new_game.public_id}").get_data(as_text=True)
    with app.app_context(), session_scope() as session:
        stored = get_game(session, new_game.id)
        names = {s: p.display_name for s, (_, p) in read_seats(session, new_game.id).items()}
        assert cut_words(stored, names) in page
    assert deal.describe_cut() not in page, "names and card names, not seat letters and codes"


def test_accept_twice_is_a_conflict(
    app: Flask, client: FlaskClient, new_game: SimpleNamespace
) -> None:
    assert client.post(f"/p/{new_game.token['B']}/accept").status_code == 303
    again = client.post(f"/p/{new_game.token['B']}/accept")
    assert again.status_code == 409
    assert b"already answered: the game is active" in again.data
    assert client.post(f"/p/{new_game.token['B']}/decline").status_code == 409
    assert _game(app, new_game.id).status == "active"


def test_decline(app: Flask, client: FlaskClient, new_game: SimpleNamespace) -> None:
    response = client.post(f"/p/{new_game.token['B']}/decline")
    assert response.status_code == 303
    game = _game(app, new_game.id)
    assert game.status == "declined" and game.deal is None and game.deadline is None
    assert b"declined" in client.get(f"/p/{new_game.token['A']}").data
    assert client.post(f"/p/{new_game.token['B']}/accept").status_code == 409


def test_a_decline_is_told_to_the_inviter_of_a_game_for_two(
    app: Flask, client: FlaskClient, new_game: SimpleNamespace
) -> None:
    assert client.post(f"/p/{new_game.token['B']}/decline").status_code == 303
    (notice,) = rows(app, kind=MailKind.GAME_CANCELLED)
    assert notice.recipient == VALID_FORM["a_email"] and notice.game_id == new_game.id
    assert notice.subject.startswith("Cancelled: ")
    for body in (notice.text_body, notice.html_body):
        # The text part's lines wrap at 78 columns; the HTML part marks the names.
        said = " ".join(re.sub(r"<[^>]+>", "", body).split())
        assert "Bob declined the invitation" in said
        assert "The game is cancelled" in said and "nothing was dealt" in said
        assert "http://bl.test/games/new" in body, "a link to start another game"
        # The creator accepted by creating the game: no "although you had accepted".
        assert "although you had accepted" not in said
    assert _game(app, new_game.id).seed not in notice.text_body


@pytest.mark.parametrize("answer", ["accept", "decline"])
def test_only_the_invited_seat_answers(
    app: Flask, client: FlaskClient, new_game: SimpleNamespace, answer: str
) -> None:
    response = client.post(f"/p/{new_game.token['A']}/{answer}")
    assert response.status_code == 403
    assert b"Only the invited player" in response.data
    assert _game(app, new_game.id).status == "invited"
    assert b"Only Bob can answer" in client.get(f"/p/{new_game.token['A']}/{answer}").data


def test_wrong_method(client: FlaskClient, new_game: SimpleNamespace) -> None:
    response = client.put(f"/p/{new_game.token['B']}/accept")
    assert response.status_code == 405
    assert b"buttons make changes" in response.data


def _bouncing(app: Flask, email: str, name: str) -> None:
    with app.app_context(), session_scope() as session:
        player = find_or_add_player(session, email, name)
        assert player.id is not None
        mark_bouncing(session, player.id, "550 5.1.1 no such user")


def _games(app: Flask) -> list[Game]:
    with app.app_context(), session_scope() as session:
        return list(session.exec(select(Game)).all())


def test_an_invitee_whose_address_bounces_is_refused_at_creation(
    app: Flask, client: FlaskClient
) -> None:
    _bouncing(app, "bob@example.org", "Bob")
    answer = client.post("/games/new", data=VALID_FORM)
    assert answer.status_code == 400
    page = answer.get_data(as_text=True)
    assert "bob@example.org" in page and "bounces" in page
    assert _games(app) == []
    assert rows(app) == []


def test_an_invitation_that_bounced_is_named_on_the_creators_page(
    app: Flask, client: FlaskClient, new_game: SimpleNamespace
) -> None:
    private = f"/p/{new_game.token['A']}"
    client.post(f"{private}/invite")
    assert len(rows(app, kind=MailKind.INVITATION)) == 1
    _bouncing(app, "bob@example.org", "Bob")  # a permanent SMTP refusal or a bounce report
    page = client.get(private).get_data(as_text=True)
    assert "The invitation to Bob could not be delivered" in page
    assert "Waiting for Bob" not in page and "Send the invitation" not in page


def test_send_pressed_twice_sends_once_and_names_the_invitation_not_delivered(
    app: Flask, client: FlaskClient
) -> None:
    form = {**THREE_PLAYERS, "ruleset": "battleline-3p", "claims": "advanced"}
    with app.app_context(), session_scope() as session:
        game, _ = create_game(session, parse_new_game(form))
        assert game.id is not None
        private = f"/p/{tokens.make_private_token(game.id, 'A', 0)}"
    _bouncing(app, "bob@example.org", "Bob")  # after creation, before the button
    for _ in range(2):
        assert client.post(f"{private}/invite").status_code == 303
    invitations = rows(app, kind=MailKind.INVITATION)
    assert len(invitations) == 1
    page = client.get(private).get_data(as_text=True)
    assert "Send the invitation" not in page and "Nothing has been sent" not in page
    assert "The invitation to Bob could not be delivered" in page
    assert "Waiting for Carol" in page


def test_a_game_invited_before_invited_at_was_kept_counts_as_invited(
    app: Flask, client: FlaskClient, new_game: SimpleNamespace, database_url: str
) -> None:
    """Migration 0022 moves the fact from the outbox onto the game: its invitation is not
    offered again."""
    private = f"/p/{new_game.token['A']}"
    client.post(f"{private}/invite")
    with app.app_context(), session_scope() as session:
        game = get_game(session, new_game.id)
        game.invited_at = None  # as 0018 left a game invited before it
        session.add(game)
    command.downgrade(alembic_config(database_url), "0021")
    upgrade_schema(database_url)
    assert _game(app, new_game.id).invited_at is not None
    client.post(f"{private}/invite")
    assert len(rows(app, kind=MailKind.INVITATION)) == 1
    assert "Waiting for Bob" in client.get(private).get_data(as_text=True)
