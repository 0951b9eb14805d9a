"""The "your turn" email and the private page show every tactics card of the hand: the Scout,
Redeploy, Deserter and Traitor with their reply codes and choices (per card they act on), and the
ones a limit keeps in the hand with the engine's reason and when it lifts."""

from __future__ import annotations

import html
import re
from types import SimpleNamespace

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import update
from sqlmodel import col

import engine
from service import tokens
from service.db import session_scope
from service.games.loaded import load_game, lock_loaded_game
from service.games.move_log import move_log
from service.games.state import load_state
from service.lobby.lifecycle import accept_invitation
from service.models import Snapshot
from service.outbox import MailKind
from service.outbox.models import OutboxMessage
from service.present.game_emails import queue_your_turn
from tests.engine.builders import position
from tests.worker.outbox_rows import rows
from tests.worker.turn_games import confirm_and_draw

BOB_HAND = ["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7"]


def your_turn_at(app: Flask, new_game: SimpleNamespace, state: engine.GameState) -> OutboxMessage:
    """Deal the game, put it at ``state`` (A to move, nothing in the log) and queue A's "your
    turn" email for it."""
    assert state.ply == 0 and state.to_move == "A"
    with app.app_context(), session_scope() as session:
        accept_invitation(session, tokens.SeatToken(game_id=new_game.id, seat="B", generation=0))
    with app.app_context(), session_scope() as session:
        loaded = lock_loaded_game(session, new_game.id)
        game = loaded.game
        # The deal's snapshot (the first of its block is never replaced by save_snapshot).
        session.execute(
            update(Snapshot)
            .where(col(Snapshot.game_id) == new_game.id, col(Snapshot.ply) == 0)
            .values(state=engine.state_to_json(state))
        )
        game.to_move = "A"
        session.add(game)
        queue_your_turn(session, loaded, state)
    return rows(app, kind=MailKind.YOUR_TURN, recipient="alice@example.org")[-1]


def said(body: str) -> str:
    """A body's words on one line: the text part's lines wrap, the HTML part's tags go."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())


def test_redeploy_deserter_traitor_and_scout_are_listed_with_their_codes(
    app: Flask, client: FlaskClient, new_game: SimpleNamespace
) -> None:
    state = position(
        claims="advanced",
        flags={
            4: {"A": ["P4", "P6"], "B": ["B8"]},
            5: {"A": ["G7"], "B": ["R3", "R4"], "env": ["MUD:B"]},
        },
        hands={"A": ["R1", "SCOUT", "REDEPLOY", "DESERTER", "TRAITOR"], "B": BOB_HAND},
        ply=0,
    )
    mail = your_turn_at(app, new_game, state)
    text = mail.text_body
    # Not the cards on the board as if they were tactics cards, not "only on the page".
    assert "these need more choices" not in text and "purple 4, purple 6" not in text
    assert "these need more choices" not in mail.html_body
    for line in text.splitlines():
        assert len(line) <= 78 or line.strip().startswith("http"), line
    words = said(text)
    # Each card it acts on, with its code and where it may go.
    assert "purple 4 at flag 4: REDEPLOY P4@4>1, >2, >3, >5, >6, >7, >8, >9, >discard" in words
    assert "green 7 at flag 5: REDEPLOY G7@5>1" in words
    assert "DESERTER B8@4" in words and "DESERTER MUD@5" in words and "DESERTER R3@5" in words
    assert "blue 8 at flag 4: TRAITOR B8@4>1, >2" in words
    assert "red 3 at flag 5: TRAITOR R3@5>1" in words
    assert "SCOUT troops troops tactics return R1" in words
    # Grouped: a line or two per card, not one per move (there are 60 moves).
    tactics = text.split("Play a tactics card:")[1].split("\n--\n")[0].split("Your private page")[0]
    assert len(tactics.strip().splitlines()) < 30
    assert len(engine.legal_moves(state)) > 60
    # The HTML part: the same, each destination a move link.
    page = said(mail.html_body)
    assert "REDEPLOY CARD@FROM>TO" in page and "DESERTER CARD@FLAG" in page
    found = re.search(r'<a href="([^"]+)"[^>]*title="REDEPLOY P4@4&gt;5"', mail.html_body)
    assert found is not None
    assert confirm_and_draw(client, html.unescape(found.group(1))) == 303
    with app.app_context(), session_scope() as session:
        log = [e.notation for e in move_log(session, new_game.id)]
    assert log[0] == "A: REDEPLOY P4@4>5"


def test_a_tactics_card_kept_by_a_limit_says_why_and_until_when(
    app: Flask, client: FlaskClient, new_game: SimpleNamespace
) -> None:
    state = position(
        claims="advanced",
        flags={1: {"A": ["ALEXANDER"], "B": ["B1"]}},
        hands={"A": ["R1", "FOG", "DARIUS"], "B": BOB_HAND},
        tactics_played=(1, 0),
        leader_played=(True, False),
        ply=0,
    )
    mail = your_turn_at(app, new_game, state)
    for body in (mail.text_body, mail.html_body):
        words = said(body)
        assert "Not playable now" in words
        assert "playable once Bob has played one" in words
        assert "you have played 1 tactics card, Bob 0 tactics cards" in words
        assert "one Leader a game" in words
    text = said(mail.text_body)
    assert "Fog (FOG): you have played 1 tactics card" in text
    assert "Darius (DARIUS): you have played a Leader already" in text
    # The private page says the same, under the hand.
    with app.app_context(), session_scope() as session:
        assert load_state(session, load_game(session, new_game.id)) == state
        token = tokens.make_private_token(new_game.id, "A", 0)
    page = said(client.get(f"/p/{token}").get_data(as_text=True))
    assert "Fog not playable now : you have played 1 tactics card, Bob 0 tactics cards" in page
    assert "playable once Bob has played one" in page
    assert "this one stays in your hand to the end" in page
