"""Views of the people area. GET and HEAD only read; blocking and naming are POSTs of a
signed-in browser (``service.signin``)."""

from __future__ import annotations

from flask import redirect, render_template, request, url_for
from sqlmodel import Session
from werkzeug.wrappers import Response

from service import clock
from service.catalogue import lazy_gettext
from service.db import read_scope, session_scope
from service.models import Player
from service.people import bp
from service.people.player_page import player_page
from service.players import blocks
from service.players.names import (
    MAX_PUBLIC_NAME_LENGTH,
    NameRefusedError,
    NameTakenError,
    NameTooSoonError,
    name_change_allowed_at,
    player_by_name,
)
from service.players.names import choose_name as choose_public_name
from service.ratings.chart import ratings_with_history
from service.ratings.pools import POOL_WORDS, Pool
from service.ratings.read import leaderboard as read_leaderboard
from service.refusal import Refusal
from service.signin import required_signed_in_player, signed_in_player

MAX_NAME_FIELD = 1000
"""Longer input is not read at all (a name has at most 40 characters)."""


class PlayerNotFoundError(Refusal):
    status = 404
    title = lazy_gettext("No such player")
    message = lazy_gettext(
        "No player has chosen that name. Check its spelling, or find them through a game."
    )


class PoolNotFoundError(Refusal):
    status = 404
    title = lazy_gettext("No such leaderboard")
    message = lazy_gettext("There is no rating of that name. The lobby lists the leaderboards.")


class BlockSelfError(Refusal):
    status = 400
    title = lazy_gettext("This cannot be done")
    message = lazy_gettext("You cannot block yourself. Nothing was changed.")


def _find(name: str, session: Session) -> Player:
    player = None if len(name) > MAX_NAME_FIELD else player_by_name(session, name)
    if player is None:
        raise PlayerNotFoundError()
    return player


@bp.get("/players/<name>")
def player(name: str) -> str:
    """A player's page: their games (those the visitor may see), results, pace, time-outs."""
    with read_scope() as session:
        shown = _find(name, session)
        visitor = signed_in_player(session)
        blocked = False
        if visitor is not None and visitor.id != shown.id:
            assert visitor.id is not None
            blocked = shown.id in blocks.blocked_by(session, visitor.id)
        page = player_page(session, shown, visitor=visitor, blocks=blocked)
        assert shown.id is not None
        ratings = ratings_with_history(session, shown.id, clock.now())
    return render_template("people/player.html", page=page, ratings=ratings)


@bp.get("/ratings/<pool>")
def leaderboard(pool: str) -> str:
    """A pool's leaderboard: established ratings of players active lately, the top and the
    places around the signed-in visitor."""
    try:
        chosen = Pool(pool)
    except ValueError:
        raise PoolNotFoundError() from None
    with read_scope() as session:
        visitor = signed_in_player(session)
        board = read_leaderboard(
            session, chosen, clock.now(), None if visitor is None else visitor.id
        )
    return render_template("people/leaderboard.html", board=board, pools=POOL_WORDS)


def _block_change(name: str, *, block: bool) -> Response:
    with session_scope() as session:
        shown = _find(name, session)
        visitor = required_signed_in_player(session)
        assert visitor.id is not None and shown.id is not None
        if visitor.id == shown.id:
            raise BlockSelfError()
        if block:
            blocks.block(session, visitor.id, shown.id)
        else:
            blocks.unblock(session, visitor.id, shown.id)
        url = url_for("people.player", name=shown.display_name)
    return redirect(url, code=303)


@bp.post("/players/<name>/block")
def block(name: str) -> Response:
    """The signed-in visitor blocks this player: no challenge, pairing or message between them."""
    return _block_change(name, block=True)


@bp.post("/players/<name>/unblock")
def unblock(name: str) -> Response:
    """Lift the visitor's own block of this player."""
    return _block_change(name, block=False)


def _name_page(player: Player, value: str, error: str | None, status: int) -> tuple[str, int]:
    allowed_at = name_change_allowed_at(player) if player.name_confirmed else None
    page = render_template(
        "people/name.html",
        current=player.display_name if player.name_confirmed else None,
        value=value,
        error=error,
        max_length=MAX_PUBLIC_NAME_LENGTH,
        allowed_at=allowed_at if allowed_at is not None and allowed_at > clock.now() else None,
    )
    return page, status


@bp.get("/me/name")
def name_page() -> Response | tuple[str, int]:
    """The signed-in player's form to choose (or change) their public name."""
    with read_scope() as session:
        player = signed_in_player(session)
        if player is None:
            return redirect(url_for("history.my_games_request"), code=303)
        return _name_page(player, player.display_name, None, 200)


@bp.post("/me/name")
def choose_name() -> Response | tuple[str, int]:
    value = request.form.get("name", "")[: MAX_NAME_FIELD + 1]
    with session_scope() as session:
        player = required_signed_in_player(session)
        try:
            choose_public_name(session, player, value, clock.now())
        except (NameRefusedError, NameTakenError, NameTooSoonError) as error:
            return _name_page(player, value, str(error), error.status)
        url = url_for("people.player", name=player.display_name)
    return redirect(url, code=303)
