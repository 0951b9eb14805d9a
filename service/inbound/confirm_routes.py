"""The confirmation link of a reply whose sender was not proven (``service.inbound.confirm``):
GET shows the moves read and a button; only the button's POST plays them, and only while the
game is at the ply of the token (else a clear "the game has moved on" page, nothing changed)."""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, url_for
from sqlmodel import Session
from werkzeug.wrappers import Response

import engine
from service.catalogue import lazy_gettext
from service.db import read_scope, session_scope
from service.games.refusals import StaleMoveError
from service.games.state import apply_moves
from service.inbound.confirm import ConfirmToken, described, held_moves, read_token, seat_of
from service.inbound_models import InboundMessage
from service.links import private_page_url
from service.models import Game, GameStatus, Player, Seat
from service.players.messages import save_message
from service.refusal import Refusal

bp = Blueprint("reply_confirm", __name__)


class NothingHeldError(Refusal):
    status = 404
    title = lazy_gettext("Nothing waits for this link")

    def __init__(self) -> None:
        super().__init__(
            lazy_gettext(
                "This link names no reply waiting to be confirmed. Open your private page."
            )
        )


def _held(
    session: Session, token: ConfirmToken
) -> tuple[Game, Seat, Player, InboundMessage, list[engine.Move]]:
    """The game, seat, player, reply and held moves of a token, while the game is still at its
    ply."""
    game, seat, player = seat_of(session, token)
    row = session.get(InboundMessage, token.row_id)
    if row is None or row.game_id != game.id or row.seat != seat.letter or not row.held_moves:
        raise NothingHeldError()
    if game.ply != token.ply or game.status != GameStatus.ACTIVE:
        error = StaleMoveError(token.ply, game.ply)
        error.page_url = private_page_url(seat)
        raise error
    return game, seat, player, row, held_moves(row, engine.get_ruleset(game.ruleset))


@bp.get("/r/<token>")
def confirm_page(token: str) -> str:
    confirm_token = read_token(token)
    with read_scope() as session:
        game, seat, _player, _row, moves = _held(session, confirm_token)
        private_url = private_page_url(seat)
    return render_template(
        "inbound/confirm_reply.html",
        game_number=game.id,
        turn=confirm_token.ply + 1,
        moves=described(moves),
        action=url_for("reply_confirm.confirm_moves", token=token),
        private_url=private_url,
    )


@bp.post("/r/<token>")
def confirm_moves(token: str) -> Response:
    confirm_token = read_token(token)
    with session_scope() as session:
        game, seat, player, row, moves = _held(session, confirm_token)
        assert game.id is not None
        # Kept before the moves, so that the emails they bring about carry it.
        save_message(session, game.id, seat, player, confirm_token.ply, row.held_message or "")
        # apply_moves locks the game and checks the ply again: a second press is stale.
        apply_moves(session, game.id, seat.letter, confirm_token.ply, moves)
        private_url = private_page_url(seat)
    return redirect(private_url, code=303)
