"""Two people play through the real pages in a real browser: one browser context per seat.

Alice creates a game with the form, confirms her address from the email (the development
outbox page stands in for a mailbox), Bob accepts from his invitation email, and they play a few
turns from their private pages, including a Scout: Bob plays it, draws three cards choosing each
deck after seeing the card before, and puts two back in the order he chooses. The other seat's
page shows the new board after a reload, the move lists grow, and the cards Bob put back are
drawn next, in his order.

The deal is fixed: right after creation the test gives the game a known seed in the database
(as an operator could), before Bob's acceptance deals from it. SEED deals Scout on top of the
tactics deck, and Bob plays first.

Screenshots of every step: test-artefacts/browser/ (a phone and a desktop width).
"""

from __future__ import annotations

import re

from playwright.sync_api import BrowserContext, Locator, Page, expect

import engine
from service import tokens
from service.db import session_scope
from service.games.rows import lock_game
from tests.browser.conftest import PHONE, LiveServer, Shots

SEED = "browser-scout-4"
RULESET = "battleline"
TIMEOUT_MS = 10_000


def test_seed_deals_what_the_story_needs() -> None:
    deal = engine.deal_from_seed(engine.get_ruleset(RULESET), SEED)
    assert deal.first == "B"
    assert deal.tactics[:2] == ("SCOUT", "FOG")
    assert deal.troops[:3] == ("P7", "G9", "R8")
    assert "P8" in deal.hands[1] and {"P1", "B3"} <= set(deal.hands[1])
    assert {"B7", "B6"} <= set(deal.hands[0])


# --- what a person sees -------------------------------------------------------------------------


def card_labels(where: Locator) -> list[str]:
    """The cards drawn under ``where``, as a screen reader names them ("blue 7", "Scout")."""
    labels: list[str] = where.locator(".card").evaluate_all(
        "cards => cards.map(c => c.getAttribute('aria-label'))"
    )
    return labels


def hand(page: Page) -> list[str]:
    return card_labels(page.locator("div.hand"))


def flag_side(page: Page, flag: int, where: str) -> list[str]:
    """The cards on one side ("left": the opponent's, "right": mine) of a flag."""
    return card_labels(page.locator("ol.line > li").nth(flag - 1).locator(f".side.{where}"))


def latest_moves(page: Page) -> list[str]:
    # The "Latest moves" list (the others' last turn, at the top, is another).
    return [text.strip() for text in page.locator("ol.log:not(.others) > li").all_inner_texts()]


def status_line(page: Page) -> Locator:
    return page.locator("[role=status]").first


def open_email(page: Page, server: LiveServer, recipient: str, kind: str) -> None:
    """Open the newest email of ``kind`` to ``recipient`` from the development outbox."""
    page.goto(f"{server.url}/dev/outbox")
    row = page.locator("tbody tr", has_text=recipient).filter(has_text=kind).first
    row.locator("td").nth(2).get_by_role("link").click()
    expect(page.locator("dl.facts")).to_contain_text(recipient)


def open_html_email(page: Page) -> None:
    """From an email's outbox page to its HTML body, as a mail program shows it."""
    page.get_by_role("link", name="Open the HTML on its own").click()
    expect(page.locator("body")).to_contain_text("Battle Line by mail")


def play_card(page: Page, card: str, flag: int, then: str) -> None:
    """Play ``card`` (a label, "purple 8") to ``flag`` with the follow-up chosen in the form."""
    form = page.locator("form.moves").filter(
        has=page.get_by_role("heading", name="Play a card to a flag")
    )
    form.locator("select[name=then]").select_option(then)
    form.get_by_role("button", name=f"{card} to flag {flag}", exact=True).click()


def new_seat(context: BrowserContext) -> Page:
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    return page


# --- the story ------------------------------------------------------------------------------------


def test_two_seats_play_with_a_scout(
    live_server: LiveServer, browser_contexts: tuple[BrowserContext, BrowserContext], shots: Shots
) -> None:
    server = live_server
    alice = new_seat(browser_contexts[0])
    bob = new_seat(browser_contexts[1])

    # Alice creates the game with the form.
    alice.goto(f"{server.url}/games/new")
    expect(alice.locator("h1")).to_have_text("Start a game")
    alice.get_by_label("Your name").fill("Alice")
    alice.get_by_label("Your email").fill("alice@example.org")
    alice.get_by_label("Opponent's name").fill("Bob")
    alice.get_by_label("Opponent's email").fill("bob@example.org")
    alice.get_by_label("Game", exact=True).select_option(RULESET)
    shots(alice, "alice-new-game-form")
    alice.get_by_role("button", name="Create the game").click()
    # Not signed in: the form's sender gets no link, only "check your email".
    alice.wait_for_url(re.compile(r"/games/new/sent$"))
    expect(alice.locator("h1")).to_have_text("Check your email")
    shots(alice, "alice-created")

    # Alice opens her game from the email to her address and sends the invitation.
    open_email(alice, server, "alice@example.org", "confirm_address")
    expect(alice.locator("pre a", has_text="/p/")).to_have_count(1)
    # The HTML body shows in its frame (the outbox's policy lets emails' inline styles in).
    expect(
        alice.frame_locator("iframe.mail-html").get_by_role("link", name="Open my game")
    ).to_be_visible()
    shots(alice, "alice-confirmation-email")
    open_html_email(alice)
    shots(alice, "alice-confirmation-email-html")
    alice.get_by_role("link", name="Open my game").click()
    alice.wait_for_url(re.compile(r"/p/[^/]+$"))
    expect(alice.locator("h1")).to_have_text("Alice vs Bob")
    alice_private = alice.url

    # The test's one reach behind the pages: a known seed before the deal (see the docstring).
    with server.app.app_context():
        game_id = tokens.read_private_token(alice_private.rsplit("/", 1)[1]).game_id
        with session_scope() as session:
            game = lock_game(session, game_id)
            assert game.deal is None, "the seed must be set before the deal"
            game.seed = SEED
            game.seed_commitment = engine.seed_commitment(SEED)
            session.add(game)

    alice.get_by_role("button", name="Send the invitation").click()
    expect(alice.get_by_text("Waiting for Bob to accept")).to_be_visible()
    shots(alice, "alice-invitation-sent")

    # Bob accepts from his invitation email: the game is dealt.
    open_email(bob, server, "bob@example.org", "invitation")
    expect(bob.locator("pre")).to_contain_text("Alice invites you")
    shots(bob, "bob-invitation-email")
    open_html_email(bob)
    shots(bob, "bob-invitation-email-html")
    bob.get_by_role("link", name="Accept", exact=True).click()
    expect(bob.get_by_role("button", name="Accept and deal")).to_be_visible()
    shots(bob, "bob-accept-page")
    bob.get_by_role("button", name="Accept and deal").click()
    bob.wait_for_url(re.compile(r"/p/[^/]+$"))
    expect(status_line(bob)).to_contain_text("Your turn")
    bob_hand = hand(bob)
    assert sorted(bob_hand) == sorted(
        ["purple 2", "purple 8", "blue 3", "orange 6", "blue 5", "yellow 6", "purple 1"]
    )
    assert bob.locator("div.hand .card").first.is_visible()
    assert latest_moves(bob) == []
    shots(bob, "bob-dealt-his-turn")

    alice.goto(alice_private)
    expect(status_line(alice)).to_contain_text("Waiting for Bob")
    assert "blue 7" in hand(alice)
    assert alice.locator("form.moves button[name=move]").count() == 0, "not her turn: no moves"
    shots(alice, "alice-dealt-waiting")

    # Move 1-2 (Bob): purple 8 to flag 5, then the tactics deck: the Scout.
    play_card(bob, "purple 8", 5, "draw tactics")
    expect(status_line(bob)).to_contain_text("Waiting for Alice")
    assert flag_side(bob, 5, "right") == ["purple 8"]
    assert "Scout" in hand(bob) and "purple 8" not in hand(bob)
    assert len(latest_moves(bob)) == 2
    shots(bob, "bob-played-drew-scout")

    alice.reload()
    expect(status_line(alice)).to_contain_text("Your turn")
    assert flag_side(alice, 5, "left") == ["purple 8"], "Bob's card shows on Alice's board"
    assert len(latest_moves(alice)) == 2
    assert "Scout" not in card_labels(alice.locator("ol.log")), "Bob's draw is not shown"
    shots(alice, "alice-sees-bobs-card")

    # Move 3-4 (Alice): blue 7 to flag 5, then a troop (purple 7).
    play_card(alice, "blue 7", 5, "draw troops")
    expect(status_line(alice)).to_contain_text("Waiting for Bob")
    assert "purple 7" in hand(alice)
    assert len(latest_moves(alice)) == 4
    shots(alice, "alice-played")

    # Move 5- (Bob): the Scout.
    bob.reload()
    expect(status_line(bob)).to_contain_text("Your turn")
    assert flag_side(bob, 5, "left") == ["blue 7"]
    bob.get_by_role("button", name=re.compile("^Scout")).click()
    expect(status_line(bob)).to_contain_text("You are scouting: draw up to three cards")
    assert "Scout" not in hand(bob)
    shots(bob, "bob-scouting")

    bob.get_by_role("button", name=re.compile("^Draw from the troop deck")).click()
    expect(status_line(bob)).to_contain_text("1 card drawn")
    assert "green 9" in hand(bob)
    # Seen the green 9: now the tactics deck.
    bob.get_by_role("button", name=re.compile("^Draw from the tactics deck")).click()
    expect(status_line(bob)).to_contain_text("2 cards drawn")
    assert "Fog" in hand(bob)
    shots(bob, "bob-scout-two-drawn")
    bob.get_by_role("button", name=re.compile("^Draw from the troop deck")).click()
    expect(status_line(bob)).to_contain_text("three cards drawn")
    assert "red 8" in hand(bob)
    assert bob.get_by_role("button", name=re.compile("^Draw from")).count() == 0
    assert len(hand(bob)) == 9
    shots(bob, "bob-scout-put-back-form")

    # Put back purple 1 first, then blue 3, which ends on top of the troop deck.
    putback = bob.locator("fieldset.putback")
    expect(putback).to_have_count(2)
    putback.nth(0).locator("input[value=P1]").check()
    putback.nth(1).locator("input[value=B3]").check()
    shots(bob, "bob-scout-chosen")
    bob.get_by_role("button", name=re.compile("^Put these back")).click()
    expect(status_line(bob)).to_contain_text("Waiting for Alice")
    assert sorted(hand(bob)) == sorted(
        ["purple 2", "orange 6", "blue 5", "yellow 6", "green 9", "Fog", "red 8"]
    )
    bob_log = card_labels(bob.locator("ol.log"))
    assert "purple 1" in bob_log and "blue 3" in bob_log, "his own page names what he put back"
    bob_moves = len(latest_moves(bob))
    assert bob_moves == 10, "play, draw, play, draw, Scout, three draws, put back, end"
    shots(bob, "bob-scouted")

    alice.reload()
    expect(status_line(alice)).to_contain_text("Your turn")
    alice_log = card_labels(alice.locator("ol.log"))
    assert "Scout" in alice_log
    assert "purple 1" not in alice_log and "blue 3" not in alice_log, "returned cards stay secret"
    assert len(latest_moves(alice)) == bob_moves
    shots(alice, "alice-sees-scout")

    # Alice draws the card Bob put on top: blue 3.
    play_card(alice, "blue 6", 4, "draw troops")
    expect(status_line(alice)).to_contain_text("Waiting for Bob")
    assert "blue 3" in hand(alice)
    assert flag_side(alice, 4, "right") == ["blue 6"]
    shots(alice, "alice-drew-bobs-card")

    # And Bob the one under it: purple 1.
    bob.reload()
    assert flag_side(bob, 4, "left") == ["blue 6"]
    play_card(bob, "green 9", 1, "draw troops")
    expect(status_line(bob)).to_contain_text("Waiting for Alice")
    assert "purple 1" in hand(bob)
    shots(bob, "bob-drew-his-own-card")

    # The public page replays the game move by move.
    public = bob.get_by_role("link", name="The whole game, move by move")
    public.click()
    expect(bob.locator("#position")).to_contain_text("Position")
    expect(bob.locator("#position")).to_have_text("Position 14 of 14")
    assert len(latest_moves(bob)) == 14, "the public page lists every move"
    # Each move of the list links to the position after it; turns number the moves.
    bob.locator("ol.log > li").nth(1).get_by_role("link").click()
    expect(bob.locator("#position")).to_have_text("Position 2 of 14")
    assert bob.url.endswith("?ply=2")
    assert card_labels(bob.locator("ol.line")) == ["purple 8"], "the board after move 2"
    expect(bob.get_by_text("Hands at this position")).to_have_count(0)
    shots(bob, "public-replay-ply-2")
    assert bob.viewport_size == PHONE
