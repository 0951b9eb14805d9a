"""The lobby's pages (service.lobby.challenge_routes): two people who do not know each other's
address meet through an open challenge or automatch; names shown, never addresses; the page is
bounded; English and Japanese."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

from service.db import session_scope
from service.lobby.challenges import LOBBY_PAGE_SIZE
from service.models import Game, GameStatus
from service.outbox.models import OutboxMessage
from service.players.challenge_models import Challenge
from tests.service.conftest import sign_in_as

FORM = {"ruleset": "battleline", "claims": "advanced", "days_per_move": "3"}


def _signed_in(app: Flask, email: str, name: str) -> FlaskClient:
    client = app.test_client()
    sign_in_as(app, client, email, name)
    return client


def test_a_challenge_posted_in_the_lobby_is_accepted_by_a_stranger(app: Flask) -> None:
    alice = _signed_in(app, "alice@example.org", "Alice")
    bob = _signed_in(app, "bob@example.org", "Bob")
    posted = alice.post("/lobby/challenges", data={**FORM, "message": "Hi <3 & good luck"})
    assert posted.status_code == 303
    page = bob.get("/lobby", query_string={"ruleset": "battleline", "days": "3"})
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "Alice" in html
    assert "alice@example.org" not in html
    assert "Hi &lt;3 &amp; good luck" in html
    assert "/games/new?b_computer=normal" in html
    with app.app_context(), session_scope() as session:
        challenge = session.exec(select(Challenge)).one()
    assert "Alice" not in bob.get("/lobby", query_string={"days": "5"}).get_data(as_text=True)
    accepted = bob.post(f"/lobby/challenges/{challenge.id}/accept")
    assert accepted.status_code == 303 and "/p/" in accepted.headers["Location"]
    private = bob.get(accepted.headers["Location"])
    assert private.status_code == 200
    with app.app_context(), session_scope() as session:
        game = session.exec(select(Game)).one()
        assert game.status == GameStatus.ACTIVE
        kinds = session.exec(
            select(OutboxMessage.kind).where(OutboxMessage.game_id == game.id)
        ).all()
        assert kinds.count("game_started") == 2 and kinds.count("your_turn") == 1, kinds


def test_a_challenge_from_a_browser_not_signed_in_asks_to_sign_in(app: Flask) -> None:
    for path in ("/lobby/challenges", "/lobby/automatch", "/lobby/challenges/1/accept"):
        answer = app.test_client().post(path, data=FORM)
        page = answer.get_data(as_text=True)
        assert answer.status_code == 401, path
        assert "Please sign in first" in page and "post or accept a challenge" in page, path
    with app.app_context(), session_scope() as session:
        assert session.exec(select(Challenge.id)).all() == []


def test_automatch_from_the_lobby_opens_the_game_for_the_second(app: Flask) -> None:
    alice = _signed_in(app, "alice@example.org", "Alice")
    bob = _signed_in(app, "bob@example.org", "Bob")
    first = alice.post("/lobby/automatch", data={**FORM, "keep_going": "1"})
    assert first.status_code == 303 and first.headers["Location"].endswith("/lobby")
    assert "Looking for an opponent" in alice.get("/lobby").get_data(as_text=True)
    second = bob.post("/lobby/automatch", data=FORM)
    assert second.status_code == 303 and "/p/" in second.headers["Location"]


def test_the_lobby_shows_one_bounded_page_with_a_link_to_the_next(app: Flask) -> None:
    from service.games.players import find_or_add_player
    from service.models import utcnow
    from service.players.challenge_models import ChallengeKind, ChallengeStatus

    with app.app_context(), session_scope() as session:
        for n in range(LOBBY_PAGE_SIZE + 3):
            player = find_or_add_player(session, f"p{n}@example.org", f"Player {n}")
            session.flush()
            assert player.id is not None
            session.add(
                Challenge(
                    kind=ChallengeKind.OPEN, status=ChallengeStatus.OPEN, poster_id=player.id,
                    ruleset="battleline", claims="advanced", days_per_move=3,
                    expires_at=utcnow().replace(year=2100),
                )
            )  # fmt: skip
    html = app.test_client().get("/lobby").get_data(as_text=True)
    assert html.count("offers Battle Line") == LOBBY_PAGE_SIZE
    assert "before=" in html and "Player 0 " not in html
    with app.app_context(), session_scope() as session:
        ids = sorted(c.id for c in session.exec(select(Challenge)) if c.id is not None)
    older = app.test_client().get("/lobby", query_string={"before": ids[3]})
    assert older.get_data(as_text=True).count("offers Battle Line") == 3


def test_the_lobby_speaks_japanese(app: Flask) -> None:
    alice = _signed_in(app, "alice@example.org", "Alice")
    alice.post("/lobby/challenges", data=FORM)
    html = app.test_client().get("/lobby", headers={"Accept-Language": "ja"}).get_data(as_text=True)
    assert "ロビー" in html and "Alice" in html
    # Japanese sets no space between two sentences; English one.
    assert "。上級ルール。フリー対局。" in html, html
    english = app.test_client().get("/lobby").get_data(as_text=True)
    assert "3 days per move. Advanced rule. Casual." in english
    for english in ("Lobby", "Post a challenge", "days per move", "Play the computer"):
        assert english not in html


def test_challenge_floods_are_refused_per_player(database_url: str) -> None:
    from sqlmodel import SQLModel, func

    from service.db import get_engine
    from tests.service.conftest import make_test_app

    app = make_test_app(database_url, RATELIMIT_ENABLED=True, RATE_LIMIT_MAIL_PER_CLIENT="2/minute")
    try:
        alice = _signed_in(app, "alice@example.org", "Alice")
        answers = [alice.post("/lobby/challenges", data=FORM).status_code for _ in range(3)]
        assert answers == [303, 303, 429]
        with app.app_context(), session_scope() as session:
            assert session.exec(select(func.count()).select_from(Challenge)).one() == 2
    finally:
        with get_engine(app).begin() as connection:
            for table in reversed(SQLModel.metadata.sorted_tables):
                connection.execute(table.delete())
        get_engine(app).dispose()


def test_the_lobby_hides_blocked_players_and_offers_no_button_on_ones_own(app: Flask) -> None:
    from service.models import Player
    from service.players.blocks import block

    alice = _signed_in(app, "alice@example.org", "Alice")
    bob = _signed_in(app, "bob@example.org", "Bob")
    carol = _signed_in(app, "carol@example.org", "Carol")
    for client in (alice, bob):
        assert client.post("/lobby/challenges", data=FORM).status_code == 303
    with app.app_context(), session_scope() as session:
        ids = {p.display_name: p.id for p in session.exec(select(Player))}
        block(session, ids["Carol"], ids["Alice"])  # type: ignore[arg-type]
    seen_by_carol = carol.get("/lobby").get_data(as_text=True)
    assert "Bob offers" in seen_by_carol and "Alice offers" not in seen_by_carol
    assert "Alice offers" in app.test_client().get("/lobby").get_data(as_text=True)
    seen_by_alice = alice.get("/lobby").get_data(as_text=True)
    with app.app_context(), session_scope() as session:
        bobs = session.exec(select(Challenge.id).where(Challenge.poster_id == ids["Bob"])).one()
    # Bob's challenge has its button; her own has none.
    assert re.findall(r"challenges/[0-9]+/accept", seen_by_alice) == [f"challenges/{bobs}/accept"]


def test_a_suspended_player_is_told_so_in_their_language_and_nothing_changes(
    app: Flask,
) -> None:
    from service.models import Player

    alice = _signed_in(app, "alice@example.org", "Alice")
    bob = _signed_in(app, "bob@example.org", "Bob")
    assert bob.post("/lobby/challenges", data=FORM).status_code == 303
    with app.app_context(), session_scope() as session:
        alice_id = session.exec(select(Player.id).where(Player.display_name == "Alice")).one()
        (bobs,) = session.exec(select(Challenge.id)).all()
    said = app.test_cli_runner().invoke(args=["moderation", "suspend", str(alice_id)])
    assert "suspended" in said.output
    for language, words in (("en", "Your account is suspended"), ("ja", "利用停止")):
        assert alice.post("/language", data={"language": language}).status_code == 303
        for path, data in (
            ("/lobby/challenges", FORM),
            ("/lobby/automatch", FORM),
            (f"/lobby/challenges/{bobs}/accept", {}),
        ):
            answer = alice.post(path, data=data)
            assert answer.status_code == 403, path
            assert words in answer.get_data(as_text=True), (language, path)
    with app.app_context(), session_scope() as session:
        assert session.exec(select(Challenge.id)).all() == [bobs]
        assert session.exec(select(Game)).all() == []
    # The lobby still reads, saying why it offers her nothing to press.
    assert alice.post("/language", data={"language": "en"}).status_code == 303
    lobby = alice.get("/lobby").get_data(as_text=True)
    assert "Bob offers" in lobby and "Your account is suspended" in lobby
    assert "/accept" not in lobby and "Post the challenge" not in lobby
