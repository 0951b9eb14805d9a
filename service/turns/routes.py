"""The turn preferences form of the private page: automatic claims (R5) and the daily digest for
this one game. A POST from a button the person presses; GET never changes anything. A seat link
changes only its own seat: the player's defaults are changed from "my games" (signed in)."""

from __future__ import annotations

from flask import Blueprint, redirect, request, url_for
from werkzeug.wrappers import Response

from service import tokens
from service.db import session_scope
from service.games.preferences import parse_preferences_form, set_seat_preferences
from service.games.seats import seat_for_token

bp = Blueprint("turns", __name__)


@bp.post("/p/<token>/preferences")
def preferences(token: str) -> Response:
    seat_token = tokens.read_private_token(token)
    chosen = parse_preferences_form(request.form.to_dict(), request.form.to_dict(flat=False))
    with session_scope() as session:
        _, seat = seat_for_token(session, seat_token)
        set_seat_preferences(session, seat, chosen)
    return redirect(url_for("play.private_page", token=token) + "#preferences", code=303)
