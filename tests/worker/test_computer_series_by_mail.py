"""A series of three games against the computer, played only from the emails, with every real
part: PostgreSQL, Redis, a ``celery worker`` process with its beat, aiosmtpd as the SMTP server.
Alice creates the series; her confirmation's link deals the first game (the computer needs no
invitation); she plays the first move link of each "your turn" email, and the computer's turns
are played by the worker (``start_turn``), like the start of any turn. Each game-over email
brings the series' score and the next game, which the winner of the last one begins (R2), until
the third game ends the series with the points of R23."""

from __future__ import annotations

import email.message
import itertools
from collections import Counter
from collections.abc import Callable

from flask import Flask
from sqlmodel import select

from service.db import session_scope
from service.games.computer import computer_email
from service.games.move_log import move_log
from service.games.series import series_score
from service.models import Game, Series, SeriesStatus
from service.outbox import MailKind
from service.outbox.models import OutboxMessage
from tests.service.conftest import VALID_FORM
from tests.worker.conftest import SMTPServer, WorkerProcess
from tests.worker.outbox_rows import link_to, path_of
from tests.worker.test_delivery import bodies
from tests.worker.test_game_by_mail import Inbox, kind_of
from tests.worker.turn_games import confirm_and_draw, move_links

MAX_TURNS = 300
"""Alice's turns over the three games, at most."""


def test_a_series_of_three_games_against_the_computer_by_email(
    web: Flask, smtp: SMTPServer, start_worker: Callable[..., WorkerProcess]
) -> None:
    worker = start_worker(beat=True)
    client = web.test_client()
    inbox = Inbox(smtp, worker)
    form = {
        **VALID_FORM,
        "b_name": "",
        "b_email": "",
        "b_computer": "normal",
        "series": "games",
        "series_games": "3",
    }
    assert client.post("/games/new", data=form).status_code == 303
    confirmation = inbox.next()
    assert confirmation["To"].addresses[0].addr_spec == "alice@example.org"
    text, _ = bodies(confirmation)
    # Her button deals the game: there is no one to invite.
    assert client.post(path_of(link_to(text, "/p/")) + "/invite").status_code == 303

    kinds: Counter[str] = Counter()
    over: list[email.message.EmailMessage] = []
    turns = 0
    while len(over) < 3:
        message = inbox.next(timeout=60)
        # Everything goes to Alice: the computer reads no email.
        assert message["To"].addresses[0].addr_spec == "alice@example.org"
        kind = kind_of(web, message)
        kinds[kind] += 1
        text, html = bodies(message)
        if kind == MailKind.GAME_OVER:
            over.append(message)
        elif kind == MailKind.YOUR_TURN:
            turns += 1
            assert turns <= MAX_TURNS, "the series does not end"
            # A link per move in the HTML part (the text part lists codes to reply with).
            urls = move_links(html) or move_links(text)
            assert urls, html
            assert confirm_and_draw(client, urls[0]) == 303

    with web.app_context(), session_scope() as session:
        games = list(session.exec(select(Game).order_by(Game.id)).all())
        assert len(games) == 3 and all(g.status == "finished" for g in games)
        series = session.get(Series, games[0].series_id)
        assert series is not None and series.status == SeriesStatus.FINISHED
        score = series_score(session, series)
        assert all(g.id is not None for g in games)
        logs = [move_log(session, g.id) for g in games if g.id is not None]
        to_computer = session.exec(
            select(OutboxMessage).where(OutboxMessage.recipient == computer_email("normal"))
        ).all()
    assert to_computer == []
    # Both seats played in every game; the computer's moves were made by the worker.
    for log in logs:
        assert {entry.seat for entry in log} == {"A", "B"}
    # R23: the score is the sum of the games' points; R2: each game's winner began the next.
    totals = {"A": 0, "B": 0}
    for game in games:
        assert game.result is not None
        for seat, points in game.result["series_points"].items():
            totals[seat] += points
    assert score.totals == totals
    for before, after in itertools.pairwise(games):
        assert before.result is not None and after.deal is not None
        if before.result["winner"] is not None:
            assert after.deal["first"] == before.result["winner"]
    # The game-over emails carry the score; the last says the series is over.
    texts = [bodies(m)[0] for m in over]
    assert "after game 1" in texts[0] and "The next game is dealt" in texts[0]
    assert "after game 3" in texts[2] and "The series is over" in texts[2]
    assert kinds[MailKind.GAME_STARTED] == 3  # each game of the series, its cut and seed commitment
    print(f"\n{turns} turns of Alice's, {kinds.total()} emails, score {score.totals}")
