"""Creating a game through the web form and the command line."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from flask import Flask
from flask.testing import FlaskClient, FlaskCliRunner
from sqlmodel import select

import engine
from service import tokens
from service.db import session_scope
from service.games.players import find_or_add_player
from service.models import Game, Player, Seat
from service.outbox.addresses import mark_bouncing
from tests.service.conftest import sign_in_as

TOKEN_URL = re.compile(r"http://bl\.test/p/([A-Za-z0-9_.\-]+)")


def _only_game(app: Flask) -> tuple[Game, list[Seat], list[Player]]:
    with app.app_context(), session_scope() as session:
        games = session.exec(select(Game)).all()
        assert len(games) == 1
        seats = list(session.exec(select(Seat).order_by(Seat.letter)).all())
        players = list(session.exec(select(Player).order_by(Player.email)).all())
        return games[0], seats, players


def test_form_page(client: FlaskClient) -> None:
    response = client.get("/games/new")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    for field in ("a_name", "a_email", "b_name", "b_email", "ruleset", "days_per_move"):
        assert f'name="{field}"' in html
    assert 'value="advanced" checked' in html
    for ruleset in engine.RULESETS.values():
        assert f'value="{ruleset.name}"' in html
    assert "<script" not in html
    assert client.get("/").status_code == 302


def test_create_game(app: Flask, client: FlaskClient, valid_form: dict[str, str]) -> None:
    sign_in_as(app, client, "alice@example.org")
    response = client.post("/games/new", data={**valid_form, "days_per_move": "5"})
    assert response.status_code == 303
    game, seats, players = _only_game(app)
    assert game.status == "invited"
    assert game.ruleset == "battleline" and game.claims == "advanced"
    assert game.days_per_move == 5 and game.visibility == "unlisted"
    assert game.rules_version == engine.RULES_VERSION
    assert re.fullmatch(r"[0-9a-f]{64}", game.seed)
    assert game.seed_commitment == engine.seed_commitment(game.seed)
    assert game.deal is None and game.deadline is None
    assert game.created_at.tzinfo is not None
    assert [(s.letter, s.accepted) for s in seats] == [("A", True), ("B", False)]
    assert [(p.email, p.display_name) for p in players] == [
        ("alice@example.org", "Alice"),
        ("bob@example.org", "Bob"),
    ]
    # Signed in as A: redirected to A's private page, which shows the commitment, never the seed.
    with app.app_context():
        assert tokens.read_private_token(response.location.rsplit("/", 1)[1]).seat == "A"
    page = client.get(response.location)
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert game.seed_commitment in html
    assert game.seed not in html
    assert "Waiting for Bob" in html


def test_seeds_differ(app: Flask, client: FlaskClient, valid_form: dict[str, str]) -> None:
    client.post("/games/new", data=valid_form)
    # Another game of the same two (the very same form would find the first game).
    client.post("/games/new", data={**valid_form, "days_per_move": "4"})
    with app.app_context(), session_scope() as session:
        games = session.exec(select(Game)).all()
        assert len({g.seed for g in games}) == 2
        assert len({g.public_id for g in games}) == 2
        # The same two people: still two players, not four.
        assert len(session.exec(select(Player)).all()) == 2


def test_invalid_form_is_shown_again(
    app: Flask, client: FlaskClient, valid_form: dict[str, str]
) -> None:
    response = client.post(
        "/games/new",
        data={
            **valid_form,
            "a_email": "not-an-address",
            "b_name": "<b>Bob</b>",
            "days_per_move": "20",
        },
    )
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "Your email is not an email address" in html
    assert "Days per move must be a whole number of days from 1 to 14" in html
    # What was typed comes back, escaped.
    assert 'value="not-an-address"' in html
    assert "&lt;b&gt;Bob&lt;/b&gt;" in html and "<b>Bob</b>" not in html
    with app.app_context(), session_scope() as session:
        assert session.exec(select(Game)).all() == []


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("b_email", "bob@example.org\r\nBcc: everyone@example.org"),
        ("a_name", "Alice\r\nSubject: free money"),
        ("b_name", "x" * 5000),
    ],
)
def test_injection_and_oversize_are_refused(
    app: Flask, client: FlaskClient, valid_form: dict[str, str], field: str, value: str
) -> None:
    response = client.post("/games/new", data={**valid_form, field: value})
    assert response.status_code == 422
    with app.app_context(), session_scope() as session:
        assert session.exec(select(Game)).all() == []


def test_oversized_request(client: FlaskClient, valid_form: dict[str, str]) -> None:
    response = client.post("/games/new", data={**valid_form, "padding": "x" * 100_000})
    assert response.status_code == 413
    assert b"far more data" in response.data


def test_cli_create(app: Flask, runner: FlaskCliRunner, client: FlaskClient) -> None:
    result = runner.invoke(
        args=[
            "games",
            "create",
            "--ruleset",
            "schotten-totten",
            "--a-name",
            "Alice",
            "--a-email",
            "alice@example.org",
            "--b-name",
            "Bob",
            "--b-email",
            "bob@example.org",
            "--days",
            "7",
            "--visibility",
            "public",
        ]
    )
    assert result.exit_code == 0, result.output
    links = TOKEN_URL.findall(result.output)
    assert len(links) == 2
    assert "private link A: http://bl.test/p/" in result.output
    assert "private link B: http://bl.test/p/" in result.output
    game, _, _ = _only_game(app)
    assert (game.ruleset, game.days_per_move, game.visibility) == ("schotten-totten", 7, "public")
    assert game.claims == engine.get_ruleset("schotten-totten").default_claims
    assert game.seed_commitment in result.output
    assert game.seed not in result.output
    page_b = client.get(f"/p/{links[1]}")
    assert page_b.status_code == 200
    assert b"Accept and deal" in page_b.data


def test_cli_create_refuses_bad_input(app: Flask, runner: FlaskCliRunner) -> None:
    result = runner.invoke(
        args=[
            "games",
            "create",
            "--a-name",
            "Alice",
            "--a-email",
            "alice@example",
            "--b-name",
            "Bob\nBcc",
            "--b-email",
            "bob@example.org",
        ]
    )
    assert result.exit_code == 2
    assert "a-email: is not an email address" in result.output
    assert "b-name: must be on one line" in result.output
    with app.app_context(), session_scope() as session:
        assert session.exec(select(Game)).all() == []


def test_cli_create_refuses_an_invitee_whose_address_bounces(
    app: Flask, runner: FlaskCliRunner
) -> None:
    with app.app_context(), session_scope() as session:
        bob = find_or_add_player(session, "bob@example.org", "Bob")
        assert bob.id is not None
        mark_bouncing(session, bob.id, "550 5.1.1 no such user")
    args = ["games", "create", "--a-name", "Alice", "--a-email", "alice@example.org"]
    result = runner.invoke(args=[*args, "--b-name", "Bob", "--b-email", "bob@example.org"])
    assert result.exit_code == 2
    assert "b-email: Email to bob@example.org bounces" in result.output
    with app.app_context(), session_scope() as session:
        assert session.exec(select(Game)).all() == []


def test_cli_links_and_revoke(
    app: Flask, runner: FlaskCliRunner, client: FlaskClient, new_game: SimpleNamespace
) -> None:
    game_id = new_game.id
    old_b = new_game.token["B"]
    links = runner.invoke(args=["games", "links", str(game_id)])
    # The same seat and generation (a token also signs its moment, so compare the payload).
    payload_b = old_b.split(".")[0]
    assert links.exit_code == 0 and f"/p/{payload_b}." in links.output
    revoked = runner.invoke(args=["games", "revoke", str(game_id), "B"])
    assert revoked.exit_code == 0
    (new_b,) = TOKEN_URL.findall(revoked.output)
    assert new_b != old_b
    assert client.get(f"/p/{old_b}").status_code == 403
    assert client.get(f"/p/{new_b}").status_code == 200
    missing = runner.invoke(args=["games", "links", "999999"])
    assert missing.exit_code == 1 and "There is no game 999999" in missing.output


def test_cli_db_upgrade_is_idempotent(runner: FlaskCliRunner) -> None:
    result = runner.invoke(args=["db", "upgrade"])
    assert result.exit_code == 0, result.output
    assert "Schema at head." in result.output
