"""Limits count emails actually sent, per mailbox; and requests per client address and for the
whole site (issue: limits count attempts, not mail, and nothing limits a source)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from service.db import get_engine, session_scope
from service.models import Game
from service.outbox import MailKind
from tests.service.conftest import VALID_FORM, make_test_app, sign_in_as
from tests.worker.outbox_rows import link_to, path_of, rows


def _from(address: str) -> dict[str, str]:
    return {"REMOTE_ADDR": address}


def _games(app: Flask) -> int:
    with app.app_context(), session_scope() as session:
        return len(session.exec(select(Game)).all())


def test_unconfirmed_games_naming_someone_do_not_use_up_their_invitations(
    app: Flask, client: FlaskClient
) -> None:
    limit = app.config["INVITATIONS_PER_RECIPIENT_PER_DAY"]
    for number in range(limit + 2):
        form = {**VALID_FORM, "a_email": f"throwaway{number}@example.net"}
        assert client.post("/games/new", data=form).status_code == 303
    assert rows(app, kind=MailKind.INVITATION) == []
    # A real friend, signed in, still invites Bob.
    sign_in_as(app, client, "alice@example.org")
    response = client.post("/games/new", data=VALID_FORM)
    assert response.status_code == 303 and "/p/" in response.location
    assert len(rows(app, kind=MailKind.INVITATION)) == 1


def test_strangers_cannot_lock_an_owner_out(app: Flask, client: FlaskClient) -> None:
    """Requests in a new user's name use up the confirmation emails to that address, but each
    email carries the owner's sign-in link: signed in, the owner needs none."""
    limit = app.config["CONFIRMATIONS_PER_ADDRESS_PER_DAY"]
    for number in range(limit):
        form = {**VALID_FORM, "b_email": f"friend{number}@example.net"}
        assert client.post("/games/new", data=form).status_code == 303
    refused = client.post("/games/new", data={**VALID_FORM, "b_email": "more@example.net"})
    assert refused.status_code == 429
    assert "sign in" in refused.get_data(as_text=True)
    assert _games(app) == limit, "a refused request stores nothing"
    # The owner opens the sign-in link of any of those emails.
    owner = app.test_client()
    email = rows(app, kind=MailKind.CONFIRM_ADDRESS)[0]
    games_page = path_of(link_to(email.text_body, "/me/"))
    assert owner.post(f"{games_page}/sign-in").status_code == 303
    response = owner.post("/games/new", data={**VALID_FORM, "b_email": "mine@example.net"})
    assert response.status_code == 303 and "/p/" in response.location
    assert [r.recipient for r in rows(app, kind=MailKind.INVITATION)] == ["mine@example.net"]


def test_no_typed_text_in_any_subject(app: Flask, client: FlaskClient) -> None:
    spam = {"a_name": "WIN $$$ now", "b_name": "Visit evil.example"}
    sign_in_as(app, client, "alice@example.org")
    assert client.post("/games/new", data={**VALID_FORM, **spam}).status_code == 303
    client.post("/me/sign-out")
    other = {**VALID_FORM, **spam, "a_email": "carol@example.org"}
    assert client.post("/games/new", data=other).status_code == 303
    for row in rows(app):
        assert "WIN" not in row.subject and "evil" not in row.subject, row.subject


@pytest.fixture
def limited_app(database_url: str) -> Iterator[Flask]:
    app = make_test_app(
        database_url,
        RATELIMIT_ENABLED=True,
        RATE_LIMIT_MAIL_PER_CLIENT="3/minute",
        RATE_LIMIT_MAIL_WHOLE_SITE="5/hour",
        RATE_LIMIT_POST_PER_CLIENT="4/minute",
    )
    yield app
    from sqlmodel import SQLModel

    with get_engine(app).begin() as connection:
        for table in reversed(SQLModel.metadata.sorted_tables):
            connection.execute(table.delete())
    get_engine(app).dispose()


def test_requests_that_send_mail_are_limited_per_client(limited_app: Flask) -> None:
    client = limited_app.test_client()
    for number in range(3):
        form = {**VALID_FORM, "a_email": f"a{number}@example.net"}
        assert (
            client.post("/games/new", data=form, environ_base=_from("192.0.2.1")).status_code == 303
        )
    refused = client.post(
        "/games/new",
        data={**VALID_FORM, "a_email": "a9@example.net"},
        environ_base=_from("192.0.2.1"),
    )
    assert refused.status_code == 429
    assert "Retry-After" in refused.headers
    assert "Nothing was changed" in refused.get_data(as_text=True)
    assert _games(limited_app) == 3
    assert len(rows(limited_app)) == 3, "nothing was sent for the refused request"
    # Another client is not held back by the first one.
    other = client.post(
        "/games/new",
        data={**VALID_FORM, "a_email": "b1@example.net"},
        environ_base=_from("192.0.2.2"),
    )
    assert other.status_code == 303


def _new_games_from_rotating_addresses(client: FlaskClient, count: int) -> list[int]:
    return [
        client.post(
            "/games/new",
            data={**VALID_FORM, "a_email": f"p{n}@example.net"},
            environ_base=_from(f"198.51.100.{n}"),
        ).status_code
        for n in range(count)
    ]


def test_the_whole_site_has_a_ceiling(limited_app: Flask) -> None:
    client = limited_app.test_client()
    assert _new_games_from_rotating_addresses(client, 7) == [303] * 5 + [429] * 2


def test_the_ceiling_does_not_lock_out_people_who_confirmed_an_address(
    limited_app: Flask,
) -> None:
    """Strangers from rotating addresses fill the whole site's ceiling: a signed-in player
    still starts games (counted as themselves, from any address), and a person who confirmed
    an address still gets their "my games" link on a new browser."""
    strangers = limited_app.test_client()
    assert _new_games_from_rotating_addresses(strangers, 6)[-1] == 429
    player = limited_app.test_client()
    sign_in_as(limited_app, player, "alice@example.org")
    statuses = [
        player.post(
            "/games/new",
            data={**VALID_FORM, "b_email": f"friend{n}@example.net"},
            environ_base=_from(f"203.0.113.{n}"),
        ).status_code
        for n in range(4)
    ]
    # Their own per-client limit (3/minute here), whatever address they come from.
    assert statuses == [303] * 3 + [429]
    new_browser = limited_app.test_client()
    me = new_browser.post(
        "/me", data={"email": "alice@example.org"}, environ_base=_from("192.0.2.77")
    )
    assert me.status_code == 200
    assert len(rows(limited_app, kind=MailKind.MY_GAMES)) == 1


def test_other_posts_are_limited_per_client(limited_app: Flask) -> None:
    client = limited_app.test_client()
    statuses = [
        client.post("/me/sign-out", environ_base=_from("203.0.113.7")).status_code for _ in range(5)
    ]
    assert statuses == [303] * 4 + [429]
    # Pages that only show something are not limited.
    assert all(client.get("/games/new").status_code == 200 for _ in range(10))
