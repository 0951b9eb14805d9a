"""The tournaments' beat task: start the tournaments whose start date has come, and act on the
round deadlines that passed (``results.at_deadline``). Each tournament in its own transaction;
idempotent, so a second run (or two at once) changes nothing more."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime

from sqlmodel import col, select

from service import clock
from service.db import session_scope
from service.tournaments import lifecycle, results
from service.tournaments.models import Tournament, TournamentStatus
from service.tournaments.settings import TournamentRefusal

SWEEP_TASK = "worker.sweep_tournaments"

logger = logging.getLogger(__name__)


@dataclass
class SweepReport:
    started: list[int] = field(default_factory=list)
    not_started: list[int] = field(default_factory=list)
    """Due but refused (too few players): they wait for entries or the organiser."""
    deadlines: dict[int, int] = field(default_factory=dict)
    """Tournament id: games adjudicated."""


def sweep(now: datetime | None = None) -> SweepReport:
    moment = clock.now() if now is None else now
    report = SweepReport()
    with session_scope() as session:
        due_starts = session.exec(
            select(Tournament.id).where(
                Tournament.status == TournamentStatus.ENTERING,
                col(Tournament.starts_at) <= moment,
            )
        ).all()
        due_rounds = results.due_tournaments(session, moment)
    for tournament_id in due_starts:
        assert tournament_id is not None
        try:
            with session_scope() as session:
                lifecycle.start(session, tournament_id)
            report.started.append(tournament_id)
        except TournamentRefusal as refusal:
            logger.info("tournament %s not started: %s", tournament_id, refusal)
            report.not_started.append(tournament_id)
    for tournament_id in due_rounds:
        with session_scope() as session:
            report.deadlines[tournament_id] = results.at_deadline(session, tournament_id, moment)
    return report
