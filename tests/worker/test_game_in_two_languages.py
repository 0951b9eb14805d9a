"""A whole game between an English and a Japanese player from the emails alone (issue 23), with
every real part: PostgreSQL, Redis, a ``celery worker`` process with its beat, aiosmtpd as the
players' inboxes and ``flask --app service inbound smtp`` receiving their replies.

Kenji (健二) has played here before and signed in on a Japanese page: his emails are Japanese
from then on (``service.i18n.adopt_language``). Alice, new, starts a game against him from
an English page. Then each acts only on the emails that arrive:

- Alice presses the move links of her "your turn" emails, and once replies in the notation;
- Kenji replies as a Japanese mail program writes (its attribution line above the quote): in
  the notation (``R7 -> 3 troops``), twice in Japanese words
  (「赤7をフラッグ3に、部隊カードを引く」, then in full-width digits), once with a move he may not
  make (its refusal must reach him in Japanese too), and once follows a move link in his
  Japanese browser.

Every email each receives is read whole (subject, text part, HTML part): nothing Japanese in
Alice's, no English word in Kenji's, outside what tests/language_check.py lets stay as written
(names, card codes, the notation, addresses, the service's name).
"""

from __future__ import annotations

import email.message
import smtplib
from collections.abc import Callable
from dataclasses import dataclass, field
from pprint import pformat
from unittest import mock

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

import engine
from engine.cards import is_troop, troop_parts
from service.db import session_scope
from service.games.loaded import load_game
from service.games.state import load_state
from service.inbound_models import InboundMessage
from service.models import Game, GameStatus, Player
from service.outbox import MailKind
from service.outbox.models import OutboxMessage
from tests.language_check import (
    declared_language,
    english_words,
    japanese_in,
    lines_with,
    visible_text,
)
from tests.service.conftest import TEST_BASE_URL, VALID_FORM, sign_in_as
from tests.worker.conftest import SMTPServer, WorkerProcess
from tests.worker.outbox_rows import link_to, path_of
from tests.worker.reply_servers import ReplyStack, SMTPReceiver, reply_to, turn_text
from tests.worker.test_delivery import bodies
from tests.worker.test_game_by_mail import SEED, Inbox
from tests.worker.test_reply_by_smtp import (  # noqa: F401  (the fixtures)
    receiver,
    reply_stack,
    reply_web,
)
from tests.worker.turn_games import confirm_and_draw, move_links

ALICE, ALICE_NAME = "alice@example.org", "Alice"
KENJI, KENJI_NAME = "kenji@example.org", "健二"
NAMES = (ALICE_NAME, KENJI_NAME)
LANGUAGE_OF = {ALICE: "en", KENJI: "ja"}
ENGLISH_BROWSER = {"HTTP_ACCEPT_LANGUAGE": "en-GB,en;q=0.8"}
JAPANESE_BROWSER = {"HTTP_ACCEPT_LANGUAGE": "ja-JP,ja;q=0.9,en;q=0.3"}
JAPANESE_ATTRIBUTION = "2026年1月5日(月) 10:00 Battle Line by mail <battleline@bl.test>:"
"""The line Gmail in Japanese writes above the email it quotes."""
MAX_EMAILS = 600

ASKING_KINDS = frozenset({MailKind.YOUR_TURN, MailKind.REPLY_RECEIPT, MailKind.REPLY_REFUSED})
"""The emails a player answers with a move when the position is still theirs to play: the
turn's email, a receipt that says the turn goes on, and a refusal (the turn still waits)."""

COLOURS_IN_JAPANESE = {"R": "赤", "O": "橙", "Y": "黄", "G": "緑", "B": "青", "P": "紫"}
"""The colours of docs/glossary-ja.md."""
DECKS_IN_JAPANESE = {engine.Deck.TROOPS: "部隊カード", engine.Deck.TACTICS: "戦術カード"}


FULL_WIDTH_DIGITS = str.maketrans("0123456789", "０１２３４５６７８９")


def turn_in_japanese_words(state: engine.GameState, *, full_width: bool = False) -> str | None:
    """A whole turn of the player to move as a Japanese player writes it in plain words, as
    issue 23 asks the replies to be read: 「赤7をフラッグ3に、部隊カードを引く」 (the first troop
    to the first flag it may go to, then the first draw), its digits full-width if asked (as a
    Japanese input method types them). None when the turn is no such play."""
    play = next(
        (
            m
            for m in engine.legal_moves(state)
            if m.action is engine.Action.PLAY and m.card is not None and is_troop(m.card)
        ),
        None,
    )
    if play is None or play.flag is None:
        return None
    draws = [m for m in engine.turn_endings(state, play) if m.action is engine.Action.DRAW]
    colour, value = troop_parts(play.card)  # type: ignore[arg-type]
    if colour not in COLOURS_IN_JAPANESE or not draws or draws[0].deck is None:
        return None
    words = f"{COLOURS_IN_JAPANESE[colour]}{value}をフラッグ{play.flag}に"
    words = f"{words}、{DECKS_IN_JAPANESE[draws[0].deck]}を引く"
    return words.translate(FULL_WIDTH_DIGITS) if full_width else words


def turn_in_notation(state: engine.GameState) -> str:
    """A whole turn in the notation as the issue writes it: ``R7 -> 3 troops``."""
    text = turn_text(state)
    card, arrow, rest = text.partition(">")
    if arrow and " " not in card and rest[:1].isdigit():
        return f"{card} -> {rest}"
    return text


def a_move_not_allowed(state: engine.GameState) -> str:
    """A troop that is not in the hand of the player to move, to a flag: a reply to refuse."""
    hand = set(state.hands[state.mover])
    card = next(
        f"{c}{v}" for c in COLOURS_IN_JAPANESE for v in range(1, 11) if f"{c}{v}" not in hand
    )
    return f"{card} -> 1"


@dataclass(frozen=True)
class Read:
    """Something a player read: an email (its subject and both parts), or a page."""

    reader: str
    what: str
    """The email's kind, or ``page: ...``."""
    language: str | None
    """The ``lang`` of its HTML."""
    text: str
    """All of its words: the subject, the text part and the HTML as its reader meets it."""


@dataclass
class Played:
    """What happened: every email and page each player read, and the replies of note."""

    read: list[Read] = field(default_factory=list)
    turns: dict[str, int] = field(default_factory=lambda: {ALICE: 0, KENJI: 0})
    japanese_replies: list[str] = field(default_factory=list)
    """The Message-IDs of Kenji's replies in Japanese words."""
    refused_reply: str | None = None
    """The Message-ID of Kenji's reply with a move he may not make."""


def outbox_row(web: Flask, message: email.message.EmailMessage) -> OutboxMessage:
    with web.app_context(), session_scope() as session:
        return session.exec(
            select(OutboxMessage).where(OutboxMessage.message_id == str(message["Message-ID"]))
        ).one()


def position_asked(web: Flask, row: OutboxMessage) -> engine.GameState | None:
    """The position ``row``'s email asks its recipient to play: its game still at the email's
    position, that position the recipient's turn, and the email one that asks."""
    if row.kind not in ASKING_KINDS or row.game_id is None or row.ply is None:
        return None
    with web.app_context(), session_scope() as session:
        loaded = load_game(session, row.game_id)
        game = loaded.game
        if game.status != GameStatus.ACTIVE or game.ply != row.ply:
            return None
        state = load_state(session, loaded)
        _, player = loaded.seats[state.to_move]
        return state if player.email == row.recipient else None


def read_email(message: email.message.EmailMessage, kind: str) -> Read:
    reader = message["To"].addresses[0].addr_spec
    text, html = bodies(message)
    # "Re:" is what mail programs write before a subject answered, in Japanese ones too.
    subject = str(message["Subject"]).removeprefix("Re: ")
    seen = visible_text(html, LANGUAGE_OF[reader])
    return Read(reader, kind, declared_language(html), f"{subject}\n{text}\n{seen}")


def read_page(reader: str, what: str, html: str) -> Read:
    seen = visible_text(html, LANGUAGE_OF[reader])
    return Read(reader, f"page: {what}", declared_language(html), seen)


def language_of(web: Flask, email_address: str) -> str | None:
    with web.app_context(), session_scope() as session:
        return session.exec(select(Player).where(Player.email == email_address)).one().language


def test_a_game_between_an_english_and_a_japanese_player_each_in_their_own_language(
    reply_web: Flask,  # noqa: F811
    reply_stack: ReplyStack,  # noqa: F811
    smtp: SMTPServer,
    receiver: SMTPReceiver,  # noqa: F811
    start_worker: Callable[..., WorkerProcess],
) -> None:
    web = reply_web
    worker = start_worker(beat=True, stack_=reply_stack)
    inbox = Inbox(smtp, worker)
    alice, kenji = web.test_client(), web.test_client()
    alice.environ_base.update(ENGLISH_BROWSER)
    kenji.environ_base.update(JAPANESE_BROWSER)
    game = Played()

    # Kenji, known here from an earlier game, signs in on a Japanese page: his language.
    sign_in_as(web, kenji, KENJI, KENJI_NAME)
    assert language_of(web, KENJI) == "ja"

    # Alice starts the game from an English page, not signed in: her address is confirmed by
    # the link of her first email, which sends the invitation.
    form = {**VALID_FORM, "b_name": KENJI_NAME, "b_email": KENJI}
    with mock.patch("service.lobby.lifecycle.secrets.token_hex", lambda _n: SEED):
        assert alice.post("/games/new", data=form).status_code == 303
    confirmation = inbox.next()
    game.read.append(read_email(confirmation, MailKind.CONFIRM_ADDRESS))
    text, _ = bodies(confirmation)
    assert alice.post(path_of(link_to(text, "/p/")) + "/invite").status_code == 303
    invitation = inbox.next()
    assert invitation["To"].addresses[0].addr_spec == KENJI
    game.read.append(read_email(invitation, MailKind.INVITATION))
    text, _ = bodies(invitation)
    # The footer's "how to play" link opens the guide in the email's language, in any browser.
    guide = web.test_client().get(link_to(text, "/how-to-play").removeprefix(TEST_BASE_URL))
    game.read.append(read_page(KENJI, "how to play", guide.get_data(as_text=True)))
    accept = path_of(link_to(text, "/accept"))
    game.read.append(read_page(KENJI, "accept", kenji.get(accept).get_data(as_text=True)))
    assert kenji.post(accept).status_code == 303

    def send(message: email.message.EmailMessage, words: str, attribution: str) -> str:
        raw = reply_to(message, words, attribution=attribution)
        with smtplib.SMTP("127.0.0.1", receiver.port, timeout=30) as client:
            refused = client.sendmail(
                message["To"].addresses[0].addr_spec, [str(message["Reply-To"])], raw
            )
        assert refused == {}
        parsed = email.message_from_bytes(raw)
        return str(parsed["Message-ID"])

    over = 0
    while over < 2:
        message = inbox.next()
        row = outbox_row(web, message)
        game.read.append(read_email(message, row.kind))
        assert len(game.read) <= MAX_EMAILS, "the game does not end"
        over += row.kind == MailKind.GAME_OVER
        state = position_asked(web, row)
        if state is None:
            continue
        if row.recipient == ALICE:
            alice_plays(game, alice, message, row.kind, state, send)
        else:
            kenji_plays(game, kenji, message, row.kind, state, send)

    with web.app_context(), session_scope() as session:
        finished = session.exec(select(Game)).one()
        assert finished.status == GameStatus.FINISHED and finished.result is not None
        replies = {r.message_id: r.outcome for r in session.exec(select(InboundMessage)).all()}
    ids = smtp.mailbox.message_ids()
    assert len(ids) == len(set(ids)), "an email arrived twice"
    kinds = {reader: {r.what for r in game.read if r.reader == reader} for reader in (ALICE, KENJI)}
    assert {MailKind.YOUR_TURN, MailKind.REPLY_RECEIPT, MailKind.GAME_OVER} <= kinds[ALICE]
    assert {MailKind.INVITATION, MailKind.YOUR_TURN, MailKind.REPLY_RECEIPT} <= kinds[KENJI]
    assert {MailKind.REPLY_REFUSED, MailKind.GAME_OVER, "page: move link"} <= kinds[KENJI]
    assert game.refused_reply is not None and replies[game.refused_reply] == "refused"

    # The English side: every email of Alice's is English, with nothing Japanese in it but
    # Kenji's name.
    english_side = {
        f"{r.what} #{n}": {"lang": r.language, "japanese": japanese_in(r.text, NAMES)}
        for n, r in enumerate(game.read)
        if r.reader == ALICE and (r.language != "en" or japanese_in(r.text, NAMES))
    }
    assert not english_side, pformat(english_side, width=100)

    # The Japanese side: every email and page Kenji read is in Japanese, with no English word
    # left, and his reply in Japanese words was played.
    japanese_side: dict[str, object] = {}
    for r in game.read:
        if r.reader != KENJI:
            continue
        words = english_words(r.text, NAMES)
        if r.language != "ja" or words or not japanese_in(r.text, NAMES):
            japanese_side.setdefault(
                str(r.what),
                {"lang": r.language, "english": words[:20], "lines": lines_with(r.text, words)},
            )
    assert len(game.japanese_replies) == 2, "Kenji had no troop to play in words"
    for number, reply in enumerate(game.japanese_replies, start=1):
        if replies[reply] != "applied":
            japanese_side[f"reply {number} in Japanese words"] = f"not played: {replies[reply]}"
    assert not japanese_side, "Kenji read English:\n" + pformat(japanese_side, width=100)


def alice_plays(
    game: Played,
    alice: FlaskClient,
    message: email.message.EmailMessage,
    kind: str,
    state: engine.GameState,
    send: Callable[[email.message.EmailMessage, str, str], str],
) -> None:
    """Alice presses the first move link of her turn's email; on her second turn, and when a
    receipt or a refusal asks for the rest of a turn, she replies in the notation."""
    if kind == MailKind.YOUR_TURN:
        game.turns[ALICE] += 1
    if kind != MailKind.YOUR_TURN or game.turns[ALICE] == 2:
        send(message, turn_in_notation(state), "On a day in January, Battle Line by mail wrote:")
        return
    _, html = bodies(message)
    urls = move_links(html)
    assert urls, html
    assert confirm_and_draw(alice, urls[0]) == 303


def kenji_plays(
    game: Played,
    kenji: FlaskClient,
    message: email.message.EmailMessage,
    kind: str,
    state: engine.GameState,
    send: Callable[[email.message.EmailMessage, str, str], str],
) -> None:
    """Kenji replies in the notation; his first turn in Japanese words (or the first turn with
    a troop to play), then a move he may not make, then a turn by the email's move link, then
    Japanese words again, in full-width digits."""
    if kind != MailKind.YOUR_TURN:
        send(message, turn_in_notation(state), JAPANESE_ATTRIBUTION)
        return
    game.turns[KENJI] += 1
    followed_a_link = any(r.what == "page: move link" for r in game.read)
    if not game.japanese_replies or (followed_a_link and len(game.japanese_replies) == 1):
        words = turn_in_japanese_words(state, full_width=followed_a_link)
        if words is not None:
            game.japanese_replies.append(send(message, words, JAPANESE_ATTRIBUTION))
            return
    if game.refused_reply is None and game.turns[KENJI] >= 2:
        game.refused_reply = send(message, a_move_not_allowed(state), JAPANESE_ATTRIBUTION)
        return
    if not followed_a_link and game.turns[KENJI] >= 3:
        _, html = bodies(message)
        urls = move_links(html)
        assert urls, html
        page = kenji.get(path_of(urls[0]))
        assert page.status_code == 200
        game.read.append(read_page(KENJI, "move link", page.get_data(as_text=True)))
        assert confirm_and_draw(kenji, urls[0]) == 303
        return
    send(message, turn_in_notation(state), JAPANESE_ATTRIBUTION)
