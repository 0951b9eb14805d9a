"""The service's clock: one function every deadline decision reads, so tests move time forward
(``app.config["CLOCK_NOW"]``: a timezone-aware datetime, or a function returning one) and never
sleep. Unset, it is the real time in UTC."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from flask import current_app, has_app_context

from service.models import utcnow

CLOCK_KEY = "CLOCK_NOW"


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
