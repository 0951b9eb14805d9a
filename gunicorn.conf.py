"""gunicorn's settings for the web process (``Procfile``; ``bench/service.py`` starts it with the
same file). Everything else (workers, bind address) comes from the command line or
``GUNICORN_CMD_ARGS``."""

from __future__ import annotations

import gc
from typing import Any


def post_worker_init(_worker: Any) -> None:
    """The app is loaded: its modules, templates and tables live as long as the worker. Frozen
    out of the garbage collector's reach, they are never walked again: a full collection in a
    worker then takes about 15 ms instead of 60-100 ms of CPU, a pause that the requests
    waiting behind it would show in their p99 (measured in process on a long game's public
    page: 230,000 objects walked by each full collection before, under 1,000 after)."""
    gc.freeze()
