"""The answers to a reply in the replier's language: the player's saved language, else Japanese
for a player who has chosen none and writes in Japanese (then saved as theirs). What the answer's
Python makes (the reasons, each part's problem, the titles of the codes, the hand) is checked as
the templates receive it. On SQLite and PostgreSQL (the ``app`` fixture)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import fields, is_dataclass
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

import engine
from engine.cards import is_troop, troop_parts
from service.db import session_scope
from service.inbound.receive import receive
from service.models import Player
from service.outbox import queue as outbox_queue
from service.present.reply_answers import MoveRow
from tests.service.replies import (
    ADDRESSES,
    last_outbox_id,
    latest_email,
    new_game,
    outbox_after,
    position,
    reply_bytes,
)

FULL_WIDTH = str.maketrans("0123456789", "０１２３４５６７８９")
JA_COLOURS = {"R": "赤", "O": "橙", "Y": "黄", "G": "緑", "B": "青", "P": "紫"}
NOTATION = re.compile(r"^(?:[A-Z]+[0-9]*(?:@[0-9]+)?(?:>(?:[0-9]+|discard))?|c[0-9]|return|CARD)$")
"""Codes and notation, never translated (``R7>3``, ``c3``, ``REDEPLOY``, ``return CARD``)."""
DECK_CODES = frozenset({"troops", "tactics", "pass", "end"})
"""The short codes in words: ``troops``, ``tactics``, ``pass``, ``end`` (``Choice.code``)."""


def english_words(text: str) -> list[str]:
    """The words of ``text`` in Latin letters that are no code or notation."""
    words = re.findall(r"[A-Za-z][A-Za-z'@>0-9]*", text)
    return [w for w in words if not NOTATION.match(w) and w not in DECK_CODES]


def _strings(value: object, path: str = "") -> Iterator[tuple[str, str]]:
    """Every string in an answer's values with where it is; the moves' own descriptions
    (``MoveRow.text``, the move words of every email) are left to those emails."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, MoveRow):
        yield f"{path}.code", value.code
    elif is_dataclass(value) and not isinstance(value, type):
        for field in fields(value):
            yield from _strings(getattr(value, field.name), f"{path}.{field.name}")
    elif isinstance(value, tuple | list):
        for index, item in enumerate(value):
            yield from _strings(item, f"{path}[{index}]")


ANSWER_FIELDS = ("reason", "parts", "ignored", "codes", "notes", "hand_lines")
"""The values of an answer that its Python writes (the rest: names, addresses, links)."""


@pytest.fixture
def contexts(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Mapping[str, Any]]]:
    """Every email rendered from now on: its kind and what its templates received."""
    rendered: list[tuple[str, Mapping[str, Any]]] = []
    original = outbox_queue.render_email

    def record(kind: Any, context: Mapping[str, Any]) -> tuple[str, str]:
        rendered.append((kind.value, dict(context)))
        return original(kind, context)

    monkeypatch.setattr(outbox_queue, "render_email", record)
    return rendered


def _set_language(app: Flask, email: str, language: str | None) -> None:
    with app.app_context(), session_scope() as session:
        player = session.exec(select(Player).where(Player.email == email)).one()
        player.language = language


def _language(app: Flask, email: str) -> str | None:
    with app.app_context(), session_scope() as session:
        return session.exec(select(Player).where(Player.email == email)).one().language


def _reply(app: Flask, client: FlaskClient, language: str | None, words: str) -> tuple[str, str]:
    """A game whose mover (of saved ``language``) replies ``words`` (``{card}``: a troop of
    their hand in Japanese, ``{code}`` its code) to their "your turn" email: the answer's kind
    and text."""
    game_id, start = new_game(app, client)
    mover = ADDRESSES[start.to_move]
    _set_language(app, mover, language)
    hand = start.state.hands[["A", "B"].index(start.to_move)]
    card = next(c for c in hand if is_troop(c))
    colour, value = troop_parts(card)
    text = words.format(card=f"{JA_COLOURS[colour]}{value}", code=card)
    row = latest_email(app, game_id, mover)
    last = last_outbox_id(app)
    with app.app_context():
        receive(reply_bytes(row, text))
    (answer,) = [a for a in outbox_after(app, last) if a.recipient == mover]
    assert position(app, game_id).log == start.log  # nothing was played
    return answer.kind, answer.text_body


def test_a_japanese_reply_from_a_player_with_no_language_is_answered_in_japanese(
    app: Flask, client: FlaskClient, contexts: list[tuple[str, Mapping[str, Any]]]
) -> None:
    kind, text = _reply(app, client, None, "こんにちは！{card}を出します。よろしく。")
    assert kind == "reply_refused"
    assert _language(app, ADDRESSES["A"]) == "ja" or _language(app, ADDRESSES["B"]) == "ja"
    (context,) = [c for k, c in contexts if k == "reply_refused"]
    said = [
        (path, value)
        for name in ANSWER_FIELDS
        if name in context
        for path, value in _strings(context[name], name)
    ]
    assert any(path == "reason" for path, _ in said)
    english = [(path, value) for path, value in said if english_words(value)]
    assert english == [], english
    assert "一部を今は行えないため" in context["reason"]
    assert "通りの手が考えられます" in text


def test_an_english_reply_from_a_japanese_player_is_answered_in_japanese(
    app: Flask, client: FlaskClient, contexts: list[tuple[str, Mapping[str, Any]]]
) -> None:
    kind, _ = _reply(app, client, "ja", "play {code}")
    assert kind == "reply_refused"
    (context,) = [c for k, c in contexts if k == "reply_refused"]
    assert "一部を今は行えないため" in context["reason"]
    assert all(not english_words(group.title) for group in context["codes"])


def test_a_japanese_reply_from_a_player_who_chose_english_is_answered_in_english(
    app: Flask, client: FlaskClient, contexts: list[tuple[str, Mapping[str, Any]]]
) -> None:
    kind, text = _reply(app, client, "en", "{card}を出します")
    assert kind == "reply_refused"
    assert "Part of it cannot be played now" in text
    assert "it could mean" in text and "say which one" in text
    assert _language(app, ADDRESSES["A"]) != "ja" and _language(app, ADDRESSES["B"]) != "ja"


def test_a_japanese_turn_is_played_and_its_receipt_is_in_japanese(
    app: Flask, client: FlaskClient, contexts: list[tuple[str, Mapping[str, Any]]]
) -> None:
    game_id, start = new_game(app, client)
    mover = ADDRESSES[start.to_move]
    _set_language(app, mover, None)
    play = next(
        m for m in engine.legal_moves(start.state) if m.card is not None and is_troop(m.card)
    )
    assert play.card is not None
    colour, value = troop_parts(play.card)
    words = f"{JA_COLOURS[colour]}{value}".translate(FULL_WIDTH)
    text = f"{words}をフラッグ{play.flag}に出して、部隊カードを引きます。"
    with app.app_context():
        receive(reply_bytes(latest_email(app, game_id, mover), text))
    assert position(app, game_id).log[len(start.log) :][:2] == (
        f"{start.to_move}: {play.action_text()}", f"{start.to_move}: draw troops",
    )  # fmt: skip
    assert _language(app, mover) == "ja"
    (context,) = [c for k, c in contexts if k == "reply_receipt"]
    assert context["hand_lines"][0].startswith("現在の手札: ")


NAMES = frozenset({"Alice", "Bob", "Battle", "Line"})
"""The players' names of ``VALID_FORM`` and the game's own name."""


def test_the_whole_refusal_of_a_japanese_reply_has_no_english_word_left(
    app: Flask, client: FlaskClient
) -> None:
    kind, text = _reply(app, client, None, "{card}を出します")
    assert kind == "reply_refused"
    body = re.sub(r"https?://\S+|\S+@\S+", "", text)
    left = [word for word in english_words(body) if word not in NAMES]
    assert left == [], left
