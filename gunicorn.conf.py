"""gunicorn's settings for the web process (``Procfile``; ``bench/service.py`` starts it with the
same file). The bind address and anything else come from the command line or
``GUNICORN_CMD_ARGS``; either overrides what is set here."""

from __future__ import annotations

import gc
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
