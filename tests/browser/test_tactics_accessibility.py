"""The tactics cards of a "your turn" email (their targets as move links, the cards a limit
keeps in the hand) and of the private page pass axe-core (WCAG 2.1 A/AA) with no violation."""

from __future__ import annotations

from types import SimpleNamespace

from playwright.sync_api import Page

from service import tokens
from service.db import session_scope
from service.lobby.forms import parse_new_game
from service.lobby.lifecycle import create_game
from tests.browser.conftest import Axe, LiveServer
from tests.browser.test_accessibility import reader  # noqa: F401  (the fixture)
from tests.engine.builders import position
from tests.service.conftest import VALID_FORM
from tests.service.test_turn_email_tactics import BOB_HAND, your_turn_at


def test_tactics_in_the_email_and_on_the_page_pass_axe(
    live_server: LiveServer,
    reader: Page,  # noqa: F811
    axe: Axe,
) -> None:
    app = live_server.app
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
    found = {}
    for name, path in (("email", f"/dev/outbox/{mail.id}/html"), ("page", f"/p/{token}")):
        response = reader.goto(live_server.url + path)
        assert response is not None and response.status == 200, path
        found[name] = axe(reader)
    assert found == {"email": [], "page": []}, found
