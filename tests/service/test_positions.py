"""Positions without replaying the log: the game row's ply and seat to move, snapshots kept per
block of plies, and any position as a snapshot plus a few moves, equal to the log's replay."""

from __future__ import annotations

import itertools
import json
import random
from unittest import mock

from alembic import command
from flask import Flask
from sqlalchemy import text
from sqlmodel import col, select

import engine
from service import tokens
from service.db import alembic_config, get_engine, session_scope, upgrade_schema
from service.games.loaded import load_game
from service.games.move_log import move_log
from service.games.rows import get_game
from service.games.snapshots import SNAPSHOT_BLOCK
from service.games.state import apply_moves, load_state, replay_log, state_at, states_at
from service.lobby.forms import parse_new_game
from service.lobby.lifecycle import accept_invitation, create_game
from service.models import Game, Snapshot
from tests.service.conftest import VALID_FORM, make_test_app


def _dealt_game(app: Flask, seed: int = 0) -> int:
    """A game accepted and dealt from a fixed seed (the same deal every run)."""
    with (
        app.app_context(),
        mock.patch("service.lobby.lifecycle.secrets.token_hex", lambda _n: f"{seed:064x}"),
    ):
        with session_scope() as session:
            game, _ = create_game(session, parse_new_game(VALID_FORM))
            assert game.id is not None
            game_id = game.id
        with session_scope() as session:
            accept_invitation(session, tokens.SeatToken(game_id=game_id, seat="B", generation=0))
    return game_id


def _play(app: Flask, game_id: int, rng: random.Random, plies: int = 10_000) -> None:
    """Random legal moves, one apply_moves call per move (as the pages make them), until the
    game ends or ``plies`` moves were made; checks the game row against the position first."""
    with app.app_context():
        for _ in range(plies):
            with session_scope() as session:
                loaded = load_game(session, game_id)
                game = loaded.game
                state = load_state(session, loaded)
                if state.result is not None:
                    return
                assert (game.ply, game.to_move) == (state.ply, state.to_move)
                move = rng.choice(engine.legal_moves(state))
                apply_moves(session, game_id, move.seat, state.ply, [move], by_server=True)


def _played_game(app: Flask, seed: int) -> int:
    """A game created, accepted and played to its end by random legal moves."""
    game_id = _dealt_game(app, seed)
    _play(app, game_id, random.Random(seed))
    return game_id


def test_any_position_equals_the_replay_of_the_log(app: Flask) -> None:
    game_id = _played_game(app, 7)
    with app.app_context(), session_scope() as session:
        loaded = load_game(session, game_id)
        game = loaded.game
        entries = move_log(session, game_id)
        assert game.ply == len(entries) > 40
        replayed = replay_log(game, [e.notation for e in entries])
        for ply, expected in enumerate(replayed):
            found = state_at(session, loaded, ply)
            assert found is not None
            assert engine.state_to_json(found) == engine.state_to_json(expected), ply
        assert state_at(session, loaded, game.ply + 1) is None
        assert state_at(session, loaded, -1) is None
        assert game.to_move is None and game.status == "finished"


def test_two_positions_at_once_equal_the_replay_of_the_log(app: Flask) -> None:
    # The public page's pair (the position asked for and the latest) from one snapshot query
    # and the log at hand; a log that does not reach back to the snapshots is read from the
    # database instead.
    game_id = _played_game(app, 13)
    with app.app_context(), session_scope() as session:
        loaded = load_game(session, game_id)
        game = loaded.game
        entries = move_log(session, game_id)
        replayed = [
            engine.state_to_json(s) for s in replay_log(game, [e.notation for e in entries])
        ]
        last = game.ply
        for ply in range(last + 1):
            for log in (entries, entries[ply:]):
                found = states_at(session, loaded, (ply, last), log)
                assert engine.state_to_json(found[ply]) == replayed[ply], ply
                assert engine.state_to_json(found[last]) == replayed[last]
        assert states_at(session, loaded, (last + 1, last + 2), entries) == {}


def test_snapshots_are_kept_per_block_and_at_the_latest_ply(app: Flask) -> None:
    game_id = _played_game(app, 11)
    with app.app_context(), session_scope() as session:
        game = get_game(session, game_id)
        plies = list(
            session.exec(
                select(Snapshot.ply).where(Snapshot.game_id == game_id).order_by(col(Snapshot.ply))
            ).all()
        )
    block = SNAPSHOT_BLOCK
    assert plies[0] == 0 and plies[-1] == game.ply
    kept = plies[:-1]
    # One snapshot per block reached (its first), so any position is fewer than 2 blocks away.
    assert len({ply // block for ply in kept}) == len(kept)
    assert all(b - a < 2 * block for a, b in itertools.pairwise(plies))
    assert len(plies) <= game.ply // block + 2


def test_the_game_row_follows_every_move(app: Flask) -> None:
    game_id = _dealt_game(app)
    _play(app, game_id, random.Random(3), plies=30)  # checks the row before each move
    with app.app_context(), session_scope() as session:
        game = get_game(session, game_id)
        assert game.ply == len(move_log(session, game_id)) == 30


def test_the_migration_fills_in_ply_and_seat_and_prunes_snapshots(
    fresh_database_url: str,
) -> None:
    """A game stored before revision 0006 (a snapshot after every move, no ply on the row)."""
    upgrade_schema(fresh_database_url)
    app = make_test_app(fresh_database_url)
    try:
        game_id = _played_game(app, 5)
        with app.app_context(), session_scope() as session:
            game = get_game(session, game_id)
            entries = move_log(session, game_id)
            states = replay_log(game, [e.notation for e in entries[:45]])
        engine_ = get_engine(app)
        with engine_.begin() as connection:
            # Back to how 0005 stored it: mid-game, every ply snapshotted, nothing on the row.
            connection.execute(text("DELETE FROM snapshots"))
            connection.execute(text("DELETE FROM moves WHERE ply >= 45"))
            connection.execute(
                text("UPDATE games SET status = 'active', result = NULL WHERE id = :id"),
                {"id": game_id},
            )
            for state in states:
                connection.execute(
                    text("INSERT INTO snapshots (game_id, ply, state) VALUES (:g, :p, :s)"),
                    {"g": game_id, "p": state.ply, "s": json.dumps(engine.state_to_json(state))},
                )
        config = alembic_config(fresh_database_url)
        command.downgrade(config, "0005")
        command.upgrade(config, "head")
        with app.app_context(), session_scope() as session:
            row = session.get(Game, game_id, populate_existing=True)
            assert row is not None
            assert (row.ply, row.to_move) == (45, states[-1].to_move)
            plies = session.exec(
                select(Snapshot.ply).where(Snapshot.game_id == game_id).order_by(col(Snapshot.ply))
            ).all()
            assert list(plies) == [0, 30, 45]
            found = state_at(session, load_game(session, game_id), 33)
            assert found is not None
            assert engine.state_to_json(found) == engine.state_to_json(states[33])
    finally:
        get_engine(app).dispose()
