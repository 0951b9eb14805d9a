"""Three people play a whole game for three (``battleline-3p``, advanced claims) through the real
pages in a real browser: one browser context per seat, starting from the development outbox.

Ada has played here before: she asks for her games link, opens it from the outbox and signs her
browser in; then she creates the game with the form, and its two invitations go at once. Ben
and Cat open their invitation emails in the outbox and accept: the cards are dealt after Cat.
Then each seat plays from its private page, pressing a button chosen with a seeded RNG among
those the page offers (a draw chosen in the "Then" list, Scout draws and the cards put back,
Mud discards, claims first when there are any), until the game ends.

At every move the page of the seat to move, and at every new turn all three pages, are checked
against the engine's state in the database: the cards under "Your hand" are that seat's hand,
the page shows no other hand, and no card of another seat's hand appears on it (as a drawn card
or in words; the claim proofs, the cut and the cards the seat itself put back are left out, as in
tests/service/test_leaks.py). The end is shown on all three pages and on the public page.

The deal is fixed: the game's secret seed is SEED (as tests/worker does, while Ada's press
creates the game). Screenshots: test-artefacts/three-players/ (each seat at mid-game and at the
end, and the public page).
"""

from __future__ import annotations

import random
import re
import shutil
from collections import Counter
from collections.abc import Iterator
from unittest import mock

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize, expect

import engine
from service import tokens
from service.db import session_scope
from service.games.loaded import load_game
from service.games.players import find_or_add_player
from service.games.rows import get_game
from service.games.state import load_state
from service.templating import card_face
from tests.browser.conftest import PHONE, REPO, LiveServer, Shots
from tests.browser.test_play_in_browser import new_seat, open_email, status_line
from tests.service.test_leaks import assert_no_card, put_back_by

RULESET = "battleline-3p"
SEED = "browser-3p-1"
"""The game's secret seed: the deal."""
RNG_SEED = 2
"""The buttons the three players press."""
MAX_PLIES = 400
MID_PLY = 50
"""The screenshots "at mid-game" are taken at the first turn from this move on."""
DECIDE_LATER_CHANCE = 0.1
ARTEFACTS = REPO / "test-artefacts" / "three-players"
PLAYERS = {
    "A": ("Ada", "ada@three.example.org"),
    "B": ("Ben", "ben@three.example.org"),
    "C": ("Cat", "cat@three.example.org"),
}
READ_PAGE = """() => {
  const labels = cards => [...cards].map(c => c.getAttribute('aria-label'));
  const heading = [...document.querySelectorAll('h2')]
    .find(h => h.textContent.trim() === 'Your hand');
  const under = heading ? heading.nextElementSibling : null;
  return {
    hand: under && under.classList.contains('hand')
      ? labels(under.querySelectorAll('.card')) : null,
    hands: document.querySelectorAll('.hand').length,
    cards: labels([...document.querySelectorAll('.card')].filter(c => !c.closest('ul.proofs'))),
    html: document.documentElement.outerHTML,
  };
}"""
"""What a check reads of a page, in one round trip: the cards under the "Your hand" heading, how
many hands the page shows, the label of every card drawn on it but in the claim proofs (which
may name any card of the unseen pool, R13), and its HTML."""


@pytest.fixture
def seats(browser: Browser) -> Iterator[dict[str, BrowserContext]]:
    """Three people, three browsers as far as cookies go, at a phone width."""
    phone = ViewportSize(width=PHONE["width"], height=PHONE["height"])
    contexts = {s: browser.new_context(viewport=phone, locale="en-GB") for s in PLAYERS}
    yield contexts
    for context in contexts.values():
        context.close()


@pytest.fixture
def three_shots() -> Shots:
    # Only this run's pictures.
    shutil.rmtree(ARTEFACTS, ignore_errors=True)
    ARTEFACTS.mkdir(parents=True)
    return Shots(ARTEFACTS)


# --- the engine's side ----------------------------------------------------------------------------


def state_of(server: LiveServer, game_id: int) -> engine.GameState:
    with server.app.app_context(), session_scope() as session:
        return load_state(session, load_game(session, game_id))


def labels_of(codes: list[str]) -> list[str]:
    return [card_face(code).label for code in codes]


# --- what a person sees and does ------------------------------------------------------------------


def check_page(page: Page, seat: str, server: LiveServer, game_id: int) -> engine.GameState:
    """The seat's page shows its own hand, and no card of another seat's hand."""
    state = state_of(server, game_id)
    hands = {s: list(engine.player_view(state, s).hand) for s in state.ruleset.seats}
    where = f"{seat}'s page at move {state.ply}"
    seen = page.evaluate(READ_PAGE)
    assert seen["hand"] is not None, f"{where} has no hand under 'Your hand'"
    assert sorted(seen["hand"]) == sorted(labels_of(hands[seat])), where
    assert seen["hands"] == 1, f"{where} shows one hand only"
    known = put_back_by(server.app, game_id)[seat]
    secret = [c for s, hand in hands.items() if s != seat for c in hand if c not in known]
    shown = set(seen["cards"]) & set(labels_of(secret))
    assert not shown, f"{where} draws cards of another seat's hand: {shown}"
    assert_no_card(seen["html"], secret, where)
    return state


def press_a_button(page: Page, rng: random.Random, message: str | None = None) -> str:
    """Press one of the page's move buttons, filling its form the way a person might: a claim
    when there is one; else one of the forms (playing a card, a tactics card, passing, drawing,
    ...), then one of its buttons; a draw (now and then "decide after playing") in the form's
    "Then" list; distinct cards to put back after a Scout; ``message`` typed in the form's
    message field. The move pressed."""
    forms = page.locator("form.moves").filter(has=page.locator("button[name=move]"))
    assert forms.count(), "the seat to move has no move button"
    claims = page.locator("form.moves button[name=move][value^=claim]")
    if claims.count():
        button = claims.first
        form = button.locator("xpath=ancestor::form[1]")
    else:
        form = forms.nth(rng.randrange(forms.count()))
        buttons = form.locator("button[name=move]")
        button = buttons.nth(rng.randrange(buttons.count()))
    move = button.get_attribute("value") or ""
    then = form.locator("select[name=then]")
    if then.count():
        options: list[str] = then.locator("option").evaluate_all("os => os.map(o => o.value)")
        draws = [o for o in options if o]
        later = "" in options and rng.random() < DECIDE_LATER_CHANCE
        then.select_option("" if later or not draws else rng.choice(draws))
    putbacks = form.locator("fieldset.putback")
    if move == "return" and putbacks.count():
        codes: list[str] = putbacks.first.locator("input[type=radio]").evaluate_all(
            "rs => rs.map(r => r.value)"
        )
        for i, code in enumerate(rng.sample(codes, putbacks.count())):
            putbacks.nth(i).locator(f"input[value='{code}']").check()
    if message is not None:
        form.locator("details.message-field > summary").click()
        form.locator("textarea[name=message]").fill(message)
    with page.expect_navigation():
        button.click()
    return move


def kind_of(move: str) -> str:
    """What a move button does, for the summary: "play" a card to a flag, or its first word."""
    first = move.split()[0].lower()
    if ">" in first and not first.startswith(("mud", "fog")):
        return "play"
    return first.split(">")[0]


def game_over_words(seat: str, state: engine.GameState) -> str:
    assert state.result is not None
    winner = state.result.winner
    if winner is None:
        return "a draw"
    return "you won" if winner == seat else f"{PLAYERS[winner][0]} won"


# --- the story ------------------------------------------------------------------------------------


def test_three_seats_play_a_whole_game(
    live_server: LiveServer,
    seats: dict[str, BrowserContext],
    three_shots: Shots,
) -> None:
    server = live_server
    shots = three_shots
    pages = {seat: new_seat(context) for seat, context in seats.items()}
    ada, ben, cat = pages["A"], pages["B"], pages["C"]
    rng = random.Random(RNG_SEED)

    # Ada has played here before (the one reach behind the pages before the seed): she signs her
    # browser in from her games link, emailed to her address.
    with server.app.app_context(), session_scope() as session:
        find_or_add_player(session, PLAYERS["A"][1], PLAYERS["A"][0])
    ada.goto(f"{server.url}/me")
    ada.get_by_label("Your email").fill(PLAYERS["A"][1])
    ada.get_by_role("button", name="Send me the link").click()
    expect(ada.get_by_role("status")).to_contain_text("A link to sign in is on its way")
    open_email(ada, server, PLAYERS["A"][1], "my_games")
    ada.locator("pre a", has_text="/me/").first.click()
    ada.get_by_role("button", name="Sign in on this browser").click()
    # Her first sign-in asks for the name other players will see.
    ada.wait_for_url(re.compile(r"/me/name$"))
    ada.get_by_label("Name", exact=True).fill(PLAYERS["A"][0])
    ada.get_by_role("button", name="Save my name").click()
    ada.wait_for_url(re.compile(r"/players/[^/]+$"))

    # She creates the game for three: signed in, the invitations go at once.
    ada.goto(f"{server.url}/games/new")
    expect(ada.locator("p.notice")).to_contain_text(f"Signed in as {PLAYERS['A'][0]}")
    ada.get_by_label("Your name").fill(PLAYERS["A"][0])
    ada.get_by_label("Your email").fill(PLAYERS["A"][1])
    ada.get_by_label("Opponent's name").fill(PLAYERS["B"][0])
    ada.get_by_label("Opponent's email").fill(PLAYERS["B"][1])
    ada.get_by_label("Game", exact=True).select_option(RULESET)
    ada.get_by_label("Third player's name").fill(PLAYERS["C"][0])
    ada.get_by_label("Third player's email").fill(PLAYERS["C"][1])
    with mock.patch("service.lobby.lifecycle.secrets.token_hex", lambda _n: SEED):
        ada.get_by_role("button", name="Create the game").click()
        ada.wait_for_url(re.compile(r"/p/[^/]+$"))
    expect(ada.locator("h1")).to_contain_text("Ada")
    expect(ada.get_by_text("Waiting for Ben and Cat to accept")).to_be_visible()
    urls = {"A": ada.url}

    # Ben and Cat accept from their invitation emails.
    for seat, page in (("B", ben), ("C", cat)):
        open_email(page, server, PLAYERS[seat][1], "invitation")
        expect(page.locator("pre")).to_contain_text("Ada invites you and")
        page.locator("pre a", has_text="/accept").click()
        page.get_by_role("button", name="Accept and deal").click()
        page.wait_for_url(re.compile(r"/p/[^/]+$"))
        urls[seat] = page.url
    expect(ben.locator("body")).not_to_contain_text("Accept and deal")
    with server.app.app_context():
        game_id = tokens.read_private_token(urls["A"].rsplit("/", 1)[1]).game_id
    with server.app.app_context(), session_scope() as session:
        game = get_game(session, game_id)
        assert game.status == "active" and game.seed == SEED
        public_id = game.public_id

    # They play, each from their own page, until the game ends.
    pressed: Counter[str] = Counter()
    turn = 0
    last_mover = None
    mid_shots = False
    while True:
        state = state_of(server, game_id)
        assert state.ply <= MAX_PLIES, f"the game does not end: {state.ply} moves, seed {SEED}"
        if state.result is not None:
            break
        mover = state.to_move
        if state.turn != turn:
            # A new turn: the pages of the others reloaded (the last mover's page is the one its
            # last press led to), and every page checked.
            turn = state.turn
            for seat, page in pages.items():
                if seat != last_mover:
                    page.goto(urls[seat])
                    check_page(page, seat, server, game_id)
                words = "Your turn" if seat == mover else f"Waiting for {PLAYERS[mover][0]}"
                expect(status_line(page)).to_contain_text(words)
            if not mid_shots and state.ply >= MID_PLY:
                mid_shots = True
                for seat, page in pages.items():
                    shots(page, f"mid-game-{seat}-{PLAYERS[seat][0].lower()}")
        move = press_a_button(pages[mover], rng)
        last_mover = mover
        pressed[kind_of(move)] += 1
        check_page(pages[mover], mover, server, game_id)
    assert mid_shots, "the game ended before mid-game"

    # The end, on every seat's page and on the public page.
    for seat, page in pages.items():
        page.goto(urls[seat])
        check_page(page, seat, server, game_id)
        over = page.locator(".turn.over")
        expect(over).to_contain_text("The game is over")
        expect(over).to_contain_text(game_over_words(seat, state))
        assert page.locator("form.moves button[name=move]").count() == 0
        shots(page, f"end-{seat}-{PLAYERS[seat][0].lower()}")
    public = ben
    public.goto(f"{server.url}/games/{public_id}")
    result = state.result
    assert result is not None
    expect(public.locator(".turn.over")).to_contain_text(
        f"{PLAYERS[result.winner][0]} won by {result.termination}"
        if result.winner
        else f"A draw ({result.termination})"
    )
    expect(public.get_by_text("Hands at this position")).to_be_visible()
    shots(public, "end-public-page")
    print(f"\n{state.ply} moves, {state.turn} turns, {result.describe()}; {dict(pressed)}")
