"""Accessible to everyone (issue 10): axe-core (WCAG 2.1 A and AA, in Debian's chromium) finds no
serious or critical violation on any page, nor in the HTML part of any kind of email; and the
board reads to a screen reader as a sighted player sees it: each side of a flag a group named by
whose cards they are and which flag, its cards inside it.

The games are brought about through the service itself (its test client on the live server's
app and database), the pages and emails are then looked at by the browser. Every violation, of
any impact, is written to test-artefacts/browser/axe.txt.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

import engine
from service import tokens
from service.db import session_scope
from service.games.rows import get_game
from service.games.seats import seats_of
from service.inbound.receive import Outcome, receive
from service.models import Series
from service.outbox import MailKind
from service.outbox.addresses import confirm, mark_bouncing
from service.templating import card_face
from tests.browser.conftest import ARTEFACTS, DESKTOP, Axe, LiveServer
from tests.service.conftest import VALID_FORM, sign_in_as
from tests.service.replies import reply_bytes
from tests.worker.outbox_rows import link_to, links, rows
from tests.worker.turn_games import bring_every_turn_email, state_of

SERIOUS = ("serious", "critical")
ANN, BEN, CAT = "ann@example.org", "ben@example.org", "cat@example.org"


@pytest.fixture
def reader(browser: Browser) -> Iterator[Page]:
    """A desktop browser that lets axe's script in (our pages allow no script at all)."""
    context = browser.new_context(viewport=DESKTOP, locale="en-GB", bypass_csp=True)
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


class Audit:
    """The pages and emails looked at, and what axe found on each."""

    def __init__(self, server: LiveServer, page: Page, axe: Axe) -> None:
        self.server, self.page, self.axe = server, page, axe
        self.found: dict[str, list[dict[str, Any]]] = {}

    def check(self, name: str, url: str, status: int = 200) -> str:
        """Open ``url`` (a path or one of our links), run axe, keep what it found."""
        path = re.sub(r"^https?://[^/]+", "", url)
        response = self.page.goto(self.server.url + path)
        assert response is not None and response.status == status, (name, path)
        self.found[name] = self.axe(self.page)
        return self.page.content()

    def serious(self) -> dict[str, list[str]]:
        """The serious and critical violations, by page or email."""
        found: dict[str, list[str]] = {}
        for name, violations in self.found.items():
            bad = [v for v in violations if v["impact"] in SERIOUS]
            if bad:
                found[name] = [f"{v['id']} ({v['impact']}): {v['help']} {v['nodes']}" for v in bad]
        return found

    def write(self) -> None:
        ARTEFACTS.mkdir(parents=True, exist_ok=True)
        lines = [f"axe-core WCAG 2.1 A/AA, {len(self.found)} pages and emails"]
        for name, found in sorted(self.found.items()):
            lines.append(f"{name}: {len(found)} violation(s)")
            lines += [f"  {v['id']} [{v['impact']}] {v['help']}: {v['nodes']}" for v in found]
        (ARTEFACTS / "axe.txt").write_text("\n".join(lines) + "\n")


def newest(server: LiveServer, kind: str, recipient: str) -> Any:
    found = rows(server.app, kind=kind, recipient=recipient)
    assert found, (kind, recipient)
    return found[-1]


def test_every_page_and_email_passes_axe(live_server: LiveServer, reader: Page, axe: Axe) -> None:
    server, app = live_server, live_server.app
    client = app.test_client()
    audit = Audit(server, reader, axe)
    audit.check("new game form", "/games/new")
    # Our own focus ring, on what the keyboard reaches first (the site's name, a link).
    reader.keyboard.press("Tab")
    ring = reader.evaluate(
        "() => { const e = document.activeElement, s = getComputedStyle(e);"
        " return [e.tagName, s.outlineStyle, s.outlineWidth, s.outlineColor]; }"
    )
    assert ring == ["A", "solid", "3px", "rgb(26, 79, 156)"], ring
    audit.check("watch games", "/games")
    audit.check("my games request", "/me")

    # Ann starts a game against Ben from the form, not signed in: "check your email".
    form = {**VALID_FORM, "a_name": "Ann", "a_email": ANN, "b_name": "Ben", "b_email": BEN}
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
    reader.get_by_role("button", name=re.compile("^(Play|Confirm)")).first.click()
    reader.wait_for_url(re.compile(r"/p/[^/]+$"))
    audit.check("a stale move link", move_urls[1], status=409)
    played = state_of(app, game_id)
    audit.check("public page", f"/games/{store_public_id(server, game_id)}?ply=1")
    check_the_board_reads_as_it_shows(audit, waiter_page, game_id, played, mover)

    # A game for three that one player declines: the others hear it is cancelled.
    sign_in_as(app, client, ANN, "Ann")
    three = {**form, "ruleset": "battleline-3p", "c_name": "Cat", "c_email": CAT}
    assert client.post("/games/new", data=three).status_code == 303
    to_cat = newest(server, MailKind.INVITATION, CAT)
    decline = re.sub(r"^https?://[^/]+", "", link_to(to_cat.text_body, "/decline"))
    audit.check("decline page", decline)
    assert client.post(decline).status_code == 303
    audit.check("player page", "/players/Ann")

    # "My games", the games page behind it.
    assert client.post("/me", data={"email": BEN}).status_code == 200
    my_games = newest(server, MailKind.MY_GAMES, BEN)
    audit.check("my games page", link_to(my_games.text_body, "/me/"))

    # The waiting player's address bounces: the one to move is told; then every turn email,
    # and the end (by resignation).
    waiting = "B" if state_of(app, game_id).to_move == "A" else "A"
    with app.app_context(), session_scope() as session:
        waiter = seats_of(session, game_id)[waiting][1].id
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
    check_series_and_replies(audit, client)
    audit.check("no such page", "/games/no-such-game", status=404)
    audit.check("outbox", "/dev/outbox")
    audit.check("outbox, an email", f"/dev/outbox/{your_turn.id}")

    # The HTML part of every kind of email, as a mail program shows it.
    newest_of_kind = {row.kind: row for row in rows(app)}
    for kind, row in sorted(newest_of_kind.items()):
        audit.check(f"email: {kind}", f"/dev/outbox/{row.id}/html")
    missing = {kind.value for kind in MailKind} - set(newest_of_kind)
    assert not missing, f"no email of these kinds was looked at: {missing}"

    audit.write()
    assert not audit.serious(), audit.serious()


def check_series_and_replies(audit: Audit, client: Any) -> None:
    """A series between Ann (signed in) and Ben: its page and the page to leave it; Ben leaves
    (Ann is told). Replies by email to Ann's "your turn" email: a receipt, a refusal, a reply
    from another address (the seat's own address is told), and one whose sender is not proven
    (its confirmation page)."""
    server, app = audit.server, audit.server.app
    series_form = {
        **VALID_FORM, "a_name": "Ann", "a_email": ANN, "b_name": "Ben", "b_email": BEN,
        "series": "games", "series_games": "3",
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
    answers = {
        "xyzzy plugh": (None, Outcome.REFUSED),
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
    a group named for the mover's side and the flag, the card inside it; the reader's side a
    group of its own; the flag's number said as a flag."""
    seen = engine.spectator_view(state)
    flag = next(f for f in seen.flags if f.cards[mover])
    with audit.server.app.app_context(), session_scope() as session:
        name = seats_of(session, game_id)[mover][1].display_name
    page = audit.page
    page.goto(audit.server.url + url)
    tree = page.locator("ol.line > li").nth(flag.number - 1).aria_snapshot()
    label = card_face(flag.cards[mover][0]).label
    assert re.search(rf'- group "{name}, flag {flag.number}":\s*\n\s*- img "{label}"', tree), tree
    assert f'- group "You, flag {flag.number}"' in tree, tree
    assert f"Flag {flag.number}" in tree, tree
