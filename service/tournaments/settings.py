"""A new tournament's settings, checked before anything is stored, and the refusal every
tournament action raises."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import engine
import tournaments
from service.catalogue import lazy_gettext
from service.refusal import Refusal, Text
from service.tournaments.models import Entry, TournamentKind

MAX_NAME = 80
MAX_SWISS_PLAYERS = 256


class TournamentRefusal(Refusal):
    """A tournament action that cannot be done; nothing was changed."""

    title = lazy_gettext("This cannot be done in this tournament")

    def __init__(self, message: Text, status: int = 409) -> None:
        super().__init__(message)
        self.status = status


class NoSuchTournament(TournamentRefusal):
    """A tournament asked for that is not there (or not any more)."""

    def __init__(self) -> None:
        super().__init__(lazy_gettext("There is no such tournament."), 404)


def least_players(kind: TournamentKind, rounds: int) -> int:
    """How many entrants a tournament needs to start: a round-robin section's three, a ladder's
    two, and for a Swiss tournament twice its rounds (its rounds are at most half the players:
    docs/tournaments.md, "Rounds")."""
    if kind is TournamentKind.ROUND_ROBIN:
        return 3
    return max(2, 2 * rounds)


@dataclass(frozen=True)
class TournamentSettings:
    name: str
    kind: TournamentKind
    ruleset: str
    claims: engine.ClaimTiming
    days_per_move: int
    round_days: int
    rated: bool
    starts_at: datetime
    max_players: int
    scoring: tournaments.Scoring
    deadline_policy: tournaments.DeadlinePolicy
    rounds: int = 0
    """A Swiss tournament's rounds; 0 for a round-robin or a ladder."""
    double_round: bool = False
    """A round-robin where each pair plays twice, the seats swapped the second time."""
    entry: Entry = Entry.OPEN
    invited: tuple[str, ...] = ()
    rating_min: int | None = None
    rating_max: int | None = None
    tie_breaks: tuple[tournaments.TieBreak, ...] = field(default=())
    """Empty: the kind's default order (docs/tournaments.md)."""

    def chosen_tie_breaks(self) -> tuple[tournaments.TieBreak, ...]:
        if self.tie_breaks:
            return self.tie_breaks
        if self.kind is TournamentKind.SWISS:
            return tournaments.SWISS_TIE_BREAKS
        return tournaments.ROUND_ROBIN_TIE_BREAKS


def check_settings(settings: TournamentSettings) -> None:
    """Raise TournamentRefusal (400) naming the first setting that cannot be used."""
    refuse = _first_problem(settings)
    if refuse is not None:
        raise TournamentRefusal(refuse, 400)


def _first_problem(s: TournamentSettings) -> Text | None:
    if not s.name.strip() or len(s.name) > MAX_NAME:
        return lazy_gettext("A tournament needs a name of 1 to 80 characters.")
    if s.ruleset not in engine.RULESETS or len(engine.get_ruleset(s.ruleset).seats) != 2:
        return lazy_gettext("A tournament plays a two-player variant.")
    if not 1 <= s.days_per_move <= 14:
        return lazy_gettext("Days per move are 1 to 14.")
    if not 1 <= s.round_days <= 365:
        return lazy_gettext("A round lasts 1 to 365 days.")
    if len(set(s.tie_breaks)) != len(s.tie_breaks):
        return lazy_gettext("Each tie-break can be chosen once.")
    if s.entry is Entry.RATING and (
        s.rating_min is None or s.rating_max is None or s.rating_min > s.rating_max
    ):
        return lazy_gettext("A rating range needs a lowest and a highest rating, in that order.")
    if s.entry is Entry.INVITED and not s.invited:
        return lazy_gettext("An invitation-only tournament needs at least one address.")
    if s.kind is TournamentKind.ROUND_ROBIN:
        low, high = tournaments.round_robin.MIN_PLAYERS, tournaments.round_robin.MAX_PLAYERS
        if not low <= s.max_players <= high:
            return lazy_gettext("A round-robin section has 3 to 12 players.")
        if s.rounds:
            return lazy_gettext("A round-robin's rounds follow from its players.")
        return None
    if s.double_round:
        return lazy_gettext("Only a round-robin can be played twice over.")
    if s.kind is TournamentKind.LADDER:
        if not 2 <= s.max_players <= MAX_SWISS_PLAYERS:
            return lazy_gettext("A ladder has 2 to 256 players.")
        if s.rounds:
            return lazy_gettext("A ladder has no rounds: challenges follow each other.")
        return None
    if not 2 <= s.max_players <= MAX_SWISS_PLAYERS:
        return lazy_gettext("A Swiss tournament has 2 to 256 players.")
    if not 1 <= s.rounds <= s.max_players // 2:
        return lazy_gettext("A Swiss tournament has 1 to half its players' number of rounds.")
    return None
