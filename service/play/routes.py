"""Views of the playing area. GET and HEAD never change anything; every move is a POST from a
button the person presses, carrying the ply it was chosen at.
"""

from __future__ import annotations

import re

from flask import jsonify, make_response, redirect, render_template, request, url_for
from flask_babel import lazy_gettext
from sqlmodel import Session
from werkzeug.wrappers import Response

import engine
from service import tokens
from service.conditional import PRIVATE, not_modified, page_etag, tagged
from service.db import read_scope, session_scope
from service.errors import wants_json
from service.games.loaded import LoadedGame, load_game, lock_loaded_game
from service.games.move_log import moves_from
from service.games.preferences import turn_preferences
from service.games.refusals import (
    AlreadyPlayedError,
    StaleMoveError,
    UnreadableMoveError,
    WrongSeatError,
)
from service.games.rows import GameNotFoundError
from service.games.seats import checked_seat, seat_for_token
from service.games.series import leave_series as series_leave
from service.games.series import series_score, series_version
from service.games.state import apply_to_locked, load_state, state_at
from service.links import external_url
from service.models import GameStatus, Seat, Series, SeriesStatus
from service.outbox.addresses import BouncingAddress, bounce_notices, bouncing_addresses
from service.outbox.sent import invitation_waits_for_confirmation, undelivered_invitations
from service.play import bp
from service.play.conversation import Conversation, conversation, keep_message, message_field
from service.play.pages import private_page_context
from service.present.choices import follow_ups
from service.present.emails import queue_series_left
from service.present.summaries import computer_plays_now, game_summary
from service.present.template_values import template_values
from service.present.words import instruction
from service.reader_time import deadline_left
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


def _private_url(game_id: int, seat: Seat) -> str:
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


# --- the private page -------------------------------------------------------------------------


@bp.get("/p/<token>")
def private_page(token: str) -> Response | str:
    seat_token = tokens.read_private_token(token)
    with read_scope() as session:
        loaded, seat = seat_for_token(session, seat_token)
        game = loaded.game
        if game.deal is not None:
            assert game.id is not None
            _, player = loaded.seats[seat.letter]
            names = [(p.display_name, p.name_key is not None) for _, p in loaded.seats.values()]
            bouncing = bouncing_addresses(session, loaded)
            talk = conversation(session, loaded, seat.letter)
            etag = page_etag(
                "private", game.id, game.ply, game.status, game.updated_at, seat.letter,
                seat.token_generation, seat.preferences, player.preferences, bouncing,
                series_version(session, game), computer_plays_now(loaded),
                player.time_zone, deadline_left(game.deadline), names, talk.version,
            )  # fmt: skip
            unchanged = not_modified(etag, PRIVATE)
            if unchanged is not None:
                return unchanged
            page = render_private_page(session, loaded, seat, token, bouncing, talk)
            return tagged(make_response(page), etag, PRIVATE)
        summary = game_summary(loaded)
        assert game.id is not None
        # The first seat created the game. A held invitation: the creator's link comes only by
        # email to their address, so their page may send it.
        creator = seat.letter == engine.FIRST_SEAT
        waits = creator and invitation_waits_for_confirmation(session, game.id)
        bouncing = bouncing_addresses(session, loaded)
        undelivered = undelivered_invitations(loaded, bouncing) if creator else []
    return render_template(
        "games/private.html",
        game=summary,
        seat=seat.letter,
        token=token,
        invited=not creator and summary.status == GameStatus.INVITED,
        waits_for_confirmation=waits,
        bouncing=bounce_notices([b for b in bouncing if b not in undelivered], seat.letter),
        undelivered=undelivered,
    )


def render_private_page(
    session: Session,
    loaded: LoadedGame,
    seat: Seat,
    token: str,
    bouncing: list[BouncingAddress],
    talk: Conversation | None = None,
) -> str:
    """The private page of a dealt game, with the seats whose email bounces, the player's
    turn preferences and the game's messages (``talk``, when the caller read them already)."""
    summary = game_summary(loaded)
    state = load_state(session, loaded)
    _, player = loaded.seats[seat.letter]
    return render_template(
        "play/private.html",
        game=summary,
        seat=seat.letter,
        token=token,
        invited=False,
        bouncing=bounce_notices(bouncing, seat.letter),
        preferences=turn_preferences(player, seat),
        time_zone=player.time_zone,
        conversation=talk or conversation(session, loaded, seat.letter),
        **template_values(private_page_context(session, loaded, seat.letter, state)),
    )


TURN_ENDING_WORDS = frozenset({engine.Action.DRAW.value, engine.Action.END.value})
"""What a move form's ``then`` may start with (``engine.turn_endings``: a draw or ``end``)."""


def _field(name: str, *, required: bool = True) -> str:
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


def _form_moves() -> tuple[int, list[str]]:
    """The ply and the moves of a submitted move form. Raises MoveFormError."""
    ply_text = _field("ply")
    # ASCII digits only: str.isdigit() also accepts "²", which int() refuses.
    if not re.fullmatch(r"[0-9]{1,6}", ply_text) or int(ply_text) > MAX_PLY:
        raise MoveFormError(
            lazy_gettext("The form's move number is not a number. Reload your private page.")
        )
    move = _field("move")
    if move.lower() == "return":
        cards = [_field(name, required=False) for name in RETURN_FIELDS]
        move = " ".join(["return", *(card for card in cards if card)])
    # "then": the draw (or "end") chosen with the card, offered by the page from the engine's
    # turn endings; apply_moves asks the engine whether it may follow (all or nothing).
    then = _field("then", required=False)
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


@bp.post("/p/<token>/move")
def play(token: str) -> Response | Page:
    seat_token = tokens.read_private_token(token)
    private_url = url_for("play.private_page", token=token)
    try:
        ply, moves = _form_moves()
        message = message_field()
        with session_scope() as session:
            # The game row locked once, by seat_for_token; the moves are applied on it.
            loaded, seat = seat_for_token(session, seat_token, lock=True)
            keep_message(session, loaded, seat, ply, message)
            apply_to_locked(session, loaded, load_state(session, loaded), seat.letter, ply, moves)
    except (tokens.RevokedTokenError, GameNotFoundError):
        raise
    except Refusal as error:
        return refusal_page(error, private_url)
    # See-other: reloading the page that follows must not send the move again.
    return redirect(private_url, code=303)


@bp.get("/p/<token>/resign")
def resign_page(token: str) -> Page:
    seat_token = tokens.read_private_token(token)
    with read_scope() as session:
        loaded, seat = seat_for_token(session, seat_token)
        summary = game_summary(loaded)
        ply = loaded.game.ply if loaded.game.deal is not None else None
    playing = summary.status == GameStatus.ACTIVE and ply is not None
    page = render_template(
        "play/resign.html", game=summary, seat=seat.letter, token=token, ply=ply, playing=playing
    )
    return page, 200 if playing else 409


@bp.get("/p/<token>/leave-series")
def leave_series_page(token: str) -> Page:
    """Leaving a series asks once more."""
    seat_token = tokens.read_private_token(token)
    with read_scope() as session:
        loaded, _ = seat_for_token(session, seat_token)
        game = loaded.game
        summary = game_summary(loaded)
        series = session.get(Series, game.series_id) if game.series_id is not None else None
        playing = series is not None and series.status == SeriesStatus.PLAYING
    page = render_template(
        "play/leave_series.html", game=summary, token=token, playing=playing, series=series
    )
    return page, 200 if playing else 409


@bp.post("/p/<token>/leave-series")
def leave_series(token: str) -> Response | Page:
    """Leave the series of this game: no game is dealt after the one being played (it goes
    on); the other players are told. Leaving twice changes nothing the second time."""
    seat_token = tokens.read_private_token(token)
    private_url = url_for("play.private_page", token=token)
    with session_scope() as session:
        loaded, seat = seat_for_token(session, seat_token, lock=True)
        game = loaded.game
        if game.series_id is None:
            return refusal_page(NotInSeriesError(), private_url)
        series, left = series_leave(session, game, seat.letter)
        if left and series.public_id is not None:
            url = external_url("history.series_page", public_id=series.public_id)
            latest = series_score(session, series).games[-1]
            assert latest.id is not None
            told = loaded if latest.id == loaded.id else load_game(session, latest.id)
            queue_series_left(session, told, url, left_by=seat.letter)
    return redirect(private_url, code=303)


class NotInSeriesError(Refusal):
    status = 409
    title = lazy_gettext("This game is not part of a series")

    def __init__(self) -> None:
        super().__init__(lazy_gettext("This game is a single game: there is no series to leave."))


# --- move links -------------------------------------------------------------------------------


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
        private_url = _private_url(game.id, seat)
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
        messages_off = loaded.seats[seat.letter][1].messages_off
    page = render_template(
        "play/confirm.html",
        messages_off=messages_off,
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
            private_url = _private_url(game.id, seat)
            move, state = _linked_move(session, loaded, move_token, index)
            then = _field("then", required=False)
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
