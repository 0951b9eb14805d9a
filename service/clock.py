"""The service's clock: one function every deadline decision reads, so tests move time forward
(``app.config["CLOCK_NOW"]``: a timezone-aware datetime, or a function returning one) and never
sleep. Unset, it is the real time in UTC."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from flask import current_app, has_app_context

from service.models import utcnow

CLOCK_KEY = "CLOCK_NOW"
REAL_DAY_S = 24 * 60 * 60


def now() -> datetime:
    """Now, in UTC: the app's ``CLOCK_NOW`` when a test set one, else the real time."""
    if has_app_context():
        fixed: datetime | Callable[[], datetime] | None = current_app.config.get(CLOCK_KEY)
        if fixed is not None:
            moment = fixed() if callable(fixed) else fixed
            if moment.tzinfo is None:
                raise ValueError("CLOCK_NOW must be timezone-aware (UTC)")
            return moment
    return utcnow()


def game_day() -> timedelta:
    """A day of the game clock: days per move, vacation days, at most one reminder a day. A real
    day, unless ``GAME_DAY_S`` makes it shorter outside production (tests, a demonstration)."""
    seconds = current_app.config.get("GAME_DAY_S") if has_app_context() else None
    return timedelta(seconds=float(seconds or REAL_DAY_S))
