"""A sign-in can be revoked (issue 22, item 7): "sign out everywhere" and any revocation of a
link end every copy of the cookie, and a sign-in lasts a fixed time from the sign-in, however
often it is used."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from service.db import session_scope
from service.games.players import find_player
from service.games.seats import revoke_seat_links
from service.models import Seat
from tests.service.conftest import VALID_FORM, sign_in_as


def _signed_in(client: FlaskClient) -> bool:
    return "Alice's games" in client.get("/me").get_data(as_text=True)


def _copy_of(app: Flask, client: FlaskClient) -> FlaskClient:
    """Another browser holding a copy of ``client``'s sign-in cookie."""
    name = app.config["SESSION_COOKIE_NAME"]
    cookie = client.get_cookie(name)
    assert cookie is not None
    thief = app.test_client()
    thief.set_cookie(name, cookie.value)
    return thief


def test_sign_out_everywhere_ends_every_copy_of_the_cookie(app: Flask, client: FlaskClient) -> None:
    sign_in_as(app, client, "alice@example.org")
    client.post("/games/new", data=VALID_FORM)
    thief = _copy_of(app, client)
    assert _signed_in(thief)
    page = client.get("/me").get_data(as_text=True)
    assert 'action="/me/sign-out-everywhere"' in page
    response = client.post("/me/sign-out-everywhere")
    assert response.status_code == 303
    assert not _signed_in(client)
    # The copy lists nothing and can change nothing.
    listed = thief.get("/me").get_data(as_text=True)
    assert "Alice's games" not in listed and "/p/" not in listed
    assert thief.post("/me/defaults", data={"digest": "on"}).status_code == 401
    assert thief.post("/me/sign-out-everywhere").status_code == 401
    # Signing in again (the emailed link) works, and only that browser is signed in.
    sign_in_as(app, client, "alice@example.org")
    assert _signed_in(client) and not _signed_in(thief)


def test_sign_out_everywhere_needs_a_sign_in(client: FlaskClient) -> None:
    assert client.post("/me/sign-out-everywhere").status_code == 401


def test_revoking_a_seats_links_ends_its_players_sign_ins(app: Flask, client: FlaskClient) -> None:
    sign_in_as(app, client, "alice@example.org")
    client.post("/games/new", data=VALID_FORM)
    assert _signed_in(client)
    with app.app_context(), session_scope() as session:
        alice = find_player(session, "alice@example.org")
        assert alice is not None
        seat = session.exec(select(Seat).where(Seat.player_id == alice.id)).one()
        revoke_seat_links(session, seat)
    assert not _signed_in(client)


def test_a_sign_in_lasts_thirty_days_from_the_sign_in_however_often_it_is_used(
    app: Flask, client: FlaskClient
) -> None:
    start = datetime.now(UTC)
    app.config["CLOCK_NOW"] = start
    sign_in_as(app, client, "alice@example.org")
    for day in (1, 10, 20, 29):
        app.config["CLOCK_NOW"] = start + timedelta(days=day)
        assert _signed_in(client), day
        # Using it does not renew the cookie.
        assert "Set-Cookie" not in client.get("/me").headers
    app.config["CLOCK_NOW"] = start + timedelta(days=30, seconds=1)
    assert not _signed_in(client)
    assert client.post("/me/defaults", data={"digest": "on"}).status_code == 401


def test_a_cookie_from_before_the_sign_in_time_was_kept_is_refused(
    app: Flask, client: FlaskClient
) -> None:
    """A cookie naming the player and generation but no sign-in time (a forged or an older
    cookie) signs nobody in."""
    sign_in_as(app, client, "alice@example.org")
    with client.session_transaction() as cookie:
        del cookie["signed_in_at"]
    assert not _signed_in(client)
