"""The start of a turn: automatic claims (R5), then the "your turn" email.

When a move begins a turn (the engine's ``TurnStarted``), the move listener resets the turn's
clock on the game row and remembers ``(game, turn)`` on the session; after the commit the
``start_turn`` task is queued (run at once in the embedded, eager mode). The task locks the game
and does its work only if ``games.turn_notified`` is still below that turn, then raises it in the
same transaction: running it twice changes nothing the second time and sends no second email.
A task lost on the way (Redis down, a worker killed) is found by the deadline scan
(``sweep_unstarted_turns``).
"""

from __future__ import annotations

import enum
import logging
from datetime import datetime, timedelta

from flask import Flask, current_app, has_app_context
from sqlmodel import Session, col, or_, select

import engine
from service import clock
from service.after_commit import note_for_commit, on_commit, publish_after_commit
from service.db import read_scope, session_scope
from service.games.computer import (
    ComputerTurn,
    computer_due,
    computer_rng,
    plan_computer_turn,
    play_computer_turn,
)
from service.games.loaded import LoadedGame, load_game, lock_loaded_game
from service.games.preferences import turn_preferences
from service.games.rows import GameNotFoundError
from service.games.series import continue_series
from service.games.state import add_move_listener, apply_to_locked, load_state
from service.models import Game, GameStatus, Player, Seat
from service.outbox.addresses import add_unreachable_listener
from service.present.claims import claims_now
from service.present.deadline_emails import queue_seat_unreachable
from service.present.emails import queue_game_started
from service.present.game_emails import MadeClaim, queue_your_turn
from service.present.game_over_email import queue_game_over
from service.turns.deadlines import Due, TurnClock, next_check

logger = logging.getLogger(__name__)

START_TURN_TASK = "worker.start_turn"
"""The Celery name of ``worker.tasks.start_turn``."""
COMPUTER_TURN_TASK = "worker.start_computer_turn"
"""The Celery name of ``worker.tasks.start_computer_turn``: ``start_turn`` of a computer's turn,
on a queue of its own, so that its search never holds up a person's turn or email."""

PENDING_KEY = "battleline.turns.pending"
"""Where a session keeps the (game id, turn, task) of each turn whose start it must queue after
commit."""


class Started(enum.StrEnum):
    """What one ``start_turn`` run came to."""

    STARTED = "started"
    ALREADY = "already"
    """This turn's start was handled before: nothing done."""
    STALE = "stale"
    """The game is past that turn (or over): nothing to do."""
    WAITING = "waiting"
    """A computer seat's turn, before its delay is over: the deadline scan comes back for it
    (``next_check_at``)."""


def reminder_lead() -> timedelta:
    return timedelta(hours=float(current_app.config["TURN_REMINDER_LEAD_H"]))


def turn_clock(game: Game, vacation_days_left: int) -> TurnClock:
    """What the deadline policy needs, from the game row."""
    assert game.deadline is not None
    day = clock.game_day()
    started = game.turn_started_at or game.deadline - game.days_per_move * day
    return TurnClock(
        started=started,
        deadline=game.deadline,
        reminders_sent=frozenset(Due(value) for value in game.reminders_sent),
        last_reminder=game.last_reminder_at,
        vacation_days_left=vacation_days_left,
        day=day,
    )


def begin_turn(session: Session, loaded: LoadedGame, turn: int, seat: str) -> None:
    """``seat``'s turn began: reset its clock and queue its start after the commit. Call with
    the game locked, after its deadline was set for this turn (``apply_moves`` / the deal do
    that). A computer's turn has no reminders: it is looked at when its delay is over."""
    game = loaded.game
    assert game.id is not None and game.deadline is not None
    game.current_turn = turn
    # The deadline was just set to the turn's start plus the days per move.
    game.turn_started_at = game.deadline - game.days_per_move * clock.game_day()
    game.reminders_sent = []
    game.late_notice_sent = False
    if loaded.seats[seat].player.computer is not None:
        game.next_check_at = computer_due(game)
        note_for_commit(session, PENDING_KEY, (game.id, turn, COMPUTER_TURN_TASK))
    else:
        # Vacation days do not change when reminders fall: any seat's count gives the same time.
        game.next_check_at = next_check(turn_clock(game, 0), reminder_lead(), late_told=False)
        note_for_commit(session, PENDING_KEY, (game.id, turn, START_TURN_TASK))
    session.add(game)


def on_moves(
    session: Session, loaded: LoadedGame, state: engine.GameState, events: list[engine.Event]
) -> None:
    """The move listener: a finished game gets its game-over emails; a new turn its start."""
    game = loaded.game
    if state.result is not None:
        game.next_check_at = None
        session.add(game)
        # In a series the next game is dealt now, in the same transaction, so that the game-over
        # email can give its link (and its first turn starts like any other).
        following = continue_series(session, loaded, state, clock.now())
        queue_game_over(session, loaded, state, following=following)
        if following is not None:
            queue_game_started(session, following)
        return
    turns = [event for event in events if isinstance(event, engine.TurnStarted)]
    if turns:
        begin_turn(session, loaded, turns[-1].turn, turns[-1].seat)


def start_turn(game_id: int, turn: int, *, computer: bool = False) -> Started:
    """Make the automatic claims of ``turn`` (if the player chose them and the advanced rule is
    in force) and queue the "your turn" email (unless the player reads a daily digest), once.
    A claim may end the game: then the game-over emails go instead. ``computer``: the caller
    knows it is a computer seat's turn, whose search then runs before the game is locked."""
    now = clock.now()
    searched = _computer_turn_before_lock(game_id, turn, now) if computer else None
    with session_scope() as session:
        loaded = lock_loaded_game(session, game_id)
        game = loaded.game
        found = _turn_to_start(session, loaded, turn, now)
        if isinstance(found, Started):
            if found is Started.STALE and game.status == GameStatus.ACTIVE:
                # The game is past this turn: the sweep must not take it up again.
                game.turn_notified = turn
            elif found is Started.WAITING:
                game.next_check_at = computer_due(game)
            session.add(game)
            return found
        state = found
        seat = state.to_move
        seat_row, player = loaded.seats[seat]
        if player.computer is not None:
            return _computer_turn(session, loaded, state, player.computer, now, searched)
        chosen = turn_preferences(player, seat_row)
        made: list[MadeClaim] = []
        if chosen.automatic_claims:
            _, claims = engine.apply_automatic_claims(state)
            if claims:
                # Each proof in fields, for the emails that say why (claims change no proof).
                proofs = claims_now(state, seat)
                state, events = apply_to_locked(
                    session, loaded, state, seat, state.ply, claims, now=now
                )
                made = [
                    MadeClaim(flag=e.flag, reason=e.reason, explained=proofs.get(e.flag))
                    for e in events
                    if isinstance(e, engine.FlagClaimed)
                ]
        game.turn_notified = turn
        session.add(game)
        if state.result is None and not chosen.digest:
            queue_your_turn(
                session, loaded, state, claims_made=made, automatic_claims=chosen.automatic_claims
            )
    return Started.STARTED


def _turn_to_start(
    session: Session, loaded: LoadedGame, turn: int, now: datetime
) -> engine.GameState | Started:
    """The position ``turn`` starts from, if it is to start now; else why not: ALREADY, STALE
    (the game is over or past that turn) or WAITING (a computer's turn before its delay is
    over). Changes nothing, so that it may be asked of an unlocked read too."""
    game = loaded.game
    if game.turn_notified >= turn:
        return Started.ALREADY
    if game.status != GameStatus.ACTIVE:
        return Started.STALE
    state = load_state(session, loaded)
    if state.result is not None or state.turn != turn:
        return Started.STALE
    if loaded.seats[state.to_move].player.computer is not None and now < computer_due(game):
        return Started.WAITING
    return state


def _computer_turn_before_lock(game_id: int, turn: int, now: datetime) -> ComputerTurn | None:
    """The computer's moves of ``turn`` when it is a computer's turn that is due, searched from
    an unlocked read: the search may take a second, and on SQLite the lock is the whole
    database's. None when it is not such a turn (or the game is gone)."""
    with read_scope() as session:
        try:
            loaded = load_game(session, game_id)
        except GameNotFoundError:
            return None
        found = _turn_to_start(session, loaded, turn, now)
        if isinstance(found, Started):
            return None
        seat = found.to_move
        level = loaded.seats[seat].player.computer
        if level is None:
            return None
        rng = computer_rng(loaded.game, found.ply)
    return plan_computer_turn(found, seat, level, rng)


def _computer_turn(
    session: Session,
    loaded: LoadedGame,
    state: engine.GameState,
    level: str,
    now: datetime,
    searched: ComputerTurn | None,
) -> Started:
    """A computer seat plays its turn, its delay being over (in the same locked transaction
    that records the turn as started: run twice, it plays once). ``searched``: its moves chosen
    before the lock, played if they were searched from this very position."""
    game = loaded.game
    game.turn_notified = state.turn
    game.next_check_at = None
    session.add(game)
    play_computer_turn(session, loaded, state, state.to_move, level, now, searched)
    return Started.STARTED


def sweep_unstarted_turns(now: datetime) -> list[tuple[int, int]]:
    """Start every turn whose ``start_turn`` task has not run ``TURN_START_GRACE_S`` after the
    turn began (the task was lost). Returns the (game, turn) pairs started.

    A computer's turn stays unstarted until its delay is over, and its game's next check (which
    plays it; a lost check comes back when its lease ends) is set meanwhile: such a turn is not
    lost. It is only when the check took it (``next_check_at`` cleared) and did not play it."""
    grace = timedelta(seconds=float(current_app.config["TURN_START_GRACE_S"]))
    with session_scope() as session:
        waiting = session.exec(
            select(Game.id, Game.current_turn)
            .join(Seat, (col(Seat.game_id) == col(Game.id)) & (col(Seat.letter) == Game.to_move))
            .join(Player, col(Player.id) == col(Seat.player_id))
            .where(
                Game.status == GameStatus.ACTIVE,
                col(Game.turn_notified) < col(Game.current_turn),
                col(Game.turn_started_at) <= now - grace,
                or_(col(Player.computer).is_(None), col(Game.next_check_at).is_(None)),
            )
        ).all()
    started = []
    for game_id, turn in waiting:
        assert game_id is not None
        if start_turn(game_id, turn) is Started.STARTED:
            logger.warning("started turn %s of game %s by the sweep", turn, game_id)
            started.append((game_id, turn))
    return started


def dispatch(pending: list[tuple[int, int, str]]) -> None:
    """Queue each (game, turn, task): ``START_TURN_TASK``, or ``COMPUTER_TURN_TASK`` for a
    computer's turn (eager mode: run it now). After the commit."""
    if not has_app_context():
        logger.warning("turns %s began outside an app: the deadline scan starts them", pending)
        return
    # The move is committed and the scan starts lost turns: a broker that is down or stalled
    # must neither turn the move just made into an error page nor hold the request (bounded by
    # BROKER_PUBLISH_TIMEOUT_S).
    publish_after_commit(
        current_app.extensions["celery"],
        [(task, (game_id, turn)) for game_id, turn, task in pending],
        f"the start of (game, turn, task) {pending}",
    )


# Looked up at each commit, so that a test may replace ``dispatch``.
on_commit(PENDING_KEY, lambda pending: dispatch(pending))


def init_app(app: Flask) -> None:
    """Hook the start of turns and the game-over emails on every move of ``app``, and the
    notice to the other seats on every address that stops taking our email."""
    add_move_listener(app, on_moves)
    add_unreachable_listener(app, tell_the_others)


def tell_the_others(session: Session, player_id: int, why: str) -> None:
    """An address stopped taking our email: the other seats of the player's running games are
    told, so that unsubscribing (or a dead mailbox) never silently costs anyone a game."""
    queue_seat_unreachable(session, player_id, why)
