"""One rematch per finished game, on SQLite and PostgreSQL: when both players offer it, one
after the other or at the same moment, there is one new game, and the second offer joins it
(offering is accepting) instead of inviting the first player to a game of their own."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import col, select

from service import tokens
from service.db import session_scope
from service.games.rows import get_game
from service.games.seats import read_seats
from service.models import Game, GameStatus
from service.outbox.models import OutboxMessage
from tests.service.conftest import sign_in_as
from tests.service.play_driver import create_and_accept

ROUNDS = 3


def finished_game(app: Flask, client: FlaskClient) -> dict[str, Any]:
    """A game between Alice (A) and Bob (B) that Alice resigned."""
    game = create_and_accept(app, client)
    with app.app_context(), session_scope() as session:
        ply = get_game(session, game["id"]).ply
    response = client.post(f"/p/{game['token']['A']}/move", data={"ply": ply, "move": "resign"})
    assert response.status_code == 303, response.get_data(as_text=True)
    with app.app_context(), session_scope() as session:
        assert get_game(session, game["id"]).status == GameStatus.FINISHED
    return game


def owner(app: Flask, seat: str) -> FlaskClient:
    """A browser signed in as the player of ``seat`` (a seat link alone asks by email)."""
    own = app.test_client()
    sign_in_as(
        app, own, *{"A": ("alice@example.org", "Alice"), "B": ("bob@example.org", "Bob")}[seat]
    )
    return own


def games_after(app: Flask, game_id: int) -> list[Game]:
    with app.app_context(), session_scope() as session:
        return list(
            session.exec(select(Game).where(col(Game.id) > game_id).order_by(col(Game.id))).all()
        )


def seat_opened(app: Flask, location: str) -> tokens.SeatToken:
    """The game and seat of the private page a redirect leads to."""
    with app.app_context():
        return tokens.read_private_token(location.rsplit("/p/", 1)[1])


def invitations_to(app: Flask, email: str, game_id: int) -> int:
    with app.app_context(), session_scope() as session:
        rows = session.exec(
            select(OutboxMessage.id).where(
                OutboxMessage.recipient == email,
                OutboxMessage.kind == "invitation",
                col(OutboxMessage.game_id) > game_id,
            )
        ).all()
    return len(rows)


def assert_one_rematch(app: Flask, game: dict[str, Any], responses: list[Any]) -> None:
    """One new game, dealt (both are in), each offer led to its own seat there."""
    rematches = games_after(app, game["id"])
    assert len(rematches) == 1, [g.id for g in rematches]
    rematch = rematches[0]
    assert rematch.status == GameStatus.ACTIVE
    opened = [seat_opened(app, r.headers["Location"]) for r in responses]
    assert {seat.game_id for seat in opened} == {rematch.id}
    with app.app_context(), session_scope() as session:
        assert rematch.id is not None
        emails = {
            letter: player.email for letter, (_, player) in read_seats(session, rematch.id).items()
        }
        finished = get_game(session, game["id"])
        assert finished.rematch_game_id == rematch.id
    # Alice's offer led to Alice's seat, Bob's to Bob's.
    assert [emails[seat.seat] for seat in opened] == ["alice@example.org", "bob@example.org"]
    # At most the first offer's invitation went; nobody was invited to a second game.
    assert (
        invitations_to(app, "alice@example.org", game["id"])
        + invitations_to(app, "bob@example.org", game["id"])
        <= 1
    )


def test_the_second_offer_joins_the_first(app: Flask, client: FlaskClient) -> None:
    game = finished_game(app, client)
    alice = owner(app, "A").post(f"/p/{game['token']['A']}/rematch")
    assert alice.status_code == 303
    invited = games_after(app, game["id"])
    assert [g.status for g in invited] == [GameStatus.INVITED]
    page = client.get(f"/p/{game['token']['B']}/rematch").get_data(as_text=True)
    assert "Join the rematch" in page
    bob_browser = owner(app, "B")
    bob = bob_browser.post(f"/p/{game['token']['B']}/rematch")
    assert bob.status_code == 303
    assert_one_rematch(app, game, [alice, bob])
    # Asked again by either: the same game, nothing more.
    again = bob_browser.post(f"/p/{game['token']['B']}/rematch")
    assert seat_opened(app, again.headers["Location"]) == seat_opened(app, bob.headers["Location"])
    assert len(games_after(app, game["id"])) == 1


def test_after_a_declined_rematch_another_may_be_offered(app: Flask, client: FlaskClient) -> None:
    game = finished_game(app, client)
    alice = owner(app, "A").post(f"/p/{game['token']['A']}/rematch")
    offered = seat_opened(app, alice.headers["Location"])
    with app.app_context():
        bob_token = tokens.make_private_token(offered.game_id, "B", 0)
    assert client.post(f"/p/{bob_token}/decline").status_code == 303
    bob = owner(app, "B").post(f"/p/{game['token']['B']}/rematch")
    second = seat_opened(app, bob.headers["Location"])
    assert second.game_id != offered.game_id
    statuses = [g.status for g in games_after(app, game["id"])]
    assert statuses == [GameStatus.DECLINED, GameStatus.INVITED]


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_both_offers_at_once_make_one_rematch(app: Flask, client: FlaskClient, round_: int) -> None:
    game = finished_game(app, client)
    urls = [f"/p/{game['token'][seat]}/rematch" for seat in ("A", "B")]
    barrier = threading.Barrier(2)
    responses: list[Any] = [None, None]
    errors: list[BaseException] = []
    browsers = [owner(app, seat) for seat in ("A", "B")]

    def offer(index: int) -> None:
        own = browsers[index]
        try:
            barrier.wait(timeout=10)
            responses[index] = own.post(urls[index])
        except BaseException as error:  # reported in the test's thread
            errors.append(error)

    threads = [threading.Thread(target=offer, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    assert [r.status_code for r in responses] == [303, 303]
    assert_one_rematch(app, game, responses)
