"""Views of the lobby: a new game, its invitation and the answer to it. Each parses the request,
works in one session scope, then renders.

GET and HEAD never change anything (mail scanners open every link); changes are POSTs from a
button the person presses.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial

from flask import redirect, render_template, request, url_for
from sqlmodel import Session
from werkzeug.wrappers import Response

import engine
from engine import RULESETS, ClaimTiming
from service import clock, tokens
from service.catalogue import lazy_gettext, page_language
from service.db import session_scope
from service.games.computer import COMPUTER_LEVEL_WORDS, COMPUTER_LEVELS
from service.games.seats import seat_for_token
from service.links import private_page_url
from service.lobby import bp, rematch_confirm
from service.lobby.forms import (
    DEFAULT_DAYS_PER_MOVE,
    DEFAULT_SERIES_GAMES,
    DEFAULT_SERIES_POINTS,
    FormError,
    parse_new_game,
)
from service.lobby.lifecycle import (
    InvitationError,
    accept_invitation,
    create_game,
    decline_invitation,
    offer_rematch,
    send_held_invitation,
)
from service.models import Game, GameStatus, Visibility
from service.player_fields import MAX_NAME_LENGTH
from service.present.seat_names import people_besides
from service.present.summaries import game_summary
from service.ratings.read import computer_ratings
from service.signin import signed_in_as, signed_in_player
from service.turn_settings import DEFAULT_VACATION_DAYS

FORM_DEFAULTS = {
    "ruleset": "battleline",
    "claims": ClaimTiming.ADVANCED.value,
    "days_per_move": str(DEFAULT_DAYS_PER_MOVE),
    "vacation_days": str(DEFAULT_VACATION_DAYS),
    "visibility": Visibility.UNLISTED.value,
    "series": "single",
    "series_points": str(DEFAULT_SERIES_POINTS),
    "series_games": str(DEFAULT_SERIES_GAMES),
    "rated": "casual",
}
PREFILLED = (
    "a_name", "a_email", "b_name", "b_email", "c_name", "c_email", "b_computer", "c_computer",
    *FORM_DEFAULTS,
)  # fmt: skip
"""Fields a link may fill in (``/games/new?a_name=...``: "play again" in the game-over email)."""


@dataclass(frozen=True, slots=True)
class SignedIn:
    """Who this browser is signed in as, for the new-game form."""

    name: str
    email: str


def _render_new_game(
    values: dict[str, str], errors: dict[str, str], status: int
) -> tuple[str, int]:
    with session_scope() as session:
        player = signed_in_player(session)
        signed_in = None if player is None else SignedIn(player.display_name, player.email)
        computers_rated = computer_ratings(session, clock.now())
    if signed_in is not None and not values.get("a_email"):
        values = {**values, "a_name": signed_in.name, "a_email": signed_in.email}
    return (
        render_template(
            "games/new.html",
            # The form's fields as sent (or filled in), and what is wrong with them, by name.
            values=engine.FrozenMap(values),
            errors=engine.FrozenMap(errors),
            rulesets=RULESETS.values(),
            max_name_length=MAX_NAME_LENGTH,
            signed_in=signed_in,
            computer_levels=COMPUTER_LEVELS,
            computer_level_words=COMPUTER_LEVEL_WORDS,
            computers_rated=computers_rated,
        ),
        status,
    )


@bp.get("/")
def index() -> Response:
    return redirect(url_for("lobby.new_game"))


@bp.get("/games/new")
def new_game() -> tuple[str, int]:
    # Only fills the form: nothing is created before the person presses its button.
    given = {name: request.args.get(name, "")[:254] for name in PREFILLED if name in request.args}
    return _render_new_game({**FORM_DEFAULTS, **given}, {}, 200)


@bp.post("/games/new")
def create_game_view() -> Response | tuple[str, int]:
    values = {**FORM_DEFAULTS, **request.form.to_dict()}
    try:
        new = replace(parse_new_game(request.form.to_dict()), language=page_language())
    except FormError as error:
        return _render_new_game(values, error.errors, error.status)
    try:
        with session_scope() as session:
            # An address that refuses invitations is answered like any other (no one may learn
            # that it refuses): its invitation is simply never sent (service.outbox.queue).
            creator = signed_in_as(session, new.a_email)
            _, seats = create_game(session, new, creator_present=creator is not None)
            # Only the address's owner gets seat A's link: their signed-in browser, or inbox.
            url = private_page_url(seats[engine.FIRST_SEAT]) if creator is not None else None
    except FormError as error:  # an invited address known to bounce
        return _render_new_game(values, error.errors, error.status)
    # See-other: reloading the page that follows must not create a second game.
    if url is None:
        # Against the computer alone nobody is invited: the link deals the cards.
        alone = len(new.computers) == len(seats) - 1
        url = url_for("lobby.check_email", deal=1) if alone else url_for("lobby.check_email")
    return redirect(url, code=303)


@bp.get("/games/new/sent")
def check_email() -> str:
    """After a game was asked for in the name of an address this browser is not signed in as:
    the link that sends the invitation (or deals a game against the computer alone, ``?deal=1``,
    which only words the page) went to that address, and nowhere else."""
    return render_template("games/check_email.html", deal=request.args.get("deal") == "1")


def _invitation_page(token: str, answer: str) -> str:
    seat_token = tokens.read_private_token(token)
    with session_scope() as session:
        loaded, seat = seat_for_token(session, seat_token)
        summary = game_summary(loaded)
        creator = seat.letter == engine.FIRST_SEAT
        accepted = seat.accepted
    invited = summary.status == GameStatus.INVITED
    return render_template(
        "games/invitation.html",
        game=summary,
        seat=seat.letter,
        token=token,
        answer=answer,
        creator=creator,
        can_answer=not creator and not accepted and invited,
    )


@bp.get("/p/<token>/accept")
def accept_page(token: str) -> str:
    return _invitation_page(token, "accept")


@bp.get("/p/<token>/decline")
def decline_page(token: str) -> str:
    return _invitation_page(token, "decline")


def _answered(token: str, answer: Callable[[Session, tokens.SeatToken], object]) -> Response:
    """Run one of the lobby's answers for the seat of ``token``, then show its private page
    (see-other: reloading must not answer twice)."""
    seat_token = tokens.read_private_token(token)
    page_url = url_for("play.private_page", token=token)
    try:
        with session_scope() as session:
            answer(session, seat_token)
    except InvitationError as error:
        # An old invitation link: say what happened and show the game as it is now.
        error.page_url = page_url
        raise
    return redirect(page_url, code=303)


@bp.post("/p/<token>/invite")
def send_invitation(token: str) -> Response:
    return _answered(token, partial(send_held_invitation, language=page_language()))


@bp.post("/p/<token>/accept")
def accept(token: str) -> Response:
    return _answered(token, partial(accept_invitation, language=page_language()))


@bp.post("/p/<token>/decline")
def decline(token: str) -> Response:
    return _answered(token, decline_invitation)


def _rematch_page(
    seat_token: tokens.SeatToken, action: str, *, owner_proven: bool
) -> tuple[str, int]:
    """Offering a rematch asks once: a page whose button POSTs to ``action``. Unless
    ``owner_proven`` (the link of the owner's email) or this browser is signed in as the seat's
    player, the page says the button emails the seat's address first."""
    with session_scope() as session:
        loaded, seat = seat_for_token(session, seat_token)
        game = loaded.game
        player = loaded.seats[seat.letter].player
        by_email = not owner_proven and signed_in_as(session, player.email) is None
        summary = game_summary(loaded)
        rematch = session.get(Game, game.rematch_game_id) if game.rematch_game_id else None
        invites = people_besides(loaded.seats, seat.letter)
        back_url = private_page_url(seat)
    finished = summary.status == GameStatus.FINISHED
    offered = rematch is not None and rematch.status != GameStatus.DECLINED
    page = render_template(
        "games/rematch.html",
        game=summary,
        action=action,
        back_url=back_url,
        finished=finished,
        offered=offered,
        by_email=by_email,
        invites=invites,  # else the new game is dealt at once
    )
    return page, 200 if finished else 409


@bp.get("/p/<token>/rematch")
def rematch_page(token: str) -> tuple[str, int]:
    """A link in the game-over email only shows this page."""
    action = url_for("lobby.rematch", token=token)
    return _rematch_page(tokens.read_private_token(token), action, owner_proven=False)


@bp.post("/p/<token>/rematch")
def rematch(token: str) -> Response:
    """Offer the same game again, then the new game's private page (its invitation has gone).
    A seat link alone is not its player (links are forwarded): unless this browser is signed in
    as the seat's player, their own address gets the link that offers it."""
    seat_token = tokens.read_private_token(token)
    with session_scope() as session:
        loaded, seat = seat_for_token(session, seat_token)
        player = loaded.seats[seat.letter].player
        if signed_in_as(session, player.email) is None:
            if loaded.game.status != GameStatus.FINISHED:
                raise InvitationError(
                    lazy_gettext("A rematch can be offered once this game is over."), 409
                )
            rematch_confirm.ask_owner(session, loaded, seat, player)
            url = url_for("lobby.rematch_asked", token=token)
        else:
            _, seat = offer_rematch(session, seat_token)
            url = private_page_url(seat)
    return redirect(url, code=303)


@bp.get("/p/<token>/rematch/asked")
def rematch_asked(token: str) -> str:
    """After a rematch was asked for in a browser not signed in as the seat's player."""
    tokens.read_private_token(token)
    return render_template(
        "games/rematch_asked.html", back_url=url_for("play.private_page", token=token)
    )


@bp.get("/rematch/<token>")
def confirmed_rematch_page(token: str) -> tuple[str, int]:
    """The link of the email to the seat's own address: a button, as on the rematch page."""
    seat_token = rematch_confirm.read_token(token)
    action = url_for("lobby.confirmed_rematch", token=token)
    return _rematch_page(seat_token, action, owner_proven=True)


@bp.post("/rematch/<token>")
def confirmed_rematch(token: str) -> Response:
    """The owner's button: offer (or join) the rematch, then its private page."""
    seat_token = rematch_confirm.read_token(token)
    with session_scope() as session:
        _, seat = offer_rematch(session, seat_token)
        url = private_page_url(seat)
    return redirect(url, code=303)
