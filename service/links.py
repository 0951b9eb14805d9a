"""Absolute links built from ``BASE_URL``, the same inside a request, a command or a task."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flask import current_app

from service import tokens
from service.models import Seat


def external_url(endpoint: str, **values: Any) -> str:
    """The absolute URL of ``endpoint`` under ``BASE_URL``.

    Not ``url_for(_external=True)``: that needs a request (or ``SERVER_NAME``, which would also
    restrict routing), and an email must not depend on the host a request happened to use.
    """
    base = urlsplit(current_app.config["BASE_URL"])
    adapter = current_app.url_map.bind(
        base.netloc, script_name=base.path or "/", url_scheme=base.scheme or "https"
    )
    url: str = adapter.build(endpoint, values, force_external=True)
    return url


def private_page_url(seat: Seat) -> str:
    """The signed link to a seat's private page, for its current token generation."""
    token = tokens.make_private_token(seat.game_id, seat.letter, seat.token_generation)
    return external_url("play.private_page", token=token)
