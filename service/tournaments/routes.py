"""The tournament pages: the list, the create form, a tournament's page, and the signed-in
visitor's buttons (enter, withdraw, a ladder's challenges; the organiser's start, pause, end,
removing a player). GET only reads."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import timedelta

from flask import redirect, render_template, request, url_for
from sqlmodel import Session, select
from werkzeug.wrappers import Response

import engine
import tournaments
from service import clock
from service.catalogue import lazy_gettext
from service.db import read_scope, session_scope
from service.game_words import CLAIM_TIMING_CHOICES
from service.models import Player
from service.signin import required_signed_in_player, signed_in_player
from service.tournaments import bp, ladder, lifecycle, pause
from service.tournaments.form import read_form
from service.tournaments.models import Entry, Tournament, TournamentKind
from service.tournaments.pages import tournament_list, tournament_page
from service.tournaments.settings import NoSuchTournament, TournamentRefusal

ENTRY_WEEK = timedelta(days=7)
"""The new-tournament form's start date, from today."""
_RULESETS = tuple(n for n in engine.RULESETS if len(engine.get_ruleset(n).seats) == 2)
"""The variants a tournament may be played in (its games are for two), the first by default."""


def _by_public_id(session: Session, public_id: str) -> Tournament:
    found = session.exec(
        select(Tournament).where(Tournament.public_id == public_id[:32])
    ).one_or_none()
    if found is None:
        raise NoSuchTournament()
    return found


@bp.get("/tournaments")
def tournament_list_page() -> str:
    with read_scope() as session:
        lines = tournament_list(session)
        visitor = signed_in_player(session)
    return render_template("tournaments/list.html", lines=lines, signed_in=visitor is not None)


@bp.get("/tournaments/new")
def new_tournament() -> str:
    return _form_page(_form_defaults(), None)


def _form_defaults() -> dict[str, str]:
    """What the create form shows at first."""
    return {
        "kind": TournamentKind.ROUND_ROBIN.value,
        "ruleset": _RULESETS[0],
        "claims": next(iter(CLAIM_TIMING_CHOICES)),
        "days_per_move": "3",
        "round_days": "30",
        "rounds": "5",
        "max_players": "12",
        # A week of entries unless the organiser says otherwise: a start date of today would
        # start it at the beat's next sweep, as soon as it has enough players.
        "starts_on": (clock.now() + ENTRY_WEEK).date().isoformat(),
        "scoring": tournaments.Scoring.SERIES.value,
        "deadline_policy": tournaments.DeadlinePolicy.ADJUDICATE.value,
        "entry": Entry.OPEN.value,
    }


def _form_page(values: Mapping[str, str], error: str | None) -> str:
    """The create form showing ``values``, and why the last one was refused (``error``)."""
    return render_template(
        "tournaments/new.html",
        values=values,
        error=error,
        kinds=tuple(k.value for k in TournamentKind),
        rulesets=_RULESETS,
        claims=CLAIM_TIMING_CHOICES,
        scorings=tuple(s.value for s in tournaments.Scoring),
        policies=tuple(p.value for p in tournaments.DeadlinePolicy),
        entries=tuple(e.value for e in Entry),
        tie_breaks=tuple(t.value for t in tournaments.TieBreak),
    )


@bp.post("/tournaments")
def create_tournament() -> Response | tuple[str, int]:
    """Create, then the new tournament's page; a refused form comes back with what the organiser
    typed and why (nothing stored)."""
    try:
        settings = read_form(request.form)
        with session_scope() as session:
            made = lifecycle.create(session, required_signed_in_player(session), settings)
            public_id = made.public_id
    except TournamentRefusal as refusal:
        return _form_page(request.form, str(refusal)), refusal.status
    return redirect(url_for("tournaments.tournament_view", public_id=public_id), code=303)


@bp.get("/tournaments/<public_id>")
def tournament_view(public_id: str) -> str:
    with read_scope() as session:
        found = _by_public_id(session, public_id)
        page = tournament_page(session, found, signed_in_player(session))
    return render_template("tournaments/tournament.html", page=page)


def _pressed(public_id: str, act: Callable[[Session, int, Player], object]) -> Response:
    """A button of the tournament's page: ``act`` on the tournament's id for the signed-in
    visitor, then the page again (see-other: reloading does not press twice)."""
    with session_scope() as session:
        visitor = required_signed_in_player(session)
        found = _by_public_id(session, public_id)
        assert found.id is not None
        act(session, found.id, visitor)
    return redirect(url_for("tournaments.tournament_view", public_id=public_id), code=303)


def _withdraw(session: Session, tournament_id: int, visitor: Player) -> None:
    assert visitor.id is not None
    lifecycle.withdraw(session, tournament_id, visitor.id, clock.now())


_PAGE_BUTTONS: dict[str, Callable[[Session, int, Player], object]] = {
    "enter": lifecycle.enter,
    "withdraw": _withdraw,
    "start": lifecycle.start,
    "pause": lambda session, tournament_id, visitor: pause.pause(
        session, tournament_id, visitor, clock.now()
    ),
    "resume": lambda session, tournament_id, visitor: pause.resume(
        session, tournament_id, visitor, clock.now()
    ),
    "end": lifecycle.end,
}
"""What each button of the tournament's page does, by the last part of its address."""


@bp.post(f"/tournaments/<public_id>/<any({', '.join(_PAGE_BUTTONS)}):action>")
def tournament_action(public_id: str, action: str) -> Response:
    """The signed-in visitor's button: enter or withdraw; the organiser's start, pause (stop every
    clock of the tournament's games), resume, or end (no more rounds)."""
    return _pressed(public_id, _PAGE_BUTTONS[action])


def _number_field(name: str) -> int:
    raw = request.form.get(name, "").strip()
    if not raw.isdigit() or len(raw) > 12:
        raise TournamentRefusal(lazy_gettext("Choose one of the offered values."), 400)
    return int(raw)


@bp.post("/tournaments/<public_id>/challenge")
def challenge_on_ladder(public_id: str) -> Response:
    """The signed-in entrant challenges the entrant ``entrant`` (their entry's id) above them."""
    defender = _number_field("entrant")
    return _pressed(
        public_id,
        lambda session, tournament_id, visitor: ladder.challenge(
            session, tournament_id, visitor, defender, clock.now()
        ),
    )


@bp.post("/tournaments/<public_id>/remove")
def remove_from_tournament(public_id: str) -> Response:
    """The organiser removes the player ``player``: a withdrawal in their name."""
    player_id = _number_field("player")
    return _pressed(
        public_id,
        lambda session, tournament_id, visitor: lifecycle.remove_player(
            session, tournament_id, player_id, visitor
        ),
    )
