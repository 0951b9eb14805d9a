"""Two people who do not know each other's address meet in the lobby and play a whole game,
talking with their moves, in a real browser (issue 24): one browser context each.

Marisol has played here before (the one reach behind the pages: her player row); Thaddeus is
new to the site. Each asks for the sign-in link on the "my games" page and signs in from the
email (the development outbox stands in for a mailbox): Thaddeus's makes him a player. Each
chooses the name other players will see.
Marisol posts a challenge with a message; Thaddeus finds it in the lobby and accepts: the cards
are dealt and he is on his private page; she opens hers from her game-started email. They play to
the end, each pressing a button chosen with a seeded RNG among those their page offers. Their
first moves carry messages typed in the private page's message field; Thaddeus's second turn is a
reply by email, typed into his "your turn" email's reply box with a message above the moves;
Marisol answers from her page. Each reads the other's messages in the page's conversation, beside
the sender's name, which links to the sender's player page: there each finds the finished game.

Screenshots: test-artefacts/browser/ (the lobby, both conversations, both player pages).
"""

from __future__ import annotations

import random
import re

from playwright.sync_api import BrowserContext, Locator, Page, expect

import engine
from service import tokens
from service.db import session_scope
from service.games.players import find_or_add_player
from service.games.rows import get_game
from tests.browser.conftest import LiveServer, Shots
from tests.browser.test_play_in_browser import new_seat, open_email, status_line
from tests.browser.test_three_players_in_browser import press_a_button, state_of
from tests.service.replies import turn_text

MARISOL = ("Marisol Vantongeren", "marisol@lobby-meet.example.org")
THADDEUS = ("Thaddeus Okonkwo", "thaddeus@lobby-meet.example.org")
"""Names no other browser test of the session chooses (names are unique)."""
RNG_SEED = 24
MAX_PLIES = 400
CHALLENGE_MESSAGE = "Anyone for a game? Three days a move suits me."
SAID = {
    "A1": "Hello Thaddeus, good luck!",
    "B1": "Thanks Marisol, the same to you.",
    "B2 by email": "Writing from my mail program this time.",
    "A2": "Got your words from the mail program.",
}
"""What they say, by seat and turn of theirs (A: Marisol's seat, B: Thaddeus's)."""


def sign_in_and_choose_a_name(page: Page, server: LiveServer, name: str, address: str) -> None:
    """Ask for the "my games" link, open it from the outbox, sign this browser in, choose the
    name (asked at the first sign-in)."""
    page.goto(f"{server.url}/me")
    page.get_by_label("Your email").fill(address)
    page.get_by_role("button", name="Send me the link").click()
    expect(page.get_by_role("status")).to_contain_text("A link to sign in is on its way")
    open_email(page, server, address, "my_games")
    page.locator("pre a", has_text="/me/").first.click()
    page.get_by_role("button", name="Sign in on this browser").click()
    page.wait_for_url(re.compile(r"/me/name$"))
    page.get_by_label("Name", exact=True).fill(name)
    page.get_by_role("button", name="Save my name").click()
    page.wait_for_url(re.compile(r"/players/[^/]+$"))
    expect(page.locator("h1")).to_have_text(name)


def reply_by_email(page: Page, server: LiveServer, address: str, words: str, turn: str) -> None:
    """Answer the newest "your turn" email from its reply box: ``words``, then the moves."""
    open_email(page, server, address, "your_turn")
    page.get_by_label("Reply as").fill(f"{words}\n{turn}")
    page.get_by_role("button", name="Send the reply").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Played")


def conversation(page: Page) -> Locator:
    return page.locator("#conversation ol.messages > li")


def expect_said(page: Page, sender: str, words: str) -> None:
    """The page's conversation has ``words`` beside ``sender`` ("You", or a linked name)."""
    line = conversation(page).filter(has_text=words)
    expect(line).to_have_count(1)
    if sender == "You":
        expect(line.locator("strong")).to_have_text("You")
    else:
        expect(line.locator("strong").get_by_role("link", name=sender, exact=True)).to_be_visible()
    expect(line.locator(".message-body")).to_have_text(words)


def test_strangers_meet_in_the_lobby_and_play_a_whole_game_talking(
    live_server: LiveServer, browser_contexts: tuple[BrowserContext, BrowserContext], shots: Shots
) -> None:
    server = live_server
    marisol, thaddeus = new_seat(browser_contexts[0]), new_seat(browser_contexts[1])
    with server.app.app_context(), session_scope() as session:
        find_or_add_player(session, MARISOL[1], MARISOL[0].split()[0])
    sign_in_and_choose_a_name(marisol, server, *MARISOL)
    sign_in_and_choose_a_name(thaddeus, server, *THADDEUS)

    # Marisol posts a challenge with a message.
    marisol.goto(f"{server.url}/lobby")
    marisol.locator("#post-ruleset").select_option("battleline")
    marisol.locator("#post-days").fill("3")
    marisol.locator("#post-message").fill(CHALLENGE_MESSAGE)
    marisol.get_by_role("button", name="Post the challenge").click()
    marisol.wait_for_url(re.compile(r"/lobby$"))
    expect(marisol.get_by_text("Your challenge: Battle Line, 3 days per move.")).to_be_visible()

    # Thaddeus finds it in the lobby (her name, never her address) and accepts.
    thaddeus.goto(f"{server.url}/lobby")
    offer = thaddeus.locator("ul.challenges > li").filter(has_text=f"{MARISOL[0]} offers")
    expect(offer).to_have_count(1)
    expect(offer.locator("blockquote.message")).to_have_text(CHALLENGE_MESSAGE)
    expect(thaddeus.locator("main")).not_to_contain_text(MARISOL[1])
    shots(thaddeus, "meet-lobby-challenge")
    offer.get_by_role("button", name="Accept and start the game").click()
    thaddeus.wait_for_url(re.compile(r"/p/[^/]+$"))
    urls = {"B": thaddeus.url}

    # Marisol opens her game from its game-started email.
    open_email(marisol, server, MARISOL[1], "game_started")
    marisol.locator("pre a", has_text="/p/").first.click()
    marisol.wait_for_url(re.compile(r"/p/[^/]+$"))
    urls["A"] = marisol.url
    with server.app.app_context():
        game_id = tokens.read_private_token(urls["A"].rsplit("/", 1)[1]).game_id
        assert tokens.read_private_token(urls["B"].rsplit("/", 1)[1]).game_id == game_id
    pages = {"A": marisol, "B": thaddeus}
    addresses = {"A": MARISOL[1], "B": THADDEUS[1]}
    names = {"A": MARISOL[0], "B": THADDEUS[0]}

    # They play to the end, talking with their first moves; at the start of each of their first
    # turns, each reads on their page what the other has said so far.
    rng = random.Random(RNG_SEED)
    turns_played = {"A": 0, "B": 0}
    said: list[str] = []
    shot_email_read = False
    turn = -1
    while True:
        state = state_of(server, game_id)
        assert state.ply <= MAX_PLIES, f"the game does not end: {state.ply} moves"
        if state.result is not None:
            break
        mover = state.to_move
        page = pages[mover]
        message = None
        if state.turn != turn:
            turn = state.turn
            turns_played[mover] += 1
            key = f"{mover}{turns_played[mover]}"
            if f"{key} by email" in SAID:
                words = SAID[f"{key} by email"]
                reply_by_email(page, server, addresses[mover], words, turn_text(state))
                said.append(f"{key} by email")
                continue
            page.goto(urls[mover])
            expect(status_line(page)).to_contain_text("Your turn")
            if turns_played[mover] <= 3:
                for heard in (k for k in said if not k.startswith(mover)):
                    expect_said(page, names[heard[0]], SAID[heard])
            if mover == "A" and "B2 by email" in said and not shot_email_read:
                shot_email_read = True
                shots(page, "meet-marisol-reads-the-email-message")
            message = SAID.get(key)
            if message is not None:
                said.append(key)
        elif page.url != urls[mover]:
            page.goto(urls[mover])
        press_a_button(page, rng, message)
    assert all(n >= 3 for n in turns_played.values()), turns_played
    assert sorted(said) == sorted(SAID), said

    # The end: each reads the whole conversation, then opens the other's player page from the
    # name beside their messages, and finds the finished game there.
    with server.app.app_context(), session_scope() as session:
        public_id = get_game(session, game_id).public_id
    for seat, other in (("A", "B"), ("B", "A")):
        page = pages[seat]
        page.goto(urls[seat])
        expect(page.locator(".turn.over")).to_contain_text("The game is over")
        for key, words in SAID.items():
            expect_said(page, "You" if key.startswith(seat) else names[other], words)
        shots(page, f"meet-conversation-{seat}")
        said_by_other = conversation(page).filter(has_text=SAID[f"{other}1"])
        said_by_other.get_by_role("link", name=names[other], exact=True).click()
        page.wait_for_url(re.compile(r"/players/[^/]+$"))
        expect(page.locator("h1")).to_have_text(names[other])
        finished = page.locator("ul.game-list").last
        expect(page.get_by_role("heading", name="Finished games")).to_be_visible()
        game_line = finished.locator("li").filter(
            has=page.locator(f"a[href$='/games/{public_id}']")
        )
        expect(game_line).to_have_count(1)
        expect(game_line.get_by_role("link", name=names[seat], exact=True)).to_be_visible()
        shots(page, f"meet-player-page-seen-by-{seat}")
    result = state.result
    assert result is not None
    print(f"\n{state.ply} moves, {state.turn} turns, {result.describe()}")


def test_the_email_message_is_read_as_words_not_moves() -> None:
    """The words of Thaddeus's reply are its message, whatever the deal: never a move the
    reader would refuse."""
    from service.present.reply_chat import chat_message
    from service.present.reply_reading import read_turn

    ruleset = engine.get_ruleset("battleline")
    for seed in ("a", "b", "c"):
        state = engine.start(
            ruleset, engine.ClaimTiming.ADVANCED, engine.deal_from_seed(ruleset, seed)
        )
        text = f"{SAID['B2 by email']}\n{turn_text(state)}"
        reading = read_turn(text, state, state.to_move)
        assert reading.playable, reading.problem
        assert chat_message(text, reading, ruleset) == SAID["B2 by email"]
