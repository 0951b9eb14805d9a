"""What a series' page shows: its games in order, each one's result and points (R23), the
running score, and where the series stands. Only what the games' public pages show already."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session

import engine
from service.catalogue import lazy_gettext
from service.game_words import ruleset_title
from service.games.seats import read_seats
from service.games.series import series_goal, series_score
from service.models import GameStatus, Series, SeriesStatus
from service.present.seat_names import SeatNames, names_of
from service.refusal import Refusal


class SeriesNotFoundError(Refusal):
    status = 404
    title = lazy_gettext("Series not found")

    def __init__(self, public_id: str) -> None:
        super().__init__(
            lazy_gettext(
                "There is no series %(series)s. Check that the link is complete.",
                series=public_id,
            )
        )


@dataclass(frozen=True, slots=True)
class SeriesGameRow:
    """One game of a series on its page."""

    number: int
    public_id: str
    first: str | None
    """Who played first."""
    result: Mapping[str, Any] | None
    """The stored result (``Game.result``)."""
    status: str
    points: engine.FrozenMap[str, int] | None
    """Each seat's series points of this game (R23), once it is over."""
    running: engine.FrozenMap[str, int] | None
    """The running totals after it."""


@dataclass(frozen=True, slots=True)
class SeriesPage:
    """What a series' page shows."""

    names: SeatNames
    ruleset_title: str
    goal: str
    rows: tuple[SeriesGameRow, ...]
    totals: engine.FrozenMap[str, int]
    over: bool
    winner: str | None
    left_by: str | None


def series_page_context(session: Session, series: Series) -> SeriesPage:
    """The page of ``series``."""
    score = series_score(session, series)
    first = score.games[0]
    assert first.id is not None
    names = names_of(read_seats(session, first.id))
    running = dict.fromkeys(names, 0)
    rows = []
    for number, game in enumerate(score.games, start=1):
        points: dict[str, int] | None = None
        if game.status == GameStatus.FINISHED and game.result is not None:
            points = {s: int(p) for s, p in game.result["series_points"].items()}
            for seat, p in points.items():
                running[seat] = running.get(seat, 0) + p
        rows.append(
            SeriesGameRow(
                number=number,
                public_id=game.public_id,
                first=names.get(game.deal["first"]) if game.deal else None,
                result=game.result,
                status=game.status,
                points=engine.FrozenMap(points) if points is not None else None,
                running=engine.FrozenMap(running) if points is not None else None,
            )
        )
    return SeriesPage(
        names=names,
        ruleset_title=ruleset_title(first.ruleset),
        goal=series_goal(series),
        rows=tuple(rows),
        totals=engine.FrozenMap(score.totals),
        over=score.over,
        winner=score.winner,
        left_by=series.left_by if series.status == SeriesStatus.LEFT else None,
    )
