"""The name someone else types for an address is a label until its owner names themselves
(issue 22 item 10: the first person to type an address named its owner for good)."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from service.db import session_scope
from service.games.players import find_player
from service.outbox import MailKind
from tests.service.conftest import VALID_FORM, sign_in_as
from tests.worker.outbox_rows import link_to, path_of, rows

MALLORY_INVITES_BOB = {
    **VALID_FORM,
    "a_name": "Mallory",
    "a_email": "mallory@example.org",
    "b_name": "Idiot",
    "b_email": "bob@example.org",
}
BOB_INVITES_CAROL = {
    **VALID_FORM,
    "a_name": "Bob",
    "a_email": "bob@example.org",
    "b_name": "Carol",
    "b_email": "carol@example.org",
}


def _name(app: Flask, email: str) -> str:
    with app.app_context(), session_scope() as session:
        player = find_player(session, email)
        assert player is not None
        return player.display_name


def _send_held_invitation(app: Flask, client: FlaskClient, recipient: str) -> None:
    """The owner presses the button of the confirmation email's link (their inbox only)."""
    confirmation = rows(app, kind=MailKind.CONFIRM_ADDRESS, recipient=recipient)[-1]
    private = path_of(link_to(confirmation.text_body, "/p/"))
    assert client.post(f"{private}/invite").status_code == 303


def test_the_owner_confirming_their_own_game_replaces_a_strangers_name(
    app: Flask, client: FlaskClient
) -> None:
    assert client.post("/games/new", data=MALLORY_INVITES_BOB).status_code == 303
    assert _name(app, "bob@example.org") == "Idiot"  # a label until Bob names himself
    # Bob, not signed in, starts a game of his own: his name waits for his confirmation.
    assert client.post("/games/new", data=BOB_INVITES_CAROL).status_code == 303
    assert _name(app, "bob@example.org") == "Idiot"
    _send_held_invitation(app, client, "bob@example.org")
    assert _name(app, "bob@example.org") == "Bob"


def test_a_signed_in_owner_names_themselves_at_once(app: Flask, client: FlaskClient) -> None:
    assert client.post("/games/new", data=MALLORY_INVITES_BOB).status_code == 303
    sign_in_as(app, client, "bob@example.org", "Idiot")
    assert client.post("/games/new", data=BOB_INVITES_CAROL).status_code == 303
    assert _name(app, "bob@example.org") == "Bob"


def test_a_stranger_never_renames_an_owner_who_named_themselves(
    app: Flask, client: FlaskClient
) -> None:
    assert client.post("/games/new", data=BOB_INVITES_CAROL).status_code == 303
    _send_held_invitation(app, client, "bob@example.org")
    assert _name(app, "bob@example.org") == "Bob"
    # Mallory invites Bob as "Idiot", then starts a game as Bob named "Idiot": even the button of
    # that game's confirmation (Bob's inbox) does not rename him, he did not type that name.
    assert client.post("/games/new", data=MALLORY_INVITES_BOB).status_code == 303
    as_bob = {**BOB_INVITES_CAROL, "a_name": "Idiot", "b_email": "dave@example.org"}
    assert client.post("/games/new", data=as_bob).status_code == 303
    _send_held_invitation(app, client, "bob@example.org")
    assert _name(app, "bob@example.org") == "Bob"
