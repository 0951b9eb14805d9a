"""The corpus of replies in tests/fixtures/replies: raw emails as mail programs send them (Gmail,
Apple Mail, Outlook, Thunderbird, Yahoo, Fastmail, Proton Mail, K-9, Samsung, mutt; some in
Japanese), read receipts, auto-replies and bounces, each with what must come of it
(expected.json): the player's own words and the moves they name exactly, or silence. The score
is printed for the notes: ``pytest -s tests/service/test_reply_corpus.py -k score``. Pure: no
app, no database."""

from __future__ import annotations

import email
import email.message
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import engine
from service.inbound import headers
from service.inbound.reply_text import subject_words, words_to_read, written_text
from service.outbox.kinds import MailKind
from service.present.reply_reading import read_words

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "replies"
EXPECTED: dict[str, dict[str, Any]] = json.loads((CORPUS / "expected.json").read_text())
BATTLELINE = engine.get_ruleset("battleline")
OURS = [
    "Battle Line, game 12",
    *(str(kind.rules.subject) for kind in MailKind if kind.rules.subject),
]
"""Our own subject's phrases in game 12 (``service.inbound.seat_reply.our_subjects``)."""
OWN_ADDRESSES = ["battleline@bl.example"]
REPLIES = sorted(name for name, want in EXPECTED.items() if "silent" not in want)
SILENT = sorted(name for name, want in EXPECTED.items() if "silent" in want)


def message(name: str) -> email.message.Message:
    return email.message_from_bytes((CORPUS / name).read_bytes())


def silenced(found: email.message.Message) -> str | None:
    """Why ``receive`` would neither play nor answer this email, as a mailbox hands it over
    (no SMTP envelope): a delivery report, or a program's message."""
    if headers.is_delivery_report(found):
        return "a delivery report"
    return headers.automatic(found, None, OWN_ADDRESSES)


def moves_read(found: email.message.Message, hand: list[str]) -> tuple[list[str], list[str]]:
    """The moves the reply names, in notation, whatever the position, and its chat. A value
    without a colour is the one card of that value in ``hand`` that the words match."""
    parts, chat = read_words(words_to_read(found, BATTLELINE, OURS), BATTLELINE)
    named = []
    for part in parts:
        move = part.move("A")
        if move is None and part.value is not None and part.flag is not None:
            options = [engine.parse_move(f"A: {card}>{part.flag}", BATTLELINE) for card in hand]
            matching = [option for option in options if part.matches(option)]
            move = matching[0] if len(matching) == 1 else None
        named.append(move.action_text() if move is not None else f"?{part.words}")
    return named, chat


def test_the_corpus_has_every_common_mail_program_and_every_automatic_kind() -> None:
    names = sorted(p.name for p in CORPUS.glob("*.eml"))
    assert names == sorted(EXPECTED)
    assert len(names) >= 60
    for client in (
        "gmail_web", "gmail_android", "gmail_ios", "apple_mail", "ios_mail", "outlook_desktop",
        "outlook_web", "outlook_ios", "outlook_android", "thunderbird", "yahoo", "fastmail",
        "protonmail", "k9", "fairemail", "samsung", "mutt",
    ):  # fmt: skip
        assert any(client in name for name in REPLIES), client
    for kind in (
        "html_only", "bottom_posting", "top_posting", "flowed", "signature", "forwarded",
        "subject_only", "value", "chat", "question", "german", "french",
    ):  # fmt: skip
        assert any(kind in name for name in REPLIES), kind
    for kind in ("mdn", "read_receipt", "ooo", "bounce_qmail", "_dsn"):
        assert any(kind in name for name in SILENT), kind


def test_the_corpus_has_replies_in_japanese_from_gmail_outlook_and_the_iphone() -> None:
    japanese = [name for name in REPLIES if "japanese" in name]
    for client in ("gmail_web", "gmail_android", "outlook_desktop", "ios_mail", "thunderbird"):
        assert any(name.startswith(client) for name in japanese), client


@pytest.mark.parametrize("name", REPLIES)
def test_the_players_own_words_of_each_reply(name: str) -> None:
    assert written_text(message(name)) == EXPECTED[name]["words"]


@pytest.mark.parametrize("name", REPLIES)
def test_each_reply_is_a_persons_and_names_its_moves_exactly(name: str) -> None:
    found = message(name)
    assert silenced(found) is None
    want = EXPECTED[name]
    moves, chat = moves_read(found, want.get("hand", []))
    assert moves == want["moves"]
    if "chat" in want:
        assert [remark for remark in chat if remark in want["chat"]] == want["chat"], chat


@pytest.mark.parametrize("name", SILENT)
def test_each_program_message_is_silent(name: str) -> None:
    assert silenced(message(name)) is not None


def test_a_subject_is_read_without_our_own_words() -> None:
    def subject(text: str) -> email.message.Message:
        found = email.message.Message()
        found["Subject"] = text
        return found

    assert subject_words(subject("Re: Your turn: Battle Line, game 12"), OURS) == ""
    assert subject_words(subject("RE: Played: Battle Line, game 12"), OURS) == ""
    assert subject_words(subject("AW: Re: Your turn: Battle Line, game 12 R7>3"), OURS) == "R7>3"
    assert subject_words(subject("Fwd: R7 > 3, troops"), OURS) == "R7 > 3, troops"


@dataclass
class Score:
    read: int = 0
    replies: int = 0
    auto_silent: int = 0
    autos: int = 0
    bounces_silent: int = 0
    bounces: int = 0

    def __str__(self) -> str:
        return (
            f"reply corpus: moves read exactly {self.read}/{self.replies}, "
            f"auto-replies silent {self.auto_silent}/{self.autos}, "
            f"bounces silent {self.bounces_silent}/{self.bounces}"
        )


def test_the_corpus_score(capsys: pytest.CaptureFixture[str]) -> None:
    """Every email of the corpus scored at once: the line the notes quote."""
    score = Score()
    for name, want in sorted(EXPECTED.items()):
        found = message(name)
        if want.get("silent") == "bounce":
            score.bounces += 1
            score.bounces_silent += silenced(found) is not None
        elif want.get("silent") == "automatic":
            score.autos += 1
            score.auto_silent += silenced(found) is not None
        else:
            score.replies += 1
            moves, _ = moves_read(found, want.get("hand", []))
            score.read += silenced(found) is None and moves == want["moves"]
    with capsys.disabled():
        print(f"\n{score}")
    assert (score.read, score.auto_silent, score.bounces_silent) == (
        score.replies, score.autos, score.bounces,
    )  # fmt: skip
