"""Accessible to everyone (issues 10 and 23): axe-core (WCAG 2.1 A and AA, in Debian's
chromium) finds no violation on any page, nor in the HTML part of any kind of email, in each
language the site is written in; each of them declares its language (``lang``) and is written in
it (tests/language_check.py: no English word left on a Japanese page or email, nothing Japanese
on an English one, outside names and the notation); and the board reads to a screen reader as a
sighted player sees it: each side of a flag a group named by whose cards they are and which
flag, its cards inside it.

The games are brought about through the service itself (its test client on the live server's
app and database), the pages and emails are then looked at by a browser asking for the language
(``Accept-Language``); the players' emails are in theirs, chosen as a person does: by signing in
on a page in that language. Every violation, of any impact, is written to
test-artefacts/browser/axe-<language>.txt.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest
from flask.testing import FlaskClient
from playwright.sync_api import Browser, Page
from sqlmodel import select

import engine
from service import clock, tokens
from service.db import session_scope
from service.games.rows import get_game
from service.games.seats import read_seats
from service.i18n import LANGUAGE_CODES, recipient_language
from service.inbound.receive import Outcome, receive
from service.models import Player, Series
from service.outbox import MailKind
from service.outbox.addresses import confirm, mark_bouncing
from service.ratings.models import Rating, RatingChange
from service.templating import card_face
from tests.browser.conftest import ARTEFACTS, DESKTOP, Axe, LiveServer
from tests.language_check import english_words, japanese_in, visible_text
from tests.service.conftest import VALID_FORM, sign_in_as
from tests.service.replies import reply_bytes
from tests.worker.outbox_rows import link_to, links, rows
from tests.worker.turn_games import bring_every_turn_email, state_of

BROWSER_LOCALES = {"en": "en-GB", "ja": "ja-JP"}
"""The browser's locale for a reader of each language (it sends ``Accept-Language`` from it)."""


@dataclass(frozen=True)
class People:
    """The players of one language's run, who read every email in that language."""

    ann: str
    ben: str
    cat: str
    names: tuple[str, str, str]

    @property
    def addresses(self) -> tuple[str, str, str]:
        return (self.ann, self.ben, self.cat)


PEOPLE = {
    "en": People("ann@example.org", "ben@example.org", "cat@example.org", ("Ann", "Ben", "Cat")),
    "ja": People(
        "sakura@example.jp", "kenji@example.jp", "chiyo@example.jp", ("さくら", "健二", "千代")
    ),
}
EVERY_NAME = tuple(name for people in PEOPLE.values() for name in people.names)
"""Every player's name: the lists of games show the other language's players too."""
MIXED_PAGES = frozenset({"outbox", "outbox, an email"})
"""The development outbox shows every email as it was sent, each in its recipient's language:
its words are checked in the emails themselves."""


@contextmanager
def reading_page(browser: Browser, language: str) -> Iterator[Page]:
    """A desktop browser asking for ``language`` that lets axe's script in (our pages allow no
    script at all)."""
    context = browser.new_context(
        viewport=DESKTOP,
        locale=BROWSER_LOCALES[language],
        extra_http_headers={"Accept-Language": f"{BROWSER_LOCALES[language]},{language};q=0.9"},
        bypass_csp=True,
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    try:
        yield page
    finally:
        context.close()


@pytest.fixture
def reader(browser: Browser) -> Iterator[Page]:
    """An English reader's browser (``reading_page``)."""
    with reading_page(browser, "en") as page:
        yield page


class Audit:
    """The pages and emails looked at in one language, what axe found on each, and the words
    of another language found on each."""

    def __init__(self, server: LiveServer, page: Page, axe: Axe, language: str) -> None:
        self.server, self.page, self.axe, self.language = server, page, axe, language
        self.found: dict[str, list[dict[str, Any]]] = {}
        self.declared: dict[str, str] = {}
        """The ``lang`` of each page and email's HTML."""
        self.foreign: dict[str, list[str]] = {}
        """The words of another language than the reader's, by page or email."""

    def check(self, name: str, url: str, status: int = 200, *, words: str = "") -> str:
        """Open ``url`` (a path or one of our links), run axe, keep what it found, its ``lang``
        and the other language's words in it (and in ``words``: an email's subject and text)."""
        path = re.sub(r"^https?://[^/]+", "", url)
        response = self.page.goto(self.server.url + path)
        assert response is not None and response.status == status, (name, path)
        self.found[name] = self.axe(self.page)
        self.declared[name] = self.page.evaluate("() => document.documentElement.lang")
        content = self.page.content()
        if name not in MIXED_PAGES:
            self.read(name, f"{words}\n{visible_text(content, self.language)}")
        return content

    def read(self, name: str, text: str) -> None:
        if self.language == "en":
            foreign = japanese_in(text, EVERY_NAME)
        else:
            foreign = english_words(text, EVERY_NAME)
            if not japanese_in(text, EVERY_NAME):
                foreign.insert(0, "(no Japanese at all)")
        if foreign:
            self.foreign[name] = foreign[:12]

    def violations(self) -> dict[str, list[str]]:
        """Every violation, whatever its impact, by page or email."""
        return {
            name: [f"{v['id']} ({v['impact']}): {v['help']} {v['nodes']}" for v in found]
            for name, found in self.found.items()
            if found
        }

    def wrong_language(self) -> dict[str, str]:
        """The pages and emails whose ``lang`` is not the reader's."""
        return {name: lang for name, lang in self.declared.items() if lang != self.language}

    def write(self) -> None:
        ARTEFACTS.mkdir(parents=True, exist_ok=True)
        lines = [f"axe-core WCAG 2.1 A/AA, {len(self.found)} pages and emails in {self.language}"]
        for name, found in sorted(self.found.items()):
            lines.append(f"{name}: {len(found)} violation(s)")
            lines += [f"  {v['id']} [{v['impact']}] {v['help']}: {v['nodes']}" for v in found]
        (ARTEFACTS / f"axe-{self.language}.txt").write_text("\n".join(lines) + "\n")


def choose_language(app: Any, client: FlaskClient, people: People, language: str) -> None:
    """Each player signs in on a page in ``language`` (their "my games" link's button), which
    makes it the language of their emails; then this browser signs out."""
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = language
    for address, name in zip(people.addresses, people.names, strict=True):
        sign_in_as(app, client, address, name)
    assert client.post("/me/sign-out").status_code == 303


def newest(server: LiveServer, kind: str, recipient: str) -> Any:
    found = rows(server.app, kind=kind, recipient=recipient)
    assert found, (kind, recipient)
    return found[-1]


@pytest.mark.parametrize("language", LANGUAGE_CODES)
def test_every_page_and_email_passes_axe_in_its_language(
    live_server: LiveServer, browser: Browser, axe: Axe, language: str
) -> None:
    with reading_page(browser, language) as reader:
        audit_every_page_and_email(live_server, reader, axe, language)


def audit_every_page_and_email(server: LiveServer, reader: Page, axe: Axe, language: str) -> None:
    app = server.app
    client = app.test_client()
    people = PEOPLE[language]
    ANN, BEN, CAT = people.addresses
    choose_language(app, client, people, language)
    audit = Audit(server, reader, axe, language)
    audit.check("new game form", "/games/new")
    # Our own focus ring, on what the keyboard reaches first (the site's name, a link).
    reader.keyboard.press("Tab")
    ring = reader.evaluate(
        "() => { const e = document.activeElement, s = getComputedStyle(e);"
        " return [e.tagName, s.outlineStyle, s.outlineWidth, s.outlineColor]; }"
    )
    assert ring == ["A", "solid", "3px", "rgb(26, 79, 156)"], ring
    audit.check("watch games", "/games")
    audit.check("how to play", "/how-to-play")
    audit.check("my games request", "/me")
    reader.fill("main input[name=email]", people.ben)
    reader.locator("main form button[type=submit]").click()
    reader.wait_for_url(re.compile(r"/me$"))
    audit.found["my games request, sent"] = axe(reader)
    audit.declared["my games request, sent"] = reader.evaluate(
        "() => document.documentElement.lang"
    )
    audit.read("my games request, sent", visible_text(reader.content(), language))

    # Ann starts a game against Ben from the form, not signed in: "check your email".
    ann_name, ben_name, cat_name = people.names
    form = {**VALID_FORM, "a_name": ann_name, "a_email": ANN, "b_name": ben_name, "b_email": BEN}
    assert client.post("/games/new", data=form).status_code == 303
    audit.check("check your email", "/games/new/sent")
    confirmation = newest(server, MailKind.CONFIRM_ADDRESS, ANN)
    ann_page = link_to(confirmation.text_body, "/p/")
    audit.check("private page, invitation not sent", ann_page)
    assert client.post(re.sub(r"^https?://[^/]+", "", ann_page) + "/invite").status_code == 303
    invitation = newest(server, MailKind.INVITATION, BEN)
    ben_page = next(url for url in links(invitation.text_body) if re.search(r"/p/[^/]+$", url))
    audit.check("private page, invited", ben_page)
    audit.check("accept page", link_to(invitation.text_body, "/accept"))
    audit.check("mute page", link_to(invitation.text_body, "/mail/mute/"))
    audit.check("unsubscribe page", link_to(invitation.text_body, "/mail/unsubscribe/"))
    audit.check(
        "refuse invitations page", link_to(invitation.text_body, "/mail/refuse-invitations/")
    )
    accept = re.sub(r"^https?://[^/]+", "", link_to(invitation.text_body, "/accept"))
    assert client.post(accept).status_code == 303
    game_id = invitation.game_id
    assert game_id is not None

    # The first turn: the private pages, a move link, the board read by a screen reader.
    state = state_of(app, game_id)
    mover = state.to_move
    mover_mail = ANN if mover == "A" else BEN
    your_turn = newest(server, MailKind.YOUR_TURN, mover_mail)
    move_urls = [url for url in links(your_turn.html_body) if "/m/" in url]
    with app.app_context():
        mover_page = f"/p/{tokens.make_private_token(game_id, mover, 0)}"
        waiter_page = f"/p/{tokens.make_private_token(game_id, 'B' if mover == 'A' else 'A', 0)}"
    audit.check("private page, your turn", mover_page)
    audit.check("private page, waiting", waiter_page)
    audit.check("resign page", mover_page + "/resign")
    audit.check("move link", move_urls[0])
    # The move's own form (the language switch at the foot of the page is another).
    reader.locator("main form[method=post] button[type=submit]").first.click()
    reader.wait_for_url(re.compile(r"/p/[^/]+$"))
    audit.check("a stale move link", move_urls[1], status=409)
    played = state_of(app, game_id)
    audit.check("public page", f"/games/{store_public_id(server, game_id)}?ply=1")
    check_the_board_reads_as_it_shows(audit, waiter_page, game_id, played, mover)

    # A game for three that one player declines: the others hear it is cancelled.
    sign_in_as(app, client, ANN, ann_name)
    three = {**form, "ruleset": "battleline-3p", "c_name": cat_name, "c_email": CAT}
    assert client.post("/games/new", data=three).status_code == 303
    to_cat = newest(server, MailKind.INVITATION, CAT)
    decline = re.sub(r"^https?://[^/]+", "", link_to(to_cat.text_body, "/decline"))
    audit.check("decline page", decline)
    assert client.post(decline).status_code == 303
    audit.check("player page", "/players/Ann")
    give_a_rating(app, "ann@example.org", game_id)
    audit.check("player page, rated", "/players/Ann")
    audit.check("leaderboard", "/ratings/battleline")

    # "My games", the games page behind it.
    assert client.post("/me", data={"email": BEN}).status_code == 200
    my_games = newest(server, MailKind.MY_GAMES, BEN)
    audit.check("my games page", link_to(my_games.text_body, "/me/"))

    # The waiting player's address bounces: the one to move is told; then every turn email,
    # and the end (by resignation).
    waiting = "B" if state_of(app, game_id).to_move == "A" else "A"
    with app.app_context(), session_scope() as session:
        waiter = read_seats(session, game_id)[waiting][1].id
        assert waiter is not None
        mark_bouncing(session, waiter, "550 5.1.1 no such user")
    with app.app_context(), session_scope() as session:
        confirm(session, waiter)  # the mailbox is back: the running-late note reaches it
    try:
        bring_every_turn_email(app, client, game_id)
    finally:
        app.config.pop("CLOCK_NOW", None)
    audit.check("public page, game over", f"/games/{store_public_id(server, game_id)}")
    audit.check("rematch page", mover_page + "/rematch")
    # A rematch asked for with Ben's seat link in Ann's browser: Ben's own address confirms it.
    ben_page = mover_page if mover_mail == BEN else waiter_page
    asked = client.post(ben_page + "/rematch")
    assert asked.status_code == 303
    audit.check("rematch asked page", asked.headers["Location"])
    rematch_confirm = newest(server, MailKind.REMATCH_CONFIRM, BEN)
    audit.check("rematch confirmation page", link_to(rematch_confirm.text_body, "/rematch/"))
    check_series_and_replies(audit, client, people)
    # A mistyped link: the page repeats the id as it was typed (a code, in every language).
    audit.check("no such page", "/games/nosuchgame0000", status=404)
    audit.check("outbox", "/dev/outbox")
    audit.check("outbox, an email", f"/dev/outbox/{your_turn.id}")

    # The HTML part of every kind of email, as a mail program shows it, and its subject and
    # text part read, all in the language of its recipient: this run's players.
    newest_of_kind = {row.kind: row for row in rows(app) if row.recipient in people.addresses}
    for kind, row in sorted(newest_of_kind.items()):
        audit.check(
            f"email: {kind}",
            f"/dev/outbox/{row.id}/html",
            words=f"{row.subject.removeprefix('Re: ')}\n{row.text_body}",
        )
    # A tournament's emails are read in test_tournament_emails.py (English and Japanese).
    tournament_kinds = {"tournament_entered", "tournament_round", "tournament_over"}
    missing = {kind.value for kind in MailKind} - set(newest_of_kind) - tournament_kinds
    assert not missing, f"no email of these kinds was looked at: {missing}"

    audit.write()
    assert not audit.violations(), audit.violations()
    assert not audit.wrong_language(), f"not lang={language!r}: {audit.wrong_language()}"
    assert not audit.foreign, f"not written in {language!r}: {audit.foreign}"


def give_a_rating(app: Any, email: str, game_id: int) -> None:
    """An established rating for the player, and a rated game's change in its history (the
    player page's chart and the leaderboard have something to show)."""
    with app.app_context(), session_scope() as session:
        player = session.exec(select(Player).where(Player.email == email)).one()
        assert player.id is not None
        rating = session.exec(select(Rating).where(Rating.player_id == player.id)).first()
        if rating is None:
            rating = Rating(
                player_id=player.id, pool="battleline", rating=1500, deviation=60,
                volatility=0.06, games=0, rated_at=clock.now(),
            )  # fmt: skip
        session.add(
            RatingChange(
                game_id=game_id,
                player_id=player.id,
                pool="battleline",
                verdict="counted",
                before=rating.rating,
                after=rating.rating + 12,
                deviation_after=60,
            )
        )
        rating.rating += 12
        rating.games += 1
        rating.rated_at = clock.now()
        session.add(rating)


def check_series_and_replies(audit: Audit, client: Any, people: People) -> None:
    """A series between Ann (signed in) and Ben: its page and the page to leave it; Ben leaves
    (Ann is told). Replies by email to Ann's "your turn" email: a receipt, a refusal, a reply
    from another address (the seat's own address is told), and one whose sender is not proven
    (its confirmation page)."""
    server, app = audit.server, audit.server.app
    ANN, BEN, _ = people.addresses
    series_form = {
        **VALID_FORM, "a_name": people.names[0], "a_email": ANN, "b_name": people.names[1],
        "b_email": BEN, "series": "games", "series_games": "3",
    }  # fmt: skip
    assert client.post("/games/new", data=series_form).status_code == 303
    invitation = newest(server, MailKind.INVITATION, BEN)
    accept = re.sub(r"^https?://[^/]+", "", link_to(invitation.text_body, "/accept"))
    assert client.post(accept).status_code == 303
    game_id = invitation.game_id
    assert game_id is not None
    with app.app_context(), session_scope() as session:
        game = get_game(session, game_id)
        series = session.get(Series, game.series_id)
        assert series is not None
        ben_page = f"/p/{tokens.make_private_token(game_id, 'B', 0)}"
    audit.check("series page", f"/series/{series.public_id}")
    audit.check("leave the series page", ben_page + "/leave-series")
    assert client.post(ben_page + "/leave-series").status_code == 303

    state = state_of(app, game_id)
    mover_mail = ANN if state.to_move == "A" else BEN
    # This game's "your turn" email (not the last one of Ann and Ben's first game).
    # This game's latest email to the player to move (its first turn's email goes on after
    # the commit; the "cards dealt" email is of the same position).
    your_turn = rows(app, recipient=mover_mail, game_id=game_id)[-1]
    # A reply whose sender is not proven: its moves wait for the confirmation link's page.
    app.config["INBOUND_TRUST_FROM"] = False
    try:
        with app.app_context():
            move = engine.legal_moves(state)[0].action_text()
            held = receive(reply_bytes(your_turn, move))
    finally:
        app.config["INBOUND_TRUST_FROM"] = True
    assert held.outcome is Outcome.UNAUTHENTICATED, held
    confirmation = newest(server, MailKind.REPLY_CONFIRM, mover_mail)
    confirm_url = link_to(confirmation.text_body, "/r/")
    audit.check("reply confirmation page", re.sub(r"^https?://[^/]+", "", confirm_url))
    # Words that are no move, in the replier's own language: the refusal quotes them as written.
    nonsense = "xyzzy plugh" if audit.language == "en" else "ふがふが"
    answers = {
        nonsense: (None, Outcome.REFUSED),
        "claim 9": ("someone@example.net", Outcome.OTHER_SENDER),
        engine.legal_moves(state)[0].action_text(): (None, Outcome.APPLIED),
    }
    for text, (sender, outcome) in answers.items():
        with app.app_context():
            received = receive(reply_bytes(your_turn, text, sender=sender))
        assert received.outcome is outcome, (text, received)


def store_public_id(server: LiveServer, game_id: int) -> str:
    with server.app.app_context(), session_scope() as session:
        return get_game(session, game_id).public_id


def check_the_board_reads_as_it_shows(
    audit: Audit, url: str, game_id: int, state: engine.GameState, mover: str
) -> None:
    """The flag where the first card went, in the accessibility tree of the other seat's page:
    a group named for the mover's side and the flag, the card inside it (named in the reader's
    language); the reader's side a group of its own; the flag's number said as a flag."""
    seen = engine.spectator_view(state)
    flag = next(f for f in seen.flags if f.cards[mover])
    app = audit.server.app
    with app.app_context(), session_scope() as session:
        name = read_seats(session, game_id)[mover][1].display_name
    with app.app_context(), recipient_language(audit.language):
        label = card_face(flag.cards[mover][0]).label
    page = audit.page
    page.goto(audit.server.url + url)
    tree = page.locator("ol.line > li").nth(flag.number - 1).aria_snapshot()
    number = rf"(?<!\d){flag.number}(?!\d)"
    # Whatever the word order of the language: the group's name holds the name and the number.
    mover_side = rf'- group "(?=[^"]*{re.escape(name)})(?=[^"]*{number})[^"]*":\s*\n\s*- img "'
    assert re.search(mover_side + re.escape(label) + '"', tree), (label, tree)
    assert len(re.findall(rf'- group "(?=[^"]*{number})[^"]*"', tree)) == 2, tree
    if audit.language == "en":
        assert re.search(rf'- group "{name}, flag {flag.number}":', tree), tree
        assert f'- group "You, flag {flag.number}"' in tree, tree
        assert f"Flag {flag.number}" in tree, tree
