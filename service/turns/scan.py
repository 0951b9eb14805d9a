"""The deadline scan, run by a beat task every minute (on the embedded default also as soon as a
game is due, ``service.embedded_beat``; and by ``flask mail sweep``).

The scan only finds the games whose ``next_check_at`` has come (an index scan that reads the due
games alone), claims them for ``CHECK_LEASE`` and queues ``check_games`` tasks for them
(``CHECK_TASK_GAMES`` games each) after its commit: a thousand due games cost the beat a fraction of
a second, and the workers share the work. Each check asks the policy (``service.turns.deadlines``)
what is due and does it in one transaction with the game locked: a reminder, the "running late"
note, vacation days, or the loss on time. A check is idempotent (what it did is recorded on the game
row in the same transaction), so a task run twice does each thing once; a task lost on the way
leaves the game due again when its lease ends. Due times live in the database, never in days-long
countdown tasks (Redis delivers again a task unacknowledged after its visibility timeout). In the
embedded mode the tasks run at once, in the scan.
"""

from __future__ import annotations

import enum
import logging
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from flask import current_app
from sqlmodel import Session, col, select, update
from sqlmodel.sql.expression import SelectOfScalar

import engine
from service import clock
from service.after_commit import publish_after_commit
from service.db import session_scope
from service.games.loaded import LoadedGame, lock_loaded_game
from service.games.state import apply_to_locked, load_state
from service.models import Game, GameStatus, Player, Seat
from service.present import deadline_emails
from service.turns.deadlines import (
    Due,
    after_vacation_day,
    due_now,
    late_moment,
    mark_sent,
    next_check,
    reminder_moments,
)
from service.turns.start import (
    Started,
    reminder_lead,
    start_turn,
    sweep_unstarted_turns,
    turn_clock,
)

logger = logging.getLogger(__name__)

SCAN_TASK = "worker.scan_deadlines"
"""The Celery name of ``worker.tasks.scan_deadlines``."""
CHECK_TASK = "worker.check_games"
"""The Celery name of ``worker.tasks.check_games``."""
COMPUTER_CHECK_TASK = "worker.check_computer_games"
"""The Celery name of ``worker.tasks.check_computer_games``: ``check_games`` of the games where
the computer is to move (it plays there), on the computer's queue."""
CHECK_TASK_GAMES = 20
"""The most games in one check task: a thousand due games make fifty tasks (publishing each
costs about as much as claiming all the games), and several workers still share them."""

CHECK_LEASE = timedelta(minutes=5)
"""A claimed game is not picked by another scan for this long: its check task runs meanwhile (or
was lost, and the game is due again)."""

RECHECK = timedelta(minutes=1)
"""The soonest a game is looked at again when the policy names no later moment."""


class Checked(enum.StrEnum):
    """What one check of a game did (the last thing, when several fell due at once)."""

    NOTHING = "nothing"
    REMINDED = "reminded"
    TOLD_LATE = "told-late"
    VACATION = "vacation"
    TIMED_OUT = "timed-out"
    COMPUTER_PLAYED = "computer-played"
    """A computer seat's delay was over: it played its turn."""


@dataclass
class ScanReport:
    """What one scan did (game ids)."""

    checked: list[int] = field(default_factory=list)
    """Due games claimed, their checks queued (run already in the embedded mode)."""
    turns_started: list[int] = field(default_factory=list)


def scan_deadlines(now: datetime | None = None) -> ScanReport:
    """Queue a check of every game where something is due at ``now`` (default: the service's
    clock), at most ``TURN_SCAN_BATCH`` per run, and start the turns whose start task was
    lost."""
    now = now or clock.now()
    batch = int(current_app.config["TURN_SCAN_BATCH"])
    with session_scope() as session:
        due = claim_due_games(session, now, batch)
        computer = computer_to_move(session, due)
    people = [game_id for game_id in due if game_id not in computer]
    thinking = [game_id for game_id in due if game_id in computer]
    # Committed: a check that starts now finds its game claimed, and a later scan leaves it.
    publish_after_commit(
        current_app.extensions["celery"],
        [
            (task, (now.isoformat(), *games[start : start + CHECK_TASK_GAMES]))
            for task, games in ((CHECK_TASK, people), (COMPUTER_CHECK_TASK, thinking))
            for start in range(0, len(games), CHECK_TASK_GAMES)
        ],
        f"the checks of {len(due)} games",
    )
    report = ScanReport(checked=due)
    report.turns_started = [game_id for game_id, _ in sweep_unstarted_turns(now)]
    return report


def claim_due_games(session: Session, now: datetime, limit: int) -> list[int]:
    """The due games (``due_games_query``), each claimed until ``now + CHECK_LEASE``; rows that
    another scan holds are skipped (PostgreSQL ``SKIP LOCKED``; SQLite's write lock is held by
    the session already)."""
    ids = [
        game_id
        for game_id in session.exec(due_games_query(now, limit).with_for_update(skip_locked=True))
        if game_id is not None
    ]
    if ids:
        session.exec(
            update(Game)
            .where(col(Game.id).in_(ids))
            .values(next_check_at=now + CHECK_LEASE)
            .execution_options(synchronize_session=False)
        )
    return ids


def computer_to_move(session: Session, game_ids: list[int]) -> set[int]:
    """Those of ``game_ids`` where a computer seat is to move."""
    if not game_ids:
        return set()
    found = session.exec(
        select(Game.id)
        .join(Seat, (col(Seat.game_id) == col(Game.id)) & (col(Seat.letter) == Game.to_move))
        .join(Player, col(Player.id) == col(Seat.player_id))
        .where(col(Game.id).in_(game_ids), col(Player.computer).is_not(None))
    )
    return {game_id for game_id in found if game_id is not None}


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


def check_game(game_id: int, now: datetime) -> Checked:
    """Do what is due in one game at ``now``, in one transaction, once: what was done is
    recorded on the game row (reminders sent, the late notice, the new deadline, the result),
    so a second check at the same moment finds nothing more to do. A computer seat has no
    deadline: its turn starts (``start_turn``) when its delay is over."""
    with session_scope() as session:
        loaded = lock_loaded_game(session, game_id)
        game = loaded.game
        if game.status != GameStatus.ACTIVE or game.deadline is None or game.next_check_at is None:
            return Checked.NOTHING
        state = load_state(session, loaded)
        seat_row, player = loaded.seats[state.to_move]
        if player.computer is None:
            return _check_person(session, loaded, state, seat_row, now)
        computer_turn = game.current_turn
        game.next_check_at = None  # start_turn sets it again if the delay is not over
        session.add(game)
    started = start_turn(game_id, computer_turn, computer=True)
    return Checked.COMPUTER_PLAYED if started is Started.STARTED else Checked.NOTHING


def _check_person(
    session: Session, loaded: LoadedGame, state: engine.GameState, seat_row: Seat, now: datetime
) -> Checked:
    """``check_game`` of a person's turn, with the game locked."""
    game = loaded.game
    lead = reminder_lead()
    done = Checked.NOTHING
    seat = state.to_move
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
        deadline_emails.queue_vacation_notices(session, loaded, seat, days_used=days_used)
        done = Checked.VACATION
    if due is Due.TIMEOUT:
        # The move listener sends the game-over emails (they say the game was lost on time:
        # no notice of its own) and clears next_check_at.
        apply_to_locked(
            session, loaded, state, seat, state.ply, ["timeout"], now=now, by_server=True
        )
        return Checked.TIMED_OUT
    if due is not None:
        deadline_emails.queue_reminder(session, loaded, seat, now)
        turn = mark_sent(turn, due, now, lead)
        game.reminders_sent = sorted(d.value for d in turn.reminders_sent)
        game.last_reminder_at = now
        done = Checked.REMINDED
    if not game.late_notice_sent and late_moment(turn, lead) <= now < turn.deadline:
        deadline_emails.queue_running_late(session, loaded, seat)
        game.late_notice_sent = True
        done = Checked.TOLD_LATE
    after = next_check(turn, lead, late_told=game.late_notice_sent)
    game.next_check_at = max(after, now + RECHECK) if after <= now else after
    session.add(game)
    return done
