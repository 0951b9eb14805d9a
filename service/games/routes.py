"""Views of the games area. Each parses the request, works in one session scope, then renders.

GET and HEAD never change anything (mail scanners open every link); changes are POSTs from a
button the person presses.
"""

from __future__ import annotations

from flask import redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from engine import RULESETS, ClaimTiming
from service import store, tokens
from service.db import session_scope
from service.games import bp
from service.games.forms import DEFAULT_DAYS_PER_MOVE, MAX_NAME_LENGTH, FormError, parse_new_game
from service.games.lifecycle import (
    accept_invitation,
    create_game,
    decline_invitation,
    seat_for_token,
    send_held_invitation,
)
from service.games.summaries import load_summary
from service.links import private_page_url
from service.mail.addresses import bouncing_addresses
from service.mail.invitations import check_recipient, invitation_waits_for_confirmation
from service.models import GameStatus, Visibility
from service.signin import signed_in_as, signed_in_player
from service.turns.settings import DEFAULT_VACATION_DAYS

FORM_DEFAULTS = {
    "ruleset": "battleline",
    "claims": ClaimTiming.ADVANCED.value,
    "days_per_move": str(DEFAULT_DAYS_PER_MOVE),
    "vacation_days": str(DEFAULT_VACATION_DAYS),
    "visibility": Visibility.UNLISTED.value,
}
PREFILLED = ("a_name", "a_email", "b_name", "b_email", *FORM_DEFAULTS)
"""Fields a link may fill in (``/games/new?a_name=...``: "play again" in the game-over email)."""


def _render_new_game(
    values: dict[str, str], errors: dict[str, str], status: int
) -> tuple[str, int]:
    with session_scope() as session:
        player = signed_in_player(session)
        signed_in = None if player is None else {"name": player.display_name, "email": player.email}
    if signed_in is not None and not values.get("a_email"):
        values = {**values, "a_name": signed_in["name"], "a_email": signed_in["email"]}
    return (
        render_template(
            "games/new.html",
            values=values,
            errors=errors,
            rulesets=RULESETS.values(),
            max_name_length=MAX_NAME_LENGTH,
            signed_in=signed_in,
        ),
        status,
    )


@bp.get("/")
def index() -> Response:
    return redirect(url_for("games.new_game"))


@bp.get("/games/new")
def new_game() -> tuple[str, int]:
    # Only fills the form: nothing is created before the person presses its button.
    given = {name: request.args.get(name, "")[:254] for name in PREFILLED if name in request.args}
    return _render_new_game({**FORM_DEFAULTS, **given}, {}, 200)


@bp.post("/games/new")
def create_game_view() -> Response | tuple[str, int]:
    values = {**FORM_DEFAULTS, **request.form.to_dict()}
    try:
        new = parse_new_game(request.form.to_dict())
    except FormError as error:
        return _render_new_game(values, error.errors, error.status)
    with session_scope() as session:
        # A clear 403 when the invited address refuses invitations, before anything is stored.
        check_recipient(session, new.b_email)
        creator = signed_in_as(session, new.a_email)
        _, seats = create_game(session, new, creator_present=creator is not None)
        # Only the address's owner gets seat A's link: their signed-in browser, or their inbox.
        url = private_page_url(seats["A"]) if creator is not None else None
    # See-other: reloading the page that follows must not create a second game.
    return redirect(url or url_for("games.check_email"), code=303)


@bp.get("/games/new/sent")
def check_email() -> str:
    """After a game was asked for in the name of an address this browser is not signed in as:
    the link that sends the invitation went to that address, and nowhere else."""
    return render_template("games/check_email.html")


@bp.get("/p/<token>")
def private_page(token: str) -> str:
    seat_token = tokens.read_private_token(token)
    with session_scope() as session:
        game, seat = seat_for_token(session, seat_token)
        if game.deal is not None:
            # Dealt: the board, the hand and every legal move (the playing area draws it).
            from service.play.routes import render_private_page

            return render_private_page(session, game, seat, token)
        summary = load_summary(session, game)
        assert game.id is not None
        # A held invitation: seat A's link comes only by email to A, so its page may send it.
        waits = seat.seat == "A" and invitation_waits_for_confirmation(session, game.id)
        bouncing = bouncing_addresses(session, game.id)
    return render_template(
        "games/private.html",
        game=summary,
        seat=seat.seat,
        token=token,
        invited=seat.seat == "B" and summary["status"] == GameStatus.INVITED,
        waits_for_confirmation=waits,
        bouncing=bouncing,
    )


def _invitation_page(token: str, answer: str) -> str:
    seat_token = tokens.read_private_token(token)
    with session_scope() as session:
        game, seat = seat_for_token(session, seat_token)
        summary = load_summary(session, game)
    return render_template(
        "games/invitation.html",
        game=summary,
        seat=seat.seat,
        token=token,
        answer=answer,
        can_answer=seat.seat == "B" and summary["status"] == GameStatus.INVITED,
    )


@bp.get("/p/<token>/accept")
def accept_page(token: str) -> str:
    return _invitation_page(token, "accept")


@bp.get("/p/<token>/decline")
def decline_page(token: str) -> str:
    return _invitation_page(token, "decline")


@bp.post("/p/<token>/invite")
def send_invitation(token: str) -> Response:
    seat_token = tokens.read_private_token(token)
    with session_scope() as session:
        send_held_invitation(session, seat_token)
    return redirect(url_for("games.private_page", token=token), code=303)


@bp.post("/p/<token>/accept")
def accept(token: str) -> Response:
    seat_token = tokens.read_private_token(token)
    with session_scope() as session:
        accept_invitation(session, seat_token)
    return redirect(url_for("games.private_page", token=token), code=303)


@bp.post("/p/<token>/decline")
def decline(token: str) -> Response:
    seat_token = tokens.read_private_token(token)
    with session_scope() as session:
        decline_invitation(session, seat_token)
    return redirect(url_for("games.private_page", token=token), code=303)


@bp.get("/games/<public_id>")
def public_page(public_id: str) -> str:
    with session_scope() as session:
        game = store.get_game_by_public_id(session, public_id)
        if game.deal is not None:
            # Dealt: the board, the move list and the replay (the history area draws it).
            from service.history.routes import render_public_page

            return render_public_page(session, game)
        summary = load_summary(session, game)
    return render_template("games/public.html", game=summary)
