"""A tournament game's result, written in the transaction that ends the game (a move listener of
``service.games.state``, as the ratings'), and the round deadlines (a beat task): the next round
is dealt as soon as the last result of a round is in, exactly once (under the tournament's lock).
"""

from __future__ import annotations

from datetime import datetime

from flask import Flask
from sqlalchemy import bindparam
from sqlmodel import Session, col, select

import engine
import tournaments
from service.games.loaded import LoadedGame, load_game
from service.games.rows import lock_game
from service.games.state import add_move_listener, apply_moves, load_state
from service.models import Game, GameStatus, Visibility
from service.tournaments import rungs
from service.tournaments.dealing import advance
from service.tournaments.lifecycle import lock
from service.tournaments.models import (
    Tournament,
    TournamentGame,
    TournamentKind,
    TournamentRound,
    TournamentStatus,
)


def _link_of(session: Session, game_id: int) -> TournamentGame | None:
    return session.exec(
        select(TournamentGame)
        .where(TournamentGame.game_id == game_id)
        .execution_options(populate_existing=True)
    ).one_or_none()


def on_moves(
    session: Session, loaded: LoadedGame, state: engine.GameState, events: list[engine.Event]
) -> None:
    """The move listener: a tournament game that just ended gets its result, and the round its
    next one when it was the last; a turn that began in a game whose clock stands is held."""
    if loaded.game.id is None:
        return
    if state.result is None:
        # Tournament games are public (``dealing``): the others' moves cost no query here.
        if loaded.game.visibility == Visibility.PUBLIC and any(
            isinstance(event, engine.TurnStarted) for event in events
        ):
            _hold_clock(session, loaded.game)
        return
    link = _link_of(session, loaded.game.id)
    if link is None:
        return
    tournament = lock(session, link.tournament_id)
    link = _link_of(session, loaded.game.id)  # read again under the lock
    assert link is not None
    if link.outcome is None:  # not forfeited or adjudicated before
        record(link, state)
        session.add(link)
        session.flush()
        ladder = tournament.kind == TournamentKind.LADDER
        if ladder and tournament.status == TournamentStatus.PLAYING:
            rungs.after_result(session, link.tournament_id, link)
    advance(session, tournament)


_CLOCK_HELD = (
    select(TournamentGame.outcome, Tournament.paused_at)
    .join(Tournament, col(Tournament.id) == col(TournamentGame.tournament_id))
    .where(TournamentGame.game_id == bindparam("game_id"))
)


def _hold_clock(session: Session, game: Game) -> None:
    """A turn began (its deadline just set by ``service.turns.start``, a listener before this
    one) in a tournament game whose clock stands: a decided pairing's (an adjudicated draw plays
    on without a deadline: no reminder, no loss on time), or a paused tournament's (no check
    until the resumption, which moves the deadline on by the whole pause: so the turn counts
    from the pause's start, and ends as long after the resumption as a turn lasts)."""
    held = session.exec(_CLOCK_HELD, params={"game_id": game.id}).one_or_none()
    if held is None:
        return
    outcome, paused_at = held
    if outcome is not None:
        stop_clock(game)
    elif paused_at is not None and game.deadline is not None:
        early = (game.turn_started_at or paused_at) - paused_at
        game.deadline -= early
        if game.turn_started_at is not None:
            game.turn_started_at -= early
        game.next_check_at = None
    session.add(game)


def stop_clock(game: Game) -> None:
    """No deadline any more in ``game``, which plays on (its pairing is decided)."""
    game.deadline = None
    game.next_check_at = None


def record(link: TournamentGame, state: engine.GameState) -> None:
    """The result of the finished game ``state`` on its pairing (seat A is the first)."""
    outcome = state.result
    assert outcome is not None
    first, second = state.ruleset.seats
    held = engine.flags_held(state)
    link.outcome = {
        first: tournaments.Outcome.FIRST_WINS,
        second: tournaments.Outcome.SECOND_WINS,
        None: tournaments.Outcome.DRAW,
    }[outcome.winner].value
    timed_out = outcome.termination is engine.Termination.TIME
    link.finish = (tournaments.Finish.TIME if timed_out else tournaments.Finish.PLAYED).value
    link.first_flags, link.second_flags = held[first], held[second]


def due_tournaments(session: Session, now: datetime) -> list[int]:
    """Tournaments playing, not paused, with a round past its deadline and not closed."""
    found = set(
        session.exec(
            select(Tournament.id)
            .join(TournamentRound, col(TournamentRound.tournament_id) == col(Tournament.id))
            .where(
                Tournament.status == TournamentStatus.PLAYING,
                col(Tournament.paused_at).is_(None),
                col(TournamentRound.closed_at).is_(None),
                col(TournamentRound.deadline) <= now,
            )
        ).all()
    )
    return sorted(i for i in found if i is not None)


def at_deadline(session: Session, tournament_id: int, now: datetime) -> int:
    """A passed round deadline: under ``adjudicate`` each open game of the round is decided by
    the flags held (the seat with fewer resigns in the store; a draw is only the tournament's),
    and the next round is dealt; under ``let-finish`` nothing happens. Returns the games
    adjudicated; a second run finds none."""
    open_links = session.exec(
        select(TournamentGame).where(
            TournamentGame.tournament_id == tournament_id, col(TournamentGame.outcome).is_(None)
        )
    ).all()
    for game_id in sorted(g.game_id for g in open_links if g.game_id is not None):
        lock_game(session, game_id)  # games before the tournament, as the listener does
    tournament = lock(session, tournament_id)
    policy = tournaments.DeadlinePolicy(tournament.deadline_policy)
    if (
        tournament.status != TournamentStatus.PLAYING
        or tournament.paused_at is not None
        or tournament.id not in due_tournaments(session, now)
        or policy is tournaments.DeadlinePolicy.LET_FINISH
    ):
        return 0
    count = 0
    resign: list[tuple[int, str]] = []
    for link in open_links:
        session.refresh(link)
        if link.outcome is not None or link.game_id is None or link.second_id is None:
            continue
        loaded = load_game(session, link.game_id)
        if loaded.game.status != GameStatus.ACTIVE:
            continue
        state = load_state(session, loaded)
        first, second = state.ruleset.seats
        held = engine.flags_held(state)
        result = tournaments.adjudicated_result(
            link.round, link.first_id, link.second_id, held[first], held[second]
        )
        link.outcome, link.finish = result.outcome.value, result.finish.value
        link.first_flags, link.second_flags = held[first], held[second]
        session.add(link)
        count += 1
        if result.outcome is not tournaments.Outcome.DRAW:
            loser = second if result.outcome is tournaments.Outcome.FIRST_WINS else first
            resign.append((link.game_id, loser))
        else:
            stop_clock(loaded.game)
            session.add(loaded.game)
    session.flush()
    for game_id, seat in resign:
        game = load_game(session, game_id).game
        apply_moves(session, game_id, seat, game.ply, [engine.Action.RESIGN.value], now=now)
    advance(session, tournament)
    return count


def init_app(app: Flask) -> None:
    """Record every tournament game's result when it ends, and hold the clocks that stand:
    after the ratings' listener and the turns' (``service.turns.start`` sets the deadline this
    one may take back)."""
    add_move_listener(app, on_moves)
