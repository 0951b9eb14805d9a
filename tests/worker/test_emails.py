"""The emails, queued by the service in the embedded (eager) mode, on SQLite and PostgreSQL:
who gets what when, their headers and links, and the rules against mailing strangers."""

from __future__ import annotations

import re

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

import engine
from service.db import session_scope
from service.games.loaded import load_game
from service.games.records import cut_words
from service.history.my_games import send_my_games_link
from service.models import AddressStatus, Game, Player
from service.outbox import HeaderInjectionError, MailKind, bouncing_addresses, queue_email
from service.outbox.addresses import mark_bouncing
from service.outbox.models import OutboxMessage
from service.present.emails import queue_my_games_email
from tests.service.conftest import VALID_FORM, sign_in_as
from tests.worker.outbox_rows import get_ok, link_to, links, only_row, path_of, rows
from tests.worker.turn_games import bring_every_turn_email

CARD_CODE = re.compile(r"\b[ROYGBP](10|[1-9])\b")
BROUGHT_ABOUT_ELSEWHERE = {
    "reply_receipt", "reply_refused", "reply_other_sender", "reply_confirm", "series_left",
    "rematch_confirm", "tournament_entered", "tournament_round", "tournament_over",
}  # fmt: skip
"""Kinds that only a reply by email, a series, a rematch asked for with a seat link alone or a
tournament brings about: their own tests check them (tests/service/test_tournament_emails.py)."""


def create(client: FlaskClient, **changes: str) -> int:
    """Create a game through the form; returns the status code."""
    return client.post("/games/new", data={**VALID_FORM, **changes}).status_code


def confirm_creator(app: Flask, client: FlaskClient, email: str = "alice@example.org") -> None:
    """Follow the newest confirmation email to ``email`` to the game's private page and press
    its "Send the invitation" button."""
    row = rows(app, kind=MailKind.CONFIRM_ADDRESS, recipient=email)[-1]
    url = link_to(row.text_body, "/p/")
    assert client.post(path_of(url) + "/invite").status_code == 303


def invited_game(app: Flask, client: FlaskClient) -> OutboxMessage:
    """Alice creates a game, confirms her address: Bob's invitation."""
    assert create(client) == 303
    confirm_creator(app, client)
    return only_row(app, kind=MailKind.INVITATION)


def test_creator_sends_the_invitation_from_the_emailed_link(
    app: Flask, client: FlaskClient
) -> None:
    assert create(client) == 303
    confirmation = only_row(app)
    assert confirmation.kind == MailKind.CONFIRM_ADDRESS
    assert confirmation.recipient == "alice@example.org"
    assert confirmation.status == "sent"  # eager mode: delivered (to nowhere) at once
    assert confirmation.subject == "Confirm your new game of Battle Line"
    url = link_to(confirmation.text_body, "/p/")
    assert url in links(confirmation.html_body)
    # Opening the link (a mail scanner does) changes nothing.
    page = get_ok(client, url)
    assert "Send the invitation" in page
    assert client.head(path_of(url)).status_code == 200
    assert rows(app, kind=MailKind.INVITATION) == []
    # The button sends the invitation; pressing it again sends nothing more.
    assert client.post(path_of(url) + "/invite").status_code == 303
    invitation = only_row(app, kind=MailKind.INVITATION)
    assert invitation.recipient == "bob@example.org"
    assert client.post(path_of(url) + "/invite").status_code == 303
    only_row(app, kind=MailKind.INVITATION)
    assert "Waiting for Bob" in get_ok(client, url)


def test_signed_in_creator_invites_at_once(app: Flask, client: FlaskClient) -> None:
    invited_game(app, client)
    # The confirmation email's second link signs this browser in.
    sign_in = link_to(rows(app, kind=MailKind.CONFIRM_ADDRESS)[0].text_body, "/me/")
    assert client.post(path_of(sign_in) + "/sign-in").status_code == 303
    assert create(client, b_name="Carol", b_email="carol@example.org") == 303
    assert len(rows(app, kind=MailKind.CONFIRM_ADDRESS)) == 1
    assert only_row(app, kind=MailKind.INVITATION, recipient="carol@example.org")


def test_invitation(app: Flask, client: FlaskClient) -> None:
    invitation = invited_game(app, client)
    text, html = invitation.text_body, invitation.html_body
    assert "Alice invites you" in text
    assert engine.get_ruleset("battleline").title in text
    for fragment, expected in (
        ("/accept", "Accept and deal"),
        ("/decline", "Decline the invitation"),
        ("/mail/refuse-invitations/", "Refuse all invitations"),
        ("/mail/mute/", "Mute this game"),
        ("/mail/unsubscribe/", "Unsubscribe"),
    ):
        url = link_to(text, fragment)
        assert url in links(html)
        assert expected in get_ok(client, url)
    private = [url for url in links(text) if re.search(r"/p/[^/]+$", url)]
    assert len(private) == 1 and "Bob" in get_ok(client, private[0])
    # Nothing those pages showed changed the game.
    with app.app_context(), session_scope() as session:
        assert session.exec(select(Game)).one().status == "invited"


def test_game_started_to_both_in_the_game_thread(app: Flask, client: FlaskClient) -> None:
    invitation = invited_game(app, client)
    assert client.post(path_of(link_to(invitation.text_body, "/accept"))).status_code == 303
    started = rows(app, kind=MailKind.GAME_STARTED)
    assert sorted(row.recipient for row in started) == ["alice@example.org", "bob@example.org"]
    with app.app_context(), session_scope() as session:
        game = session.exec(select(Game)).one()
        first = game.deal["first"] if game.deal else None
        commitment = game.seed_commitment
    names = {"A": "Alice", "B": "Bob"}
    with app.app_context():
        # The cut with the players' names and the cards' names (issue 20: "B" is also blue).
        cut = cut_words(game, names)
    for row in started:
        assert cut in " ".join(row.text_body.split()) and cut in row.html_body
        assert commitment in row.text_body
        mine = "A" if row.recipient.startswith("alice") else "B"
        if mine == first:
            assert "You play first" in row.text_body
        else:
            assert f"{names[str(first)]} plays first" in row.text_body
        assert "Hello " + names[mine] in row.text_body
        # What happened, then the game (the same in every email of it); never a card.
        assert row.subject == f"Cards dealt: Battle Line, game {row.game_id}"
        assert invitation.subject == f"An invitation to play: Battle Line, game {row.game_id}"
        assert not CARD_CODE.search(row.subject)
        get_ok(client, link_to(row.text_body, "/p/"))
    by_recipient = {row.recipient: row for row in started}
    # Bob's thread began with the invitation; Alice's begins here.
    bob = by_recipient["bob@example.org"]
    assert bob.headers["In-Reply-To"] == invitation.message_id
    assert bob.headers["References"] == invitation.message_id
    assert "In-Reply-To" not in by_recipient["alice@example.org"].headers


def test_my_games_email(app: Flask, client: FlaskClient) -> None:
    invited_game(app, client)
    with app.app_context(), session_scope() as session:
        link = send_my_games_link(session, " Bob@Example.org ")
        assert link is not None
    row = only_row(app, kind=MailKind.MY_GAMES)
    assert row.recipient == "bob@example.org" and link in row.text_body
    assert "Bob" in get_ok(client, link)
    # However often it is asked for, an address gets a few a day.
    with app.app_context(), session_scope() as session:
        for _ in range(5):
            send_my_games_link(session, "bob@example.org")
    assert (
        len(rows(app, kind=MailKind.MY_GAMES)) == app.config["MY_GAMES_EMAILS_PER_ADDRESS_PER_DAY"]
    )


def test_every_email_has_the_required_headers_and_inline_styles(
    app: Flask, client: FlaskClient
) -> None:
    invitation = invited_game(app, client)
    client.post(path_of(link_to(invitation.text_body, "/accept")))
    assert invitation.game_id is not None
    bring_every_turn_email(app, client, invitation.game_id)
    with app.app_context(), session_scope() as session:
        bob = session.exec(select(Player).where(Player.email == "bob@example.org")).one()
        queue_my_games_email(session, bob, "http://bl.test/me/token")
    # A game for three whose third player declines: the others hear it was cancelled.
    form = {**VALID_FORM, "ruleset": "battleline-3p", "c_name": "Carol", "c_email": "carol@x.org"}
    sign_in_as(app, client, VALID_FORM["a_email"])
    assert client.post("/games/new", data=form).status_code == 303
    invitations = rows(app, kind=MailKind.INVITATION)
    (carol,) = [row for row in invitations if row.recipient == "carol@x.org"]
    assert client.post(path_of(link_to(carol.text_body, "/decline"))).status_code == 303
    # A game being played whose second player's address starts to bounce: Alice is told.
    dan = {**VALID_FORM, "b_name": "Dan", "b_email": "dan@x.org"}
    assert client.post("/games/new", data=dan).status_code == 303
    (to_dan,) = rows(app, kind=MailKind.INVITATION, recipient="dan@x.org")
    assert client.post(path_of(link_to(to_dan.text_body, "/accept"))).status_code == 303
    with app.app_context(), session_scope() as session:
        assert to_dan.player_id is not None
        mark_bouncing(session, to_dan.player_id, "550 5.1.1 no such user")
    kinds = {row.kind for row in rows(app)}
    assert kinds == {kind.value for kind in MailKind} - BROUGHT_ABOUT_ELSEWHERE
    for row in rows(app):
        assert row.headers["Auto-Submitted"] == "auto-generated"
        assert row.headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert re.fullmatch(
            r"<http://bl\.test/mail/unsubscribe/[^>\s]+>", row.headers["List-Unsubscribe"]
        )
        assert re.fullmatch(r"<[^<>@\s]+@bl\.test>", row.message_id)
        assert "<style" not in row.html_body and "class=" not in row.html_body
        assert "<script" not in row.html_body
        assert row.text_body.strip() and "<" not in row.text_body.replace("<http", "")
        assert all(len(line) < 998 for line in row.html_body.splitlines())


def test_invitation_limits(app: Flask, client: FlaskClient) -> None:
    sign_in_as(app, client, "alice@example.org")
    for days in ("1", "2", "3"):
        assert create(client, days_per_move=days) == 303
    # Bob has had 3 invitations today: a fourth is refused before anything is stored.
    response = client.post("/games/new", data={**VALID_FORM, "days_per_move": "4"})
    assert response.status_code == 429
    assert b"Too many invitations today" in response.data
    with app.app_context(), session_scope() as session:
        assert len(session.exec(select(Game)).all()) == 3
    app.config["INVITATIONS_PER_SENDER_PER_DAY"] = 4
    assert create(client, b_email="carol@example.org") == 303
    response = client.post("/games/new", data={**VALID_FORM, "b_email": "dan@example.org"})
    assert response.status_code == 429
    assert b"You have sent 4 invitations" in response.data


def test_confirmation_emails_are_limited(app: Flask, client: FlaskClient) -> None:
    for name in ("b1", "b2", "b3"):
        assert create(client, b_email=f"{name}@example.org") == 303
    response = client.post("/games/new", data={**VALID_FORM, "b_email": "b4@example.org"})
    assert response.status_code == 429
    assert b"confirmation emails" in response.data
    assert len(rows(app, kind=MailKind.CONFIRM_ADDRESS)) == 3


def test_refusing_all_invitations(app: Flask, client: FlaskClient) -> None:
    """An address that refuses invitations gets none, and nobody can tell it from one that
    does not answer: the same answers, the same pages (no 403 that says it refuses)."""
    invitation = invited_game(app, client)
    url = link_to(invitation.text_body, "/mail/refuse-invitations/")
    assert client.post(path_of(url)).status_code == 200
    answers = {}
    for b_email in ("bob@example.org", "carol@example.org"):
        form = {**VALID_FORM, "a_name": "Mallory", "a_email": "mallory@example.org"}
        response = client.post("/games/new", data={**form, "b_email": b_email})
        answers[b_email] = (response.status_code, response.location, response.data)
    assert answers["bob@example.org"] == answers["carol@example.org"]
    assert answers["bob@example.org"][:2] == (303, "/games/new/sent")
    pages = []
    for row in rows(app, kind=MailKind.CONFIRM_ADDRESS, recipient="mallory@example.org"):
        private = path_of(link_to(row.text_body, "/p/"))
        assert client.post(private + "/invite").status_code == 303
        pages.append(client.get(private).get_data(as_text=True))
    assert ["Waiting for Bob" in page for page in pages] == [True, True]
    invited = [row.recipient for row in rows(app, kind=MailKind.INVITATION)]
    assert invited == ["bob@example.org", "carol@example.org"], "none to Bob after he refused"
    # Changing one's mind is one more button.
    page = client.post(path_of(url), data={"undo": "1"}).get_data(as_text=True)
    assert "can invite you again" in page
    assert create(client, days_per_move="5") == 303
    confirm_creator(app, client)
    assert [row.recipient for row in rows(app, kind=MailKind.INVITATION)][-1] == "bob@example.org"


def test_one_click_unsubscribe(app: Flask, client: FlaskClient) -> None:
    invitation = invited_game(app, client)
    url = invitation.headers["List-Unsubscribe"].strip("<>")
    assert "Unsubscribe" in get_ok(client, url)
    client.head(path_of(url))

    def unsubscribed() -> bool:
        with app.app_context(), session_scope() as session:
            status = session.get(AddressStatus, invitation.player_id)
            return status is not None and status.unsubscribed_at is not None

    assert not unsubscribed()
    # RFC 8058: the mail program POSTs this body, and nothing more is asked.
    response = client.post(path_of(url), data={"List-Unsubscribe": "One-Click"})
    assert response.status_code == 200
    assert unsubscribed()
    client.post(path_of(link_to(invitation.text_body, "/accept")))
    assert [row.recipient for row in rows(app, kind=MailKind.GAME_STARTED)] == ["alice@example.org"]


def test_muting_a_game(app: Flask, client: FlaskClient) -> None:
    invitation = invited_game(app, client)
    mute = link_to(invitation.text_body, "/mail/mute/")
    assert client.post(path_of(mute)).status_code == 200
    assert "is muted" in get_ok(client, mute)
    client.post(path_of(link_to(invitation.text_body, "/accept")))
    assert [row.recipient for row in rows(app, kind=MailKind.GAME_STARTED)] == ["alice@example.org"]


@pytest.mark.parametrize(
    ("subject", "name"),
    [("Hello\r\nBcc: victim@example.org", "Bob"), ("Hello", "Bob\nBcc: victim@example.org")],
)
def test_header_injection_is_refused(app: Flask, subject: str, name: str) -> None:
    with app.app_context(), pytest.raises(HeaderInjectionError), session_scope() as session:
        player = Player(email="bob@example.org", display_name=name)
        session.add(player)
        session.flush()
        queue_email(session, MailKind.MY_GAMES, player, subject=subject, context={})
    assert rows(app) == []


def test_bouncing_addresses(app: Flask, client: FlaskClient) -> None:
    invitation = invited_game(app, client)
    assert invitation.game_id is not None and invitation.player_id is not None
    with app.app_context(), session_scope() as session:
        assert bouncing_addresses(session, load_game(session, invitation.game_id)) == []
        mark_bouncing(session, invitation.player_id, "550 5.1.1 no such user")
    with app.app_context(), session_scope() as session:
        game = load_game(session, invitation.game_id)
        (bouncing,) = bouncing_addresses(session, game)
        assert (bouncing.seat, bouncing.player_name) == ("B", "Bob")
        assert "550" in bouncing.reason
        # A bouncing address gets no more game email.
        bob = session.get(Player, invitation.player_id)
        assert bob is not None
        assert queue_email(session, MailKind.INVITATION, bob, game=game, context={}) is None
