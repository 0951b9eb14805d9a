"""Signed links: each purpose, tampering, expiry, key rotation, revocation and stale turns."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from flask import Flask
from flask.testing import FlaskClient
from itsdangerous import URLSafeTimedSerializer

from service import tokens
from service.db import get_engine, session_scope
from service.games.rows import lock_game
from service.games.seats import read_seats, revoke_seat_links
from tests.service.conftest import TEST_SECRET_KEY, make_test_app


def test_private_token_round_trip(bare_app: Flask) -> None:
    token = tokens.make_private_token(7, "B", 3)
    assert tokens.read_private_token(token) == tokens.SeatToken(game_id=7, seat="B", generation=3)


def test_move_token_round_trip(bare_app: Flask) -> None:
    token = tokens.make_move_token(7, "A", 0, 12)
    assert tokens.read_move_token(token) == tokens.MoveToken(7, "A", 0, 12)


def test_games_token_round_trip(bare_app: Flask) -> None:
    assert tokens.read_games_token(tokens.make_games_token(5, 1)) == tokens.PlayerToken(5, 1)


def test_token_names_no_card(bare_app: Flask) -> None:
    payload = URLSafeTimedSerializer(TEST_SECRET_KEY, salt="battleline.move-link").loads(
        tokens.make_move_token(7, "A", 0, 12)
    )
    assert payload == {"g": 7, "s": "A", "n": 0, "p": 12}


def _flip(char: str) -> str:
    return "B" if char != "B" else "C"


@pytest.mark.parametrize("where", ["payload", "signature", "truncated"])
def test_tampered_token_is_refused(bare_app: Flask, where: str) -> None:
    token = tokens.make_private_token(7, "A", 0)
    if where == "payload":
        bad = _flip(token[0]) + token[1:]
    elif where == "signature":
        # Not the last character: its low bits are base64 padding and may decode the same.
        bad = token[:-6] + _flip(token[-6]) + token[-5:]
    else:
        bad = token[: len(token) // 2]
    with pytest.raises(tokens.TamperedTokenError, match="changed or cut short"):
        tokens.read_private_token(bad)


def test_token_of_another_purpose_is_refused(bare_app: Flask) -> None:
    private = tokens.make_private_token(7, "A", 0)
    move = tokens.make_move_token(7, "A", 0, 3)
    with pytest.raises(tokens.TamperedTokenError):
        tokens.read_move_token(private)
    with pytest.raises(tokens.TamperedTokenError):
        tokens.read_private_token(move)
    with pytest.raises(tokens.TamperedTokenError):
        tokens.read_games_token(private)


def test_token_signed_with_another_key_is_refused(bare_app: Flask) -> None:
    forged = URLSafeTimedSerializer("guessed", salt="battleline.private-page").dumps(
        {"g": 7, "s": "A", "n": 0}
    )
    with pytest.raises(tokens.TamperedTokenError):
        tokens.read_private_token(forged)


@pytest.mark.parametrize(
    "payload",
    [{"g": "7", "s": "A", "n": 0}, {"g": 7, "s": "D", "n": 0}, {"g": 7, "s": "A"}, [7, "A", 0]],
)
def test_well_signed_payload_of_wrong_shape_is_refused(bare_app: Flask, payload: object) -> None:
    token = URLSafeTimedSerializer(TEST_SECRET_KEY, salt="battleline.private-page").dumps(payload)
    with pytest.raises(tokens.TamperedTokenError):
        tokens.read_private_token(token)


def test_expired_token_is_refused(bare_app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    token = tokens.make_private_token(7, "A", 0)
    now = time.time()
    monkeypatch.setattr(time, "time", lambda: now + 59 * 86400)
    tokens.read_private_token(token)
    monkeypatch.setattr(time, "time", lambda: now + 61 * 86400)
    with pytest.raises(tokens.ExpiredTokenError, match="valid for 60 days") as caught:
        tokens.read_private_token(token)
    assert caught.value.status == 410


def test_key_rotation_accepts_old_links_and_signs_with_the_new_key(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'unused.sqlite3'}"
    old_key, new_key = "old-key-of-the-rotation-test-01234", "new-key-of-the-rotation-test-01234"
    old_app = make_test_app(url, SECRET_KEY=old_key)
    new_app = make_test_app(url, SECRET_KEY=new_key, SECRET_KEY_FALLBACKS=[old_key])
    with old_app.app_context():
        old_token = tokens.make_private_token(7, "A", 0)
    with new_app.app_context():
        assert tokens.read_private_token(old_token).game_id == 7
        new_token = tokens.make_private_token(8, "A", 0)
    with old_app.app_context(), pytest.raises(tokens.TamperedTokenError):
        tokens.read_private_token(new_token)
    for app in (old_app, new_app):
        get_engine(app).dispose()


def test_generation_check(bare_app: Flask) -> None:
    tokens.check_generation(2, 2)
    with pytest.raises(tokens.RevokedTokenError) as revoked:
        tokens.check_generation(1, 2)
    assert revoked.value.status == 403


# Over HTTP: each failure gets its own page and status.


def test_tampered_link_page(client: FlaskClient, new_game: SimpleNamespace) -> None:
    response = client.get(f"/p/{new_game.token['A']}x")
    assert response.status_code == 400
    assert b"This link is not valid" in response.data


def test_expired_link_page(
    client: FlaskClient, new_game: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = time.time()
    monkeypatch.setattr(time, "time", lambda: now + 61 * 86400)
    response = client.get(f"/p/{new_game.token['A']}")
    assert response.status_code == 410
    assert b"This link has expired" in response.data


def test_revoked_link_page(app: Flask, client: FlaskClient, new_game: SimpleNamespace) -> None:
    assert client.get(f"/p/{new_game.token['B']}").status_code == 200
    with app.app_context(), session_scope() as session:
        lock_game(session, new_game.id)
        revoke_seat_links(session, read_seats(session, new_game.id)["B"][0])
    response = client.get(f"/p/{new_game.token['B']}")
    assert response.status_code == 403
    assert b"This link was withdrawn" in response.data
    # A revoked link changes nothing either.
    assert client.post(f"/p/{new_game.token['B']}/accept").status_code == 403
    with app.app_context():
        fresh = tokens.make_private_token(new_game.id, "B", 1)
        assert client.get(f"/p/{fresh}").status_code == 200
    # The other seat's links are untouched.
    assert client.get(f"/p/{new_game.token['A']}").status_code == 200


def test_error_as_json_when_asked(client: FlaskClient, new_game: SimpleNamespace) -> None:
    response = client.get(f"/p/{new_game.token['A']}x", headers={"Accept": "application/json"})
    assert response.status_code == 400
    assert response.get_json()["title"] == "This link is not valid"
