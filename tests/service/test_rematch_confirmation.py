"""A seat link is forwarded (asking a friend for advice), so it alone never starts a rematch in
its player's name: that takes the player's signed-in browser, or the link of an email to the
seat's own address (issue 22 item 10)."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from service.outbox import MailKind
from tests.service.conftest import sign_in_as
from tests.service.test_rematch import finished_game, games_after, seat_opened
from tests.worker.outbox_rows import link_to, path_of, rows


def test_a_forwarded_seat_link_only_asks_the_owner_by_email(
    app: Flask, client: FlaskClient
) -> None:
    game = finished_game(app, client)
    friend = app.test_client()
    offer_page = friend.get(f"/p/{game['token']['B']}/rematch").get_data(as_text=True)
    assert "the button emails the seat's own address" in offer_page
    response = friend.post(f"/p/{game['token']['B']}/rematch")
    assert response.status_code == 303
    page = friend.get(response.headers["Location"])
    assert page.status_code == 200 and "We sent you an email" in page.get_data(as_text=True)
    assert games_after(app, game["id"]) == [], "no game in Bob's name"
    (asked,) = rows(app, kind=MailKind.REMATCH_CONFIRM)
    assert asked.recipient == "bob@example.org" and asked.game_id == game["id"]
    assert "no rematch is offered without this link" in asked.text_body
    # The owner's inbox: the link shows a button; only its POST offers the rematch.
    confirm = path_of(link_to(asked.text_body, "/rematch/"))
    owner = app.test_client()
    shown = owner.get(confirm)
    assert shown.status_code == 200 and "emails the seat" not in shown.get_data(as_text=True)
    assert games_after(app, game["id"]) == []
    offered = owner.post(confirm)
    assert offered.status_code == 303
    (rematch,) = games_after(app, game["id"])
    seat = seat_opened(app, offered.headers["Location"])
    assert (seat.game_id, seat.seat) == (rematch.id, "A")
    # Pressed again: the same rematch, nothing new.
    assert owner.post(confirm).status_code == 303
    assert len(games_after(app, game["id"])) == 1


def test_signed_in_as_someone_else_is_asked_by_email(app: Flask, client: FlaskClient) -> None:
    game = finished_game(app, client)
    friend = app.test_client()
    sign_in_as(app, friend, "mallory@example.org", "Mallory")
    assert friend.post(f"/p/{game['token']['B']}/rematch").status_code == 303
    assert games_after(app, game["id"]) == []
    assert len(rows(app, kind=MailKind.REMATCH_CONFIRM)) == 1


def test_the_owner_signed_in_offers_at_once(app: Flask, client: FlaskClient) -> None:
    game = finished_game(app, client)
    bob = app.test_client()
    sign_in_as(app, bob, "bob@example.org", "Bob")
    response = bob.post(f"/p/{game['token']['B']}/rematch")
    assert seat_opened(app, response.headers["Location"]).game_id != game["id"]
    assert len(games_after(app, game["id"])) == 1
    assert rows(app, kind=MailKind.REMATCH_CONFIRM) == []


def test_confirmation_emails_are_capped_per_recipient(app: Flask, client: FlaskClient) -> None:
    game = finished_game(app, client)
    friend = app.test_client()
    for _ in range(6):
        assert friend.post(f"/p/{game['token']['B']}/rematch").status_code == 303
    assert len(rows(app, kind=MailKind.REMATCH_CONFIRM)) == 3
