"""Applying moves: one transaction, the game row locked, the log appended, the snapshot and the
deadline updated, the game finished when the engine says so.

``apply_moves`` is the only way a move enters the log: the web pages, the move links and (later)
the mail worker all go through it. Listeners registered with ``add_move_listener`` run inside the
same transaction, after the moves, with the engine's events (the mail worker queues its "your
turn" and "game over" emails there, so they commit or roll back with the move).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from flask import Flask, current_app, has_app_context
from flask_babel import LazyString
from sqlmodel import Session, col, select

import engine
from service import clock
from service.catalogue import gettext, lazy_gettext
from service.engine_words import engine_error_sentence
from service.games.claim_proofs import proof_record
from service.games.loaded import LoadedGame, lock_loaded_game
from service.games.move_log import LogEntry, append_moves, moves_from
from service.games.records import deal_fields, game_record
from service.games.refusals import (
    GAME_STATUS_WORDS,
    AlreadyPlayedError,
    GameNotPlayingError,
    IllegalMoveRefusal,
    NotATurnEndingError,
    RulesVersionError,
    StaleMoveError,
    UnreadableMoveError,
    WrongSeatError,
)
from service.games.snapshots import save_snapshot, snapshot_at_or_before, snapshots_nearest
from service.json_columns import ClaimProof, GameResult
from service.models import Game, GameStatus, MoveEntry
from service.refusal import Refusal, later

MAX_MOVES_PER_CALL = 8
"""A turn is at most a handful of entries (claims, a play, Scout draws, a return, a draw)."""

MoveListener = Callable[[Session, LoadedGame, engine.GameState, list[engine.Event]], None]
"""Runs in the transaction after moves were applied: (session, the game as loaded under its
lock, new state, events). The game row in it holds the new ply."""

LISTENERS_KEY = "battleline.move_listeners"


def add_move_listener(app: Flask, listener: MoveListener) -> None:
    """Run ``listener`` after every successful ``apply_moves`` of ``app``, in its transaction.
    A listener that raises rolls the moves back."""
    app.extensions.setdefault(LISTENERS_KEY, []).append(listener)


# --- reading the state -------------------------------------------------------------------------


def check_rules_version(game: Game) -> None:
    """Raise RulesVersionError unless the game started under this engine's rules."""
    if game.rules_version != engine.RULES_VERSION:
        raise RulesVersionError(game.rules_version)


def replay_log(game: Game, notations: Sequence[str]) -> list[engine.GameState]:
    """Every position of a dealt game, from the deal through each of these log entries."""
    check_rules_version(game)
    return list(engine.replay_states(game_record(game, notations)))


def load_state(session: Session, loaded: LoadedGame) -> engine.GameState:
    """The current position of a dealt game (after ``game.ply`` log entries): its latest
    snapshot (read with the game: no query). Raises RulesVersionError, GameNotPlayingError when
    the game was never dealt."""
    game = loaded.game
    if game.deal is None:
        raise GameNotPlayingError(
            lazy_gettext(
                "This game is %(status)s: nothing has been dealt.",
                status=GAME_STATUS_WORDS[GameStatus(game.status)],
            )
        )
    state = state_at(session, loaded, game.ply)
    assert state is not None
    return state


def state_at(session: Session, loaded: LoadedGame, ply: int) -> engine.GameState | None:
    """The position after ``ply`` log entries, or None when the log is not that long (or the
    game was not dealt). The nearest snapshot before it (one read with the game, else a query)
    plus the few moves since (snapshots are kept every ``snapshots.SNAPSHOT_BLOCK`` plies), so
    any position costs about the same; the log stays the truth: with no snapshot at all, the
    whole log is replayed."""
    game = loaded.game
    assert game.id is not None
    check_rules_version(game)
    if game.deal is None or not 0 <= ply <= game.ply:
        return None
    snapshot = snapshot_at_or_before(session, game.id, ply, loaded.snapshots)
    if snapshot is None:
        notations = [e.notation for e in moves_from(session, game.id, 0, ply)]
        return replay_log(game, notations)[-1]
    state = engine.state_from_json(snapshot.state)
    if snapshot.ply < ply:
        for entry in moves_from(session, game.id, snapshot.ply, ply):
            state, _ = engine.apply(state, engine.parse_move(entry.notation, state.ruleset))
    return state


def states_at(
    session: Session, loaded: LoadedGame, plies: tuple[int, int], entries: Sequence[LogEntry]
) -> dict[int, engine.GameState]:
    """The positions after each of two numbers of log entries (a replay's position and the
    latest), from their nearest snapshots (those read with the game, else one query) and the
    log ``entries`` at hand, which must reach from those snapshots to the plies (the whole log
    does). A ply the log is not that long for is left out."""
    game = loaded.game
    assert game.id is not None
    check_rules_version(game)
    # The latest position asked for twice (a replay at its last step) is made once.
    wanted = sorted({ply for ply in plies if game.deal is not None and 0 <= ply <= game.ply})
    if not wanted:
        return {}
    snapshots = snapshots_nearest(session, game.id, wanted[0], wanted[-1], loaded.snapshots)
    by_ply = {entry.ply: entry for entry in entries}
    found: dict[int, engine.GameState] = {}
    for ply in wanted:
        nearest = max((s for s in snapshots if s.ply <= ply), key=lambda s: s.ply, default=None)
        if nearest is None or any(p not in by_ply for p in range(nearest.ply, ply)):
            state = state_at(session, loaded, ply)  # no snapshot, or a log without these moves
        else:
            state = engine.state_from_json(nearest.state)
            for entry in (by_ply[p] for p in range(nearest.ply, ply)):
                state, _ = engine.apply(state, engine.parse_move(entry.notation, state.ruleset))
        if state is not None:
            found[ply] = state
    return found


def parse_moves(
    moves: Sequence[engine.Move | str], seat: str, ruleset: engine.Ruleset
) -> list[engine.Move]:
    """Moves given as Move objects or notation, with or without the seat (``"R7>3"`` is read as
    this seat's). Raises UnreadableMoveError or WrongSeatError."""
    if not moves:
        raise UnreadableMoveError(lazy_gettext("No move was given."))
    if len(moves) > MAX_MOVES_PER_CALL:
        raise UnreadableMoveError(
            lazy_gettext("At most %(num)d moves can be made at once.", num=MAX_MOVES_PER_CALL)
        )
    parsed = []
    for move in moves:
        if isinstance(move, str):
            text = move if ":" in move else f"{seat}: {move}"
            try:
                move = engine.parse_move(text, ruleset)
            except engine.ExplainedError as error:
                raise UnreadableMoveError(_unreadable(error)) from None
        if move.seat != seat:
            raise WrongSeatError(
                lazy_gettext(
                    "That move is written for another player's seat: you can play only your own."
                )
            )
        parsed.append(move)
    return parsed


def _unreadable(error: engine.ExplainedError) -> LazyString:
    """Why a move could not be read, said when the refusal is read."""
    return later(
        lambda: gettext("%(reason)s Nothing was changed.", reason=engine_error_sentence(error))
    )


# --- applying ----------------------------------------------------------------------------------


def apply_moves(
    session: Session,
    game_id: int,
    seat: str,
    expected_ply: int,
    moves: Sequence[engine.Move | str],
    *,
    now: datetime | None = None,
    by_server: bool = False,
) -> tuple[engine.GameState, list[engine.Event]]:
    """Apply ``moves`` for ``seat``, in order, all or nothing, to the game standing at
    ``expected_ply``; return the new position and the engine's events.

    Locks the game row first (``loaded.lock_loaded_game``), so two identical requests apply
    once: the second waits, then finds the log already holding its moves and raises
    AlreadyPlayedError.
    Appends one log entry per move (and the ``end`` of a turn that has no other move left,
    ``engine.automatic_end``: an ``end`` given after it is then already done), stores a
    snapshot, moves the deadline to ``now`` plus the game's days per move when the turn passes
    to the other seat, and finishes the game row (status, result, no deadline) when the game
    ends. Works in the caller's session; the
    caller's ``session_scope`` commits.

    ``timeout`` is refused unless ``by_server`` (only the server may enter it).
    Raises GameNotFoundError, RulesVersionError, GameNotPlayingError, UnreadableMoveError,
    WrongSeatError, StaleMoveError, AlreadyPlayedError or IllegalMoveRefusal; nothing is
    written then.
    """
    loaded = lock_loaded_game(session, game_id)
    return apply_to_locked(
        session, loaded, load_state(session, loaded), seat, expected_ply, moves,
        now=now, by_server=by_server,
    )  # fmt: skip


def apply_to_locked(
    session: Session,
    loaded: LoadedGame,
    state: engine.GameState,
    seat: str,
    expected_ply: int,
    moves: Sequence[engine.Move | str],
    *,
    now: datetime | None = None,
    by_server: bool = False,
    then_ends_turn: bool = False,
) -> tuple[engine.GameState, list[engine.Event]]:
    """``apply_moves`` for a caller that already holds the game's row lock and the game as read
    after it (``loaded.lock_loaded_game``) and its current position ``state``: the start of a
    turn and the deadline check read them anyway, and neither is read twice.

    ``then_ends_turn``: the move after the first must be one of the engine's endings of the turn
    after it (a move link's ``then``), else NotATurnEndingError."""
    game = loaded.game
    assert game.id is not None
    game_id = game.id
    parsed = parse_moves(moves, seat, state.ruleset)
    if expected_ply != state.ply:
        raise _stale_or_repeated(session, game_id, expected_ply, parsed, state.ply)
    if game.status != GameStatus.ACTIVE or state.result is not None:
        raise GameNotPlayingError(
            lazy_gettext(
                "This game is %(status)s. Nothing was changed.",
                status=GAME_STATUS_WORDS[GameStatus(game.status)],
            )
        )
    events: list[engine.Event] = []
    entries: list[tuple[int, str, str]] = []
    proofs: list[ClaimProof | None] = []
    ended_by_itself = False
    endings: list[str] | None = None
    for given in parsed:
        if then_ends_turn and endings is not None and str(given) not in endings:
            raise NotATurnEndingError(given)
        if given.action is engine.Action.END and ended_by_itself:
            continue  # the turn ended by itself just before: an `end` asked for is done
        if given.action is engine.Action.TIMEOUT and not by_server:
            raise UnreadableMoveError(lazy_gettext("Only the server records a loss on time."))
        move: engine.Move | None = given
        ended_by_itself = False
        while move is not None:
            try:
                after, happened = engine.apply(state, move)
            except engine.IllegalMoveError as error:
                # The engine names seats by letter; the player reads it in words.
                raise IllegalMoveRefusal(move, error, state.to_move != seat) from None
            # One log entry per ply: the unique (game, ply) key relies on it.
            assert after.ply == state.ply + 1, (state.ply, after.ply)
            if then_ends_turn and endings is None:
                endings = [str(m) for m in engine.endings_after(state, after)]
            entries.append((state.ply, seat, str(move)))
            # A claim is kept with why it held, from the position before it (no replay to say
            # it).
            proofs.append(proof_record(state, move))
            events.extend(happened)
            state = after
            # When the end is the only move left, the turn ends by itself (by link, page, reply
            # and the computer alike): nobody is asked for a move that is no choice.
            move = engine.automatic_end(state)
            ended_by_itself = ended_by_itself or move is not None
    append_moves(session, game_id, entries, proofs)  # one INSERT for the whole turn
    save_snapshot(session, game_id, state.ply, engine.state_to_json(state))
    _update_game(game, state, events, now or clock.now())
    # Not flushed here: what the listeners change on the row too (the start of the next turn)
    # goes in the same UPDATE, at the commit or at the first query that needs it (autoflush).
    session.add(game)
    _tell_listeners(session, loaded, state, events)
    return state, events


def deal_game(
    session: Session, loaded: LoadedGame, now: datetime, first: str | None = None
) -> LoadedGame:
    """The deal step: the engine cuts and deals from the game's seed (R2, R3) and sets up the
    first position; the deal, the ply-0 snapshot and the first deadline are stored, and the
    listeners hear that the first turn began, as after any move. ``first``: this seat plays
    first, with no cut (in a series, the winner of the previous game, R2). Call with the game
    locked."""
    game = loaded.game
    assert game.id is not None
    ruleset = engine.get_ruleset(game.ruleset)
    claims = engine.ClaimTiming(game.claims)
    deal = engine.deal_from_seed(ruleset, game.seed, first)
    state = engine.start(ruleset, claims, deal)
    game.deal = deal_fields(engine.GameRecord(ruleset=ruleset, claims=claims, deal=deal))
    game.status = GameStatus.ACTIVE
    save_snapshot(session, game.id, state.ply, engine.state_to_json(state))
    first_turn: list[engine.Event] = [engine.TurnStarted(seat=state.to_move, turn=state.turn)]
    _update_game(game, state, first_turn, now)
    session.add(game)
    session.flush()
    _tell_listeners(session, loaded, state, first_turn)
    return loaded


def _tell_listeners(
    session: Session, loaded: LoadedGame, state: engine.GameState, events: list[engine.Event]
) -> None:
    if has_app_context():
        for listener in current_app.extensions.get(LISTENERS_KEY, ()):
            listener(session, loaded, state, events)


def _update_game(
    game: Game, state: engine.GameState, events: Sequence[engine.Event], now: datetime
) -> None:
    game.ply = state.ply
    game.to_move = None if state.result is not None else state.to_move
    if state.result is not None:
        game.status = GameStatus.FINISHED
        game.deadline = None
        game.result = result_json(state)
        return
    turns = [e for e in events if isinstance(e, engine.TurnStarted)]
    if turns:
        game.deadline = now + game.days_per_move * clock.game_day()


def result_json(state: engine.GameState) -> GameResult:
    """What ``games.result`` holds for a finished game."""
    assert state.result is not None
    seen = engine.public_view(state)
    return GameResult(
        winner=state.result.winner,
        termination=state.result.termination.value,
        flags_held=dict(seen["flags_held"]),
        series_points=dict(engine.series_points(state)),
        ply=state.ply,
    )


def _stale_or_repeated(
    session: Session,
    game_id: int,
    expected_ply: int,
    moves: Sequence[engine.Move],
    current_ply: int,
) -> Refusal:
    """AlreadyPlayedError when the log holds exactly these moves from ``expected_ply`` on (the
    same request, repeated), else StaleMoveError."""
    if 0 <= expected_ply < current_ply:
        entries = session.exec(
            select(MoveEntry)
            .where(
                MoveEntry.game_id == game_id,
                col(MoveEntry.ply) >= expected_ply,
                col(MoveEntry.ply) < expected_ply + len(moves),
            )
            .order_by(col(MoveEntry.ply))
        ).all()
        if [e.notation for e in entries] == [str(m) for m in moves]:
            return AlreadyPlayedError(moves)
    return StaleMoveError(expected_ply, current_ply)
