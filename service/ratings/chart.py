"""A player's rating history as a small line chart, drawn on the server as SVG coordinates (no
script), with the same points as table rows for a screen reader (``templates/ratings/
_chart.html``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, col, select

from service.ratings.models import Rating, RatingChange
from service.ratings.pools import Pool
from service.ratings.read import HistoryPoint, RatingShown, history_of, shown
from service.ratings.record import Verdict

WIDTH = 320
HEIGHT = 100
MARGIN = 6
"""Room at the edges, so that the line's stroke is never cut."""
MIN_SPAN = 50
"""The least rating span drawn from bottom to top: small changes stay small."""
CHART_POINTS = 200
"""The latest points drawn; the table lists them all."""


@dataclass(frozen=True, slots=True)
class RatingChart:
    """A polyline of the history and its scale."""

    points: str
    """SVG ``points``: ``"x,y x,y ..."``, oldest first, left to right."""
    width: int
    height: int
    low: int
    """The rating at the bottom edge."""
    high: int
    """The rating at the top edge."""
    history: tuple[HistoryPoint, ...]
    """Every point, for the table."""


def chart(history: list[HistoryPoint]) -> RatingChart | None:
    """The chart of ``history``; None for fewer than two points (nothing to draw)."""
    if len(history) < 2:
        return None
    drawn = history[-CHART_POINTS:]
    ratings = [p.rating for p in drawn]
    low, high = min(ratings), max(ratings)
    if high - low < MIN_SPAN:
        middle = (high + low) // 2
        low, high = middle - MIN_SPAN // 2, middle + MIN_SPAN // 2
    inner_w, inner_h = WIDTH - 2 * MARGIN, HEIGHT - 2 * MARGIN
    step = inner_w / (len(drawn) - 1)
    coordinates = [
        f"{MARGIN + i * step:.1f},{MARGIN + inner_h * (high - r) / (high - low):.1f}"
        for i, r in enumerate(ratings)
    ]
    return RatingChart(" ".join(coordinates), WIDTH, HEIGHT, low, high, tuple(history))


@dataclass(frozen=True, slots=True)
class PoolRating:
    """A player's rating in one pool, with its history."""

    rating: RatingShown
    chart: RatingChart | None


def ratings_with_history(session: Session, player_id: int, now: datetime) -> list[PoolRating]:
    """Each of the player's ratings and its chart, in the pools' order, in one query."""
    found = session.exec(
        select(Rating, RatingChange)
        .outerjoin(
            RatingChange,
            (col(RatingChange.player_id) == col(Rating.player_id))
            & (col(RatingChange.pool) == col(Rating.pool))
            & (col(RatingChange.verdict) == Verdict.COUNTED),
        )
        .where(Rating.player_id == player_id)
        .order_by(col(RatingChange.created_at), col(RatingChange.id))
    ).all()
    ratings: dict[str, Rating] = {}
    changes: dict[str, list[RatingChange]] = {}
    for rating, change in found:
        ratings[rating.pool] = rating
        if change is not None:
            changes.setdefault(rating.pool, []).append(change)
    return [
        PoolRating(shown(ratings[pool], now), chart(history_of(changes.get(pool, []))))
        for pool in Pool
        if pool in ratings
    ]
