"""Refusals and error pages speak the reader's language: real refusals reached by real requests
(an illegal move, an expired link, an unknown game, a wrong method, a form not sent as the page
makes it, a form from another site, too many requests) read in Japanese with
``Accept-Language: ja``, and in English without it."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

import pytest
from babel.messages.pofile import read_po
from flask import Flask
from flask.testing import FlaskClient
from itsdangerous import SignatureExpired
from werkzeug.test import TestResponse

import engine
from service.db import get_engine, session_scope
from service.errors import MAY_BE_SAVED, NOTHING_CHANGED, may_be_saved
from service.games.loaded import load_game
from service.games.refusals import StaleMoveError
from service.games.seats import read_seats
from service.games.state import load_state
from service.i18n import TRANSLATIONS, recipient_language
from service.present.move_links import move_link_url
from service.refusal import Refusal
from tests.service.conftest import make_test_app
from tests.service.play_driver import create_and_accept

JAPANESE = {"Accept-Language": "ja"}
ENGLISH_WORD = re.compile(r"[A-Za-z]{2,}")
H1 = re.compile(r"<h1>(.*?)</h1>", re.S)
NOTICE = re.compile(r'<p class="notice[^"]*"[^>]*>(.*?)</p>', re.S)


def _seat_to_move(app: Flask, game: dict[str, Any]) -> tuple[str, engine.GameState]:
    with app.app_context(), session_scope() as session:
        state = load_state(session, load_game(session, game["id"]))
    return state.to_move, state


def _card_not_in_hand(state: engine.GameState) -> str:
    hand = set(state.hands[engine.SEATS.index(state.to_move)])
    return next(card for card in state.ruleset.troops if card not in hand)


def illegal_move(app: Flask, game: dict[str, Any], headers: dict[str, str]) -> TestResponse:
    seat, state = _seat_to_move(app, game)
    card = _card_not_in_hand(state)
    return app.test_client().post(
        f"/p/{game['token'][seat]}/move", data={"ply": "0", "move": f"{card}>1"}, headers=headers
    )


def expired_link(app: Flask, game: dict[str, Any], headers: dict[str, str]) -> TestResponse:
    seat, _ = _seat_to_move(app, game)
    with app.app_context(), session_scope() as session:
        url = move_link_url(read_seats(session, game["id"])[seat][0], 0, 0)

    def expired(*_args: Any, **_kw: Any) -> Any:
        raise SignatureExpired("old")

    with mock.patch("itsdangerous.URLSafeTimedSerializer.loads", expired):
        return app.test_client().post(url.removeprefix("http://bl.test"), headers=headers)


def unreadable_form(app: Flask, game: dict[str, Any], headers: dict[str, str]) -> TestResponse:
    seat, _ = _seat_to_move(app, game)
    return app.test_client().post(
        f"/p/{game['token'][seat]}/move", data={"ply": "x", "move": "pass"}, headers=headers
    )


def unknown_game(app: Flask, game: dict[str, Any], headers: dict[str, str]) -> TestResponse:
    return app.test_client().get("/games/nosuchgame", headers=headers)


def no_such_page(app: Flask, game: dict[str, Any], headers: dict[str, str]) -> TestResponse:
    return app.test_client().get("/no/such/page", headers=headers)


def wrong_method(app: Flask, game: dict[str, Any], headers: dict[str, str]) -> TestResponse:
    return app.test_client().get("/language", headers=headers)


def from_another_site(app: Flask, game: dict[str, Any], headers: dict[str, str]) -> TestResponse:
    return app.test_client().post(
        "/language",
        data={"language": "en", "next": "/"},
        headers={**headers, "Sec-Fetch-Site": "cross-site"},
    )


Request = Callable[[Flask, dict[str, Any], dict[str, str]], TestResponse]
CASES: list[tuple[Request, int, str, str]] = [
    (illegal_move, 422, "That move is not allowed", "その手は指せません"),
    (expired_link, 410, "This link has expired", "このリンクは期限切れです"),
    (unreadable_form, 400, "This form could not be read", "このフォームを読み取れませんでした"),
    (unknown_game, 404, "Game not found", "対局が見つかりません"),
    (no_such_page, 404, "Not Found", "見つかりません"),
    (wrong_method, 405, "Method Not Allowed", "この使い方はできません"),
    (
        from_another_site,
        403,
        "This form came from another site",
        "このフォームはほかのサイトから送られました",
    ),
]


@pytest.fixture
def game(app: Flask, client: FlaskClient) -> dict[str, Any]:
    return create_and_accept(app, client)


def _heading_and_notice(page: str) -> tuple[str, str]:
    heading, notice = H1.search(page), NOTICE.search(page)
    assert heading is not None and notice is not None, page
    return html.unescape(heading.group(1).strip()), html.unescape(notice.group(1).strip())


def _english_left(text: str) -> list[str]:
    """English words of ``text`` outside card codes, the move notation and the address typed."""
    return ENGLISH_WORD.findall(re.sub(r"\b[ROYGBP]\d+\b|nosuchgame", "", text))


@pytest.mark.parametrize(
    ("make", "status", "english", "japanese"), CASES, ids=[case[0].__name__ for case in CASES]
)
def test_a_refusal_reads_in_the_browsers_language(
    app: Flask,
    game: dict[str, Any],
    make: Request,
    status: int,
    english: str,
    japanese: str,
) -> None:
    answered = make(app, game, JAPANESE)
    assert answered.status_code == status
    page = answered.get_data(as_text=True)
    assert '<html lang="ja">' in page
    heading, notice = _heading_and_notice(page)
    assert heading == japanese
    assert notice.endswith("。") and not _english_left(notice), notice

    answered = make(app, game, {})
    assert answered.status_code == status
    page = answered.get_data(as_text=True)
    assert '<html lang="en">' in page
    heading, notice = _heading_and_notice(page)
    assert heading == english
    assert notice.endswith(".") and not re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", notice)


def test_a_refused_move_in_json_is_in_the_readers_language(
    app: Flask, game: dict[str, Any]
) -> None:
    answered = illegal_move(app, game, {**JAPANESE, "Accept": "application/json"})
    assert answered.status_code == 422
    body = answered.get_json()
    assert body["title"] == "その手は指せません"
    assert "手札にありません" in body["message"] and "何も変更されていません。" in body["message"]
    english = illegal_move(app, game, {"Accept": "application/json"}).get_json()
    assert english["title"] == "That move is not allowed"
    assert english["message"].endswith("is not in your hand. Nothing was changed.")


@pytest.fixture
def limited_app(database_url: str) -> Iterator[Flask]:
    app = make_test_app(database_url, RATELIMIT_ENABLED=True, RATE_LIMIT_POST_PER_CLIENT="2/minute")
    yield app
    get_engine(app).dispose()


@pytest.mark.parametrize(
    ("headers", "lang", "title"),
    [(JAPANESE, "ja", "要求が多すぎます"), ({}, "en", "Too many requests")],
)
def test_too_many_requests_reads_in_the_browsers_language(
    limited_app: Flask, headers: dict[str, str], lang: str, title: str
) -> None:
    client = limited_app.test_client()
    answers = [
        client.post("/language", data={"language": "x"}, headers=headers).status_code
        for _ in range(3)
    ]
    assert answers == [400, 400, 429]
    page = client.post("/language", data={"language": "x"}, headers=headers).get_data(as_text=True)
    assert f'<html lang="{lang}">' in page
    assert _heading_and_notice(page)[0] == title


def test_every_japanese_message_that_changed_nothing_says_it_in_the_same_words() -> None:
    """After a request committed a change, the error page takes out "nothing was changed" by
    its translation (service/errors.py): each language must say it in those very words."""
    with (TRANSLATIONS / "ja" / "LC_MESSAGES" / "messages.po").open("rb") as po:
        catalogue = read_po(po)
    said = catalogue["Nothing was changed."].string
    for message in catalogue:
        english = message.id if isinstance(message.id, str) else message.id[0]
        japanese = message.string if isinstance(message.string, str) else message.string[0]
        if english and NOTHING_CHANGED.search(english):
            assert said in japanese, english


def test_a_page_after_a_committed_change_does_not_say_nothing_was_changed(bare_app: Flask) -> None:
    refusal = StaleMoveError(3, 5)
    with recipient_language("ja"):
        message = may_be_saved(str(refusal))
        assert "何も変更されていません" not in message and str(MAY_BE_SAVED) in message
        assert "。 " not in message
    with recipient_language("en"):
        message = may_be_saved(str(refusal))
        assert "Nothing was changed" not in message and str(MAY_BE_SAVED) in message


def _refusal_classes(base: type[Refusal] = Refusal) -> Iterator[type[Refusal]]:
    for cls in base.__subclasses__():
        yield cls
        yield from _refusal_classes(cls)


def test_every_refusals_title_and_fixed_message_is_translated(bare_app: Flask) -> None:
    """Every kind of refusal the app can raise (its modules are imported by the factory)."""
    classes = sorted(set(_refusal_classes()), key=lambda cls: cls.__qualname__)
    assert len(classes) >= 30
    for cls in [Refusal, *classes]:
        with recipient_language("ja"):
            title, message = str(cls.title), str(cls.message)
        assert not ENGLISH_WORD.search(title), (cls, title)
        assert not ENGLISH_WORD.search(
            message.replace("APP_ENV=development", "").replace("APP_ENV", "")
        ), (cls, message)
        with recipient_language("en"):
            assert ENGLISH_WORD.search(str(cls.title)), cls
