"""Limits per client address and a ceiling for the whole site (Flask-Limiter).

The per-address limits of ``service.lobby.invitations`` count emails to one mailbox; these count
requests from one client, so that nobody can use the site to mail strangers from one machine,
and a global ceiling caps what all clients together can make the site send. Counters live in
the Redis the worker uses (``REDIS_URL``; in memory on the embedded default), reached with short
timeouts: a stalled Redis lets requests through (``RATELIMIT_SWALLOW_ERRORS``, an in-memory
fallback) instead of stalling them.

Behind a reverse proxy, ``TRUSTED_PROXIES`` (how many) makes the client address the one the
proxy saw (``X-Forwarded-For``), not the proxy's own, for requests that come from an address of
``FORWARDED_ALLOW_IPS`` (``service.proxies``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, TypedDict

from flask import Flask, Response, current_app, g
from flask_limiter import Limiter, RateLimitExceeded
from flask_limiter.util import get_remote_address
from limits import parse_many

from service.catalogue import lazy_gettext
from service.db import session_scope
from service.errors import error_response
from service.proxies import DEFAULT_FORWARDED_ALLOW_IPS, TrustedProxyFix, proxy_networks
from service.refusal import Refusal
from service.signin import signed_in_player

MAIL_SENDING_ENDPOINTS = (
    "lobby.create_game_view",
    "lobby.send_invitation",
    "history.my_games_request_sent",
    # A challenge accepted or paired mails its poster the game's start: floods are counted.
    "lobby.post_challenge_view",
    "lobby.find_opponent_view",
    "lobby.accept_challenge_view",
)
"""Requests that can make the site email an address the client typed."""
WHOLE_SITE_ENDPOINTS = ("lobby.create_game_view", "lobby.send_invitation")
"""Of those, the ones under the whole-site ceiling: they can email a stranger. The "my games"
request is not: it is how a person who has confirmed an address signs in again, which
strangers filling the ceiling must not stop. Its links to addresses no player has are counted
by ``new_address_email_allowed`` instead."""

NEW_ADDRESS_SCOPE = "new-address-links"

UNLIMITED_ENDPOINTS = ("static", "health.healthz")
"""Never counted, never waiting on the counters' Redis (load balancers ask often)."""

GLOBAL_KEY = "whole-site"

logger = logging.getLogger(__name__)


class LimitsSettings(TypedDict):
    """The settings of the request limits (Flask-Limiter's ``RATELIMIT_*`` among them)."""

    RATE_LIMIT_MAIL_PER_CLIENT: str
    RATE_LIMIT_MAIL_WHOLE_SITE: str
    RATE_LIMIT_POST_PER_CLIENT: str
    TRUSTED_PROXIES: int
    FORWARDED_ALLOW_IPS: str
    RATELIMIT_ENABLED: bool
    RATELIMIT_HEADERS_ENABLED: bool
    RATELIMIT_SWALLOW_ERRORS: bool
    RATELIMIT_IN_MEMORY_FALLBACK_ENABLED: bool
    RATELIMIT_KEY_PREFIX: str


def limits_config_from_env(env: Mapping[str, str]) -> LimitsSettings:
    """The limits; Flask-Limiter's notation ("5/minute;20/hour")."""
    return {
        "RATE_LIMIT_MAIL_PER_CLIENT": env.get(
            "RATE_LIMIT_MAIL_PER_CLIENT", "5/minute;20/hour;50/day"
        ),
        "RATE_LIMIT_MAIL_WHOLE_SITE": env.get("RATE_LIMIT_MAIL_WHOLE_SITE", "300/hour;2000/day"),
        "RATE_LIMIT_POST_PER_CLIENT": env.get("RATE_LIMIT_POST_PER_CLIENT", "120/minute"),
        "TRUSTED_PROXIES": int(env.get("TRUSTED_PROXIES", "0")),
        # Whose X-Forwarded-* headers are read (gunicorn's own setting, and its default).
        "FORWARDED_ALLOW_IPS": env.get("FORWARDED_ALLOW_IPS") or DEFAULT_FORWARDED_ALLOW_IPS,
        "RATELIMIT_ENABLED": env.get("RATELIMIT_ENABLED", "1").lower() not in ("0", "false", "no"),
        "RATELIMIT_HEADERS_ENABLED": True,
        "RATELIMIT_SWALLOW_ERRORS": True,
        "RATELIMIT_IN_MEMORY_FALLBACK_ENABLED": True,
        "RATELIMIT_KEY_PREFIX": "battleline-limits",
    }


class TooManyRequestsError(Refusal):
    """A client (or the whole site) went over a request limit."""

    status = 429
    title = lazy_gettext("Too many requests")
    message = lazy_gettext(
        "Too many requests of this kind came from your address (or from everyone at once). "
        "Please wait a while and try again. Nothing was changed."
    )


def _signed_in_player_id() -> int | None:
    """The player this request's browser is signed in as (once per request), or None."""
    if "limits_player_id" not in g:
        with session_scope() as session:
            player = signed_in_player(session)
            g.limits_player_id = player.id if player is not None else None
    found: int | None = g.limits_player_id
    return found


def _client_key() -> str:
    """Who a mail-sending request is counted for: the signed-in player (who has confirmed an
    address, and whatever address they come from), else the client's address."""
    player_id = _signed_in_player_id()
    return f"player:{player_id}" if player_id is not None else get_remote_address()


def _signed_in() -> bool:
    """A signed-in player is not under the whole-site ceiling: strangers filling it must not
    lock out the people who have already confirmed an address (counted by ``_client_key``)."""
    return _signed_in_player_id() is not None


def new_address_email_allowed() -> bool:
    """Whether the "my games" request may email one more address no player has (a newcomer's
    sign-in link), counted against a ceiling of the same size as the whole site's
    (``RATE_LIMIT_MAIL_WHOLE_SITE``) but apart from it. Kept in the view, not as a limit of the
    endpoint: the answer must read the same whether or not the address is known, and a known
    player's link is never held back. A counter that cannot be reached lets the email through,
    as the request limits do."""
    config = current_app.config
    limiter: Limiter = current_app.extensions["battleline.limiter"]
    if not limiter.enabled:
        return True
    prefix = str(config["RATELIMIT_KEY_PREFIX"])
    try:
        hits = [
            limiter.limiter.hit(item, prefix, NEW_ADDRESS_SCOPE, GLOBAL_KEY)
            for item in parse_many(str(config["RATE_LIMIT_MAIL_WHOLE_SITE"]))
        ]
    except Exception:
        logger.warning("the ceiling of new addresses' links could not be counted", exc_info=True)
        return True
    return all(hits)


def _methods(app: Flask, endpoint: str) -> set[str]:
    return {method for rule in app.url_map.iter_rules(endpoint) for method in rule.methods or ()}


def init_app(app: Flask) -> Limiter:
    """Attach the limiter to ``app`` and limit the views registered so far."""
    config = app.config
    proxies = int(config["TRUSTED_PROXIES"])
    if proxies > 0:
        networks = proxy_networks(str(config["FORWARDED_ALLOW_IPS"]))
        app.wsgi_app = TrustedProxyFix(app.wsgi_app, proxies, networks)  # type: ignore[method-assign]
    config.setdefault("RATELIMIT_STORAGE_URI", config.get("REDIS_URL") or "memory://")
    if str(config["RATELIMIT_STORAGE_URI"]).startswith("redis"):
        # Short waits: a stalled Redis must not stall a request (it is let through instead).
        config.setdefault(
            "RATELIMIT_STORAGE_OPTIONS", {"socket_connect_timeout": 0.25, "socket_timeout": 0.25}
        )
    limiter = Limiter(key_func=get_remote_address, app=app)
    app.extensions["battleline.limiter"] = limiter

    for endpoint, view in list(app.view_functions.items()):
        wrapped: Callable[..., Any] = view
        if endpoint in MAIL_SENDING_ENDPOINTS:
            wrapped = limiter.limit(
                lambda: str(config["RATE_LIMIT_MAIL_PER_CLIENT"]),
                key_func=_client_key,
                methods=["POST"],
            )(wrapped)
            if endpoint in WHOLE_SITE_ENDPOINTS:
                wrapped = limiter.shared_limit(
                    lambda: str(config["RATE_LIMIT_MAIL_WHOLE_SITE"]),
                    scope="mail-whole-site",
                    key_func=lambda: GLOBAL_KEY,
                    methods=["POST"],
                    exempt_when=_signed_in,
                )(wrapped)
        elif endpoint in UNLIMITED_ENDPOINTS or "POST" not in _methods(app, endpoint):
            # Only POSTs are limited: a view that takes none has nothing to count, and the
            # limiter's checks would cost every page view.
            wrapped = limiter.exempt(wrapped)
        else:
            wrapped = limiter.shared_limit(
                lambda: str(config["RATE_LIMIT_POST_PER_CLIENT"]),
                scope="posts",
                methods=["POST"],
            )(wrapped)
        app.view_functions[endpoint] = wrapped

    @app.errorhandler(RateLimitExceeded)
    def too_many(error: RateLimitExceeded) -> tuple[Response | str, int]:
        # Flask-Limiter adds Retry-After (RATELIMIT_HEADERS_ENABLED).
        refusal = TooManyRequestsError()
        return error_response(refusal.status, refusal.title, str(refusal))

    return limiter
