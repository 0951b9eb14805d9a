"""A tournament game's result, written in the transaction that ends the game (a move listener of
``service.games.state``, as the ratings'), and the round deadlines (a beat task): the next round
is dealt as soon as the last result of a round is in, exactly once (under the tournament's lock).
"""

from __future__ import annotations

from datetime import datetime

from flask import Flask
from sqlmodel import Session, col, select

import engine
import tournaments
from service.games.loaded import LoadedGame, load_game
from service.games.rows import lock_game
from service.games.state import add_move_listener, apply_moves, load_state
from service.models import GameStatus
from service.tournaments.dealing import advance
from service.tournaments.lifecycle import lock
from service.tournaments.models import Tournament, TournamentGame, TournamentRound, TournamentStatus


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
    next one when it was the last."""
    if state.result is None or loaded.game.id is None:
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
    advance(session, tournament)


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
    session.flush()
    for game_id, seat in resign:
        game = load_game(session, game_id).game
        apply_moves(session, game_id, seat, game.ply, [engine.Action.RESIGN.value], now=now)
    advance(session, tournament)
    return count


def init_app(app: Flask) -> None:
    """Record every tournament game's result when it ends (after the ratings' listener)."""
    add_move_listener(app, on_moves)
