"""The emails between two games of a series (R23), on SQLite and PostgreSQL: every seat's
game-over email names the next game with that seat's own private link, and the next game sends
every seat its "cards dealt" email, with two and with three players."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from flask import Flask
from sqlmodel import col, select

from service import tokens
from service.db import session_scope
from service.games.series import series_score
from service.lobby.lifecycle import accept_invitation
from service.models import Game, GameStatus, Series
from service.outbox.models import OutboxMessage
from tests.service.conftest import empty_and_close, make_test_app
from tests.service.test_computer_and_series import new_game, play_people

PEOPLE = {
    "A": "alice@example.org",
    "B": "bob@example.org",
    "C": "carol@example.org",
}


@pytest.fixture
def app(database_url: str) -> Iterator[Flask]:
    app = make_test_app(database_url, COMPUTER_DELAY_S=0)
    yield app
    empty_and_close(app)


def _emails_of_game(app: Flask, game_id: int, kind: str) -> dict[str, OutboxMessage]:
    """The emails of ``kind`` about ``game_id``, by recipient address (one each)."""
    with app.app_context(), session_scope() as session:
        rows = session.exec(
            select(OutboxMessage)
            .where(OutboxMessage.game_id == game_id, OutboxMessage.kind == kind)
            .order_by(col(OutboxMessage.id))
        ).all()
    by_address = {row.recipient: row for row in rows}
    assert len(by_address) == len(rows), f"two {kind} emails to one address"
    return by_address


def _link_payload(game_id: int, seat: str) -> str:
    """The signed part of a seat's private link that says which game and seat it opens."""
    return tokens.make_private_token(game_id, seat, 0).split(".")[0]


@pytest.mark.parametrize(
    "fields",
    [
        {"ruleset": "no-tactics"},
        {"ruleset": "no-tactics-3p", "c_name": "Carol", "c_email": PEOPLE["C"]},
    ],
    ids=["two-players", "three-players"],
)
def test_every_seat_is_told_of_the_next_game_with_its_own_link(
    app: Flask, fields: dict[str, str]
) -> None:
    first_id = new_game(app, series="games", series_games="2", **fields)
    seats = ["A", "B", "C"] if "c_email" in fields else ["A", "B"]
    with app.app_context(), session_scope() as session:
        for seat in seats[1:]:
            accept_invitation(session, tokens.SeatToken(game_id=first_id, seat=seat, generation=0))
    play_people(app, first_id, random.Random(11))
    with app.app_context(), session_scope() as session:
        first = session.get(Game, first_id)
        assert first is not None and first.series_id is not None
        series = session.get(Series, first.series_id)
        assert series is not None
        games = series_score(session, series).games
    assert len(games) == 2 and games[1].status == GameStatus.ACTIVE
    following_id = games[1].id
    assert following_id is not None

    overs = _emails_of_game(app, first_id, "game_over")
    assert sorted(overs) == sorted(PEOPLE[s] for s in seats)
    with app.app_context():
        for seat in seats:
            text = overs[PEOPLE[seat]].text_body
            assert "The next game is dealt" in text, f"seat {seat} was not told"
            assert "\n\n\n" not in text  # one blank line between paragraphs
            assert "\n\nSeries points " in text and "\n\nSeries (" in text
            assert _link_payload(following_id, seat) in text, f"seat {seat}: not its own link"
            for other in seats:
                if other != seat:
                    assert _link_payload(following_id, other) not in text

    started = _emails_of_game(app, following_id, "game_started")
    assert sorted(started) == sorted(PEOPLE[s] for s in seats)
    with app.app_context():
        for seat in seats:
            text = started[PEOPLE[seat]].text_body
            assert _link_payload(following_id, seat) in text
            assert "Game 2 of your series" in text
            assert "accepted" not in text  # nobody was invited to it
