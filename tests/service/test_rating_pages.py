"""Where ratings show: the player page (the rating, ``?`` while provisional, the history as an
SVG line and a table), the leaderboards (established, active, top and around me), the
game-over email's rating change, the computer's ratings on the new-game form."""

from __future__ import annotations

from datetime import timedelta

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from service import clock
from service.db import session_scope
from service.games.players import find_or_add_player
from service.models import Player
from service.outbox.kinds import MailKind
from service.players.names import name_key
from service.ratings.models import Rating
from tests.service.conftest import sign_in_as
from tests.service.rating_games import end_game, play_turns, rated_game, signed_in_player
from tests.service.test_own_data import SCHEMA, _check_types
from tests.worker.outbox_rows import rows

ANN, BEN = "ann@example.org", "ben@example.org"


def _finished(app: Flask) -> int:
    game = rated_game(app, (ANN, BEN))
    play_turns(app, game, 4)
    end_game(app, game, "B")
    return game


def test_player_page_shows_a_provisional_rating_and_its_history(
    app: Flask, client: FlaskClient
) -> None:
    _finished(app)
    page = client.get("/players/Ann").get_data(as_text=True)
    assert "Battle Line: 1662?" in page
    assert "<polyline" in page and 'aria-hidden="true"' in page
    assert "<caption>Rating history: Battle Line</caption>" in page
    assert "<td>1500</td>" in page and "<td>1662</td>" in page
    assert 'href="/ratings/battleline"' in page


def test_player_page_without_rated_games(app: Flask, client: FlaskClient) -> None:
    signed_in_player(app, ANN, "Ann")
    assert "No rated game yet." in client.get("/players/Ann").get_data(as_text=True)


def test_game_over_email_tells_the_change(app: Flask) -> None:
    game = _finished(app)
    texts = [r.text_body or "" for r in rows(app, game_id=game, kind=MailKind.GAME_OVER)]
    assert any("Your rating (Battle Line): 1500 -> 1662? (+162)." in t for t in texts), texts
    assert any("1500 -> 1338? (-162)." in t for t in texts), texts


def test_casual_game_over_email_says_nothing_of_ratings(app: Flask) -> None:
    game = rated_game(app, (ANN, BEN), rated=False)
    play_turns(app, game, 4)
    end_game(app, game, "B")
    texts = [r.text_body or "" for r in rows(app, game_id=game, kind=MailKind.GAME_OVER)]
    assert texts and not any("rating" in t.lower() for t in texts)


def _established(app: Flask, count: int, *, days_ago: int = 1) -> None:
    """``count`` players P000... with established ratings 2000, 1999, ..."""
    when = clock.now() - timedelta(days=days_ago)
    with app.app_context(), session_scope() as session:
        for i in range(count):
            player = find_or_add_player(session, f"p{i:03}@example.org", f"P{i:03}")
            player.name_confirmed = True
            player.name_key = name_key(player.display_name)
            session.add(player)
            session.flush()
            assert player.id is not None
            session.add(
                Rating(
                    player_id=player.id,
                    pool="battleline",
                    rating=2000 - i,
                    deviation=60,
                    volatility=0.06,
                    games=30,
                    rated_at=when,
                )
            )


def test_leaderboard_lists_established_active_players_best_first(
    app: Flask, client: FlaskClient
) -> None:
    _established(app, 3)
    _finished(app)  # Ann and Ben: provisional, not listed
    page = client.get("/ratings/battleline").get_data(as_text=True)
    assert page.index("P000") < page.index("P001") < page.index("P002")
    assert "Ann" not in page and "1662" not in page


def test_leaderboard_leaves_out_players_inactive_for_90_days(
    app: Flask, client: FlaskClient
) -> None:
    _established(app, 2, days_ago=91)
    page = client.get("/ratings/battleline").get_data(as_text=True)
    assert "P000" not in page and "Nobody is on this leaderboard yet." in page


def test_leaderboard_top_100_and_around_me(app: Flask, client: FlaskClient) -> None:
    _established(app, 110)
    sign_in_as(app, client, "p105@example.org", "P105")
    page = client.get("/ratings/battleline").get_data(as_text=True)
    top, around = page.split("Around you")
    assert "P099" in top and "P100" not in top
    assert 'aria-current="true"' in around
    assert all(f"P{i:03}" in around for i in range(100, 110))


def test_unknown_leaderboard_is_404(client: FlaskClient) -> None:
    response = client.get("/ratings/chess")
    assert response.status_code == 404
    assert "There is no rating of that name." in response.get_data(as_text=True)


def test_lobby_links_the_leaderboards(app: Flask, client: FlaskClient) -> None:
    page = client.get("/lobby").get_data(as_text=True)
    for pool in ("battleline", "no-tactics", "schotten-totten", "playing-cards", "three"):
        assert f'href="/ratings/{pool}"' in page


def test_own_data_holds_the_ratings(app: Flask, client: FlaskClient) -> None:
    game = _finished(app)
    sign_in_as(app, client, ANN, "Ann")
    data = client.get("/me/data.json").get_json()
    _check_types(data, SCHEMA, "export")
    [rating] = data["ratings"]
    assert rating["pool"] == "battleline" and rating["games"] == 1
    [change] = data["rating_changes"]
    assert change["game_id"] == game and change["before"] == 1500


def test_ratings_in_japanese(app: Flask, client: FlaskClient) -> None:
    game = _finished(app)
    client.post("/language", data={"language": "ja", "next": "/players/Ann"})
    page = client.get("/players/Ann").get_data(as_text=True)
    assert "レーティング" in page and "1662?" in page and "暫定" in page
    assert "Ratings" not in page and "Rating history" not in page
    board = client.get("/ratings/battleline").get_data(as_text=True)
    assert "ランキング" in board and "Leaderboard" not in board
    with app.app_context(), session_scope() as session:
        ann = session.exec(select(Player).where(Player.email == ANN)).one()
        ann.language = "ja"
        session.add(ann)
    other = rated_game(app, (ANN, BEN))
    play_turns(app, other, 4)
    end_game(app, other, "B")
    [mail] = [r for r in rows(app, game_id=other, kind=MailKind.GAME_OVER) if r.recipient == ANN]
    assert "あなたのレーティング" in (mail.text_body or ""), mail.text_body
    assert game != other
