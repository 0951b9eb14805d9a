"""Every kind of email in its recipient's language (issue 23): in a game between an English and
a Japanese player, each email to the Japanese player (subject, text part, HTML part) has no
English word left outside names, card codes, the move notation, addresses and acronyms, and
each email to the English player has no Japanese."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from datetime import timedelta
from html.parser import HTMLParser
from pprint import pformat
from types import SimpleNamespace

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import col, func, select

import engine
from service import clock
from service.db import session_scope
from service.games.loaded import load_game
from service.games.state import apply_moves, load_state
from service.i18n import recipient_language
from service.lobby.rematch_confirm import ask_owner
from service.outbox import MailKind
from service.outbox.models import OutboxMessage
from service.outbox.queue import render_email
from service.present import deadline_emails, emails, game_emails, game_over_email
from service.present.game_lists import player_games
from service.present.reply_answers import queue_other_sender
from service.turns.digest import queue_digest
from tests.service.play_driver import create_and_accept

NAMES = {"Alice", "Bob"}
"""The players' names (create_and_accept): never translated."""
ACRONYMS = {"SHA", "JSON", "UTC"}
"""Written so in Japanese too: the seed's hash, the record's format, the time zone."""
TACTICS_CODES = "|".join(tactic.value for tactic in engine.Tactic)
NOTATION = re.compile(
    # Cards (R7, ALEXANDER), placed (R7>3, R7@3>5), and the notation's own words
    # (docs/notation.md): draw troops, claim 3, return ..., pass, end, resign.
    rf"\b(?:[ROYGBPSHDC]\d{{1,2}}|{TACTICS_CODES})(?:[@>]\w+)*\b"
    r"|\b(?:draw )?(?:troops|tactics)\b|\bclaim \d\b|\breturn\b|\bpass\b|\bend\b|\bresign\b"
    r"|\bdiscard\b(?= [A-Z0-9]+@)"
)
ADDRESSES = re.compile(r"https?://\S+|[\w.+-]+@[\w.-]+|\b[0-9a-f]{16,}\b")
"""Links, email addresses, the seed and its commitment (hex)."""
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uff00-\uffef]")


class _Readable(HTMLParser):
    """What a reader of an HTML part reads: the text, and the words given to screen readers
    (``aria-label``, ``title``, ``alt``); never styles or links' addresses."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.parts += [v or "" for k, v in attrs if k in ("aria-label", "title", "alt")]

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def readable(row: OutboxMessage) -> str:
    """The subject, the text part and what the HTML part shows, as one text."""
    parser = _Readable()
    parser.feed(html.unescape(row.html_body or ""))
    return "\n".join([row.subject, row.text_body or "", *parser.parts])


def english_words(text: str) -> set[str]:
    """The words of two or more ASCII letters in ``text`` outside addresses, the notation,
    names and acronyms."""
    text = NOTATION.sub(" ", ADDRESSES.sub(" ", text))
    return {w for w in re.findall(r"[A-Za-z]{2,}", text) if w not in NAMES | ACRONYMS}


@dataclass(frozen=True)
class Sent:
    """An email queued, as its recipient reads it."""

    language: str
    kind: str
    recipient: str
    text: str
    html_lang: str
    """The ``lang`` of the HTML part: screen readers speak it in that language."""


def emails_of_a_game(app: Flask, client: FlaskClient, languages: dict[str, str]) -> list[Sent]:
    """Every kind of email of one game between Alice (seat A) and Bob (seat B) of
    ``languages``, queued while serving a page in Alice's other language."""
    game_id = create_and_accept(app, client, seed="5eed" * 8)["id"]
    with app.app_context(), session_scope() as session:
        # One whole turn of the first player: the "your turn" email then tells it.
        state = load_state(session, load_game(session, game_id))
        first = state.to_move
        while state.to_move == first:
            move = [m for m in engine.legal_moves(state) if m.card is not None][:1] or [
                engine.legal_moves(state)[0]
            ]
            state, _ = apply_moves(session, game_id, first, state.ply, move)
    page = {"Accept-Language": "en" if languages["A"] == "ja" else "ja"}
    with app.test_request_context("/", headers=page), session_scope() as session:
        before = session.exec(select(func.max(OutboxMessage.id))).one() or 0
        loaded = load_game(session, game_id)
        game = loaded.game
        seats = loaded.seats
        for letter, (_seat, player) in seats.items():
            player.language = languages[letter]
        state = load_state(session, loaded)
        to_move = state.to_move
        waiting = next(s for s in seats if s != to_move)
        game.deadline = clock.now() + timedelta(days=2)
        emails.queue_confirmation(session, loaded)
        emails.queue_invitations(session, loaded, rematch_of=1)
        emails.queue_game_started(session, loaded)
        emails.queue_game_cancelled(session, loaded, declined_by=waiting)
        emails.queue_series_left(session, loaded, "https://x.example/s", left_by=waiting)
        for seat, player in seats.values():
            emails.queue_my_games_email(session, player, "https://x.example/g")
            queue_digest(session, player, player_games(session, player))
            queue_other_sender(session, loaded, seat.letter, "eve@example.org")
            ask_owner(session, loaded, seat, player)
        game_emails.queue_your_turn(session, loaded, state)
        deadline_emails.queue_reminder(session, loaded, to_move, clock.now())
        deadline_emails.queue_running_late(session, loaded, to_move)
        for days_used in (2, 1):
            deadline_emails.queue_vacation_notices(session, loaded, to_move, days_used=days_used)
        player_id = seats[to_move][1].id
        assert player_id is not None
        deadline_emails.queue_seat_unreachable(session, player_id, "bouncing")
        # The game ends by a loss on time (its own sentence), told again as a resignation.
        timeout = engine.parse_move(f"{to_move}: timeout", state.ruleset)
        over, _ = apply_moves(session, game_id, to_move, state.ply, [timeout], by_server=True)
        game_over_email.queue_game_over(session, loaded, over)
        resign = engine.parse_move(f"{to_move}: resign", state.ruleset)
        resigned, _ = engine.apply(state, resign)
        game_over_email.queue_game_over(session, loaded, resigned)
        by_address = {player.email: languages[letter] for letter, (_s, player) in seats.items()}
        queued = session.exec(select(OutboxMessage).where(col(OutboxMessage.id) > before)).all()
        return [
            Sent(
                by_address[row.recipient],
                row.kind,
                row.recipient,
                readable(row),
                re.findall(r'<html lang="(\w+)">', row.html_body or "")[0],
            )
            for row in queued
        ]


@pytest.mark.parametrize("languages", [("ja", "en"), ("en", "ja")], ids=["alice-ja", "bob-ja"])
def test_every_email_is_in_its_recipients_language_alone(
    app: Flask, client: FlaskClient, languages: tuple[str, str]
) -> None:
    sent = emails_of_a_game(app, client, dict(zip(("A", "B"), languages, strict=True)))
    # The reply answers but "another sender" carry the reply reader's words
    # (test_reply_answers.py): their templates are rendered by the next test.
    told_apart = {MailKind.REPLY_RECEIPT, MailKind.REPLY_REFUSED, MailKind.REPLY_CONFIRM}
    # A tournament's: test_tournament_emails.py.
    told_apart |= {MailKind.TOURNAMENT_ENTERED, MailKind.TOURNAMENT_ROUND, MailKind.TOURNAMENT_OVER}
    assert {s.kind for s in sent} == {kind.value for kind in MailKind} - told_apart
    assert all(s.html_lang == s.language for s in sent)
    english_left = {
        f"{s.kind} to {s.recipient}": left
        for s in sent
        if s.language == "ja" and (left := sorted(english_words(s.text)))
    }
    assert english_left == {}, pformat(english_left)
    # Japanese sets no space after a sentence (service.i18n.sentence_gap).
    spaced = {
        f"{s.kind} to {s.recipient}": found
        for s in sent
        if s.language == "ja" and (found := re.findall(r".{0,20}。 +\S.{0,20}", s.text))
    }
    assert spaced == {}, pformat(spaced)
    japanese_in_english = {
        f"{s.kind} to {s.recipient}": "".join(JAPANESE.findall(s.text))
        for s in sent
        if s.language == "en" and JAPANESE.search(s.text)
    }
    assert japanese_in_english == {}, pformat(japanese_in_english)


def test_the_checker_finds_english() -> None:
    assert english_words("あなたの手番です: R7>3 draw troops, claim 3 Alice SHA") == set()
    assert english_words("Flag 3 は https://x.example/a?b=c alice@example.org") == {"Flag"}


def _reply_answer_values(your_turn: bool) -> dict[str, object]:
    """What a reply answer's templates receive, with the reply reader's words (made and
    translated by its own modules) replaced by notation alone."""
    codes = (SimpleNamespace(title="R7>3", lines=("    R7>3",), codes=("R7>3",)),)
    move = SimpleNamespace(code="R7>3", text="R7>3")
    return {
        "game_number": 7,
        "ruleset_title": "x",
        "private_url": "https://x.example/p",
        "confirm_url": "https://x.example/c",
        "own_address": "bob@example.org",
        "sender": "eve@example.org",
        "reason": "R7>3",
        "turn": 4,
        "moves": [{"code": "R7>3", "text": "R7>3"}],
        "played": (SimpleNamespace(code="R7>3", text="R7>3", drawn="G2", drawn_text="G2"),),
        "notes": ("claim 3",),
        "hand": ("G2",),
        "hand_lines": ("G2",),
        "written": "R7>3",
        "parts": (SimpleNamespace(words="R7>3", move=move, problem=""),),
        "ignored": ("Alice",),
        "game_over": False,
        "your_turn": your_turn,
        "to_move_name": "Alice",
        "codes": codes,
        "subject": "x",
        "recipient_name": "Bob",
        "unsubscribe_url": "https://x.example/u",
        "mute_url": "https://x.example/m",
    }


@pytest.mark.parametrize("your_turn", [True, False])
@pytest.mark.parametrize(
    "kind", [MailKind.REPLY_RECEIPT, MailKind.REPLY_REFUSED, MailKind.REPLY_CONFIRM]
)
def test_the_reply_answers_templates_are_translated(
    app: Flask, kind: MailKind, your_turn: bool
) -> None:
    with app.test_request_context("/"), recipient_language("ja"):
        text, html_part = render_email(kind, _reply_answer_values(your_turn))
    parser = _Readable()
    parser.feed(html.unescape(html_part))
    assert english_words(text + "\n".join(parser.parts)) == set()
