"""Reading a move form as its page sends it, and the page of a refused move: shared by the
private page's forms (``routes``) and the move links' confirm pages (``move_links``)."""

from __future__ import annotations

import re

from flask import jsonify, render_template, request, url_for
from werkzeug.wrappers import Response

import engine
from service import tokens
from service.catalogue import lazy_gettext
from service.errors import wants_json
from service.games.refusals import AlreadyPlayedError
from service.models import Seat
from service.refusal import Refusal

MAX_FIELD_LENGTH = 100
"""No move in the notation is longer; anything longer is not a person pressing a button."""
MAX_PLY = 100_000
RETURN_FIELDS = ("return_1", "return_2", "return_3")

Page = tuple[Response | str, int]


class MoveFormError(Refusal):
    """A move form that was not sent as the page makes it."""

    status = 400
    title = lazy_gettext("This form could not be read")


def private_url_of(game_id: int, seat: Seat) -> str:
    token = tokens.make_private_token(game_id, seat.letter, seat.token_generation)
    return url_for("play.private_page", token=token)


def refusal_page(error: Refusal, private_url: str | None) -> Page:
    """The page (or JSON) for a refused move, linking to the player's current private page."""
    if wants_json():
        body: dict[str, str | int | bool] = {
            "error": error.status,
            "title": str(error.title),
            "message": str(error),
        }
        if isinstance(error, AlreadyPlayedError):
            body = {"ok": True, "already_played": True, "message": str(error)}
        if private_url:
            body["private_page"] = private_url
        return jsonify(body), error.status
    page = render_template(
        "play/refused.html",
        status=error.status,
        title=str(error.title),
        message=str(error),
        private_url=private_url,
        already_played=isinstance(error, AlreadyPlayedError),
    )
    return page, error.status


TURN_ENDING_WORDS = frozenset({engine.Action.DRAW.value, engine.Action.END.value})
"""What a move form's ``then`` may start with (``engine.turn_endings``: a draw or ``end``)."""


def form_field(name: str, *, required: bool = True) -> str:
    values = request.form.getlist(name)
    if len(values) > 1:
        raise MoveFormError(
            lazy_gettext(
                "The form sent '%(name)s' %(num)d times; it takes one.",
                name=name,
                num=len(values),
            )
        )
    value = values[0] if values else ""
    if len(value) > MAX_FIELD_LENGTH:
        raise MoveFormError(
            lazy_gettext(
                "The field '%(name)s' is longer than any move (%(num)d).",
                name=name,
                num=MAX_FIELD_LENGTH,
            )
        )
    if required and not value.strip():
        raise MoveFormError(
            lazy_gettext(
                "The form did not say '%(name)s'. Use the buttons of your private page.",
                name=name,
            )
        )
    return value.strip()


def form_moves() -> tuple[int, list[str]]:
    """The ply and the moves of a submitted move form. Raises MoveFormError."""
    ply_text = form_field("ply")
    # ASCII digits only: str.isdigit() also accepts "²", which int() refuses.
    if not re.fullmatch(r"[0-9]{1,6}", ply_text) or int(ply_text) > MAX_PLY:
        raise MoveFormError(
            lazy_gettext("The form's move number is not a number. Reload your private page.")
        )
    move = form_field("move")
    if move.lower() == "return":
        cards = [form_field(name, required=False) for name in RETURN_FIELDS]
        move = " ".join(["return", *(card for card in cards if card)])
    # "then": the draw (or "end") chosen with the card, offered by the page from the engine's
    # turn endings; apply_moves asks the engine whether it may follow (all or nothing).
    then = form_field("then", required=False)
    # Only a turn ending may ride with the card: a resignation or a second action never does.
    if then and then.split()[0].lower() not in TURN_ENDING_WORDS:
        raise MoveFormError(
            lazy_gettext(
                "'%(then)s' cannot end the turn after a card: only a draw or 'end' can. "
                "Nothing was played.",
                then=then,
            )
        )
    return int(ply_text), [move, then] if then else [move]
