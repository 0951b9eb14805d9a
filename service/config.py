"""Settings read from the environment, and the checks that refuse an unsafe production start."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

DEVELOPMENT_SECRET_KEY = "dev-only-insecure-secret-key"
"""The key a development server signs with when none is given; production refuses it."""

DEVELOPMENT_BASE_URL = "http://127.0.0.1:5000"
MIN_PRODUCTION_KEY_LENGTH = 32
MAX_DAYS_PER_MOVE = 14
"""The longest turn a game may allow; every link must outlive it."""


class ConfigError(RuntimeError):
    """The configuration is unsafe or inconsistent; the message says which setting to fix."""


def database_url_from(value: str) -> str:
    """A SQLAlchemy URL for psycopg 3 from what hosting platforms put in ``DATABASE_URL``.

    ``postgres://`` and ``postgresql://`` would select psycopg2, which is not installed.
    """
    for prefix in ("postgres://", "postgresql://"):
        if value.startswith(prefix):
            return "postgresql+psycopg://" + value[len(prefix) :]
    return value


def _key_list(value: str) -> list[str]:
    """Older keys for rotation: separated by commas or whitespace."""
    return [key for key in re.split(r"[\s,]+", value) if key]


def config_from_env(instance_path: str, environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Every setting, from the environment, with development defaults."""
    env = os.environ if environ is None else environ
    default_db = "sqlite:///" + os.path.join(instance_path, "battleline.sqlite3")
    app_env = env.get("APP_ENV", "development")
    # Only development falls back to a known key; production must be given one (check_config).
    fallback_key = "" if app_env == "production" else DEVELOPMENT_SECRET_KEY
    return {
        "APP_ENV": app_env,
        "SECRET_KEY": env.get("SECRET_KEY") or fallback_key,
        # Older keys still accepted for links already mailed; new links are signed with SECRET_KEY.
        "SECRET_KEY_FALLBACKS": _key_list(env.get("SECRET_KEY_FALLBACKS", "")),
        "DATABASE_URL": database_url_from(env.get("DATABASE_URL", default_db)),
        # None until set: production must name it; development falls back to DEVELOPMENT_BASE_URL.
        "BASE_URL": env.get("BASE_URL") or None,
        "TOKEN_MAX_AGE_DAYS": int(env.get("TOKEN_MAX_AGE_DAYS", "60")),
        # A game form is a few hundred bytes; anything near this is not a person typing.
        "MAX_CONTENT_LENGTH": int(env.get("MAX_CONTENT_LENGTH", str(64 * 1024))),
        "SQLITE_BUSY_TIMEOUT_S": float(env.get("SQLITE_BUSY_TIMEOUT_S", "15")),
    }


def check_config(config: Mapping[str, Any]) -> None:
    """Raise ConfigError when the settings are unsafe (production) or inconsistent (anywhere)."""
    max_age = config["TOKEN_MAX_AGE_DAYS"]
    if max_age <= MAX_DAYS_PER_MOVE:
        raise ConfigError(
            f"TOKEN_MAX_AGE_DAYS={max_age} must be longer than the longest turn "
            f"({MAX_DAYS_PER_MOVE} days), or move links would expire before the deadline"
        )
    if config["APP_ENV"] != "production":
        return
    keys = [config.get("SECRET_KEY") or "", *config.get("SECRET_KEY_FALLBACKS", [])]
    if not keys[0]:
        raise ConfigError("APP_ENV=production needs SECRET_KEY set in the environment")
    for key in keys:
        if key == DEVELOPMENT_SECRET_KEY:
            raise ConfigError("APP_ENV=production refuses the development SECRET_KEY")
    if len(keys[0]) < MIN_PRODUCTION_KEY_LENGTH:
        raise ConfigError(
            f"APP_ENV=production needs a SECRET_KEY of at least {MIN_PRODUCTION_KEY_LENGTH} "
            "characters (e.g. python -c 'import secrets; print(secrets.token_urlsafe(48))')"
        )
    if not config.get("BASE_URL"):
        raise ConfigError("APP_ENV=production needs BASE_URL (links in emails are built from it)")
