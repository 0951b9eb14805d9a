"""Absolute links built from ``BASE_URL``, the same inside a request, a command or a task; in
development, inside a request, from the loopback host and port actually served (``flask run
--port 5055`` links to :5055, not to the configured :5000)."""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

from flask import current_app, has_request_context, request

from service import tokens
from service.config import AppEnv
from service.models import Seat


def external_url(endpoint: str, **values: Any) -> str:
    """The absolute URL of ``endpoint`` under ``BASE_URL``.

    Not ``url_for(_external=True)``: that needs a request (or ``SERVER_NAME``, which would also
    restrict routing), and an email must not depend on the host a request happened to use.
    """
    base = urlsplit(base_url())
    adapter = current_app.url_map.bind(
        base.netloc, script_name=base.path or "/", url_scheme=base.scheme or "https"
    )
    url: str = adapter.build(endpoint, values, force_external=True)
    return url


def base_url() -> str:
    """``BASE_URL``; in development, inside a request to a loopback host, that request's
    scheme, host and port instead, so that the links of a server started on another port than
    the configured one lead back to it. A worker (no request) keeps ``BASE_URL``."""
    configured: str = current_app.config["BASE_URL"]
    if current_app.config.get("APP_ENV") != AppEnv.DEVELOPMENT or not has_request_context():
        return configured
    host = urlsplit(request.host_url)
    return f"{host.scheme}://{host.netloc}" if _loopback(host.hostname or "") else configured


def _loopback(host: str) -> bool:
    # Only a host that cannot come from elsewhere: a Host header is whatever the client sent.
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def private_page_url(seat: Seat) -> str:
    """The signed link to a seat's private page, for its current token generation."""
    token = tokens.make_private_token(seat.game_id, seat.letter, seat.token_generation)
    return external_url("play.private_page", token=token)
