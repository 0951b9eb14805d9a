"""What the pages and emails of a game say of its series, read once: the score by name, who
leads or won, who left. Each page or email adds its own links."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session

from service.games.loaded import LoadedGame
from service.games.series import SeriesScore, score_of_game, series_goal
from service.present.seat_names import SeatNames, seat_names


@dataclass(frozen=True, slots=True)
class SeriesFacts:
    """A series as its players read it, after the games finished so far."""

    score: SeriesScore
    names: SeatNames
    goal: str
    """The series' goal in words (``series_goal``)."""

    @property
    def public_id(self) -> str | None:
        """The series' page address (its games are dealt once it has one)."""
        return self.score.series.public_id

    @property
    def totals(self) -> tuple[tuple[str, int], ...]:
        """Each player's name and points, in seat order."""
        return tuple((self.names[seat], points) for seat, points in self.score.totals.items())

    @property
    def winner_name(self) -> str | None:
        winner = self.score.winner
        return self.names[winner] if winner else None

    @property
    def left_by_name(self) -> str | None:
        left_by = self.score.series.left_by
        return self.names.get(left_by) if left_by else None


def series_facts(session: Session, loaded: LoadedGame) -> SeriesFacts | None:
    """The facts of the series the game belongs to (None: a single game)."""
    score = score_of_game(session, loaded.game)
    if score is None:
        return None
    return SeriesFacts(score, seat_names(loaded), series_goal(score.series))
