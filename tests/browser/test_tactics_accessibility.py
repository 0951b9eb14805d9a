"""The tactics cards of a "your turn" email (their targets as move links, the cards a limit
keeps in the hand) and of the private page pass axe-core (WCAG 2.1 A/AA) with no violation, in
each language, and are written in it (tests/language_check.py)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from playwright.sync_api import Browser

from service import tokens
from service.db import session_scope
from service.i18n import LANGUAGE_CODES
from service.lobby.forms import parse_new_game
from service.lobby.lifecycle import create_game
from tests.browser.conftest import Axe, LiveServer
from tests.browser.test_accessibility import reading_page
from tests.engine.builders import position
from tests.language_check import english_words, japanese_in, visible_text
from tests.service.conftest import VALID_FORM, sign_in_as
from tests.service.test_turn_email_tactics import BOB_HAND, your_turn_at

NAMES = (VALID_FORM["a_name"], VALID_FORM["b_name"])


@pytest.mark.parametrize("language", LANGUAGE_CODES)
def test_tactics_in_the_email_and_on_the_page_pass_axe(
    live_server: LiveServer, browser: Browser, axe: Axe, language: str
) -> None:
    app = live_server.app
    # Alice chooses the language with the switch while signed in: her emails follow it.
    client = app.test_client()
    sign_in_as(app, client, VALID_FORM["a_email"], VALID_FORM["a_name"])
    assert client.post("/language", data={"language": language, "next": "/me"}).status_code == 303
    with app.app_context(), session_scope() as session:
        game, _ = create_game(session, parse_new_game(VALID_FORM))
        assert game.id is not None
        game_id = game.id
    state = position(
        claims="advanced",
        flags={
            4: {"A": ["P4", "P6"], "B": ["B8"]},
            5: {"A": ["G7"], "B": ["R3", "R4"], "env": ["MUD:B"]},
        },
        hands={"A": ["R1", "SCOUT", "REDEPLOY", "DESERTER", "TRAITOR", "DARIUS"], "B": BOB_HAND},
        tactics_played=(1, 1),
        leader_played=(True, False),
        ply=0,
    )
    mail = your_turn_at(app, SimpleNamespace(id=game_id), state)
    with app.app_context():
        token = tokens.make_private_token(game_id, "A", 0)
    found, declared, foreign = {}, {}, {}
    with reading_page(browser, language) as reader:
        for name, path in (("email", f"/dev/outbox/{mail.id}/html"), ("page", f"/p/{token}")):
            response = reader.goto(live_server.url + path)
            assert response is not None and response.status == 200, path
            found[name] = axe(reader)
            declared[name] = reader.evaluate("() => document.documentElement.lang")
            text = visible_text(reader.content(), language)
            if name == "email":
                text = f"{mail.subject}\n{mail.text_body}\n{text}"
            wrong = english_words(text, NAMES) if language == "ja" else japanese_in(text, NAMES)
            if wrong:
                foreign[name] = wrong
    assert found == {"email": [], "page": []}, found
    assert declared == {"email": language, "page": language}
    assert not foreign, f"not written in {language!r}: {foreign}"
