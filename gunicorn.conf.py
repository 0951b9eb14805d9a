"""gunicorn's settings for the web process (``Procfile``; ``bench/service.py`` starts it with the
same file). The bind address and anything else come from the command line or
``GUNICORN_CMD_ARGS``; either overrides what is set here."""

from __future__ import annotations

import gc
import ipaddress
import os
from typing import Any


def cores() -> int:
    """The cores this process may run on (a container's limit, not the host's count)."""
    return len(os.sched_getaffinity(0))


workers = int(os.environ.get("WEB_CONCURRENCY") or cores())
"""One sync worker per core (``WEB_CONCURRENCY`` overrides). A request is CPU-bound (a page
spends a tenth of its time waiting on the database), and PostgreSQL needs the same cores for
its part: measured on a 2-core VM with PostgreSQL beside it (private and public pages, side by
side), 2 workers served a third more pages per second than 4 (665-735 against 480-547), at
two thirds of the CPU per page (2.3-2.6 ms against 3.2-3.7) and a lower p99 (28-35 ms against
40-44): more workers than cores only take turns, each evicting the others' caches."""


def post_worker_init(_worker: Any) -> None:
    """The app is loaded: its modules, templates and tables live as long as the worker. Frozen
    out of the garbage collector's reach, they are never walked again: a full collection then
    walks only what the worker made since, about 15 ms of CPU on average instead of about 75
    (measured in process on a long game's public page: 184,000-233,000 objects walked by each
    full collection before, under 1,000 after), a pause the requests behind it wait through."""
    gc.freeze()


def on_starting(server: Any) -> None:
    """Refuse to start when gunicorn and the app would trust different proxies: with
    ``TRUSTED_PROXIES`` the app reads ``X-Forwarded-For`` only from the peers of the
    ``FORWARDED_ALLOW_IPS`` environment variable (``service.proxies``), so a
    ``--forwarded-allow-ips`` given on the command line alone would leave the app counting every
    client as the proxy (docs/security.md)."""
    if int(os.environ.get("TRUSTED_PROXIES") or 0) <= 0:
        return
    given = {_network(entry) for entry in server.cfg.forwarded_allow_ips}
    environment = os.environ.get("FORWARDED_ALLOW_IPS") or "127.0.0.1,::1"
    read = {_network(entry) for entry in environment.split(",") if entry.strip()}
    if given != read:
        raise RuntimeError(
            f"gunicorn trusts the proxies {sorted(map(str, given))} but the app, with "
            f"TRUSTED_PROXIES, those of FORWARDED_ALLOW_IPS={environment!r}: set "
            "FORWARDED_ALLOW_IPS in the environment (both read it), not --forwarded-allow-ips"
        )


def _network(entry: str) -> str:
    entry = entry.strip()
    return entry if entry == "*" else str(ipaddress.ip_network(entry))
