"""Deadlines in the reader's own time (issue 20, item 8): the time left and the local time, in the
zone a player chose on their games page (checked against zoneinfo; anything else is a 400 that
changes nothing), used by their emails and pages; without a choice, UTC with the zone named."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import given
from hypothesis import strategies as st

from service.db import session_scope
from service.games.players import find_player
from service.reader_time import (
    UnknownTimeZoneError,
    check_time_zone,
    deadline_text,
    local_time,
    time_left,
)
from tests.service.conftest import sign_in_as
from tests.service.test_reading_a_game import emails, play_a_turn, started_game

DEADLINE = datetime(2026, 11, 28, 18, 24, tzinfo=UTC)


@pytest.mark.parametrize(
    ("now", "left"),
    [
        (datetime(2026, 11, 25, 19, 0, tzinfo=UTC), "2 days 23 hours"),
        (datetime(2026, 11, 27, 18, 24, tzinfo=UTC), "1 day"),
        (datetime(2026, 11, 28, 13, 0, tzinfo=UTC), "5 hours"),
        (datetime(2026, 11, 28, 17, 44, tzinfo=UTC), "40 minutes"),
        (datetime(2026, 11, 28, 18, 24, tzinfo=UTC), "no time"),
        (datetime(2026, 11, 29, 0, 0, tzinfo=UTC), "no time"),
    ],
)
def test_the_time_left(now: datetime, left: str) -> None:
    assert time_left(DEADLINE, now) == left


def test_a_deadline_in_the_readers_zone_or_in_utc_named() -> None:
    now = datetime(2026, 11, 25, 19, 0, tzinfo=UTC)
    assert deadline_text(DEADLINE, "Europe/Paris", now) == (
        "Saturday 28 November, 19:24 Europe/Paris time (2 days 23 hours left)"
    )
    assert local_time(DEADLINE, None) == "Saturday 28 November, 18:24 UTC"
    assert (
        local_time(DEADLINE, "America/New_York")
        == "Saturday 28 November, 13:24 America/New_York time"
    )
    # SQLite hands back the stored UTC without its offset.
    assert local_time(DEADLINE.replace(tzinfo=None), "Asia/Tokyo").startswith(
        "Sunday 29 November, 03:24"
    )


@given(st.text(max_size=80))
def test_only_known_zones_are_accepted(name: str) -> None:
    import zoneinfo

    if name in zoneinfo.available_timezones():
        assert check_time_zone(name) == name
    else:
        with pytest.raises(UnknownTimeZoneError):
            check_time_zone(name)


def zone_of(app: Flask, email: str) -> str | None:
    with app.app_context(), session_scope() as session:
        player = find_player(session, email)
        assert player is not None
        return player.time_zone


def test_a_player_chooses_a_zone_and_their_emails_and_pages_use_it(
    app: Flask, client: FlaskClient
) -> None:
    game = started_game(app)
    bob = client.get(game["page"]["B"]).get_data(as_text=True)
    assert "UTC (" in bob and " left)</time>" in bob and '<time datetime="' in bob
    sign_in_as(app, client, "bob@example.org", "Bob")
    page = client.get("/me").get_data(as_text=True)
    assert 'name="time_zone"' in page and "Europe/Paris" in page
    response = client.post("/me/time-zone", data={"time_zone": "Europe/Paris"})
    assert response.status_code == 303
    assert zone_of(app, "bob@example.org") == "Europe/Paris"
    assert "Europe/Paris time (" in client.get(game["page"]["B"]).get_data(as_text=True)
    before = len(emails(app, game["id"]))
    play_a_turn(app, game["id"])
    play_a_turn(app, game["id"])
    later = [r for r in emails(app, game["id"])[before:] if r.recipient == "bob@example.org"]
    assert later, "Bob was told of his turn"
    for row in later:
        if row.kind == "your_turn":
            assert "Europe/Paris time (" in row.text_body and " left)" in row.text_body
            assert "Europe/Paris time (" in row.html_body
    # Alice chose nothing: UTC, named.
    alice = [r for r in emails(app, game["id"]) if r.recipient == "alice@example.org"]
    assert any("UTC (" in r.text_body for r in alice if r.kind == "your_turn")


@pytest.mark.parametrize("bad", ["Mars/Olympus", "../../etc/passwd", "Europe/Paris\n", "x" * 200])
def test_a_bad_zone_is_refused_and_changes_nothing(
    app: Flask, client: FlaskClient, bad: str
) -> None:
    started_game(app)
    sign_in_as(app, client, "bob@example.org", "Bob")
    assert client.post("/me/time-zone", data={"time_zone": "Asia/Tokyo"}).status_code == 303
    response = client.post("/me/time-zone", data={"time_zone": bad})
    assert response.status_code == 400
    assert zone_of(app, "bob@example.org") == "Asia/Tokyo"


def test_only_the_player_signed_in_sets_a_zone(app: Flask, client: FlaskClient) -> None:
    started_game(app)
    response = client.post("/me/time-zone", data={"time_zone": "Asia/Tokyo"})
    assert response.status_code == 401
    assert zone_of(app, "bob@example.org") is None


def test_utc_again_clears_the_choice(app: Flask, client: FlaskClient) -> None:
    started_game(app)
    sign_in_as(app, client, "bob@example.org", "Bob")
    assert client.post("/me/time-zone", data={"time_zone": "Asia/Tokyo"}).status_code == 303
    assert client.post("/me/time-zone", data={"time_zone": "UTC"}).status_code == 303
    assert zone_of(app, "bob@example.org") is None
