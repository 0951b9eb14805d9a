"""Pausing a tournament: every clock of its games stands still until it resumes.

A game's clock runs through ``games.next_check_at`` (the deadline scan, ``service.turns.scan``,
checks nothing in a game without one) and ``games.deadline``. A pause clears the first; the
resumption moves each open game's deadline, turn start and the round deadlines on by the length
of the pause and asks the scan to look again at once (it recomputes the next check). A move made
during the pause starts its next turn's clock as usual.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, col, select

from service.catalogue import lazy_gettext
from service.games.rows import lock_game
from service.models import Game, GameStatus, Player
from service.tournaments.lifecycle import lock
from service.tournaments.models import TournamentGame, TournamentRound, TournamentStatus
from service.tournaments.settings import TournamentRefusal


def _open_games(session: Session, tournament_id: int) -> list[Game]:
    ids = session.exec(
        select(TournamentGame.game_id)
        .join(Game, col(Game.id) == col(TournamentGame.game_id))
        .where(TournamentGame.tournament_id == tournament_id, Game.status == GameStatus.ACTIVE)
    ).all()
    return [lock_game(session, game_id) for game_id in sorted(i for i in ids if i is not None)]


def pause(session: Session, tournament_id: int, by: Player, now: datetime) -> None:
    """The organiser stops every clock. Raises TournamentRefusal (403 not the organiser, 409
    not playing or paused already)."""
    games = _open_games(session, tournament_id)  # games before the tournament
    tournament = lock(session, tournament_id)
    if tournament.organiser_id != by.id:
        raise TournamentRefusal(lazy_gettext("Only the organiser can do this."), 403)
    if tournament.status != TournamentStatus.PLAYING or tournament.paused_at is not None:
        raise TournamentRefusal(lazy_gettext("Only a tournament being played can be paused."))
    tournament.paused_at = now
    session.add(tournament)
    for game in games:
        game.next_check_at = None
        session.add(game)
    session.flush()


def resume(session: Session, tournament_id: int, by: Player, now: datetime) -> None:
    """The organiser starts the clocks again, each moved on by the pause's length. Raises
    TournamentRefusal (403 not the organiser, 409 not paused)."""
    games = _open_games(session, tournament_id)
    tournament = lock(session, tournament_id)
    if tournament.organiser_id != by.id:
        raise TournamentRefusal(lazy_gettext("Only the organiser can do this."), 403)
    if tournament.paused_at is None:
        raise TournamentRefusal(lazy_gettext("This tournament is not paused."))
    paused = now - tournament.paused_at
    tournament.paused_at = None
    session.add(tournament)
    for game in games:
        if game.deadline is not None:
            game.deadline += paused
        if game.turn_started_at is not None:
            game.turn_started_at += paused
        game.next_check_at = now
        session.add(game)
    for row in session.exec(
        select(TournamentRound).where(
            TournamentRound.tournament_id == tournament_id,
            col(TournamentRound.closed_at).is_(None),
        )
    ).all():
        row.deadline += paused
        session.add(row)
    session.flush()
