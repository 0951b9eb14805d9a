"""A seat's private page and what is pressed on it: a move form, resigning, leaving a series.
GET and HEAD never change anything; every move is a POST from a button the person presses,
carrying the ply it was chosen at (move links from emails: ``move_links``)."""

from __future__ import annotations

from flask import make_response, redirect, render_template, url_for
from sqlmodel import Session
from werkzeug.wrappers import Response

import engine
from service import tokens
from service.catalogue import lazy_gettext
from service.conditional import PRIVATE, not_modified, page_etag, tagged
from service.db import read_scope, session_scope
from service.games.loaded import LoadedGame, load_game
from service.games.preferences import turn_preferences
from service.games.rows import GameNotFoundError
from service.games.seats import seat_for_token
from service.games.series import leave_series as series_leave
from service.games.series import series_score, series_version
from service.games.state import apply_to_locked, load_state
from service.links import external_url
from service.models import GameStatus, Seat, Series, SeriesStatus
from service.outbox.addresses import BouncingAddress, bounce_notices, bouncing_addresses
from service.outbox.sent import invitation_waits_for_confirmation, undelivered_invitations
from service.play import bp
from service.play.conversation import Conversation, conversation, keep_message, message_field
from service.play.move_forms import Page, form_moves, refusal_page
from service.play.pages import private_page_context
from service.present.emails import queue_series_left
from service.present.summaries import computer_plays_now, game_summary
from service.present.template_values import template_values
from service.reader_time import deadline_left
from service.refusal import Refusal

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
                player.time_zone, deadline_left(game.deadline), names, talk and talk.version,
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
    talk: Conversation | None,
) -> str:
    """The private page of a dealt game, with the seats whose email bounces, the player's
    turn preferences and the game's messages (``talk``; None against the computer alone)."""
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
        conversation=talk,
        **template_values(private_page_context(session, loaded, seat.letter, state)),
    )


@bp.post("/p/<token>/move")
def play(token: str) -> Response | Page:
    seat_token = tokens.read_private_token(token)
    private_url = url_for("play.private_page", token=token)
    try:
        ply, moves = form_moves()
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
