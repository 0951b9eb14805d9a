"""The turn preferences form of the private page: automatic claims (R5) and the daily digest.
A POST from a button the person presses; GET never changes anything."""

from __future__ import annotations

from flask import Blueprint, redirect, request, url_for
from werkzeug.wrappers import Response

from service import tokens
from service.db import session_scope
from service.games.lifecycle import seat_for_token
from service.models import Player
from service.turns.preferences import TurnPreferences, set_turn_preferences

bp = Blueprint("turns", __name__)


@bp.post("/p/<token>/preferences")
def preferences(token: str) -> Response:
    seat_token = tokens.read_private_token(token)
    with session_scope() as session:
        _, seat = seat_for_token(session, seat_token)
        player = session.get(Player, seat.player_id)
        assert player is not None
        chosen = TurnPreferences(
            automatic_claims=request.form.get("automatic_claims") == "on",
            digest=request.form.get("digest") == "on",
        )
        set_turn_preferences(session, player, chosen)
    return redirect(url_for("games.private_page", token=token) + "#preferences", code=303)
