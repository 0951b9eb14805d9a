"""The create form read into ``TournamentSettings``: every field strictly, a clear 400 for the
first one that cannot be read (the checks of the values themselves are ``check_settings``)."""

from __future__ import annotations

from datetime import UTC, datetime, time
from enum import Enum
from typing import TypeVar

from werkzeug.datastructures import MultiDict

import engine
import tournaments
from service.catalogue import lazy_gettext
from service.refusal import Text
from service.tournaments.models import Entry, TournamentKind
from service.tournaments.settings import TournamentRefusal, TournamentSettings

MAX_FIELD = 4000
MAX_INVITED = 256


def _whole(form: MultiDict[str, str], name: str, label: Text, default: str = "") -> int:
    raw = form.get(name, default).strip()
    if not raw.isdigit() or len(raw) > 6:
        raise TournamentRefusal(lazy_gettext("%(field)s must be a whole number.", field=label), 400)
    return int(raw)


E = TypeVar("E", bound=Enum)


def _choice(form: MultiDict[str, str], name: str, kind: type[E]) -> E:
    try:
        return kind(form.get(name, ""))
    except ValueError:
        raise TournamentRefusal(lazy_gettext("Choose one of the offered values."), 400) from None


def read_form(form: MultiDict[str, str]) -> TournamentSettings:
    """The settings the form asks for (tie-breaks left empty: the kind's default order). Raises
    TournamentRefusal (400)."""
    if any(len(v) > MAX_FIELD for v in form.values()):
        raise TournamentRefusal(lazy_gettext("A field is too long."), 400)
    try:
        day = datetime.strptime(form.get("starts_on", ""), "%Y-%m-%d").date()
    except ValueError:
        raise TournamentRefusal(lazy_gettext("Give the start date as YYYY-MM-DD."), 400) from None
    entry = _choice(form, "entry", Entry)
    invited = tuple(a for a in form.get("invited", "").replace(",", " ").split() if a)
    if len(invited) > MAX_INVITED or any("@" not in a for a in invited):
        raise TournamentRefusal(lazy_gettext("List up to 256 email addresses to invite."), 400)
    kind = _choice(form, "kind", TournamentKind)
    rating_min = rating_max = None
    if entry is Entry.RATING:
        rating_min = _whole(form, "rating_min", lazy_gettext("The lowest rating"))
        rating_max = _whole(form, "rating_max", lazy_gettext("The highest rating"))
    chosen = [form.get(f"tie_break_{n}", "") for n in (1, 2, 3)]
    tie_breaks = tuple(
        _choice(MultiDict({"t": value}), "t", tournaments.TieBreak) for value in chosen if value
    )
    return TournamentSettings(
        name=form.get("name", ""),
        kind=kind,
        ruleset=form.get("ruleset", ""),
        claims=_choice(form, "claims", engine.ClaimTiming),
        days_per_move=_whole(form, "days_per_move", lazy_gettext("Days per move")),
        round_days=_whole(form, "round_days", lazy_gettext("Days per round")),
        rounds=_whole(form, "rounds", lazy_gettext("Rounds"), "0")
        if kind is TournamentKind.SWISS
        else 0,
        double_round=kind is TournamentKind.ROUND_ROBIN and form.get("double_round") == "on",
        rated=form.get("rated") == "rated",
        starts_at=datetime.combine(day, time(), UTC),
        max_players=_whole(form, "max_players", lazy_gettext("Players at most")),
        scoring=_choice(form, "scoring", tournaments.Scoring),
        deadline_policy=_choice(form, "deadline_policy", tournaments.DeadlinePolicy),
        entry=entry,
        invited=invited,
        rating_min=rating_min,
        rating_max=rating_max,
        tie_breaks=tie_breaks,
    )
