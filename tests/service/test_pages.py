"""Public pages, unknown games, and the error pages."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service import tokens
from tests.service.conftest import make_test_app


def test_public_page(client: FlaskClient, new_game: SimpleNamespace) -> None:
    response = client.get(f"/games/{new_game.public_id}")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "Alice" in html and "Bob" in html
    assert "alice@example.org" not in html
    assert 'content="noindex, nofollow"' in html  # unlisted


def test_unknown_public_game_is_404(client: FlaskClient) -> None:
    response = client.get("/games/no-such-game")
    assert response.status_code == 404
    assert b"Game not found" in response.data


def test_token_for_unknown_game_is_404(app: Flask, client: FlaskClient) -> None:
    with app.app_context():
        token = tokens.make_private_token(999_999, "A", 0)
    assert client.get(f"/p/{token}").status_code == 404
    assert client.post(f"/p/{token}/accept").status_code == 404


def test_unknown_address_is_404(client: FlaskClient) -> None:
    response = client.get("/nowhere")
    assert response.status_code == 404
    assert b"There is nothing at this address" in response.data
    as_json = client.get("/nowhere", headers={"Accept": "application/json"})
    assert as_json.status_code == 404
    assert as_json.get_json() == {
        "error": 404,
        "title": "Not Found",
        "message": "There is nothing at this address. Check that the link is complete.",
    }


def test_internal_error_page(database_url: str) -> None:
    app = make_test_app(database_url, PROPAGATE_EXCEPTIONS=False)

    @app.get("/boom")
    def boom() -> str:
        raise RuntimeError("secret detail")

    response = app.test_client().get("/boom")
    assert response.status_code == 500
    assert b"Something went wrong on our side" in response.data
    assert b"secret detail" not in response.data


@pytest.mark.parametrize("code", ["R4", "G10", "ALEXANDER", "S12"])
def test_card_macro(bare_app: Flask, code: str) -> None:
    template = bare_app.jinja_env.from_string(
        '{% from "_cards.html" import card %}{{ card(code) }}'
    )
    html = template.render(code=code)
    expected = {
        "R4": ("card-R", 'aria-label="red 4"', ">4<"),
        "G10": ("card-G", 'aria-label="green 10"', ">10<"),
        "ALEXANDER": ("card-T", 'aria-label="Alexander"', ">Alexander<"),
        "S12": ("card-S", 'aria-label="spades 12"', "♠"),
    }[code]
    for fragment in expected:
        assert fragment in html
