"""The deadline scan, run by a beat task every minute (and by ``flask mail sweep``): for each
game whose ``next_check_at`` has come, ask the policy (``service.turns.deadlines``) what is due
and do it in one transaction with the game locked: a reminder, the "running late" note to the
opponent, vacation days, or the loss on time. Due times live in the database, never in
days-long countdown tasks (PITFALLS); running the scan twice at once does each thing once.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from flask import current_app
from sqlmodel import col, select
from sqlmodel.sql.expression import SelectOfScalar

from service import clock
from service.db import session_scope
from service.games import store
from service.games.state import apply_moves, load_state
from service.models import Game, GameStatus
from service.present import game_emails
from service.turns.deadlines import (
    Due,
    after_vacation_day,
    due_now,
    late_moment,
    mark_sent,
    next_check,
    reminder_moments,
)
from service.turns.start import reminder_lead, sweep_unstarted_turns, turn_clock

logger = logging.getLogger(__name__)

SCAN_TASK = "worker.scan_deadlines"
"""The Celery name of ``worker.tasks.scan_deadlines``."""

RECHECK = timedelta(minutes=1)
"""The soonest a game is looked at again when the policy names no later moment."""


@dataclass
class ScanReport:
    """What one scan did (game ids)."""

    reminded: list[int] = field(default_factory=list)
    told_late: list[int] = field(default_factory=list)
    vacation: list[int] = field(default_factory=list)
    timed_out: list[int] = field(default_factory=list)
    turns_started: list[int] = field(default_factory=list)


def scan_deadlines(now: datetime | None = None) -> ScanReport:
    """Do whatever is due at ``now`` (default: the service's clock) in every game, and start the
    turns whose start task was lost."""
    now = now or clock.now()
    report = ScanReport()
    batch = int(current_app.config["TURN_SCAN_BATCH"])
    with session_scope() as session:
        due_ids = session.exec(due_games_query(now, batch)).all()
    for game_id in due_ids:
        assert game_id is not None
        check_game(game_id, now, report)
    report.turns_started = [game_id for game_id, _ in sweep_unstarted_turns(now)]
    return report


def due_games_query(now: datetime, limit: int) -> SelectOfScalar[int | None]:
    """The ids of the active games whose next check has come at ``now``, soonest first, at most
    ``limit``. Filtered in SQL on ``ix_games_next_check_at``: it reads the due games only (a
    game that is not active has no next check)."""
    return (
        select(col(Game.id))
        .where(Game.status == GameStatus.ACTIVE, col(Game.next_check_at) <= now)
        .order_by(col(Game.next_check_at))
        .limit(limit)
    )


def check_game(game_id: int, now: datetime, report: ScanReport) -> None:
    """Do what is due in one game at ``now``, in one transaction."""
    lead = reminder_lead()
    with session_scope() as session:
        game = store.lock_game(session, game_id)
        if (
            game.status != GameStatus.ACTIVE
            or game.deadline is None
            or game.next_check_at is None
            or game.next_check_at > now  # another scan got here first
        ):
            return
        state = load_state(session, game)
        seat = state.to_move
        seat_row, _ = store.seats_of(session, game_id)[seat]
        turn = turn_clock(game, game.vacation_days - seat_row.vacation_days_used)
        due = due_now(turn, now, lead)
        days_used = 0
        while due is Due.USE_VACATION:
            turn = after_vacation_day(turn)
            days_used += 1
            due = due_now(turn, now, lead)
        if days_used:
            # Reminders that fell due by now are covered by the vacation notice.
            fallen = {d for d, at in reminder_moments(turn, lead).items() if at <= now}
            turn = replace(turn, reminders_sent=turn.reminders_sent | fallen)
            game.reminders_sent = sorted(d.value for d in turn.reminders_sent)
            due = due_now(turn, now, lead)
            seat_row.vacation_days_used += days_used
            game.deadline = turn.deadline
            # The vacation notice tells both players; no separate "running late" note this turn.
            game.late_notice_sent = True
            session.add(seat_row)
            game_emails.queue_timeout_notices(session, game, seat, days_used=days_used, lost=False)
            report.vacation.append(game_id)
        if due is Due.TIMEOUT:
            game_emails.queue_timeout_notices(session, game, seat, days_used=0, lost=True)
            # The move listener sends the game-over emails and clears next_check_at.
            apply_moves(session, game_id, seat, state.ply, ["timeout"], now=now, by_server=True)
            report.timed_out.append(game_id)
            return
        if due is not None:
            game_emails.queue_reminder(session, game, seat, now)
            turn = mark_sent(turn, due, now, lead)
            game.reminders_sent = sorted(d.value for d in turn.reminders_sent)
            game.last_reminder_at = now
            report.reminded.append(game_id)
        if not game.late_notice_sent and late_moment(turn, lead) <= now < turn.deadline:
            game_emails.queue_running_late(session, game, seat)
            game.late_notice_sent = True
            report.told_late.append(game_id)
        after = next_check(turn, lead, late_told=game.late_notice_sent)
        game.next_check_at = max(after, now + RECHECK) if after <= now else after
        session.add(game)
