"""Only an address's owner acts for it (issue: anyone can act as any address).

Whoever submits a form never receives a link that only the address's owner should have; a seat
link changes only its own seat's game; player-wide settings need the owner signed in.
"""

from __future__ import annotations

import re
import threading

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from service import tokens
from service.db import session_scope
from service.games.players import find_or_add_player, find_player
from service.models import Game, Player, Seat
from service.outbox import MailKind
from service.outbox.addresses import confirm
from tests.service.conftest import VALID_FORM, sign_in_as
from tests.worker.outbox_rows import link_to, path_of, rows

TOKEN = re.compile(r"/(p|m|me)/[A-Za-z0-9_.\-]{20,}")


def _player(app: Flask, email: str) -> Player:
    with app.app_context(), session_scope() as session:
        player = find_player(session, email)
        assert player is not None
        return player


def _confirmed_owner(app: Flask, email: str = "alice@example.org") -> None:
    """An address whose owner confirmed it earlier (the setting of the defect)."""
    with app.app_context(), session_scope() as session:
        player = find_or_add_player(session, email, "Alice")
        assert player.id is not None
        confirm(session, player.id)


def test_a_stranger_gets_no_link_and_sends_no_invitation(app: Flask, client: FlaskClient) -> None:
    _confirmed_owner(app)
    response = client.post("/games/new", data=VALID_FORM)
    assert response.status_code == 303
    assert response.location.endswith("/games/new/sent")
    page = client.get(response.location)
    assert page.status_code == 200
    assert not TOKEN.search(page.get_data(as_text=True)), "no private link on the page"
    # No invitation in the owner's name; the owner's own inbox gets the only link.
    assert rows(app, kind=MailKind.INVITATION) == []
    (confirmation,) = rows(app, kind=MailKind.CONFIRM_ADDRESS)
    assert confirmation.recipient == "alice@example.org"
    assert "Bob" not in confirmation.subject and "Alice" not in confirmation.subject
    link = link_to(confirmation.text_body, "/p/")
    with app.app_context():
        assert tokens.read_private_token(link.rsplit("/", 1)[1]).seat == "A"


def test_the_owner_sends_the_invitation_from_the_emailed_link(
    app: Flask, client: FlaskClient
) -> None:
    assert client.post("/games/new", data=VALID_FORM).status_code == 303
    private = path_of(link_to(rows(app, kind=MailKind.CONFIRM_ADDRESS)[0].text_body, "/p/"))
    page = client.get(private).get_data(as_text=True)
    assert "Send the invitation" in page
    assert rows(app, kind=MailKind.INVITATION) == [], "opening the page sends nothing"
    assert client.post(f"{private}/invite").status_code == 303
    (invitation,) = rows(app, kind=MailKind.INVITATION)
    assert invitation.recipient == "bob@example.org"
    # Pressing again (a double click, a reload) sends nothing more.
    assert client.post(f"{private}/invite").status_code == 303
    assert len(rows(app, kind=MailKind.INVITATION)) == 1
    assert "Waiting for Bob" in client.get(private).get_data(as_text=True)


def test_only_seat_a_may_send_the_invitation(app: Flask, client: FlaskClient) -> None:
    assert client.post("/games/new", data=VALID_FORM).status_code == 303
    with app.app_context(), session_scope() as session:
        game = session.exec(select(Game)).one()
        assert game.id is not None
        token_b = tokens.make_private_token(game.id, "B", 0)
    assert client.post(f"/p/{token_b}/invite").status_code == 403
    assert rows(app, kind=MailKind.INVITATION) == []


def test_signed_in_owner_invites_at_once(app: Flask, client: FlaskClient) -> None:
    sign_in_as(app, client, "alice@example.org")
    response = client.post("/games/new", data=VALID_FORM)
    assert response.status_code == 303
    assert "/p/" in response.location
    assert rows(app, kind=MailKind.CONFIRM_ADDRESS) == []
    assert len(rows(app, kind=MailKind.INVITATION)) == 1


def test_signed_in_as_someone_else_is_a_stranger(app: Flask, client: FlaskClient) -> None:
    _confirmed_owner(app)
    sign_in_as(app, client, "mallory@example.org", "Mallory")
    response = client.post("/games/new", data=VALID_FORM)
    assert response.location.endswith("/games/new/sent")
    assert rows(app, kind=MailKind.INVITATION) == []


def test_the_same_form_twice_makes_one_game(app: Flask, client: FlaskClient) -> None:
    first = client.post("/games/new", data=VALID_FORM)
    second = client.post("/games/new", data=VALID_FORM)
    assert first.status_code == second.status_code == 303
    with app.app_context(), session_scope() as session:
        assert len(session.exec(select(Game)).all()) == 1
    assert len(rows(app, kind=MailKind.CONFIRM_ADDRESS)) == 1
    # Signed in, the same request finds that game and sends its invitation, once.
    sign_in_as(app, client, "alice@example.org")
    third = client.post("/games/new", data=VALID_FORM)
    fourth = client.post("/games/new", data=VALID_FORM)
    # The same seat's link (a token also signs its moment: compare the payload).
    assert "/p/" in third.location
    assert third.location.split(".")[0] == fourth.location.split(".")[0]
    assert len(rows(app, kind=MailKind.INVITATION)) == 1
    with app.app_context(), session_scope() as session:
        assert len(session.exec(select(Game)).all()) == 1


def test_simultaneous_creations_naming_one_new_address(app: Flask, database_url: str) -> None:
    """Threads post at once, each naming the same new opponent: no 500, one player row."""
    statuses: list[int] = []
    barrier = threading.Barrier(6)

    def post(number: int) -> None:
        client = app.test_client()
        barrier.wait()
        form = {
            **VALID_FORM,
            "a_email": f"creator{number}@example.org",
            "b_email": "new@example.org",
        }
        statuses.append(client.post("/games/new", data=form).status_code)

    threads = [threading.Thread(target=post, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert statuses == [303] * 6
    with app.app_context(), session_scope() as session:
        assert len(session.exec(select(Player).where(Player.email == "new@example.org")).all()) == 1
        assert len(session.exec(select(Game)).all()) == 6


def test_a_seat_link_changes_only_its_own_game(app: Flask, client: FlaskClient) -> None:
    sign_in_as(app, client, "alice@example.org")
    first = client.post("/games/new", data=VALID_FORM).location
    second = client.post("/games/new", data={**VALID_FORM, "days_per_move": "5"}).location
    client.post("/me/sign-out")
    token = first.rsplit("/", 1)[1]
    response = client.post(f"/p/{token}/preferences", data={"digest": "on"})
    assert response.status_code == 303
    alice = _player(app, "alice@example.org")
    assert alice.preferences == {} or not alice.preferences.get("digest")
    with app.app_context(), session_scope() as session:
        seats = {
            s.game_id: s for s in session.exec(select(Seat).where(Seat.player_id == alice.id)).all()
        }
    changed = tokens_game(app, token)
    other = tokens_game(app, second.rsplit("/", 1)[1])
    assert seats[changed].preferences == {"automatic_claims": False, "digest": True}
    assert seats[other].preferences is None


def tokens_game(app: Flask, token: str) -> int:
    with app.app_context():
        return tokens.read_private_token(token).game_id


@pytest.mark.parametrize(
    "form",
    [
        {"digest": "yes"},
        {"digest": "off"},
        {"automatic_claims": "1"},
        {"digest": ["on", "on"]},
        {"digest": "on", "colour": "red"},
    ],
)
def test_loose_preference_values_are_refused(
    app: Flask, client: FlaskClient, form: dict[str, object]
) -> None:
    sign_in_as(app, client, "alice@example.org")
    token = client.post("/games/new", data=VALID_FORM).location.rsplit("/", 1)[1]
    response = client.post(f"/p/{token}/preferences", data=form)
    assert response.status_code == 422
    with app.app_context(), session_scope() as session:
        assert all(s.preferences is None for s in session.exec(select(Seat)).all())


def test_player_defaults_need_the_owner_signed_in(app: Flask, client: FlaskClient) -> None:
    assert client.post("/me/defaults", data={"digest": "on"}).status_code == 401
    sign_in_as(app, client, "alice@example.org")
    assert client.post("/me/defaults", data={"digest": "on"}).status_code == 303
    assert _player(app, "alice@example.org").preferences["digest"] is True
    client.post("/me/sign-out")
    assert client.post("/me/defaults", data={}).status_code == 401
    assert _player(app, "alice@example.org").preferences["digest"] is True


def test_sign_in_cookie_is_httponly_lax_and_revocable(app: Flask, client: FlaskClient) -> None:
    with app.app_context(), session_scope() as session:
        player = find_or_add_player(session, "alice@example.org", "Alice")
        assert player.id is not None
        token = tokens.make_games_token(player.id, 0)
    # Opening the link signs nobody in (mail scanners open every link).
    client.get(f"/me/{token}")
    assert client.get_cookie("battleline") is None
    response = client.post(f"/me/{token}/sign-in")
    cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert "Alice's games" in client.get("/me").get_data(as_text=True)
    # A new generation (links revoked) ends the sign-in too.
    with app.app_context(), session_scope() as session:
        player = find_player(session, "alice@example.org")
        assert player is not None
        player.token_generation += 1
        session.add(player)
    assert "Alice's games" not in client.get("/me").get_data(as_text=True)
