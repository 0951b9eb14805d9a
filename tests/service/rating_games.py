"""Rated games for the rating tests: made agreed and dealt, played a number of whole turns,
then ended by a resignation or a loss on time, each step in its own transaction."""

from __future__ import annotations

from flask import Flask
from sqlmodel import select

import engine
from service.db import session_scope
from service.games.loaded import load_game
from service.games.players import find_or_add_player
from service.games.state import apply_moves, load_state
from service.lobby.forms import NewGame
from service.lobby.lifecycle import create_agreed_game
from service.models import Player, Visibility
from service.players.names import name_key
from service.ratings.models import Rating, RatingChange

QUIET = {engine.Action.RESIGN, engine.Action.TIMEOUT, engine.Action.CLAIM}


def signed_in_player(app: Flask, email: str, name: str) -> int:
    """A player who has chosen their name (signed in): their rated games count."""
    with app.app_context(), session_scope() as session:
        player = find_or_add_player(session, email, name)
        player.name_confirmed = True
        player.name_key = name_key(player.display_name)
        session.add(player)
        session.flush()
        assert player.id is not None
        return player.id


def rated_game(
    app: Flask,
    players: tuple[str, ...] = ("ann@example.org", "ben@example.org"),
    *,
    ruleset: str = "battleline",
    rated: bool = True,
    vacation_days: int = 7,
) -> int:
    """A dealt game between these (signed-in) addresses, A first."""
    names = [email.split("@")[0].title() for email in players]
    for email, name in zip(players, names, strict=True):
        signed_in_player(app, email, name)
    third = {"c_name": names[2], "c_email": players[2]} if len(players) == 3 else {}
    new = NewGame(
        a_name=names[0],
        a_email=players[0],
        b_name=names[1],
        b_email=players[1],
        ruleset=ruleset,
        claims=engine.ClaimTiming.ADVANCED,
        days_per_move=3,
        visibility=Visibility.UNLISTED,
        vacation_days=vacation_days,
        rated=rated,
        **third,  # type: ignore[arg-type]
    )
    with app.app_context(), session_scope() as session:
        game = create_agreed_game(session, new)
        assert game.id is not None
        return game.id


def state_of(app: Flask, game_id: int) -> engine.GameState:
    with app.app_context(), session_scope() as session:
        return load_state(session, load_game(session, game_id))


def play_turns(
    app: Flask, game_id: int, turns: int, *, then: str | None = None
) -> engine.GameState:
    """Play ``turns`` whole turns (a card or a pass, then the draw), no claims; then more until
    seat ``then`` is to move, if given."""
    state = state_of(app, game_id)
    target = state.turn + turns
    while (state.turn < target or (then and state.to_move != then)) and state.result is None:
        move = next(m for m in engine.legal_moves(state) if m.action not in QUIET)
        with app.app_context(), session_scope() as session:
            apply_moves(session, game_id, move.seat, state.ply, [move])
        # The start of the next turn may have claimed for its player (after the commit).
        state = state_of(app, game_id)
    return state


def end_game(app: Flask, game_id: int, seat: str, how: str = "resign") -> engine.GameState:
    """``seat`` resigns, or (``how`` "timeout") loses on time on its turn."""
    state = state_of(app, game_id)
    with app.app_context(), session_scope() as session:
        state, _ = apply_moves(session, game_id, seat, state.ply, [how], by_server=how == "timeout")
    return state


def changes(app: Flask, game_id: int) -> list[RatingChange]:
    with app.app_context(), session_scope() as session:
        rows = session.exec(
            select(RatingChange)
            .where(RatingChange.game_id == game_id)
            .order_by(
                RatingChange.player_id  # type: ignore[arg-type]
            )
        ).all()
        for row in rows:
            session.expunge(row)
        return list(rows)


def rating_of(app: Flask, email: str, pool: str = "battleline") -> Rating | None:
    with app.app_context(), session_scope() as session:
        player = session.exec(select(Player).where(Player.email == email)).one()
        row = session.exec(
            select(Rating).where(Rating.player_id == player.id, Rating.pool == pool)
        ).first()
        if row is not None:
            session.expunge(row)
        return row
