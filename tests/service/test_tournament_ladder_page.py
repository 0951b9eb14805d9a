"""A ladder's page: its places with challenge buttons only for the signed-in entrant and only
for the places the rules allow, a challenge from the page, its games; the organiser's button
removing a player; bad posts answered 4xx with nothing changed; every word in Japanese."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import func, select

from service.db import session_scope
from service.models import Player
from service.tournaments.models import Entrant, Tournament, TournamentGame, TournamentKind
from tests.service.rating_games import signed_in_player
from tests.service.test_pages_ja import assert_japanese, get_ja
from tests.service.test_tournament_pages import sign_in_as
from tests.service.tournament_helpers import make, start

LADDER_FORM = {
    "name": "ラダー戦",
    "kind": "ladder",
    "ruleset": "battleline",
    "claims": "advanced",
    "days_per_move": "3",
    "round_days": "30",
    "max_players": "20",
    "starts_on": "2026-12-01",
    "scoring": "game",
    "deadline_policy": "adjudicate",
    "entry": "open",
}


_KANA = {"a": "上", "z": "下", "p": "者"}


def _players(app: Flask, count: int, prefix: str) -> list[int]:
    """Players whose names read as Japanese (a name is never translated)."""
    return [
        signed_in_player(app, f"{prefix}{n}@example.org", f"選手{_KANA[prefix]}{n}")
        for n in range(count)
    ]


def _ladder_with(app: Flask, client: FlaskClient, before: int, after: int) -> tuple[str, int]:
    """Alice, signed in on ``client``, on a started ladder with ``before`` players above her
    (ids lower: all rated 1500) and ``after`` below; the first above organises."""
    above = _players(app, before, "a")
    sign_in_as(app, client, "alice@example.org", "アリス")
    below = _players(app, after, "z")
    with app.app_context(), session_scope() as session:
        alice = session.exec(select(Player).where(Player.email == "alice@example.org")).one()
        assert alice.id is not None
        alice_id = alice.id
    tid = make(
        app,
        [*above, alice_id, *below],
        above[0],
        kind=TournamentKind.LADDER,
        rounds=0,
        name="ラダー戦",
    )
    start(app, tid)
    with app.app_context(), session_scope() as session:
        found = session.get(Tournament, tid)
        assert found is not None
        return f"/tournaments/{found.public_id}", tid


def _entrant_ids(app: Flask, tid: int) -> dict[int, int]:
    """Rung: entry id."""
    with app.app_context(), session_scope() as session:
        rows = session.exec(select(Entrant).where(Entrant.tournament_id == tid)).all()
        return {e.rung: e.id for e in rows if e.rung is not None and e.id is not None}


BUTTON = '<button type="submit">Challenge '


def _language(client: FlaskClient, language: str) -> None:
    """The language switch, kept in the session cookie."""
    answer = client.post("/language", data={"language": language, "next": "/tournaments"})
    assert answer.status_code == 303


def _games(app: Flask) -> int:
    with app.app_context(), session_scope() as session:
        return session.exec(select(func.count()).select_from(TournamentGame)).one()


def test_the_form_offers_a_ladder_and_creates_one(app: Flask, client: FlaskClient) -> None:
    sign_in_as(app, client, "alice@example.org")
    assert 'value="ladder"' in client.get("/tournaments/new").get_data(as_text=True)
    assert client.post("/tournaments", data=LADDER_FORM).status_code == 303
    with app.app_context(), session_scope() as session:
        made = session.exec(select(Tournament)).one()
        assert (made.kind, made.rounds) == ("ladder", 0)


def test_challenge_buttons_for_the_places_allowed_and_a_challenge_from_the_page(
    app: Flask, client: FlaskClient
) -> None:
    url, tid = _ladder_with(app, client, before=4, after=1)  # Alice on place 5 of 6
    _language(client, "ja")
    assert_japanese(get_ja(client, url), "a ladder with challenge buttons")
    _language(client, "en")
    page = client.get(url).get_data(as_text=True)
    assert page.count(BUTTON) == 3  # places 2, 3 and 4, not 1 (4 above), not below
    assert "Challenge 選手上0" not in page and "Challenge 選手下0" not in page
    assert BUTTON not in app.test_client().get(url).get_data(as_text=True)  # a visitor
    entries = _entrant_ids(app, tid)
    assert client.post(f"{url}/challenge", data={"entrant": str(entries[1])}).status_code == 409
    assert client.post(f"{url}/challenge", data={"entrant": "x"}).status_code == 400
    assert app.test_client().post(f"{url}/challenge", data={"entrant": "1"}).status_code == 401
    assert _games(app) == 0
    assert client.post(f"{url}/challenge", data={"entrant": str(entries[2])}).status_code == 303
    assert _games(app) == 1
    page = client.get(url).get_data(as_text=True)
    assert "アリス challenged 選手上1" in page and BUTTON not in page  # one at a time
    _language(client, "ja")
    assert_japanese(get_ja(client, url), "a ladder being played")


def test_the_organiser_removes_a_player_with_the_button(app: Flask, client: FlaskClient) -> None:
    ids = _players(app, 3, "p")
    sign_in_as(app, client, "alice@example.org", "アリス")
    with app.app_context(), session_scope() as session:
        alice = session.exec(select(Player).where(Player.email == "alice@example.org")).one()
        assert alice.id is not None
        alice_id = alice.id
    tid = make(app, ids, alice_id, name="春の大会")
    start(app, tid)
    with app.app_context(), session_scope() as session:
        found = session.get(Tournament, tid)
        assert found is not None
        url = f"/tournaments/{found.public_id}"
    page = client.get(url).get_data(as_text=True)
    assert "Remove 選手者2 from the tournament" in page
    _language(client, "ja")
    assert_japanese(get_ja(client, url), "the organiser's page")
    _language(client, "en")
    stranger = app.test_client()
    sign_in_as(app, stranger, "bob@example.org", "Bob")
    assert stranger.post(f"{url}/remove", data={"player": str(ids[2])}).status_code == 403
    assert "Remove " not in stranger.get(url).get_data(as_text=True)
    assert client.post(f"{url}/remove", data={"player": "nobody"}).status_code == 400
    assert client.post(f"{url}/remove", data={"player": "99999"}).status_code == 404
    with app.app_context(), session_scope() as session:
        withdrawn = session.exec(
            select(func.count()).select_from(Entrant).where(Entrant.withdrawn_at != None)  # noqa: E711
        ).one()
        assert withdrawn == 0
    assert client.post(f"{url}/remove", data={"player": str(ids[2])}).status_code == 303
    page = client.get(url).get_data(as_text=True)
    assert "Remove 選手者2 from the tournament" not in page and "withdrawn" in page
