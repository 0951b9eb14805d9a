"""Two players who do not know each other meet by automatch and play their whole game by email,
talking as they go, with every real part: PostgreSQL, Redis, a ``celery worker`` process with
its beat, aiosmtpd as the players' inboxes and ``flask --app service inbound smtp`` as the
receiver of their replies, a process of its own.

Each signs in the way a person does (their "my games" link, emailed; then their public name) and
asks for an opponent who keeps one game going. The second request pairs with the first: both get
the game-started email. From then on they only reply to the emails that arrive: each reply holds
a whole turn and a few words ("Good play!", "See you Friday", and Japanese from Bob) on a line
of their own or after the turn's codes. Every word said reaches the other player once, in their
next email (their turn's, or the game-over email), until both game-over emails arrive; then
their standing requests pair them again."""

from __future__ import annotations

import email.message
import html
import smtplib
from collections import Counter
from collections.abc import Callable
from unittest import mock

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import col, select

from service import clock
from service.db import session_scope
from service.games.players import find_or_add_player
from service.inbound_models import InboundMessage
from service.models import Game
from service.outbox import MailKind
from service.players.challenge_models import Challenge, ChallengeStatus
from service.players.models import GameMessage
from tests.worker.conftest import SMTPServer, WorkerProcess
from tests.worker.outbox_rows import link_to, path_of
from tests.worker.reply_servers import ReplyStack, SMTPReceiver, reply_to, what_it_asks
from tests.worker.test_delivery import bodies
from tests.worker.test_game_by_mail import SEED, Inbox
from tests.worker.test_reply_by_smtp import (  # noqa: F401  (the stack with its receiver)
    receiver,
    reply_stack,
    reply_web,
)

ALICE = ("alice@example.org", "Alice")
BOB = ("bob@example.org", "Bob")
SAYS = {
    ALICE[0]: ("Good play!", "See you Friday", "Nice play on flag 2!", "Well played."),
    BOB[0]: ("よろしくお願いします。", "Good play!", "いい手ですね！", "See you Friday"),
}
"""What each says with their replies, in turn: Bob reads his emails in Japanese."""
MAX_REPLIES = 300
QUOTE = "  | "
"""How an email's plain text shows a line of what another player said."""
REQUEST = {"ruleset": "battleline", "claims": "advanced", "days_per_move": "3", "keep_going": "on"}


def sign_in(web: Flask, inbox: Inbox, address: str, name: str, language: str) -> FlaskClient:
    """A browser of the player's, in ``language``, signed in from their emailed "my games"
    link (their emails speak the browser's language from then on), named."""
    browser = web.test_client()
    browser.environ_base["HTTP_ACCEPT_LANGUAGE"] = language
    assert browser.post("/me", data={"email": address}).status_code == 200
    message = inbox.next()
    assert message["To"].addresses[0].addr_spec == address
    text, _ = bodies(message)
    link = path_of(link_to(text, "/me/"))
    assert browser.get(link).status_code == 200
    signed = browser.post(f"{link}/sign-in")
    assert signed.status_code == 303 and signed.location.endswith("/me/name"), signed.location
    assert browser.post("/me/name", data={"name": name}).status_code == 303
    return browser


def said_in(message: email.message.EmailMessage) -> list[str]:
    """The lines of what other players said, as the email's plain text quotes them."""
    text, _ = bodies(message)
    return [line[len(QUOTE) :] for line in text.splitlines() if line.startswith(QUOTE)]


def test_two_players_paired_by_automatch_play_and_talk_only_by_email(
    reply_web: Flask,  # noqa: F811
    reply_stack: ReplyStack,  # noqa: F811
    smtp: SMTPServer,
    receiver: SMTPReceiver,  # noqa: F811
    start_worker: Callable[..., WorkerProcess],
) -> None:
    # The beat looks for standing requests due often enough to be seen within the test.
    reply_stack.settings["CHALLENGE_RENEW_EVERY_S"] = "0.5"
    worker = start_worker(beat=True, stack_=reply_stack)
    inbox = Inbox(smtp, worker)
    with reply_web.app_context(), session_scope() as session:
        # Players of the site from earlier games: each has an address and no public name yet.
        for address, name in (ALICE, BOB):
            find_or_add_player(session, address, f"{name} from an invitation")
    alice = sign_in(reply_web, inbox, *ALICE, "en")
    bob = sign_in(reply_web, inbox, *BOB, "ja")

    waiting = alice.post("/lobby/automatch", data=REQUEST)
    assert waiting.status_code == 303 and waiting.location.endswith("/lobby")
    with mock.patch("service.lobby.lifecycle.secrets.token_hex", lambda _n: SEED):
        paired = bob.post("/lobby/automatch", data=REQUEST)
    assert paired.status_code == 303 and "/p/" in paired.location
    with reply_web.app_context(), session_scope() as session:
        requests = session.exec(select(Challenge).order_by(col(Challenge.id))).all()
        assert [r.status for r in requests] == [ChallengeStatus.TAKEN.value] * 2
        assert requests[0].game_id == requests[1].game_id is not None
        assert all(r.keep_going and r.renew_at is not None for r in requests)

    def send(message: email.message.EmailMessage, raw: bytes) -> None:
        sender = message["To"].addresses[0].addr_spec
        with smtplib.SMTP("127.0.0.1", receiver.port, timeout=30) as client:
            assert client.sendmail(sender, [str(message["Reply-To"])], raw) == {}

    kinds: Counter[str] = Counter()
    unread: dict[str, list[str]] = {ALICE[0]: [], BOB[0]: []}
    """What each player has been told and not yet read, in the order it was said."""
    said: list[str] = []
    over = 0
    while over < 2:
        message = inbox.next(timeout=60)
        reader = message["To"].addresses[0].addr_spec
        other = BOB[0] if reader == ALICE[0] else ALICE[0]
        asked = what_it_asks(reply_web, message)
        kinds[asked.kind] += 1
        if asked.kind == MailKind.YOUR_TURN:
            # Each reads their emails in the language of their browser.
            japanese = "あなたの番" in bodies(message)[0]
            assert japanese == (reader == BOB[0]), bodies(message)[0]
        if asked.kind in (MailKind.YOUR_TURN, MailKind.GAME_OVER):
            # Everything said since the reader's last turn, once, in the order it was said.
            assert said_in(message) == unread[reader], (asked.kind, bodies(message)[0])
            # The HTML part too (where the words may be character references).
            shown = html.unescape(bodies(message)[1])
            assert [words for words in unread[reader] if words not in shown] == [], shown
            unread[reader] = []
        else:
            assert said_in(message) == [], (asked.kind, bodies(message)[0])
        if asked.kind == MailKind.GAME_OVER:
            over += 1
        if asked.text is None:
            continue
        kinds["replies"] += 1
        assert kinds["replies"] <= MAX_REPLIES, "the game does not end"
        count = kinds["replies"]
        words = SAYS[reader][count % len(SAYS[reader])]
        # The words on a line before the turn, on a line after it, or after its codes on their
        # line (then the sentence's closing mark is cut with the codes: "Good play").
        if count % 3 == 2:
            text, kept = f"{asked.text} {words}", words.rstrip("!.。！")
        elif count % 3 == 1:
            text, kept = f"{asked.text}\n{words}", words
        else:
            text, kept = f"{words}\n{asked.text}", words
        send(message, reply_to(message, text))
        said.append(kept)
        unread[other].append(kept)

    assert unread == {ALICE[0]: [], BOB[0]: []}
    assert kinds[MailKind.GAME_STARTED] == 2
    assert kinds.get(MailKind.REPLY_REFUSED, 0) == 0
    assert kinds[MailKind.REPLY_RECEIPT] == kinds["replies"]
    with reply_web.app_context(), session_scope() as session:
        (game,) = session.exec(select(Game)).all()
        assert game.status == "finished" and game.result is not None
        received = session.exec(select(InboundMessage)).all()
        kept = session.exec(select(GameMessage).order_by(col(GameMessage.ply))).all()
    # Every reply was played once, and its words kept once with its move.
    assert [r.outcome for r in received] == ["applied"] * kinds["replies"]
    assert [m.body for m in kept] == said
    ids = smtp.mailbox.message_ids()
    assert len(ids) == len(set(ids))

    # Both keep one game going: once the game is over and the hour to look again has passed,
    # the beat posts both requests afresh and they pair again.
    with reply_web.app_context(), session_scope() as session:
        for request in session.exec(select(Challenge)).all():
            request.renew_at = clock.now()
            session.add(request)
    again = [inbox.next(timeout=60), inbox.next(timeout=60)]
    assert sorted(m["To"].addresses[0].addr_spec for m in again) == [ALICE[0], BOB[0]]
    assert {what_it_asks(reply_web, m).kind for m in again} == {MailKind.GAME_STARTED}
    with reply_web.app_context(), session_scope() as session:
        games = session.exec(select(Game).order_by(col(Game.id))).all()
        assert [g.status for g in games] == ["finished", "active"]
        fresh = session.exec(select(Challenge).where(col(Challenge.game_id) == games[1].id)).all()
        assert len(fresh) == 2 and all(r.keep_going for r in fresh)
    print(f"\n{kinds['replies']} replies, {len(ids)} emails: {dict(kinds)}")
