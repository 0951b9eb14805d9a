"""A tournament's emails, each only to the players who entered: the entry's confirmation, the
new round's games (with their links), the end with the top of the standings; each in its
recipient's language, Japanese with no English word left."""

from __future__ import annotations

import re

from flask import Flask
from sqlmodel import col, select

from service import tokens
from service.db import session_scope
from service.games.loaded import load_game
from service.games.seats import read_seats
from service.games.tournament_note import TournamentNote
from service.models import Game, Player
from service.outbox import MailKind
from service.outbox.models import OutboxMessage
from service.present.deadline_emails import queue_reminder
from service.tournaments.models import TournamentKind
from service.turns.digest import send_digests
from tests.service.conftest import TEST_BASE_URL
from tests.service.rating_games import signed_in_player
from tests.service.test_emails_ja import english_words, readable
from tests.service.tournament_helpers import (
    START,
    make,
    open_games,
    play_one,
    resign,
    start,
    tournament,
)
from tests.worker.turn_games import set_preferences

PEOPLE = (
    ("alice@example.org", "Alice"),
    ("bob@example.org", "Bob"),
    ("carol@example.org", "Carol"),
)


def _rows(app: Flask, kind: MailKind) -> list[OutboxMessage]:
    with app.app_context(), session_scope() as session:
        return list(
            session.exec(
                select(OutboxMessage)
                .where(OutboxMessage.kind == kind.value)
                .order_by(col(OutboxMessage.id))
            ).all()
        )


def test_entry_round_and_end_emails_in_each_readers_language(app: Flask) -> None:
    ids = [signed_in_player(app, email, name) for email, name in PEOPLE]
    with app.app_context(), session_scope() as session:
        bob = session.get(Player, ids[1])
        assert bob is not None
        bob.language = "ja"
        session.add(bob)
    organiser = signed_in_player(app, "dan@example.org", "Dan")
    tid = make(app, ids, organiser, kind=TournamentKind.SWISS, rounds=1, name="冬の大会")
    entered = _rows(app, MailKind.TOURNAMENT_ENTERED)
    assert sorted(r.recipient for r in entered) == sorted(e for e, _ in PEOPLE)
    start(app, tid)
    rounds = _rows(app, MailKind.TOURNAMENT_ROUND)
    assert sorted(r.recipient for r in rounds) == sorted(e for e, _ in PEOPLE)
    games = [r for r in rounds if "/p/" in (r.text_body or "")]
    assert len(games) == 2  # the third has the bye
    assert all("round 1:" in r.text_body for r in rounds if r.recipient != "bob@example.org")
    for game_id in open_games(app, tid):
        resign(app, game_id, "B")
    over = _rows(app, MailKind.TOURNAMENT_OVER)
    assert sorted(r.recipient for r in over) == sorted(e for e, _ in PEOPLE)
    # Nobody but the entrants: the organiser gets none.
    everything = entered + rounds + over
    assert "dan@example.org" not in {r.recipient for r in everything}
    for row in everything:
        text = readable(row)
        if row.recipient == "bob@example.org":
            assert '<html lang="ja">' in (row.html_body or "")
            left = english_words(text) - {"Carol"}  # a name is never translated
            assert not left, (row.kind, left)
        else:
            assert '<html lang="en">' in (row.html_body or "")


def test_a_round_robin_tells_each_player_all_their_games_with_their_own_links(app: Flask) -> None:
    """A round-robin deals its whole section at once: its email says so (not "round 1", which
    on the page holds other players' games) and links each game to the reader's own private
    page, the one they play on (the public page cannot play)."""
    ids = [signed_in_player(app, email, name) for email, name in PEOPLE]
    tid = make(app, ids, ids[0], kind=TournamentKind.ROUND_ROBIN)
    start(app, tid)
    rounds = _rows(app, MailKind.TOURNAMENT_ROUND)
    assert sorted(r.recipient for r in rounds) == sorted(e for e, _ in PEOPLE)
    with app.app_context(), session_scope() as session:
        for row in rounds:
            text = row.text_body
            assert "has started: all your games are dealt." in text and "round 1" not in text
            links = re.findall(r"/p/([\w.-]+)", text)
            assert len(links) == 2, text  # against each of the two others
            for link in links:
                token = tokens.read_private_token(link)
                seat = read_seats(session, token.game_id)[token.seat]
                assert seat[1].email == row.recipient and seat[0].token_generation == 0
            others = {name for email, name in PEOPLE if email != row.recipient}
            assert all(f"Your game against {name}" in text for name in others)
    # Nobody was invited, so nobody "accepted": the cards were dealt by the tournament.
    for row in _rows(app, MailKind.GAME_STARTED):
        assert "accepted" not in row.text_body and " is dealt." in row.text_body


def test_a_tournament_game_names_its_tournament_in_its_emails_and_pages(app: Flask) -> None:
    """A player with several games knows which one is the tournament's: its cards-dealt,
    your-turn, reminder and game-over emails and its pages say "Tournament: Autumn cup, round
    1" with a link to the tournament's page."""
    ids = [signed_in_player(app, email, name) for email, name in PEOPLE]
    tid = make(app, ids, ids[0], kind=TournamentKind.SWISS, rounds=1, name="Autumn <cup>")
    start(app, tid)
    public_id = tournament(app, tid).public_id
    url = f"/tournaments/{public_id}"
    [game_id] = open_games(app, tid)  # the third player has the bye
    with app.app_context(), session_scope() as session:
        game = session.get(Game, game_id)
        assert game is not None
        first = game.to_move
    with app.app_context(), session_scope() as session:
        assert first is not None
        queue_reminder(session, load_game(session, game_id), first, START)
    resign(app, game_id, "B")
    kinds = (MailKind.GAME_STARTED, MailKind.YOUR_TURN, MailKind.REMINDER, MailKind.GAME_OVER)
    rows = [r for kind in kinds for r in _rows(app, kind) if r.game_id == game_id]
    assert {r.kind for r in rows} == {k.value for k in kinds}, first
    for row in rows:
        assert f"\n\nTournament: Autumn <cup>, round 1\n{TEST_BASE_URL}{url}\n" in row.text_body
        assert "Tournament: Autumn &lt;cup&gt;, round 1</a>" in (row.html_body or "")
        assert f'href="{TEST_BASE_URL}{url}"' in (row.html_body or "")
    with app.app_context(), session_scope() as session:
        seats = read_seats(session, game_id)
        private = f"/p/{tokens.make_private_token(game_id, 'A', seats['A'][0].token_generation)}"
        public = f"/games/{session.get(Game, game_id).public_id}"  # type: ignore[union-attr]
    client = app.test_client()
    for path in (private, public):
        page = client.get(path).get_data(as_text=True)
        assert f'<a href="{url}">Autumn &lt;cup&gt;, round 1</a>' in page, path


def test_a_ladder_game_is_a_challenge_not_a_round() -> None:
    ladder = TournamentNote("x", "Spring ladder", 1, ladder=True)
    assert ladder.words == "Spring ladder, a ladder challenge"
    assert TournamentNote("x", "Autumn cup", 3, ladder=False).words == "Autumn cup, round 3"


def test_the_daily_digest_names_a_tournament_game(app: Flask) -> None:
    ids = [signed_in_player(app, email, name) for email, name in PEOPLE]
    tid = make(app, ids, ids[0], kind=TournamentKind.SWISS, rounds=1, name="Autumn cup")
    start(app, tid)
    [game_id] = open_games(app, tid)
    with app.app_context(), session_scope() as session:
        seats = read_seats(session, game_id)
        game = session.get(Game, game_id)
        assert game is not None and game.to_move is not None
        waiting = next(p.email for letter, (_s, p) in seats.items() if letter != game.to_move)
    set_preferences(app, waiting, automatic_claims=True, digest=True)
    play_one(app, game_id, START)
    play_one(app, game_id, START)  # the draw that ends the turn
    with app.app_context():
        assert len(send_digests(START)) == 1
    (digest,) = _rows(app, MailKind.DIGEST)
    assert digest.recipient == waiting
    assert "\nTournament: Autumn cup, round 1\nhttp" in digest.text_body
    assert "<br>Tournament: Autumn cup, round 1" in (digest.html_body or "")
