"""Views of a player's own data, for the signed-in player only: the download of everything we
hold about them (``own_data``) and the closing of their account (``closure``), which asks once
more and changes nothing until the confirmation is sent."""

from __future__ import annotations

from flask import jsonify, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from service import clock
from service.catalogue import lazy_gettext
from service.db import read_scope, session_scope
from service.history import bp
from service.history.closure import close_account
from service.history.own_data import player_data
from service.history.routes import PLAYER_WIDE_SIGN_IN, error_json
from service.refusal import Refusal
from service.signin import required_signed_in_player, sign_out

CONFIRM_WORD = "close"
"""The value of the confirmation box of the closing form."""


class CloseNotConfirmedError(Refusal):
    """The closing form was sent without its confirmation box ticked."""

    status = 422
    title = lazy_gettext("Please confirm first")
    message = lazy_gettext(
        "To close your account, tick the box that says you understand, then press the button. "
        "Nothing was changed."
    )


@bp.get("/me/data.json")
def own_data() -> Response:
    """Everything we hold about the signed-in player, as a JSON download."""
    try:
        with read_scope() as session:
            player = required_signed_in_player(session, PLAYER_WIDE_SIGN_IN)
            data = player_data(session, player, clock.now())
    except Refusal as error:
        return error_json(error)
    response = jsonify(data)
    response.headers["Content-Disposition"] = 'attachment; filename="battleline-my-data.json"'
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/me/close")
def close_page() -> str:
    """The closing form: what closing does, a box to tick and a button."""
    with read_scope() as session:
        player = required_signed_in_player(session, PLAYER_WIDE_SIGN_IN)
        name = player.display_name
    return render_template("history/close.html", name=name, confirm_word=CONFIRM_WORD)


@bp.post("/me/close")
def close() -> Response:
    with session_scope() as session:
        player = required_signed_in_player(session, PLAYER_WIDE_SIGN_IN)
        if request.form.getlist("confirm") != [CONFIRM_WORD]:
            raise CloseNotConfirmedError()
        close_account(session, player)
    sign_out()
    return redirect(url_for("history.closed"), code=303)


@bp.get("/me/closed")
def closed() -> str:
    return render_template("history/closed.html")
