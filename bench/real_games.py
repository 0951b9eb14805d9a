"""Real games for the benches: created, accepted and played through the service's own functions
(in an app context), with random legal moves from the bench's generator, so a bench's games are
the same from run to run."""

from __future__ import annotations

from collections.abc import Callable
from random import Random

import engine
from service import tokens
from service.db import session_scope
from service.games.loaded import load_game
from service.games.state import apply_moves, load_state
from service.lobby.forms import parse_new_game
from service.lobby.lifecycle import accept_invitation, create_game


def accepted_game(form: dict[str, str], seed: str | None = None) -> int:
    """A game created from the new-game ``form`` (``a_name``, ``a_email``, ``b_name``,
    ``b_email``, ...) and accepted by its seat B; dealt from ``seed`` when given (else from the
    service's random seed). Returns its id."""
    with session_scope() as session:
        game, _ = create_game(session, parse_new_game(form))
        if seed is not None:
            game.seed = seed
            game.seed_commitment = engine.seed_commitment(seed)
            session.add(game)
        assert game.id is not None
        game_id = game.id
    with session_scope() as session:
        accept_invitation(session, tokens.SeatToken(game_id=game_id, seat="B", generation=0))
    return game_id


def play_randomly(
    game_id: int,
    rng: Random,
    stop: Callable[[engine.GameState], bool] = lambda _state: False,
    *,
    by_server: bool = False,
) -> engine.GameState:
    """Random legal moves, one ``apply_moves`` each (``by_server``: as the server's own), until
    the game ends or ``stop`` says so of its position; returns that position."""
    while True:
        with session_scope() as session:
            state = load_state(session, load_game(session, game_id))
            if state.result is not None or stop(state):
                return state
            move = rng.choice(engine.legal_moves(state))
            apply_moves(session, game_id, move.seat, state.ply, [move], by_server=by_server)


def turn_starts_at(ply: int) -> Callable[[engine.GameState], bool]:
    """``play_randomly``'s ``stop``: at the start of a turn at ``ply`` or later."""
    return lambda state: state.ply >= ply and state.phase is engine.Phase.START
