"""The tournament pages: the list, the create form, a tournament's page, and the signed-in
visitor's buttons (enter, withdraw, a ladder's challenges; the organiser's start, pause, end,
removing a player). GET only reads."""

from __future__ import annotations

from flask import redirect, render_template, request, url_for
from flask_babel import lazy_gettext
from sqlmodel import Session, select
from werkzeug.wrappers import Response

import engine
import tournaments
from service import clock
from service.db import read_scope, session_scope
from service.signin import required_signed_in_player, signed_in_player
from service.tournaments import bp, ladder, lifecycle, pause
from service.tournaments.form import read_form
from service.tournaments.models import Entry, Tournament, TournamentKind
from service.tournaments.pages import tournament_list, tournament_page
from service.tournaments.settings import TournamentRefusal


def _by_public_id(session: Session, public_id: str) -> Tournament:
    found = session.exec(
        select(Tournament).where(Tournament.public_id == public_id[:32])
    ).one_or_none()
    if found is None:
        raise TournamentRefusal(lazy_gettext("There is no such tournament."), 404)
    return found


@bp.get("/tournaments")
def tournament_list_page() -> str:
    with read_scope() as session:
        lines = tournament_list(session)
        visitor = signed_in_player(session)
    return render_template("tournaments/list.html", lines=lines, signed_in=visitor is not None)


@bp.get("/tournaments/new")
def new_tournament() -> str:
    return render_template(
        "tournaments/new.html",
        kinds=tuple(TournamentKind),
        rulesets=tuple(n for n in engine.RULESETS if len(engine.get_ruleset(n).seats) == 2),
        claims=tuple(engine.ClaimTiming),
        scorings=tuple(tournaments.Scoring),
        policies=tuple(tournaments.DeadlinePolicy),
        entries=tuple(Entry),
        tie_breaks=tuple(tournaments.TieBreak),
        today=clock.now().date().isoformat(),
    )


@bp.post("/tournaments")
def create_tournament() -> Response:
    settings = read_form(request.form)
    with session_scope() as session:
        made = lifecycle.create(session, required_signed_in_player(session), settings)
        public_id = made.public_id
    return redirect(url_for("tournaments.tournament_view", public_id=public_id), code=303)


@bp.get("/tournaments/<public_id>")
def tournament_view(public_id: str) -> str:
    with read_scope() as session:
        found = _by_public_id(session, public_id)
        page = tournament_page(session, found, signed_in_player(session))
    return render_template("tournaments/tournament.html", page=page)


def _act(public_id: str, action: str) -> Response:
    with session_scope() as session:
        visitor = required_signed_in_player(session)
        found = _by_public_id(session, public_id)
        assert found.id is not None and visitor.id is not None
        if action == "enter":
            lifecycle.enter(session, found.id, visitor)
        elif action == "withdraw":
            lifecycle.withdraw(session, found.id, visitor.id, clock.now())
        elif action == "pause":
            pause.pause(session, found.id, visitor, clock.now())
        elif action == "resume":
            pause.resume(session, found.id, visitor, clock.now())
        elif action == "end":
            lifecycle.end(session, found.id, visitor)
        else:
            lifecycle.start(session, found.id, visitor)
    return redirect(url_for("tournaments.tournament_view", public_id=public_id), code=303)


@bp.post("/tournaments/<public_id>/enter")
def enter_tournament(public_id: str) -> Response:
    return _act(public_id, "enter")


@bp.post("/tournaments/<public_id>/withdraw")
def withdraw_from_tournament(public_id: str) -> Response:
    return _act(public_id, "withdraw")


@bp.post("/tournaments/<public_id>/start")
def start_tournament(public_id: str) -> Response:
    return _act(public_id, "start")


@bp.post("/tournaments/<public_id>/pause")
def pause_tournament(public_id: str) -> Response:
    """The organiser stops every clock of the tournament's games."""
    return _act(public_id, "pause")


@bp.post("/tournaments/<public_id>/resume")
def resume_tournament(public_id: str) -> Response:
    return _act(public_id, "resume")


@bp.post("/tournaments/<public_id>/end")
def end_tournament(public_id: str) -> Response:
    """The organiser ends the tournament: no more rounds."""
    return _act(public_id, "end")


def _number_field(name: str) -> int:
    raw = request.form.get(name, "").strip()
    if not raw.isdigit() or len(raw) > 12:
        raise TournamentRefusal(lazy_gettext("Choose one of the offered values."), 400)
    return int(raw)


@bp.post("/tournaments/<public_id>/challenge")
def challenge_on_ladder(public_id: str) -> Response:
    """The signed-in entrant challenges the entrant ``entrant`` (their entry's id) above them."""
    defender = _number_field("entrant")
    with session_scope() as session:
        visitor = required_signed_in_player(session)
        found = _by_public_id(session, public_id)
        assert found.id is not None
        ladder.challenge(session, found.id, visitor, defender, clock.now())
    return redirect(url_for("tournaments.tournament_view", public_id=public_id), code=303)


@bp.post("/tournaments/<public_id>/remove")
def remove_from_tournament(public_id: str) -> Response:
    """The organiser removes the player ``player``: a withdrawal in their name."""
    player_id = _number_field("player")
    with session_scope() as session:
        visitor = required_signed_in_player(session)
        found = _by_public_id(session, public_id)
        assert found.id is not None
        lifecycle.remove_player(session, found.id, player_id, visitor)
    return redirect(url_for("tournaments.tournament_view", public_id=public_id), code=303)
