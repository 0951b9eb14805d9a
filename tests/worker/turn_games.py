"""Games driven to a given moment, and the links of the turn emails, for the turn tests (eager
mode in tests/service/test_turns*.py, the real worker in tests/worker)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any
from unittest import mock

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

import engine
from service.db import session_scope
from service.games.loaded import load_game
from service.games.preferences import TurnPreferences, set_player_defaults
from service.games.rows import get_game
from service.games.seats import read_seats
from service.games.state import apply_moves, load_state
from service.models import Game, Player
from tests.service.play_driver import forms_of
from tests.worker.outbox_rows import link_to, path_of, rows

MOVE_LINK = re.compile(r"https?://[^\s<>\"']+/m/[^/\s<>\"']+/\d+")


def move_links(text: str) -> list[str]:
    """The move links of an email, in order."""
    found: list[str] = []
    for url in MOVE_LINK.findall(text):
        if url not in found:
            found.append(url)
    return found


def confirm_and_draw(client: FlaskClient, url: str, *, then: str | None = None) -> int:
    """Open a move link (GET: the confirm page), then press its button with the first draw the
    page offers (or ``then``). Returns the status of the POST."""
    page = client.get(path_of(url))
    assert page.status_code == 200, (url, page.get_data(as_text=True)[-2000:])
    (form,) = [f for f in forms_of(page.get_data(as_text=True)) if f.method == "post"]
    data = dict(form.hidden)
    if "then" in form.selects:
        data["then"] = then if then is not None else form.selects["then"][0]
    return client.post(form.action, data=data).status_code


def create_confirm_accept(
    app: Flask, client: FlaskClient, form: dict[str, str], *, seed: str | None = None
) -> int:
    """Create a game with the form, send its invitation from the private page whose link the
    creator's email brings, and accept as B by the links of the emails (eager mode: the outbox
    rows). Returns the game id."""
    with (
        mock.patch("service.lobby.lifecycle.secrets.token_hex", lambda _n: seed)
        if seed
        else (_nothing())
    ):
        assert client.post("/games/new", data=form).status_code == 303
    confirmation = rows(app, kind="confirm_address")[-1]
    private = path_of(link_to(confirmation.text_body, "/p/"))
    assert client.post(f"{private}/invite").status_code == 303
    invitation = rows(app, kind="invitation")[-1]
    assert client.post(path_of(link_to(invitation.text_body, "/accept"))).status_code == 303
    assert invitation.game_id is not None
    return invitation.game_id


@contextmanager
def _nothing() -> Iterator[None]:
    yield


def set_preferences(app: Flask, email: str, **chosen: bool) -> None:
    with app.app_context(), session_scope() as session:
        player = session.exec(select(Player).where(Player.email == email)).one()
        set_player_defaults(session, player, TurnPreferences(**chosen))


def state_of(app: Flask, game_id: int) -> engine.GameState:
    with app.app_context(), session_scope() as session:
        return load_state(session, load_game(session, game_id))


def game_row(app: Flask, game_id: int) -> Game:
    with app.app_context(), session_scope() as session:
        return get_game(session, game_id)


def plain_turn(state: engine.GameState) -> list[engine.Move]:
    """One whole turn that claims nothing: the first legal non-claim move, then the first draw
    or end when the turn goes on."""
    legal = [m for m in engine.legal_moves(state) if m.action is not engine.Action.CLAIM]
    move = legal[0]
    after, _ = engine.apply(state, move)
    turn = [move]
    if (
        after.result is None
        and after.mover == state.mover
        and after.phase is engine.Phase.AFTER_PLAY
    ):
        follow = [
            m
            for m in engine.legal_moves(after)
            if m.action in (engine.Action.DRAW, engine.Action.END)
        ]
        turn.append(follow[0])
    return turn


def play_until_claimable(app: Flask, game_id: int, limit: int = 200) -> engine.GameState:
    """Play whole turns that claim nothing, with the start of turns held back (as if the
    ``start_turn`` task had not run yet), until the player to move could prove a flag at the
    start of their turn. The turn's start is then still to be handled."""
    with mock.patch("service.turns.start.dispatch"):
        for _ in range(limit):
            state = state_of(app, game_id)
            assert state.result is None
            if state.phase is engine.Phase.START and engine.automatic_claims(state):
                return state
            with app.app_context(), session_scope() as session:
                apply_moves(session, game_id, state.to_move, state.ply, plain_turn(state))
    raise AssertionError("no provable claim came up")


def play_to_the_end(app: Flask, game_id: int, limit: int = 200) -> engine.GameState:
    """Play whole plain turns (``plain_turn``) until the game ends; its last position."""
    for _ in range(limit):
        state = state_of(app, game_id)
        if state.result is not None:
            return state
        with app.app_context(), session_scope() as session:
            apply_moves(session, game_id, state.to_move, state.ply, plain_turn(state))
    raise AssertionError("the game did not end")


def claims_made(state: engine.GameState) -> tuple[list[engine.Move], engine.GameState]:
    """The automatic claims the start of this turn makes (R21: they stop at the one that wins
    the game), and the state after them."""
    made: list[engine.Move] = []
    for claim in engine.automatic_claims(state):
        state, _ = engine.apply(state, claim)
        made.append(claim)
        if state.result is not None:
            break
    return made, state


def at(app: Flask, moment: datetime) -> None:
    """Move the service's clock (``service.clock``) to ``moment``."""
    app.config["CLOCK_NOW"] = moment


def email_kinds(app: Flask, game_id: int | None = None) -> list[tuple[str, str]]:
    """(kind, recipient) of every outbox row, oldest first."""
    found = rows(app) if game_id is None else rows(app, game_id=game_id)
    return [(row.kind, row.recipient) for row in found]


def context_of(row: Any) -> str:
    return f"{row.kind} to {row.recipient}:\n{row.text_body}"


def bring_every_turn_email(app: Flask, client: FlaskClient, game_id: int) -> None:
    """In a game just started (eager mode): a reminder, the running-late note, a vacation-day
    notice, a digest, and (by a resignation) the game-over emails."""
    from datetime import timedelta

    from service import tokens
    from service.turns.digest import send_digests
    from service.turns.scan import scan_deadlines

    start = game_row(app, game_id).turn_started_at
    assert start is not None
    for hours in (36, 48, 72):
        at(app, start + timedelta(hours=hours))
        with app.app_context():
            scan_deadlines()
    state = state_of(app, game_id)
    with app.app_context(), session_scope() as session:
        mover = read_seats(session, game_id)[state.to_move][1]
        set_player_defaults(session, mover, TurnPreferences(digest=True))
        token = tokens.make_private_token(game_id, state.to_move, 0)
    with app.app_context():
        assert len(send_digests()) == 1
    resign = {"ply": str(state.ply), "move": "resign"}
    assert client.post(f"/p/{token}/move", data=resign).status_code == 303
