"""The checks that refuse an unsafe production start or inconsistent settings (``check_config``),
over what ``service.config`` read from the environment."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from service.config import DEVELOPMENT_SECRET_KEY, MAX_DAYS_PER_MOVE, AppEnv, ConfigError
from service.dkim_signing import SigningKeyError, signing_key
from service.proxies import proxy_networks
from service.secret_keys import MIN_KEY_BITS, estimated_bits
from service.turn_settings import GAME_DAY_S

MIN_PRODUCTION_KEY_LENGTH = 32


# Host names that never reach the internet (RFC 2606, RFC 6761): a development or test server
# whose links point elsewhere is a production server by mistake.
LOCAL_SUFFIXES = (".test", ".localhost", ".invalid", ".example")

_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_DOMAIN_RE = re.compile(rf"(?=.{{1,253}}$){_LABEL}(?:\.{_LABEL})*")
_LOCAL_PART_RE = re.compile(r"[a-z0-9][a-z0-9._-]{0,30}")


def _check_inbound(config: Mapping[str, Any]) -> None:
    domain = config.get("INBOUND_DOMAIN")
    if domain and not _DOMAIN_RE.fullmatch(str(domain)):
        raise ConfigError(f"INBOUND_DOMAIN={domain!r} is not a domain name like play.example.org")
    local = str(config.get("INBOUND_LOCAL_PART", "play"))
    if not _LOCAL_PART_RE.fullmatch(local):
        raise ConfigError(
            f"INBOUND_LOCAL_PART={local!r} must be letters, digits, '.', '_' or '-' (e.g. play)"
        )
    if config.get("INBOUND_IMAP_HOST") and not domain:
        raise ConfigError(
            "INBOUND_IMAP_HOST is set but INBOUND_DOMAIN is not: replies need an address "
            "(INBOUND_LOCAL_PART+key@INBOUND_DOMAIN) that reaches that mailbox"
        )


def _check_proxies(config: Mapping[str, Any]) -> None:
    """``FORWARDED_ALLOW_IPS`` must name addresses; production refuses ``*`` with
    ``TRUSTED_PROXIES`` (``service.proxies``): anyone who reaches gunicorn directly could then
    choose the address it is counted by."""
    value = str(config.get("FORWARDED_ALLOW_IPS") or "127.0.0.1,::1")
    try:
        networks = proxy_networks(value)
    except ValueError as error:
        raise ConfigError(f"FORWARDED_ALLOW_IPS={value!r}: {error}") from None
    trusting = int(config.get("TRUSTED_PROXIES") or 0) > 0
    if networks is None and trusting and config["APP_ENV"] == AppEnv.PRODUCTION:
        raise ConfigError(
            "APP_ENV=production refuses TRUSTED_PROXIES with FORWARDED_ALLOW_IPS=*: any "
            "client that reaches gunicorn directly could set X-Forwarded-For and pass every "
            "per-client limit. Name the proxy's addresses (e.g. FORWARDED_ALLOW_IPS=10.0.0.5)"
        )


def _host_is_local(base_url: str) -> bool:
    host = (urlsplit(base_url).hostname or "").lower()
    return host == "localhost" or host.endswith(LOCAL_SUFFIXES) or _is_loopback_address(host)


def is_local_host(host: str) -> bool:
    """Whether a request's ``Host`` (name and port) names this machine or a reserved test name."""
    return _host_is_local(f"http://{host}")


_NEW_KEY_HINT = "e.g. python -c 'import secrets; print(secrets.token_urlsafe(48))'"


def _check_key_length(app_env: str, name: str, key: str) -> None:
    if len(key) < MIN_PRODUCTION_KEY_LENGTH:
        raise ConfigError(
            f"APP_ENV={app_env} needs every {name} to be at least {MIN_PRODUCTION_KEY_LENGTH} "
            f"characters ({_NEW_KEY_HINT})"
        )


def _check_key(name: str, key: str) -> None:
    if key == DEVELOPMENT_SECRET_KEY:
        raise ConfigError(f"APP_ENV=production refuses the development {name}")
    _check_key_length(AppEnv.PRODUCTION, name, key)
    bits = estimated_bits(key)
    if bits < MIN_KEY_BITS:
        raise ConfigError(
            f"APP_ENV=production needs every {name} to be random: this one is worth about "
            f"{bits:.0f} bits of the {MIN_KEY_BITS} needed, too few distinct characters or a "
            f"repeated word ({_NEW_KEY_HINT})"
        )


def check_config(config: Mapping[str, Any]) -> None:
    """Raise ConfigError when the settings are unsafe (production) or inconsistent (anywhere).

    Development and testing show every email and link at /dev/outbox, so they run only on
    addresses that cannot be reached from outside (loopback, or a reserved test domain), and
    development only on the embedded SQLite database.
    """
    max_age = config["TOKEN_MAX_AGE_DAYS"]
    if max_age <= MAX_DAYS_PER_MOVE:
        raise ConfigError(
            f"TOKEN_MAX_AGE_DAYS={max_age} must be longer than the longest turn "
            f"({MAX_DAYS_PER_MOVE} days), or move links would expire before the deadline"
        )
    app_env = config["APP_ENV"]
    if app_env not in set(AppEnv):
        raise ConfigError(
            f"APP_ENV={app_env!r} is not one of {', '.join(AppEnv)} (unset means production)"
        )
    _check_inbound(config)
    _check_proxies(config)
    try:
        signing_key(config)  # a DKIM key given anywhere must sign: refused at start, not per email
    except SigningKeyError as error:
        raise ConfigError(str(error)) from None
    if config.get("EMBEDDED_BEAT") and config.get("REDIS_URL"):
        raise ConfigError(
            "EMBEDDED_BEAT runs beat's schedule in the web process, for when there is no Redis; "
            "with REDIS_URL the beat process runs it: unset EMBEDDED_BEAT"
        )
    if app_env != AppEnv.PRODUCTION:
        _check_not_public(config)
        return
    if float(config.get("GAME_DAY_S", GAME_DAY_S)) != GAME_DAY_S:
        raise ConfigError(f"APP_ENV=production keeps real days: unset GAME_DAY_S ({GAME_DAY_S})")
    if not config.get("SECRET_KEY"):
        raise ConfigError("APP_ENV=production needs SECRET_KEY set in the environment")
    _check_key("SECRET_KEY", config["SECRET_KEY"])
    for key in config.get("SECRET_KEY_FALLBACKS", []):
        _check_key("SECRET_KEY_FALLBACKS key", key)
    if not config.get("BASE_URL"):
        raise ConfigError("APP_ENV=production needs BASE_URL (links in emails are built from it)")
    if not str(config["BASE_URL"]).startswith("https://"):
        # RFC 8058: the one-click List-Unsubscribe link must be https.
        raise ConfigError("APP_ENV=production needs an https:// BASE_URL")
    _check_production_services(config)


def _check_production_services(config: Mapping[str, Any]) -> None:
    """What production cannot run without: a named database, a shared Redis, a mail server."""
    if not config.get("DATABASE_URL"):
        raise ConfigError(
            "APP_ENV=production needs DATABASE_URL (PostgreSQL); "
            "only development falls back to a SQLite file under instance/"
        )
    if not config.get("REDIS_URL"):
        raise ConfigError(
            "APP_ENV=production needs REDIS_URL: the worker's broker, and the rate limits' "
            "counters shared by every web process (without it each process counts alone)"
        )
    if config.get("MAIL_SUPPRESS_SEND"):
        raise ConfigError(
            "APP_ENV=production needs MAIL_SERVER (and MAIL_SUPPRESS_SEND unset): without it "
            "every email would be dropped and marked sent"
        )


def _is_local_database(url: str) -> bool:
    """SQLite, or a server on this machine (loopback or a unix socket)."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        return False
    if parsed.get_backend_name() == "sqlite":
        return True
    socket_dir = parsed.query.get("host")
    if not parsed.host:
        return socket_dir is None or str(socket_dir).startswith("/")
    return parsed.host == "localhost" or _is_loopback_address(parsed.host)


def _is_loopback_address(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _check_not_public(config: Mapping[str, Any]) -> None:
    app_env = config["APP_ENV"]
    base_url = config.get("BASE_URL")
    if base_url and not _host_is_local(str(base_url)):
        raise ConfigError(
            f"APP_ENV={app_env} shows every player's links at /dev/outbox, so it runs only on a "
            f"loopback address or a reserved test domain, not BASE_URL={base_url}. "
            "A public server is production: unset APP_ENV and give it real secrets."
        )
    if app_env == AppEnv.DEVELOPMENT and not str(config["DATABASE_URL"]).startswith("sqlite"):
        raise ConfigError(
            "APP_ENV=development is the embedded default (SQLite under instance/); "
            "a server on another database is production: unset APP_ENV"
        )
    if app_env == AppEnv.TESTING and not config.get("SECRET_KEY"):
        raise ConfigError("APP_ENV=testing needs SECRET_KEY set (only development has a default)")
    if app_env == AppEnv.TESTING:
        _check_key_length(app_env, "SECRET_KEY", str(config["SECRET_KEY"]))
        if not _is_local_database(str(config["DATABASE_URL"])):
            raise ConfigError(
                "APP_ENV=testing runs only on SQLite or a database on this machine (127.0.0.1, "
                "localhost or a unix socket), not this DATABASE_URL: a server on another "
                "database is production: unset APP_ENV"
            )
