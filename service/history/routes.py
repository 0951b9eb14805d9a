"""Views of the history area. Everything here only reads, except the "my games" request, which
makes a link and mails it (an outbox row; no game changes)."""

from __future__ import annotations

from flask import current_app, jsonify, make_response, redirect, render_template, request, url_for
from sqlmodel import Session
from werkzeug.wrappers import Response

from service import tokens
from service.catalogue import lazy_gettext, page_language
from service.conditional import PUBLIC, not_modified, page_etag, tagged
from service.config import AppEnv
from service.db import read_scope, session_scope
from service.games.loaded import load_game_by_public_id
from service.games.preferences import (
    parse_preferences_form,
    parse_time_zone_form,
    player_defaults,
    set_player_defaults,
    set_time_zone,
)
from service.games.series import series_by_public_id, series_version
from service.history import bp
from service.history.my_games import (
    EmailFormError,
    player_for_token,
    public_games,
    send_my_games_link,
)
from service.history.pages import public_page_context, record_json, requested_ply
from service.history.series import SeriesNotFoundError, series_page_context
from service.i18n import adopt_language
from service.models import Player
from service.outbox.addresses import confirm as confirm_address
from service.present.game_lists import player_games
from service.present.summaries import computer_plays_now, game_summary
from service.present.template_values import template_values
from service.reader_time import deadline_left, time_zone_names
from service.refusal import Refusal
from service.signin import (
    required_signed_in_player,
    sign_in,
    sign_out,
    sign_out_everywhere,
    signed_in_player,
)

MAX_EMAIL_FIELD = 320


@bp.get("/games/<public_id>")
def public_page(public_id: str) -> Response | str:
    """A game's public page: before the deal its settings and players; after it the board at
    ``?ply=``, the move list and the replay."""
    ply = request.args.get("ply")
    with read_scope() as session:
        # The position shown comes with the game: its nearest snapshot, in the same query.
        loaded = load_game_by_public_id(session, public_id, requested_ply(ply))
        game = loaded.game
        # A player choosing their name renames (and links) them on every page of their games.
        names = [(p.display_name, p.name_key is not None) for _, p in loaded.seats.values()]
        etag = page_etag(
            "public", game.id, ply, game.ply, game.status, game.updated_at,
            series_version(session, game), computer_plays_now(loaded),
            deadline_left(game.deadline), names,
        )  # fmt: skip
        unchanged = not_modified(etag, PUBLIC)
        if unchanged is not None:
            return unchanged
        summary = game_summary(loaded)
        if game.deal is None:
            page = render_template("games/public.html", game=summary)
        else:
            shown = template_values(public_page_context(session, loaded, ply))
            page = render_template("history/public.html", game=summary, **shown)
    return tagged(make_response(page), etag, PUBLIC)


@bp.get("/series/<public_id>")
def series_page(public_id: str) -> str:
    """A series' page: each game's result and points, the running score, each game's replay.
    As public as its games' pages (the address is random; unlisted series are not listed)."""
    with read_scope() as session:
        series = series_by_public_id(session, public_id)
        if series is None:
            raise SeriesNotFoundError(public_id)
        page = series_page_context(session, series)
    return render_template("history/series.html", **template_values(page))


def error_json(error: Refusal) -> Response:
    response = jsonify(error=error.status, title=str(error.title), message=str(error))
    response.status_code = error.status
    return response


@bp.get("/games/<public_id>/record.json")
def record(public_id: str) -> Response:
    try:
        with read_scope() as session:
            data = record_json(session, load_game_by_public_id(session, public_id))
    except Refusal as error:
        # A .json address answers in JSON whatever the client accepts.
        return error_json(error)
    response = jsonify(data)
    response.headers["Content-Disposition"] = f'attachment; filename="battleline-{public_id}.json"'
    return response


@bp.get("/games")
def index() -> str:
    with read_scope() as session:
        games = public_games(session)
    return render_template("history/index.html", games=games)


@bp.get("/me")
def my_games_request() -> str:
    with read_scope() as session:
        player = signed_in_player(session)
        if player is not None:
            # Signed in: the list itself, the player's defaults, and signing out.
            return _my_games_page(session, player, signed_in=True)
    return render_template("history/my_games_request.html", email="", sent=False, error=None)


def _my_games_page(session: Session, player: Player, *, signed_in: bool, token: str = "") -> str:
    return render_template(
        "history/my_games.html",
        name=player.display_name,
        has_page=player.name_key is not None,
        games=player_games(session, player),
        signed_in=signed_in,
        defaults=player_defaults(player),
        token=token,
        time_zone=player.time_zone,
        time_zones=time_zone_names(),
        sign_in_days=current_app.config["PERMANENT_SESSION_LIFETIME"].days,
    )


@bp.post("/me")
def my_games_request_sent() -> tuple[str, int]:
    email = request.form.get("email", "")[: MAX_EMAIL_FIELD + 1]
    try:
        if len(email) > MAX_EMAIL_FIELD:
            raise EmailFormError(lazy_gettext("That is longer than any email address."))
        with session_scope() as session:
            # Emails the link (a few a day per address at most), to a newcomer too.
            link = send_my_games_link(session, email, page_language())
    except EmailFormError as error:
        page = render_template(
            "history/my_games_request.html", email=email, sent=False, error=str(error)
        )
        return page, error.status
    # The same page whether or not the address is known; development also shows the link.
    shown = link if current_app.config["APP_ENV"] != AppEnv.PRODUCTION else None
    page = render_template(
        "history/my_games_request.html", email=email, sent=True, error=None, dev_link=shown
    )
    return page, 200


@bp.get("/me/<token>")
def my_games(token: str) -> str:
    player_token = tokens.read_games_token(token)
    with read_scope() as session:
        player = player_for_token(session, player_token)
        current = signed_in_player(session)
        return _my_games_page(
            session, player, signed_in=current is not None and current.id == player.id, token=token
        )


@bp.post("/me/<token>/sign-in")
def sign_in_view(token: str) -> Response:
    """Sign this browser in: the "my games" link is only ever emailed to the player's own
    address, so pressing its button proves this browser reads that mailbox."""
    player_token = tokens.read_games_token(token)
    with session_scope() as session:
        player = player_for_token(session, player_token)
        assert player.id is not None
        confirm_address(session, player.id)
        adopt_language(player, page_language())
        sign_in(player)
        # A player who has not chosen their public name yet chooses it first.
        named = player.name_confirmed and player.name_key is not None
    return redirect(url_for("history.my_games_request" if named else "people.name_page"), code=303)


@bp.post("/me/sign-out")
def sign_out_view() -> Response:
    sign_out()
    return redirect(url_for("history.my_games_request"), code=303)


@bp.post("/me/sign-out-everywhere")
def sign_out_everywhere_view() -> Response:
    """End this player's sign-in on every browser (a copied cookie too)."""
    with session_scope() as session:
        player = required_signed_in_player(session, PLAYER_WIDE_SIGN_IN)
        sign_out_everywhere(session, player)
    return redirect(url_for("history.my_games_request"), code=303)


PLAYER_WIDE_SIGN_IN = lazy_gettext(
    "Only the player, signed in on their own browser, can change settings for all their games. "
    "Ask for your games link on this page and sign in. Nothing was changed."
)
"""Why a player-wide change or the player's own data needs this browser signed in."""


@bp.post("/me/defaults")
def defaults() -> Response:
    chosen = parse_preferences_form(request.form.to_dict(), request.form.to_dict(flat=False))
    with session_scope() as session:
        player = required_signed_in_player(session, PLAYER_WIDE_SIGN_IN)
        set_player_defaults(session, player, chosen)
    return redirect(url_for("history.my_games_request") + "#defaults", code=303)


@bp.post("/me/time-zone")
def time_zone() -> Response:
    """The zone the signed-in player reads deadlines in (their emails and pages)."""
    chosen = parse_time_zone_form(request.form.to_dict(flat=False))
    with session_scope() as session:
        player = required_signed_in_player(session, PLAYER_WIDE_SIGN_IN)
        set_time_zone(session, player, chosen)
    return redirect(url_for("history.my_games_request") + "#time-zone", code=303)
