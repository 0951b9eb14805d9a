"""Turns across days: the start of a turn (automatic claims, the "your turn" email), the deadline
policy and its scan (reminders, vacation days, timeouts), the daily digest, and the clock they
all read (``service.turns.clock``)."""

from __future__ import annotations

from flask import Flask


def init_app(app: Flask) -> None:
    """Hook turns on the moves of ``app`` and register the preferences form."""
    from service.turns import routes, start

    start.init_app(app)
    app.register_blueprint(routes.bp)
