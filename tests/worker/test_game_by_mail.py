"""A whole game played only by email, with every real part: PostgreSQL, Redis, a ``celery
worker`` process (with its beat), aiosmtpd as the SMTP server, and the service (the Flask test
client for the HTTP side). Both players act only on links parsed out of the emails that arrive
at the SMTP server: the confirmation, the invitation's accept, then in each "your turn" email
the first move link, whose confirm page's form is sent with the draw it offers first. The
advanced rule with automatic claims (the default) makes every claim, until the game-over
emails arrive."""

from __future__ import annotations

import email.message
import time
from collections import Counter
from collections.abc import Callable
from unittest import mock

from flask import Flask
from sqlmodel import select

import engine
from service.db import session_scope
from service.games.move_log import move_log
from service.models import Game
from service.outbox import MailKind
from service.outbox.models import OutboxMessage
from tests.service.conftest import VALID_FORM
from tests.worker.conftest import SMTPServer, WorkerProcess, wait_for
from tests.worker.outbox_rows import link_to, path_of
from tests.worker.test_delivery import bodies
from tests.worker.turn_games import confirm_and_draw, move_links

SEED = "seed0"
"""A deal whose game, played by the first link of every email, takes a few dozen turns."""
MAX_TURNS = 200


class Inbox:
    """Reads the SMTP server's messages in the order they arrived, one at a time."""

    def __init__(self, smtp: SMTPServer, worker: WorkerProcess | None = None) -> None:
        self.smtp = smtp
        self.worker = worker
        """Whose log a timeout shows: what the sweeps and deliveries did meanwhile."""
        self.read = 0

    def next(self, timeout: float = 60) -> email.message.EmailMessage:
        def arrived() -> email.message.EmailMessage | None:
            messages = self.smtp.mailbox.messages()
            return messages[self.read] if len(messages) > self.read else None

        def worker_log() -> str:
            worker = self.worker
            return f"the worker's log ends:\n{worker.log_text()[-6000:]}" if worker else ""

        message: email.message.EmailMessage = wait_for(
            arrived, timeout, "the next email", detail=worker_log
        )
        self.read += 1
        return message


def kind_of(web: Flask, message: email.message.EmailMessage) -> str:
    """The kind of an arrived email (from its outbox row, by Message-ID)."""
    with web.app_context(), session_scope() as session:
        row = session.exec(
            select(OutboxMessage).where(OutboxMessage.message_id == message["Message-ID"])
        ).one()
        return row.kind


def test_a_whole_game_played_by_email(
    web: Flask, smtp: SMTPServer, start_worker: Callable[..., WorkerProcess]
) -> None:
    worker = start_worker(beat=True)
    client = web.test_client()
    inbox = Inbox(smtp, worker)
    started = time.monotonic()
    with mock.patch("service.lobby.lifecycle.secrets.token_hex", lambda _n: SEED):
        assert client.post("/games/new", data=VALID_FORM).status_code == 303

    confirmation = inbox.next()
    assert confirmation["To"].addresses[0].addr_spec == "alice@example.org"
    text, _ = bodies(confirmation)
    assert client.post(path_of(link_to(text, "/p/")) + "/invite").status_code == 303
    invitation = inbox.next()
    assert invitation["To"].addresses[0].addr_spec == "bob@example.org"
    text, _ = bodies(invitation)
    assert client.post(path_of(link_to(text, "/accept"))).status_code == 303

    kinds: Counter[str] = Counter()
    over: list[email.message.EmailMessage] = []
    turns = 0
    while len(over) < 2:
        message = inbox.next()
        kind = kind_of(web, message)
        kinds[kind] += 1
        text, html = bodies(message)
        if kind == MailKind.GAME_OVER:
            over.append(message)
        elif kind == MailKind.YOUR_TURN:
            turns += 1
            assert turns <= MAX_TURNS, "the game does not end"
            # The move links are in the HTML part; the text part lists the codes to reply with.
            urls = move_links(html)
            assert urls, html
            assert confirm_and_draw(client, urls[0]) == 303
    elapsed = time.monotonic() - started

    assert kinds[MailKind.GAME_STARTED] == 2
    assert sorted(m["To"].addresses[0].addr_spec for m in over) == [
        "alice@example.org",
        "bob@example.org",
    ]
    with web.app_context(), session_scope() as session:
        game = session.exec(select(Game)).one()
        assert game.id is not None
        entries = move_log(session, game.id)
        assert game.status == "finished" and game.result is not None
        result = game.result
    ruleset = engine.get_ruleset("battleline")
    claims = [
        e for e in entries if engine.parse_move(e.notation, ruleset).action is engine.Action.CLAIM
    ]
    # Nobody pressed a claim link: every claim was made at the start of a turn by the server.
    assert claims, "automatic claims won the flags"
    assert result["termination"] in ("breakthrough", "envelopment")
    text, _ = bodies(over[0])
    assert game.seed in text
    # Every email arrived once; each turn had one "your turn" email.
    ids = [m["Message-ID"] for m in smtp.mailbox.messages()]
    assert len(ids) == len(set(ids))
    assert kinds[MailKind.YOUR_TURN] == turns
    print(f"\n{turns} turns, {len(entries)} moves, {len(ids)} emails in {elapsed:.1f}s")
