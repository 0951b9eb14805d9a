"""The wire form of an email (service.outbox.mime): one multipart/alternative with no wrapper,
display names as they are when plain ASCII, 7bit parts when they can be, and a List-Id and a
subject per game (service.outbox.queue)."""

from __future__ import annotations

import email
import email.policy
import re
from collections.abc import Iterator
from email.message import EmailMessage
from unittest import mock

import pytest
from flask import Flask
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlmodel import select

from service.db import session_scope
from service.games.loaded import NO_SNAPSHOTS, LoadedGame
from service.models import Game, Player
from service.outbox import MailKind, queue_email
from service.outbox.mime import build_mime
from service.outbox.models import OutboxMessage
from service.outbox.queue import html_for_the_wire
from service.player_fields import MAX_NAME_LENGTH, check_name


@pytest.fixture(autouse=True)
def _in_app(bare_app: Flask) -> Iterator[None]:
    with bare_app.app_context():
        yield


def wire(name: str = "Bob", text: str = "Hello\n", html: str = "<p>Hello</p>") -> EmailMessage:
    row = OutboxMessage(
        recipient="bob@example.org",
        recipient_name=name,
        kind=MailKind.YOUR_TURN.value,
        subject="Your turn: Battle Line, game 1",
        text_body=text,
        html_body=html,
        message_id="<1.your-turn@bl.test>",
        headers={"Auto-Submitted": "auto-generated"},
        mime=None,
    )
    mime = build_mime(row, sender="Battle Line by mail <battleline@bl.test>")
    parsed = email.message_from_bytes(mime.encode("ascii"), policy=email.policy.default)
    assert isinstance(parsed, EmailMessage)
    return parsed


def raw_header(message: EmailMessage, name: str) -> str:
    """A header as it is on the wire, not decoded."""
    (value,) = [v for k, v in message.raw_items() if k.lower() == name.lower()]
    return str(value)


def test_one_alternative_without_a_mixed_wrapper() -> None:
    message = wire()
    assert [part.get_content_type() for part in message.walk()] == [
        "multipart/alternative",
        "text/plain",
        "text/html",
    ]
    assert message["MIME-Version"] == "1.0"
    assert len(message.get_all("Message-ID") or []) == 1
    assert message["Subject"] == "Your turn: Battle Line, game 1"
    assert message["Auto-Submitted"] == "auto-generated"


def test_ascii_display_names_are_not_encoded() -> None:
    message = wire()
    assert raw_header(message, "From") == "Battle Line by mail <battleline@bl.test>"
    assert raw_header(message, "To") == "Bob <bob@example.org>"
    # A name with a special character is quoted, not encoded.
    assert raw_header(wire(name="Bob, Jr."), "To") == '"Bob, Jr." <bob@example.org>'
    # Beyond ASCII a name must be encoded, and reads back the same.
    accented = wire(name="Zoë")
    assert raw_header(accented, "To").startswith("=?utf-8?")
    assert accented["To"].addresses[0].display_name == "Zoë"


@pytest.mark.parametrize(
    ("text", "encoding"),
    [("Plain words\n", "7bit"), ("Déjà vu\n", "base64"), ("x" * 1000 + "\n", "base64")],
)
def test_parts_go_7bit_when_they_can(text: str, encoding: str) -> None:
    message = wire(text=text)
    plain = message.get_body(preferencelist=("plain",))
    assert plain is not None
    assert plain["Content-Transfer-Encoding"] == encoding
    assert plain.get_content().replace("\r\n", "\n") == text


def test_game_emails_carry_their_game_in_subject_and_list_id(app: Flask) -> None:
    bodies = mock.patch("service.outbox.queue.render_email", return_value=("t\n", "<p>h</p>"))
    with app.app_context(), bodies, session_scope() as session:
        player = Player(email="bob@example.org", display_name="Bob")
        game = Game(
            public_id="p1", ruleset="schotten-totten", claims="advanced", rules_version="1",
            seed="s", seed_commitment="c",
        )  # fmt: skip
        session.add_all([player, game])
        session.flush()
        loaded = LoadedGame(game, {}, None, NO_SNAPSHOTS)
        turn = queue_email(session, MailKind.YOUR_TURN, player, game=loaded)
        over = queue_email(
            session, MailKind.GAME_OVER, player, game=loaded, subject="Game over, you won"
        )
        other = queue_email(session, MailKind.MY_GAMES, player, subject="Your games")
        game_id = session.exec(select(Game.id)).one()
    assert turn is not None and over is not None and other is not None
    assert turn.subject == f"Your turn: Schotten-Totten, game {game_id}"
    assert over.subject == f"Game over, you won: Schotten-Totten, game {game_id}"
    assert turn.headers["List-Id"] == over.headers["List-Id"] == f"<game-{game_id}.bl.test>"
    assert over.headers["References"] == turn.message_id, "one thread per game"
    assert "List-Id" not in other.headers
    assert "Battle Line, game" not in turn.subject


@pytest.mark.parametrize(
    "name", ["=?utf-8?q?Alice=40bank=2Eexample?=", "=?utf-8?b?QWxpY2U=?=", "Bob =?x?q?y?= Jr"]
)
def test_a_name_that_looks_encoded_reads_back_as_typed(name: str) -> None:
    """A name stored before names were checked for encoded words: a receiver decodes an unquoted
    ``=?...?=`` into other text, so the name goes encoded itself and reads back literally."""
    message = wire(name=name)
    assert message["To"].addresses[0].display_name == name
    assert message["To"].addresses[0].addr_spec == "bob@example.org"


@settings(max_examples=300, deadline=None)
@given(
    st.text(min_size=1, max_size=MAX_NAME_LENGTH)
    | st.text(alphabet='=?qQbBu8-<>",@\\ ().:;', min_size=1, max_size=MAX_NAME_LENGTH)
)
def test_every_accepted_name_reads_back_as_one_address(typed: str) -> None:
    """Whatever a form accepts as a name (quotes, commas, angle brackets, "@", "=?"), To: holds
    exactly the one recipient, whose name (ASCII) reads back as it was accepted."""
    try:
        name = check_name(typed)
    except ValueError:
        return
    (address,) = wire(name=name)["To"].addresses
    assert address.addr_spec == "bob@example.org"
    if name.isascii():  # (Python's parser may split a long encoded name with a space)
        # A run of spaces reads as one, in Python's parser as in a mail reader.
        assert _spaced(address.display_name) == _spaced(name)


def _spaced(text: str) -> str:
    return re.sub(r" +", " ", text)


def test_an_html_part_goes_the_smaller_way() -> None:
    """A few characters beyond ASCII go as references (a 7bit part); a part mostly in Japanese
    goes as UTF-8 in base64, half the size of its references."""
    french = "<p>Déjà vu, Zoë: your turn in game 12, with every legal move linked.</p>"
    referenced = french.replace("é", "&#233;").replace("à", "&#224;").replace("ë", "&#235;")
    assert html_for_the_wire(french) == referenced
    japanese = "<p>あなたの手番です。フラッグ3に赤7を出しました。</p>" * 20
    assert html_for_the_wire(japanese) == japanese
    sent = wire(html=html_for_the_wire(japanese)).get_body(preferencelist=("html",))
    assert sent is not None and sent["Content-Transfer-Encoding"] == "base64"
    as_references = wire(html=japanese.encode("ascii", "xmlcharrefreplace").decode("ascii"))
    assert len(sent.as_bytes()) < len(as_references.as_bytes()) * 0.6
