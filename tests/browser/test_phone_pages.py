"""The private page and the your-turn email on a phone (issue 20, items 6 and 9), in Debian's
chromium: the others' last turn is on the first screen at 390 px, above the board, with the card
just played marked; every button and move link is a tap target of at least 44 by 44 px; the
move buttons come in one group per card, named by it; axe-core finds no violation. Screenshots of
the private page at 390 px and at desktop width go to test-artefacts/browser/.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from service import tokens
from service.db import session_scope
from service.lobby.forms import parse_new_game
from service.lobby.lifecycle import accept_invitation, create_game
from service.outbox import MailKind
from service.tournaments.models import Tournament
from tests.browser.conftest import ARTEFACTS, PHONE, Axe, LiveServer, Shots
from tests.service.conftest import VALID_FORM
from tests.service.rating_games import signed_in_player
from tests.service.test_reading_a_game import play_a_turn
from tests.service.tournament_helpers import make, start
from tests.worker.outbox_rows import rows
from tests.worker.turn_games import play_to_the_end

TAP = 44
"""The smallest tap target, in CSS pixels, each way (WCAG 2.5.5)."""


@pytest.fixture
def phone(browser: Browser) -> Iterator[Page]:
    """A phone-sized page that lets axe's script in (our pages allow no script)."""
    context = browser.new_context(viewport=PHONE, locale="en-GB", bypass_csp=True)
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


def small_boxes(page: Page, selector: str) -> list[dict[str, Any]]:
    """The visible elements matching ``selector`` whose box is under TAP pixels either way."""
    boxes: list[dict[str, Any]] = page.evaluate(
        """(selector) => [...document.querySelectorAll(selector)]
            .filter(e => e.offsetParent !== null)
            .map(e => { const r = e.getBoundingClientRect(), text = e.textContent.trim();
                return {text: text.slice(0, 40), width: r.width, height: r.height}; })""",
        selector,
    )
    assert boxes, f"nothing matches {selector}"
    return [b for b in boxes if b["width"] < TAP or b["height"] < TAP]


def test_the_private_page_on_a_phone(
    live_server: LiveServer, phone: Page, shots: Shots, axe: Axe
) -> None:
    app = live_server.app
    form = {**VALID_FORM, "a_name": "Dora", "a_email": "dora@example.org"}
    form |= {"b_name": "Eli", "b_email": "eli@example.org"}
    with app.app_context(), session_scope() as session:
        game, _ = create_game(session, parse_new_game(form), creator_present=True)
        assert game.id is not None
        game_id = game.id
        accept_invitation(session, tokens.SeatToken(game_id=game_id, seat="B", generation=0))
    played, _ = play_a_turn(app, game_id)
    mover = "B" if played == "A" else "A"
    with app.app_context():
        page_url = f"{live_server.url}/p/{tokens.make_private_token(game_id, mover, 0)}"

    phone.goto(page_url)
    last_turn = phone.get_by_role("heading", name=re.compile("last turn$"))
    line = phone.get_by_role("heading", name="The line", exact=True)
    top, board = last_turn.bounding_box(), line.bounding_box()
    assert top is not None and board is not None
    # On the first screen of a phone, above the board.
    assert top["y"] + top["height"] < PHONE["height"] and top["y"] < board["y"]
    assert phone.locator(".line .card.last-played").count() == 1
    shots(phone, "private-page-last-turn")
    saved = [p.name for p in shots.saved if "private-page-last-turn" in p.name]
    assert len(saved) == 2 and all((ARTEFACTS / name).is_file() for name in saved), saved

    # Tap targets: every button and drop-down list on the page.
    assert small_boxes(phone, "main button, main select") == []
    # One group per card, named by it: a screen reader jumps from card to card.
    groups = phone.locator("form.moves [role=group]")
    names = [groups.nth(i).get_attribute("aria-label") for i in range(groups.count())]
    hand = phone.locator(".hand .card").count()
    plays = [n for n in names if n and n.startswith("Play ")]
    assert 0 < len(plays) <= hand and len(set(plays)) == len(plays), names

    violations = axe(phone)
    assert violations == [], violations

    # The deadline in the browser's own zone (the page's one script, under its real
    # Content-Security-Policy), the same words as without it.
    tokyo = phone.context.browser
    assert tokyo is not None
    context = tokyo.new_context(viewport=PHONE, locale="en-GB", timezone_id="Asia/Tokyo")
    try:
        in_tokyo = context.new_page()
        in_tokyo.goto(page_url)
        deadline = in_tokyo.locator("time[data-deadline]").first
        assert re.fullmatch(
            r"\w+day \d+ \w+, \d\d:\d\d Asia/Tokyo time \(\d+ days?( \d+ hours?)? left\)",
            deadline.inner_text(),
        ), deadline.inner_text()
    finally:
        context.close()
    # A Japanese reader: the page and its script both say it in Japanese.
    context = tokyo.new_context(viewport=PHONE, locale="ja-JP", timezone_id="Asia/Tokyo")
    try:
        in_japanese = context.new_page()
        in_japanese.goto(page_url)
        assert in_japanese.locator("html").get_attribute("lang") == "ja"
        deadline = in_japanese.locator("time[data-deadline]").first
        assert re.fullmatch(
            r"\d+月\d+日\(.\) \d\d:\d\d\(Asia/Tokyo時間\)\(残り(\d+日)?(\d+時間)?\)",
            deadline.inner_text(),
        ), deadline.inner_text()
    finally:
        context.close()

    # The your-turn email's move links, as a phone's mail program shows them.
    (email,) = [
        r
        for r in rows(app, kind=MailKind.YOUR_TURN)
        if r.game_id == game_id and r.recipient == form[f"{mover.lower()}_email"]
    ][-1:]
    phone.set_content(email.html_body)
    assert small_boxes(phone, "a[href*='/m/']") == []


def test_names_stay_whole_on_a_phone(live_server: LiveServer, phone: Page) -> None:
    """Who holds a flag reads on one line under its number (it broke inside the name, "Rut/h",
    when the column was narrower than a flag and a name), a name too long for it ends in an
    ellipsis, and no link of the site's menu breaks between its words."""
    app = live_server.app
    form = {**VALID_FORM, "a_name": "Ruth", "a_email": "ruth@example.org"}
    form |= {"b_name": "Wilhelmina-Maximiliane", "b_email": "w@example.org", "visibility": "public"}
    with app.app_context(), session_scope() as session:
        game, _ = create_game(session, parse_new_game(form), creator_present=True)
        assert game.id is not None
        game_id, public_id = game.id, game.public_id
        accept_invitation(session, tokens.SeatToken(game_id=game_id, seat="B", generation=0))
    play_to_the_end(app, game_id)
    phone.goto(f"{live_server.url}/games/{public_id}")
    holders: list[dict[str, Any]] = phone.evaluate(
        """() => [...document.querySelectorAll('.stake > span:not(.num):not(.size)')].map(e => ({
            text: e.textContent, lines: e.getBoundingClientRect().height
                / parseFloat(getComputedStyle(e).lineHeight),
            cut: e.scrollWidth > e.clientWidth}))"""
    )
    # "held by" is said to screen readers only.
    names = {h["text"].replace("⚑ held by ", "") for h in holders}
    assert names and names <= {"Ruth", "Wilhelmina-Maximiliane"}, holders
    assert all(h["lines"] < 1.5 for h in holders), holders
    assert all(h["cut"] == ("Wilhelmina" in h["text"]) for h in holders), holders
    menu: list[int] = phone.evaluate(
        """() => [...document.querySelectorAll('header nav.site a')]
            .map(a => a.getClientRects().length)"""
    )
    assert menu and all(count == 1 for count in menu), menu


def test_no_page_is_wider_than_a_phone(live_server: LiveServer, phone: Page, axe: Axe) -> None:
    """The pages with tables (standings, crosstable, leaderboard, a player's results) and the
    forms fit a phone's width: a wide table scrolls inside itself, never the whole page (the
    standings took 455 px of a 390 px screen). The tournament pages pass axe too."""
    app = live_server.app
    people = [("Wilhelmina-Maximiliane", "w@example.org"), ("Ruth", "ruth@example.org")]
    people.append(("Saul", "s@example.org"))
    ids = [signed_in_player(app, email, name) for name, email in people]
    tournament_id = make(app, ids, ids[0], name="Autumn cup of the long names")
    start(app, tournament_id)
    with app.app_context(), session_scope() as session:
        found = session.get(Tournament, tournament_id)
        assert found is not None
        public_id = found.public_id
    pages = [
        f"/tournaments/{public_id}", "/tournaments", "/tournaments/new", "/ratings/battleline",
        "/players/Wilhelmina-Maximiliane", "/lobby", "/games/new", "/me",
    ]  # fmt: skip
    for path in pages:
        phone.goto(live_server.url + path)
        width = phone.evaluate("() => document.documentElement.scrollWidth")
        assert width <= PHONE["width"], (path, width)
        if path.startswith("/tournaments"):
            assert axe(phone) == [], path
