"""Series of games (R2, R23): the score, the end, and the next game dealt without a new
invitation.

The people of a series keep their seat letters in every game of it; each finished game's
points (R23; V6.8 with three players) are in its ``result["series_points"]``. A series to
points ends when one seat alone has reached the target (two seats level at or above it play on);
a series of a number of games ends after the last one (the most points win; level leaders draw
the series). The winner of a game plays first in the next (R2); after a drawn game the cut
decides, as in a first game.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Session, col, select

import engine
from service.catalogue import ngettext
from service.games.loaded import NO_SNAPSHOTS, LoadedGame, SeatHolder
from service.games.rows import add_agreed_game, new_game
from service.games.state import deal_game
from service.models import Game, GameStatus, Series, SeriesStatus


@dataclass(frozen=True)
class SeriesScore:
    """Where a series stands."""

    series: Series
    games: tuple[Game, ...]
    """Every game of it so far, in order (the last may be in play)."""
    totals: dict[str, int]
    """Points by seat letter, over the finished games."""
    finished_games: int

    def _goal(self) -> dict[str, int | None]:
        return {
            "target_points": self.series.target_points,
            "games_planned": self.series.games_planned,
        }

    @property
    def leaders(self) -> list[str]:
        return engine.series_leaders(self.totals)

    @property
    def over(self) -> bool:
        """Whether the finished games end the series (R23), or a player left it."""
        if self.series.status != SeriesStatus.PLAYING:
            return True
        return engine.series_over(self.totals, self.finished_games, **self._goal())

    @property
    def winner(self) -> str | None:
        """The seat that won the series once it is over (None: level, left, or still playing)."""
        if self.series.status == SeriesStatus.LEFT:
            return None
        return engine.series_winner(self.totals, self.finished_games, **self._goal())


def series_goal(series: Series) -> str:
    """What ends the series, in words of the language being written: "first to 15 points", "3
    games"."""
    if series.target_points is not None:
        return str(
            ngettext("first to %(num)d point", "first to %(num)d points", series.target_points)
        )
    return str(ngettext("%(num)d game", "%(num)d games", series.games_planned))


def series_score(session: Session, series: Series) -> SeriesScore:
    """The games of ``series`` and its points so far."""
    games = tuple(
        session.exec(select(Game).where(Game.series_id == series.id).order_by(col(Game.id))).all()
    )
    totals: dict[str, int] = {}
    finished = 0
    for game in games:
        if game.status == GameStatus.FINISHED and game.result is not None:
            finished += 1
            for seat, points in game.result["series_points"].items():
                totals[seat] = totals.get(seat, 0) + int(points)
    if games:
        seats = engine.get_ruleset(games[0].ruleset).seats
        totals = {seat: totals.get(seat, 0) for seat in seats}
    return SeriesScore(series=series, games=games, totals=totals, finished_games=finished)


def score_of_game(session: Session, game: Game) -> SeriesScore | None:
    """The score of the series ``game`` belongs to (None: a single game)."""
    if game.series_id is None:
        return None
    series = session.get(Series, game.series_id)
    assert series is not None
    return series_score(session, series)


_SERIES_VERSION = (
    sa.select(
        col(Series.status),
        sa.func.max(col(Game.id)),
        sa.func.sum(sa.case((col(Game.status) == GameStatus.FINISHED, 1), else_=0)),
    )
    .join(Game, col(Game.series_id) == col(Series.id))
    .where(col(Series.id) == sa.bindparam("series_id"))
    .group_by(col(Series.status))
)


def series_version(session: Session, game: Game) -> tuple[object, ...] | None:
    """What a page's view of the series of ``game`` depends on (its status, its latest game,
    how many games are finished), for the page's ETag: leaving the series, or a later game
    ending, changes the series note of every game of it. None for a single game (no query)."""
    if game.series_id is None:
        return None
    row = session.execute(_SERIES_VERSION, {"series_id": game.series_id}).first()
    return None if row is None else tuple(row)


def continue_series(
    session: Session, loaded: LoadedGame, state: engine.GameState, now: datetime
) -> LoadedGame | None:
    """After the game ended: end its series, or deal the next game of it (the same people at
    the same seats, the same settings, a new seed; the winner plays first). Returns the new
    game (its seats' players and their address statuses those of ``loaded``), or None. Call in
    the transaction of the last move, with the game locked: the next game exists exactly when
    the last one is over."""
    game = loaded.game
    if game.series_id is None or state.result is None:
        return None
    score = score_of_game(session, game)
    assert score is not None
    series = score.series
    if score.over:
        if series.status == SeriesStatus.PLAYING:
            series.status = SeriesStatus.FINISHED
            session.add(series)
        return None
    if score.games[-1].id != game.id:
        return None  # the next game exists already
    following = new_game(
        ruleset=game.ruleset,
        claims=game.claims,
        days_per_move=game.days_per_move,
        vacation_days=game.vacation_days,
        visibility=game.visibility,
        series_id=series.id,
        computer_delay_s=game.computer_delay_s,
        rated=game.rated,
    )
    player_ids: dict[str, int] = {}
    for letter, (_, player) in loaded.seats.items():
        assert player.id is not None
        player_ids[letter] = player.id
    added = add_agreed_game(session, following, player_ids)
    seats = {letter: SeatHolder(seat, loaded.seats[letter][1]) for letter, seat in added.items()}
    dealt = LoadedGame(following, seats, loaded.statuses, NO_SNAPSHOTS)
    return deal_game(session, dealt, now, first=state.result.winner)


def leave_series(session: Session, game: Game, seat: str) -> tuple[Series, bool]:
    """``seat`` leaves the series of ``game``: no game follows the one being played (which goes
    on; resigning it is another choice). Returns the series and whether this left it (False:
    it was over or left already). Raises ValueError when the game is in no series."""
    if game.series_id is None:
        raise ValueError("this game is not part of a series")
    series = session.get(Series, game.series_id, with_for_update=True)
    assert series is not None
    if series.status != SeriesStatus.PLAYING:
        return series, False
    series.status = SeriesStatus.LEFT
    series.left_by = seat
    session.add(series)
    return series, True


def series_by_public_id(session: Session, public_id: str) -> Series | None:
    return session.exec(select(Series).where(Series.public_id == public_id)).one_or_none()
