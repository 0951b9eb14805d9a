"""A person new to the site signs in from the "my games" request and joins the lobby: the
emailed link makes them a player (a newcomer's first game need not be with someone whose address
they know). The answer never tells whether an address was known, and links to addresses nobody
has confirmed stay under the whole site's ceiling, silently."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from service.db import session_scope
from service.games.players import find_or_add_player, find_player
from service.models import Player
from service.outbox import MailKind
from service.players.challenge_models import Challenge
from tests.service.conftest import empty_and_close, make_test_app, sign_in_as
from tests.worker.outbox_rows import link_to, path_of, rows

NEWCOMER = "newt@example.org"
CHALLENGE = {"ruleset": "battleline", "claims": "advanced", "days_per_move": "3"}


def _challenges(app: Flask) -> list[Challenge]:
    with app.app_context(), session_scope() as session:
        return list(session.exec(select(Challenge)).all())


def test_a_newcomer_signs_in_from_the_emailed_link_names_themselves_and_posts_a_challenge(
    app: Flask, client: FlaskClient
) -> None:
    asked = client.post("/me", data={"email": " Newt@Example.org "})
    assert asked.status_code == 200
    assert "A link to sign in is on its way to this address" in asked.get_data(as_text=True)
    email = rows(app, kind=MailKind.MY_GAMES)
    assert [row.recipient for row in email] == [NEWCOMER]
    welcome = email[0]
    assert welcome.subject == "Sign in to Battle Line by mail"
    assert welcome.text_body.startswith("Hello,\n"), welcome.text_body[:40]
    assert "Welcome to Battle Line by mail" in welcome.text_body
    assert "Hello ," not in welcome.html_body and "Welcome" in welcome.html_body

    link = path_of(link_to(welcome.text_body, "/me/"))
    page = client.get(link).get_data(as_text=True)
    assert "<h1>Your games</h1>" in page and "&#39;s games" not in page
    signed_in = client.post(f"{link}/sign-in")
    assert signed_in.status_code == 303 and signed_in.location.endswith("/me/name")
    assert "Signed in on this browser." in client.get("/me").get_data(as_text=True)

    # Nameless, they cannot be listed in the lobby: told to choose a name, nothing stored.
    refused = client.post("/lobby/challenges", data=CHALLENGE)
    assert refused.status_code == 403
    assert "<h1>The lobby cannot do this</h1>" in refused.get_data(as_text=True)
    assert "Choose the name other players will see" in refused.get_data(as_text=True)
    assert _challenges(app) == []

    assert client.post("/me/name", data={"name": "Newt"}).status_code == 303
    assert client.post("/lobby/challenges", data=CHALLENGE).status_code == 303
    assert "Newt" in client.get("/lobby").get_data(as_text=True)
    with app.app_context(), session_scope() as session:
        player = find_player(session, NEWCOMER)
        assert player is not None and player.name_confirmed and player.display_name == "Newt"


def test_a_nameless_newcomer_cannot_accept_a_challenge_either(app: Flask) -> None:
    poster = app.test_client()
    sign_in_as(app, poster, "alice@example.org", "Alice")
    assert poster.post("/me/name", data={"name": "Alice"}).status_code == 303
    assert poster.post("/lobby/challenges", data=CHALLENGE).status_code == 303
    (challenge,) = _challenges(app)
    newcomer = app.test_client()
    newcomer.post("/me", data={"email": NEWCOMER})
    link = path_of(link_to(rows(app, kind=MailKind.MY_GAMES)[0].text_body, "/me/"))
    assert newcomer.post(f"{link}/sign-in").status_code == 303
    # The lobby says so before they try: a link to the name page, no form that would refuse.
    lobby = newcomer.get("/lobby").get_data(as_text=True)
    assert '<a href="/me/name">choose your public name</a>' in lobby
    assert f"/lobby/challenges/{challenge.id}/accept" not in lobby
    assert 'action="/lobby/challenges"' not in lobby and 'action="/lobby/automatch"' not in lobby
    refused = newcomer.post(f"/lobby/challenges/{challenge.id}/accept")
    assert refused.status_code == 403
    assert _challenges(app)[0].status == "open"


def test_a_newcomer_in_japanese_is_welcomed_in_japanese(app: Flask, client: FlaskClient) -> None:
    client.post("/me", data={"email": NEWCOMER}, headers={"Accept-Language": "ja"})
    (welcome,) = rows(app, kind=MailKind.MY_GAMES)
    assert welcome.text_body.startswith("こんにちは。\n"), welcome.text_body[:40]
    assert "ようこそ" in welcome.text_body


def test_a_label_nobody_typed_is_filled_by_the_first_who_types_one(app: Flask) -> None:
    """A newcomer asking for their link has no name yet: an invitation to their address, or a
    game they start from the form, gives them the label typed there until they choose one."""
    with app.app_context(), session_scope() as session:
        newcomer = find_or_add_player(session, NEWCOMER, "")
        assert newcomer.display_name == ""
        assert find_or_add_player(session, NEWCOMER, "Newt").display_name == "Newt"
        assert find_or_add_player(session, NEWCOMER, "Someone else").display_name == "Newt"


def test_the_answer_is_the_same_for_known_and_new_addresses(app: Flask) -> None:
    known, new = app.test_client(), app.test_client()
    sign_in_as(app, known, "alice@example.org", "Alice")
    known.post("/me/sign-out")
    answers = [
        c.post("/me", data={"email": e}) for c, e in ((known, "alice@example.org"), (new, NEWCOMER))
    ]
    assert [a.status_code for a in answers] == [200, 200]
    # Development shows each its own link; otherwise the pages are alike word for word.
    texts = [a.get_data(as_text=True).split("Development only")[0] for a in answers]
    assert texts[0] == texts[1]
    assert sorted(r.recipient for r in rows(app, kind=MailKind.MY_GAMES)) == [
        "alice@example.org",
        NEWCOMER,
    ]


@pytest.fixture
def ceiling_app(database_url: str) -> Iterator[Flask]:
    app = make_test_app(
        database_url,
        RATELIMIT_ENABLED=True,
        RATE_LIMIT_MAIL_PER_CLIENT="50/minute",
        RATE_LIMIT_MAIL_WHOLE_SITE="3/hour",
    )
    yield app
    empty_and_close(app)


def test_links_to_new_addresses_stay_under_the_whole_site_ceiling_silently(
    ceiling_app: Flask,
) -> None:
    app = ceiling_app
    client = app.test_client()
    with app.app_context(), session_scope() as session:
        find_or_add_player(session, "alice@example.org", "Alice")
    answers = [
        client.post(
            "/me",
            data={"email": f"new{n}@example.net"},
            environ_base={"REMOTE_ADDR": f"198.51.100.{n}"},
        )
        for n in range(5)
    ]
    # The same answer for all five: nobody learns that the ceiling was reached.
    assert [a.status_code for a in answers] == [200] * 5
    sent = [r.recipient for r in rows(app, kind=MailKind.MY_GAMES)]
    assert sent == ["new0@example.net", "new1@example.net", "new2@example.net"]
    with app.app_context(), session_scope() as session:
        kept = session.exec(select(Player.email).where(Player.email.like("new%"))).all()  # type: ignore[attr-defined]
    assert sorted(kept) == sent, "no player is kept for an address that was not emailed"
    # A player the site knows still gets their link with the ceiling full.
    assert client.post("/me", data={"email": "alice@example.org"}).status_code == 200
    assert rows(app, kind=MailKind.MY_GAMES)[-1].recipient == "alice@example.org"
