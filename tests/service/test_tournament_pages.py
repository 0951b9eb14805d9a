"""The tournament pages: the list (linked from the lobby), the create form, a tournament's page
with its buttons, standings, rounds and crosstable; bad input answered 4xx with nothing stored;
every page in Japanese."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import func, select

from service.db import session_scope
from service.tournaments.models import Entrant, Tournament
from tests.service.conftest import sign_in_as as sign_in_only
from tests.service.rating_games import signed_in_player
from tests.service.test_pages_ja import assert_japanese, get_ja
from tests.service.tournament_helpers import make, open_games, players, resign

NOW = datetime(2026, 11, 27, 23, 30, tzinfo=UTC)
"""Before the form's start date."""
FORM = {
    "name": "冬の大会",  # a name is never translated: this one reads as Japanese
    "kind": "round-robin",
    "ruleset": "battleline",
    "claims": "advanced",
    "days_per_move": "3",
    "round_days": "30",
    "max_players": "4",
    "starts_on": "2026-12-01",
    "scoring": "series",
    "deadline_policy": "adjudicate",
    "entry": "open",
}


def sign_in_as(app: Flask, client: FlaskClient, email: str, name: str = "Alice") -> None:
    """Signed in, with a chosen name (the name the standings show)."""
    signed_in_player(app, email, name)
    sign_in_only(app, client, email, name)


def _count(app: Flask) -> int:
    with app.app_context(), session_scope() as session:
        return session.exec(select(func.count()).select_from(Tournament)).one()


def _created(app: Flask, client: FlaskClient) -> str:
    response = client.post("/tournaments", data=FORM)
    assert response.status_code == 303, response.get_data(as_text=True)
    return response.headers["Location"]


def test_create_enter_start_and_read_a_round_robin(app: Flask, client: FlaskClient) -> None:
    app.config["CLOCK_NOW"] = NOW
    assert "/tournaments" in client.get("/lobby").get_data(as_text=True)
    sign_in_as(app, client, "alice@example.org")
    form = client.get("/tournaments/new")
    assert form.status_code == 200
    # A week of entries by default (today would start it at the next sweep).
    assert 'name="starts_on" type="date" value="2026-12-04"' in form.get_data(as_text=True)
    # The claim timings in the lobby's words, the one that suits play by mail first (chosen).
    claims = re.findall(
        r'<input type="radio" name="claims" value="(\w+)" ?(checked)?> ([^<]*)<',
        form.get_data(as_text=True),
    )
    assert claims == [
        ("advanced", "checked", "Advanced rule: claims at the start of your turn"),
        ("standard", "", "Standard claims: at the end of your turn"),
    ]
    url = _created(app, client)
    other_order = {**FORM, "tie_break_1": "sonneborn-berger", "tie_break_2": "sonneborn-berger"}
    assert client.post("/tournaments", data=other_order).status_code == 400  # twice the same
    assert client.post(f"{url}/enter").status_code == 303
    assert "冬の大会" in client.get("/tournaments").get_data(as_text=True)
    # Too few to start: the organiser is told how many it needs, not offered a button to fail.
    waiting = client.get(url).get_data(as_text=True)
    assert "You can start it once 3 players have entered." in waiting
    assert "Start now" not in waiting
    # Everyone reads when it starts, and how it plays.
    assert "It starts Tuesday 1 December, 00:00 UTC, with the players entered by then" in waiting
    assert "Advanced rule." in waiting
    app.config["CLOCK_NOW"] = datetime(2026, 12, 1, 0, 1, tzinfo=UTC)
    assert "It starts as soon as 3 players" in client.get(url).get_data(as_text=True)
    app.config["CLOCK_NOW"] = NOW
    with app.app_context(), session_scope() as session:
        tournament = session.exec(select(Tournament)).one()
        assert tournament.id is not None
        tid = tournament.id
    for email, name in (("bob@example.org", "Bob"), ("carol@example.org", "Carol")):
        other = app.test_client()
        sign_in_as(app, other, email, name)
        assert other.post(f"{url}/enter").status_code == 303
    assert "Start now" in client.get(url).get_data(as_text=True)
    app.config["CLOCK_NOW"] = datetime(2026, 12, 1, 0, 1, tzinfo=UTC)  # the beat's next sweep
    assert "It starts in the next few minutes." in client.get(url).get_data(as_text=True)
    app.config["CLOCK_NOW"] = NOW
    assert client.post(f"{url}/start").status_code == 303
    mine = client.get("/me").get_data(as_text=True)
    assert mine.count("Tournament: 冬の大会, round") == 2  # Alice's two games of the section
    page = client.get(url).get_data(as_text=True)
    assert "Standings" in page and "Crosstable" in page and "/games/" in page
    assert client.post(f"{url}/pause").status_code == 303
    assert "Start the clocks again" in client.get(url).get_data(as_text=True)
    assert_japanese(get_ja(app.test_client(), url), "a paused tournament")
    assert client.post(f"{url}/pause").status_code == 409
    assert client.post(f"{url}/resume").status_code == 303
    for game_id in open_games(app, tid):
        resign(app, game_id, "B")
    page = client.get(url).get_data(as_text=True)
    assert "finished" in page
    reader = app.test_client()  # a visitor reading in Japanese
    in_japanese = get_ja(reader, url)
    assert_japanese(in_japanese, "a tournament")
    assert "敗者は確保したフラッグの数。" in in_japanese  # a Japanese full stop, not "."
    assert_japanese(get_ja(reader, "/tournaments"), "the tournament list")
    assert_japanese(get_ja(reader, "/tournaments/new"), "the create form")


def test_bad_forms_and_actions_are_refused_and_change_nothing(
    app: Flask, client: FlaskClient
) -> None:
    anonymous = client.post("/tournaments", data=FORM)
    assert anonymous.status_code == 401
    assert "Please sign in first" in anonymous.get_data(as_text=True)
    sign_in_as(app, client, "alice@example.org")
    for field, value in [
        ("kind", "knockout"),
        ("days_per_move", "x"),
        ("starts_on", "tomorrow"),
        ("max_players", "99"),
        ("name", ""),
        ("tie_break_1", "coin-toss"),
    ]:
        response = client.post("/tournaments", data={**FORM, field: value})
        assert response.status_code == 400, (field, response.status_code)
        # The form comes back with what was typed and why: nothing to type again.
        page = response.get_data(as_text=True)
        assert '<p class="notice error" role="alert">' in page and "Organise" in page, field
        if field != "name":
            assert 'name="name" type="text" required maxlength="80" value="冬の大会"' in page
        assert '<option value="battleline" selected>' in page
        assert '<input type="radio" name="scoring" value="series" checked>' in page
        assert 'name="max_players" type="number" min="2" max="256" value="' in page
    too_many = client.post("/tournaments", data={**FORM, "max_players": "99"})
    assert 'value="99"' in too_many.get_data(as_text=True)
    assert _count(app) == 0
    assert client.get("/tournaments/nothing").status_code == 404
    assert client.post("/tournaments/nothing/enter").status_code == 404
    ids = players(app, 2)
    tid = make(app, [], ids[0])
    with app.app_context(), session_scope() as session:
        public_id = session.get(Tournament, tid).public_id  # type: ignore[union-attr]
    assert client.post(f"/tournaments/{public_id}/start").status_code == 403
    assert client.post(f"/tournaments/{public_id}/enter").status_code == 303
    assert client.post(f"/tournaments/{public_id}/enter").status_code == 409
    with app.app_context(), session_scope() as session:
        assert session.exec(select(func.count()).select_from(Entrant)).one() == 1


def test_the_form_keeps_the_chosen_tie_break_order(app: Flask, client: FlaskClient) -> None:
    sign_in_as(app, client, "alice@example.org")
    order = {**FORM, "tie_break_1": "sonneborn-berger", "tie_break_2": "direct-encounter"}
    assert client.post("/tournaments", data=order).status_code == 303
    assert client.post("/tournaments", data=FORM).status_code == 303
    with app.app_context(), session_scope() as session:
        chosen, usual = session.exec(select(Tournament).order_by(Tournament.id)).all()  # type: ignore[arg-type]
        assert chosen.tie_breaks == ["sonneborn-berger", "direct-encounter"]
        assert usual.tie_breaks == ["direct-encounter", "sonneborn-berger"]


def test_the_withdraw_and_end_buttons_and_no_other_action(app: Flask, client: FlaskClient) -> None:
    sign_in_as(app, client, "alice@example.org")
    url = _created(app, client)
    assert client.post(f"{url}/enter").status_code == 303
    assert client.post(f"{url}/withdraw").status_code == 303
    assert client.get(f"{url}/withdraw").status_code == 405  # a link never acts
    assert client.post(f"{url}/shuffle").status_code == 404
    assert client.post(f"{url}/end").status_code == 303
    with app.app_context(), session_scope() as session:
        tournament = session.exec(select(Tournament)).one()
        assert tournament.status == "finished"
        assert session.exec(select(func.count()).select_from(Entrant)).one() == 0
