"""The "how to play" page: in both languages, linked from every page and every email."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from flask import Flask
from flask.testing import FlaskClient

from service.db import session_scope
from service.games.players import find_or_add_player
from service.outbox import MailKind
from service.outbox.queue import queue_email

SECTIONS = ("components", "turn", "formations", "claims", "tactics", "advanced", "variants")
NOTATION = {"draw", "troops"}
"""Words of the move notation the Japanese page quotes (docs/notation.md: never translated)."""


class _MainText(HTMLParser):
    """The visible text inside <main>: what a reader sees, without tags or attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "main":
            self.depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "main":
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.text.append(data)


def main_text(html: str) -> str:
    parser = _MainText()
    parser.feed(html)
    return " ".join(parser.text)


def test_the_page_explains_every_part_in_english(client: FlaskClient) -> None:
    page = client.get("/how-to-play")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert '<html lang="en">' in html
    for section in SECTIONS:
        assert f'id="{section}"' in html
    assert 'role="img" aria-label="red 3"' in html  # formations drawn as cards
    assert "Wedge" in html and "Traitor" in html


def test_the_page_is_japanese_for_a_japanese_reader(client: FlaskClient) -> None:
    html = client.get("/how-to-play", headers={"Accept-Language": "ja"}).get_data(as_text=True)
    assert '<html lang="ja">' in html
    for section in SECTIONS:
        assert f'id="{section}"' in html
    assert 'aria-label="赤3"' in html and "ウェッジ" in html and "裏切り" in html
    english = set(re.findall(r"[A-Za-z]{2,}", main_text(html))) - NOTATION
    assert not english, english


def test_lang_in_the_address_wins_over_the_browser(client: FlaskClient) -> None:
    forced = client.get("/how-to-play?lang=ja", headers={"Accept-Language": "en"})
    assert '<html lang="ja">' in forced.get_data(as_text=True)
    unknown = client.get("/how-to-play?lang=xx", headers={"Accept-Language": "en"})
    assert unknown.status_code == 200
    assert '<html lang="en">' in unknown.get_data(as_text=True)


def test_every_page_links_to_it(client: FlaskClient) -> None:
    for url in ("/games/new", "/games", "/me", "/how-to-play"):
        assert 'href="/how-to-play"' in client.get(url).get_data(as_text=True), url


def test_every_email_links_to_it_in_its_language(app: Flask) -> None:
    with app.app_context(), session_scope() as session:
        for language in ("en", "ja"):
            player = find_or_add_player(session, f"{language}@example.org", "P")
            player.language = language
            row = queue_email(session, MailKind.MY_GAMES, player, subject="s", context={"url": "u"})
            assert row is not None and row.text_body and row.html_body
            link = f"/how-to-play?lang={language}"
            assert link in row.text_body and link in row.html_body
