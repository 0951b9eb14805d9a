"""No player's email address reaches anyone but its owner (issue 24): the leak scan over every
page another player or the public can fetch and every email each player receives, through a game
from its invitation to its end (the game-over email and the rematch page too)."""

from __future__ import annotations

import random

from flask import Flask
from flask.testing import FlaskClient

from tests.service.conftest import sign_in_as
from tests.service.play_driver import create_and_accept
from tests.service.test_page_reads import play
from tests.worker.outbox_rows import rows

ADDRESSES = ("alice@example.org", "bob@example.org")


def _others(reader: str) -> list[str]:
    return [address for address in ADDRESSES if address != reader]


def _assert_clean(text: str, reader: str | None, where: str) -> None:
    for address in ADDRESSES if reader is None else _others(reader):
        assert address not in text.lower(), f"{address} shown on {where} to {reader or 'anyone'}"


def test_no_address_reaches_another_player_or_the_public(app: Flask, client: FlaskClient) -> None:
    game = create_and_accept(app, client, visibility="public")
    bob = app.test_client()
    sign_in_as(app, bob, "bob@example.org", "Bob")
    assert bob.post("/me/name", data={"name": "Bob"}).status_code == 303
    play(app, int(game["id"]), 10_000, random.Random(11))
    public = app.test_client()
    pages = {
        None: [f"/games/{game['public_id']}", "/games", "/players/Alice", "/players/Bob"],
        "alice@example.org": [f"/p/{game['token']['A']}", f"/p/{game['token']['A']}/rematch"],
        "bob@example.org": [
            f"/p/{game['token']['B']}",
            f"/p/{game['token']['B']}/accept",
            f"/p/{game['token']['B']}/rematch",
            "/players/Alice",
        ],
    }
    for reader, paths in pages.items():
        browser = {None: public, "alice@example.org": client, "bob@example.org": bob}[reader]
        for path in paths:
            response = browser.get(path)
            assert response.status_code in (200, 409), (path, response.status_code)
            _assert_clean(response.get_data(as_text=True), reader, path)
    emails = rows(app)
    assert {row.kind for row in emails} >= {"invitation", "game_over"}, {r.kind for r in emails}
    for row in emails:
        where = f"the {row.kind} email"
        for text in (row.subject, row.text_body or "", row.html_body or "", str(row.headers)):
            _assert_clean(text, row.recipient, where)


def test_the_invitation_names_the_inviter_without_their_address(
    app: Flask, client: FlaskClient
) -> None:
    create_and_accept(app, client)
    (invitation,) = rows(app, kind="invitation")
    assert invitation.text_body is not None and "Alice" in invitation.text_body
    assert "alice@example.org" not in invitation.text_body
