"""Move links from emails: GET shows the move to confirm (with the message field and the
turn's ending), POST plays it."""

from __future__ import annotations

from flask import redirect, render_template, url_for
from sqlmodel import Session
from werkzeug.wrappers import Response

import engine
from service import tokens
from service.catalogue import lazy_gettext
from service.db import read_scope, session_scope
from service.games.loaded import LoadedGame, load_game, lock_loaded_game
from service.games.move_log import moves_from
from service.games.refusals import (
    AlreadyPlayedError,
    StaleMoveError,
    UnreadableMoveError,
    WrongSeatError,
)
from service.games.rows import GameNotFoundError
from service.games.seats import checked_seat
from service.games.state import apply_to_locked, load_state, state_at
from service.models import GameStatus, Seat
from service.play import bp
from service.play.conversation import keep_message, message_field
from service.play.move_forms import (
    TURN_ENDING_WORDS,
    MoveFormError,
    Page,
    form_field,
    private_url_of,
    refusal_page,
)
from service.play.pages import private_page_context
from service.present.choices import follow_ups
from service.present.seat_names import people_besides
from service.present.summaries import game_summary
from service.present.template_values import template_values
from service.present.words import instruction
from service.refusal import Refusal


def _move_link_seat(
    session: Session, move_token: tokens.MoveToken, *, lock: bool = False
) -> tuple[LoadedGame, Seat]:
    # With its seats and latest snapshot: the seat check and the position need no query more.
    loaded = (lock_loaded_game if lock else load_game)(session, move_token.game_id)
    return loaded, checked_seat(loaded, move_token.seat, move_token.generation)


def _linked_move(
    session: Session, loaded: LoadedGame, move_token: tokens.MoveToken, index: int
) -> tuple[engine.Move, engine.GameState]:
    """The move a link names: legal move ``index`` of its seat at the link's ply, with that
    position. Raises StaleMoveError when the game has not reached that ply, Refusal when the
    index names none."""
    state = state_at(session, loaded, move_token.ply)
    if state is None:
        raise StaleMoveError(move_token.ply, move_token.ply)
    if state.result is not None or state.to_move != move_token.seat:
        raise WrongSeatError(lazy_gettext("This link is for a moment when it was not your turn."))
    moves = engine.legal_moves(state)
    if not 0 <= index < len(moves):
        raise UnreadableMoveError(
            lazy_gettext(
                "This link names no move: it was cut short or changed. Open your private page."
            )
        )
    return moves[index], state


@bp.get("/m/<token>/<int:index>")
def move_link(token: str, index: int) -> Page:
    move_token = tokens.read_move_token(token)
    with read_scope() as session:
        loaded, seat = _move_link_seat(session, move_token)
        game = loaded.game
        assert game.id is not None
        private_url = private_url_of(game.id, seat)
        try:
            move, state = _linked_move(session, loaded, move_token, index)
            if game.ply != move_token.ply:
                # What the log holds at that ply tells a repeat from a merely stale link.
                (entry,) = moves_from(session, game.id, move_token.ply, move_token.ply + 1)
                if entry.notation == str(move):
                    raise AlreadyPlayedError([move])
                raise StaleMoveError(move_token.ply, game.ply)
            if game.status != GameStatus.ACTIVE:
                raise StaleMoveError(move_token.ply, state.ply)
        except Refusal as error:
            return refusal_page(error, private_url)
        summary = game_summary(loaded)
        page_values = template_values(private_page_context(session, loaded, seat.letter, state))
        # A card played (or a pass) can end the turn with its draw in the same press.
        then = follow_ups(state, move)
        with_message = (
            people_besides(loaded.seats, seat.letter)
            and not loaded.seats[seat.letter][1].messages_off
        )
    page = render_template(
        "play/confirm.html",
        with_message=with_message,
        game=summary,
        seat=seat.letter,
        words=instruction(move),
        private_url=private_url,
        action=url_for("play.move_link", token=token, index=index),
        then=then,
        **page_values,
    )
    return page, 200


@bp.post("/m/<token>/<int:index>")
def play_move_link(token: str, index: int) -> Response | Page:
    """Play the linked move (and the ``then`` that ends the turn with it): the game locked, its
    position read once and each move applied once (``apply_to_locked``)."""
    move_token = tokens.read_move_token(token)
    private_url = None
    try:
        with session_scope() as session:
            loaded, seat = _move_link_seat(session, move_token, lock=True)
            game = loaded.game
            assert game.id is not None
            private_url = private_url_of(game.id, seat)
            move, state = _linked_move(session, loaded, move_token, index)
            then = form_field("then", required=False)
            if then and (":" in then or then.split()[0].lower() not in TURN_ENDING_WORDS):
                raise MoveFormError(
                    lazy_gettext("'%(then)s' cannot end the turn after this move.", then=then)
                )
            moves: list[engine.Move | str] = [move, then] if then else [move]
            keep_message(session, loaded, seat, move_token.ply, message_field())
            # A stale link's position is not the game's: its refusal needs the current one.
            current = state if state.ply == game.ply else load_state(session, loaded)
            apply_to_locked(
                session, loaded, current, seat.letter, move_token.ply, moves, then_ends_turn=True
            )
    except (tokens.RevokedTokenError, GameNotFoundError):
        raise
    except Refusal as error:
        return refusal_page(error, private_url)
    assert private_url is not None
    return redirect(private_url, code=303)
