"""Settings read from the environment, with their defaults (``service.config_checks`` refuses
unsafe ones)."""

from __future__ import annotations

import enum
import os
import re
from collections.abc import Mapping
from datetime import timedelta
from typing import TypedDict

from service.dkim_signing import dkim_config_from_env
from service.limits import limits_config_from_env
from service.turn_settings import turns_config_from_env

DEVELOPMENT_SECRET_KEY = "dev-only-insecure-secret-key"
"""The key a development server signs with when none is given; production refuses it."""

DEVELOPMENT_BASE_URL = "http://127.0.0.1:5000"
MAX_DAYS_PER_MOVE = 14
"""The longest turn a game may allow; every link must outlive it."""


class AppEnv(enum.StrEnum):
    """How the app runs. Anything not said explicitly is production (fail closed)."""

    PRODUCTION = "production"
    DEVELOPMENT = "development"
    """The embedded default of ``scripts/run``: SQLite, a loopback address, the outbox page."""
    TESTING = "testing"
    """The test suite: secrets given, links on a reserved test domain, the outbox page."""


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


def config_from_env(
    instance_path: str, environ: Mapping[str, str] | None = None
) -> dict[str, object]:
    """Every setting, from the environment, with development defaults: Flask's ``app.config``,
    by setting name (each area's settings typed where they are read: ``MailSettings``...)."""
    env = os.environ if environ is None else environ
    default_db = "sqlite:///" + os.path.join(instance_path, "battleline.sqlite3")
    # Unset means production: only a server that says it is a development one gets its shortcuts.
    app_env = (env.get("APP_ENV") or AppEnv.PRODUCTION.value).strip().lower()
    # Only development falls back to a known key; everything else must be given one.
    fallback_key = DEVELOPMENT_SECRET_KEY if app_env == AppEnv.DEVELOPMENT else ""
    production = app_env == AppEnv.PRODUCTION
    # Production names its database: a silent SQLite file would lose everything on a redeploy.
    database_url = env.get("DATABASE_URL") or (None if production else default_db)
    return {
        "APP_ENV": app_env,
        "SECRET_KEY": env.get("SECRET_KEY") or fallback_key,
        # Older keys still accepted for links already mailed; new links are signed with SECRET_KEY.
        "SECRET_KEY_FALLBACKS": _key_list(env.get("SECRET_KEY_FALLBACKS", "")),
        "DATABASE_URL": database_url and database_url_from(database_url),
        # None until set: production must name it; development falls back to DEVELOPMENT_BASE_URL.
        "BASE_URL": env.get("BASE_URL") or None,
        "TOKEN_MAX_AGE_DAYS": int(env.get("TOKEN_MAX_AGE_DAYS", "60")),
        # A game form is a few hundred bytes; anything near this is not a person typing.
        "MAX_CONTENT_LENGTH": int(env.get("MAX_CONTENT_LENGTH", str(64 * 1024))),
        "SQLITE_BUSY_TIMEOUT_S": float(env.get("SQLITE_BUSY_TIMEOUT_S", "15")),
        # The sign-in cookie (service.signin): never readable by scripts, never sent by a
        # cross-site POST, https-only in production (the __Host- prefix pins it to this host).
        "SESSION_COOKIE_NAME": "__Host-battleline" if production else "battleline",
        "SESSION_COOKIE_HTTPONLY": True,
        "SESSION_COOKIE_SECURE": production,
        "SESSION_COOKIE_SAMESITE": "Lax",
        "PERMANENT_SESSION_LIFETIME": timedelta(days=int(env.get("SIGN_IN_DAYS", "30"))),
        # Beat's schedule in the process that serves `flask run` (service.embedded_beat): on by
        # default on the embedded default (development, no Redis), where no beat process runs.
        "EMBEDDED_BEAT": _flag(
            env.get("EMBEDDED_BEAT"), app_env == AppEnv.DEVELOPMENT and not env.get("REDIS_URL")
        ),
        **mail_config_from_env(env),
        **dkim_config_from_env(env),
        **inbound_config_from_env(env),
        **turns_config_from_env(env, embedded=app_env == AppEnv.DEVELOPMENT),
        **limits_config_from_env(env),
    }


def _flag(value: str | None, default: bool) -> bool:
    if value is None or value == "":
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


class MailSettings(TypedDict):
    """What ``mail_config_from_env`` reads: the broker, the SMTP server, the outbox's sweeps and
    pruning, and the limits on invitations and confirmations."""

    REDIS_URL: str | None
    BROKER_PUBLISH_TIMEOUT_S: float
    BROKER_PUBLISH_PAUSE_S: float
    CELERY_DEFAULT_QUEUE: str
    CELERY_QUEUE_PREFIX: str
    MAIL_SERVER: str
    MAIL_PORT: int
    MAIL_USE_TLS: bool
    MAIL_USE_SSL: bool
    MAIL_USERNAME: str | None
    MAIL_PASSWORD: str | None
    MAIL_DEFAULT_SENDER: str
    MAIL_SUPPRESS_SEND: bool
    MAIL_MESSAGE_ID_DOMAIN: str | None
    MAIL_TIMEOUT_S: float
    MAIL_KEEPALIVE_S: float
    MAIL_SENDING_LEASE_S: float
    MAIL_RETRY_BACKOFF_S: float
    MAIL_RETRY_BACKOFF_MAX_S: float
    MAIL_GIVE_UP_AFTER_H: float
    MAIL_SWEEP_EVERY_S: float
    MAIL_SWEEP_AFTER_S: float
    MAIL_SWEEP_BATCH: int
    OUTBOX_KEEP_BODIES_DAYS: float
    OUTBOX_PRUNE_EVERY_S: float
    OUTBOX_PRUNE_BATCH: int
    OUTBOX_PRUNE_BATCHES_PER_RUN: int
    INVITATIONS_PER_SENDER_PER_DAY: int
    INVITATIONS_PER_RECIPIENT_PER_DAY: int
    CONFIRMATIONS_PER_ADDRESS_PER_DAY: int
    MY_GAMES_EMAILS_PER_ADDRESS_PER_DAY: int


def mail_config_from_env(env: Mapping[str, str]) -> MailSettings:
    """Mail, worker and invitation settings.

    No ``REDIS_URL``: tasks run eagerly in the web process (the embedded default). No
    ``MAIL_SERVER``: nothing is sent, every email is in the outbox (/dev/outbox outside production).
    """
    server = env.get("MAIL_SERVER") or None
    return {
        "REDIS_URL": env.get("REDIS_URL") or None,
        # A request waits at most this long to publish its tasks after a commit, and after a
        # failure publishes nothing for the pause (service.after_commit; the sweeps catch up).
        "BROKER_PUBLISH_TIMEOUT_S": float(env.get("BROKER_PUBLISH_TIMEOUT_S", "1")),
        "BROKER_PUBLISH_PAUSE_S": float(env.get("BROKER_PUBLISH_PAUSE_S", "5")),
        # Deployments (or test runs) sharing one Redis keep their tasks apart by queue name.
        "CELERY_DEFAULT_QUEUE": env.get("CELERY_DEFAULT_QUEUE") or "celery",
        # Before each routed queue's name (mail, turns, computer: worker.TASK_QUEUES).
        "CELERY_QUEUE_PREFIX": env.get("CELERY_QUEUE_PREFIX") or "",
        "MAIL_SERVER": server or "127.0.0.1",
        "MAIL_PORT": int(env.get("MAIL_PORT", "25")),
        "MAIL_USE_TLS": _flag(env.get("MAIL_USE_TLS"), False),
        "MAIL_USE_SSL": _flag(env.get("MAIL_USE_SSL"), False),
        "MAIL_USERNAME": env.get("MAIL_USERNAME") or None,
        "MAIL_PASSWORD": env.get("MAIL_PASSWORD") or None,
        "MAIL_DEFAULT_SENDER": env.get(
            "MAIL_DEFAULT_SENDER", "Battle Line by mail <battleline@localhost>"
        ),
        "MAIL_SUPPRESS_SEND": _flag(env.get("MAIL_SUPPRESS_SEND"), server is None),
        "MAIL_MESSAGE_ID_DOMAIN": env.get("MAIL_MESSAGE_ID_DOMAIN") or None,
        "MAIL_TIMEOUT_S": float(env.get("MAIL_TIMEOUT_S", "30")),
        # A worker keeps its SMTP connection between emails up to this many idle seconds.
        "MAIL_KEEPALIVE_S": float(env.get("MAIL_KEEPALIVE_S", "10")),
        # A claimed row ("sending") whose worker has not finished after this long is put back in
        # the queue by the sweep (a worker gives up its SMTP exchange a little before). Keep it
        # above the longest exchange: default 2 * MAIL_TIMEOUT_S + 30.
        "MAIL_SENDING_LEASE_S": float(
            env.get("MAIL_SENDING_LEASE_S") or 2 * float(env.get("MAIL_TIMEOUT_S", "30")) + 30
        ),
        # The wait of one email after a temporary failure: base * 2^(n-1) seconds, capped low so
        # that mail flows again within MAIL_RETRY_BACKOFF_MAX_S + MAIL_SWEEP_EVERY_S of the SMTP
        # server's return (the sweep retries, one probe per sweep while it is down; the first
        # success pulls every waiting row forward), until MAIL_GIVE_UP_AFTER_H.
        "MAIL_RETRY_BACKOFF_S": float(env.get("MAIL_RETRY_BACKOFF_S", "5")),
        "MAIL_RETRY_BACKOFF_MAX_S": float(env.get("MAIL_RETRY_BACKOFF_MAX_S", "15")),
        "MAIL_GIVE_UP_AFTER_H": float(env.get("MAIL_GIVE_UP_AFTER_H", "72")),
        # The beat sweep: how often, and how old an unsent row must be before it takes it.
        "MAIL_SWEEP_EVERY_S": float(env.get("MAIL_SWEEP_EVERY_S", "10")),
        "MAIL_SWEEP_AFTER_S": float(env.get("MAIL_SWEEP_AFTER_S", "30")),
        "MAIL_SWEEP_BATCH": int(env.get("MAIL_SWEEP_BATCH", "200")),
        # Sent emails keep their bodies (text, HTML, MIME) this many days, then the beat drops
        # them (service.outbox.prune) in transactions of OUTBOX_PRUNE_BATCH rows, at most
        # OUTBOX_PRUNE_BATCHES_PER_RUN a run (a full run queues the next at once).
        "OUTBOX_KEEP_BODIES_DAYS": float(env.get("OUTBOX_KEEP_BODIES_DAYS", "30")),
        "OUTBOX_PRUNE_EVERY_S": float(env.get("OUTBOX_PRUNE_EVERY_S", "3600")),
        "OUTBOX_PRUNE_BATCH": int(env.get("OUTBOX_PRUNE_BATCH", "500")),
        "OUTBOX_PRUNE_BATCHES_PER_RUN": int(env.get("OUTBOX_PRUNE_BATCHES_PER_RUN", "20")),
        # Abuse: the service must not become a way to mail strangers.
        "INVITATIONS_PER_SENDER_PER_DAY": int(env.get("INVITATIONS_PER_SENDER_PER_DAY", "10")),
        "INVITATIONS_PER_RECIPIENT_PER_DAY": int(env.get("INVITATIONS_PER_RECIPIENT_PER_DAY", "3")),
        "CONFIRMATIONS_PER_ADDRESS_PER_DAY": int(env.get("CONFIRMATIONS_PER_ADDRESS_PER_DAY", "3")),
        "MY_GAMES_EMAILS_PER_ADDRESS_PER_DAY": int(
            env.get("MY_GAMES_EMAILS_PER_ADDRESS_PER_DAY", "3")
        ),
    }


DEVELOPMENT_INBOUND_DOMAIN = "localhost"
"""The reply domain outside production when none is given: the development outbox's reply box
needs a Reply-To, and nothing outside this machine can reach it."""


class InboundSettings(TypedDict):
    """What ``inbound_config_from_env`` reads: play by reply."""

    INBOUND_DOMAIN: str | None
    INBOUND_LOCAL_PART: str
    INBOUND_SMTP_HOST: str
    INBOUND_SMTP_PORT: int
    INBOUND_IMAP_HOST: str | None
    INBOUND_IMAP_PORT: int
    INBOUND_IMAP_SSL: bool
    INBOUND_IMAP_USER: str | None
    INBOUND_IMAP_PASSWORD: str | None
    INBOUND_IMAP_FOLDER: str
    INBOUND_IMAP_POLL_S: float
    INBOUND_IMAP_TIMEOUT_S: float
    INBOUND_MAX_BYTES: int
    INBOUND_PER_ADDRESS_PER_HOUR: int
    INBOUND_KEEP_DAYS: float
    INBOUND_PRUNE_EVERY_S: float
    CHALLENGE_RENEW_EVERY_S: float
    TOURNAMENT_SWEEP_EVERY_S: float
    INBOUND_PRUNE_BATCH: int
    INBOUND_PRUNE_BATCHES_PER_RUN: int
    INBOUND_AUTHSERV_ID: str | None
    INBOUND_TRUST_FROM: bool | None
    """None: decided by the app factory (on outside production only)."""


def inbound_config_from_env(env: Mapping[str, str]) -> InboundSettings:
    """Play by reply (``service.inbound``): the reply addresses, the SMTP receiver, the IMAP
    mailbox, and the limits on what is received.

    No ``INBOUND_DOMAIN`` in production: emails carry no Reply-To and nothing is received;
    elsewhere the app factory falls back to ``DEVELOPMENT_INBOUND_DOMAIN`` (an empty value turns
    replies off there too). No ``INBOUND_IMAP_HOST``: no mailbox is polled.
    """
    domain = env.get("INBOUND_DOMAIN")
    return {
        "INBOUND_DOMAIN": None if domain is None else domain.strip().lower(),
        # The address is LOCAL+KEY@DOMAIN: "play" unless a hosted mailbox has another name.
        "INBOUND_LOCAL_PART": (env.get("INBOUND_LOCAL_PART") or "play").strip().lower(),
        "INBOUND_SMTP_HOST": env.get("INBOUND_SMTP_HOST") or "127.0.0.1",
        "INBOUND_SMTP_PORT": int(env.get("INBOUND_SMTP_PORT", "2525")),
        "INBOUND_IMAP_HOST": env.get("INBOUND_IMAP_HOST") or None,
        "INBOUND_IMAP_PORT": int(env.get("INBOUND_IMAP_PORT", "993")),
        "INBOUND_IMAP_SSL": _flag(env.get("INBOUND_IMAP_SSL"), True),
        "INBOUND_IMAP_USER": env.get("INBOUND_IMAP_USER") or None,
        "INBOUND_IMAP_PASSWORD": env.get("INBOUND_IMAP_PASSWORD") or None,
        "INBOUND_IMAP_FOLDER": env.get("INBOUND_IMAP_FOLDER") or "INBOX",
        # Beat polls the mailbox this often (``flask inbound imap-idle`` is told at once).
        "INBOUND_IMAP_POLL_S": float(env.get("INBOUND_IMAP_POLL_S", "60")),
        "INBOUND_IMAP_TIMEOUT_S": float(env.get("INBOUND_IMAP_TIMEOUT_S", "30")),
        # A reply quoting our HTML email is some tens of KB; anything this big is not a move.
        "INBOUND_MAX_BYTES": int(env.get("INBOUND_MAX_BYTES", str(1024 * 1024))),
        # Emails from one address in an hour; beyond, they are dropped unanswered.
        "INBOUND_PER_ADDRESS_PER_HOUR": int(env.get("INBOUND_PER_ADDRESS_PER_HOUR", "30")),
        # Received emails are remembered this many days (a repeat is found by its Message-ID),
        # then the beat deletes them (service.inbound.prune) in batches, like the outbox's bodies.
        "INBOUND_KEEP_DAYS": float(env.get("INBOUND_KEEP_DAYS", "30")),
        "INBOUND_PRUNE_EVERY_S": float(env.get("INBOUND_PRUNE_EVERY_S", "3600")),
        # Kept-going standing requests whose game ended are posted again (service.lobby.automatch).
        "CHALLENGE_RENEW_EVERY_S": float(env.get("CHALLENGE_RENEW_EVERY_S", "300")),
        # Tournaments due to start and round deadlines passed (service.tournaments.beat).
        "TOURNAMENT_SWEEP_EVERY_S": float(env.get("TOURNAMENT_SWEEP_EVERY_S", "300")),
        "INBOUND_PRUNE_BATCH": int(env.get("INBOUND_PRUNE_BATCH", "500")),
        "INBOUND_PRUNE_BATCHES_PER_RUN": int(env.get("INBOUND_PRUNE_BATCHES_PER_RUN", "20")),
        # The authserv-id of our own receiving server: only its Authentication-Results count
        # (service.inbound.authentication; the SMTP receiver writes them under this id).
        "INBOUND_AUTHSERV_ID": (env.get("INBOUND_AUTHSERV_ID") or "").strip().lower() or None,
        # Act on a reply with no authentication result by its From alone: None (unset) means
        # on outside production only (the app factory decides).
        "INBOUND_TRUST_FROM": (
            None
            if env.get("INBOUND_TRUST_FROM") is None
            else _flag(env.get("INBOUND_TRUST_FROM"), False)
        ),
    }
