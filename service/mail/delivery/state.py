"""What the deliveries of one process share: the SMTP connection a worker keeps between its tasks,
and whether the server failed since its last success. One ``DeliveryState`` per Flask app (a
worker process has one app), read and written by the sending thread and the recorder thread."""

from __future__ import annotations

import threading

from flask import current_app

from service.mail.delivery.smtp import Postman, kept_postman

_EXTENSION_KEY = "battleline.mail_delivery"


class DeliveryState:
    """The per-process state of delivery. A process that saw a temporary failure of the server
    pulls the waiting rows forward at its next success (rows that failed elsewhere do it
    themselves: their attempts are above 1)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._failed_since_success = False
        self._postman: Postman | None = None

    def worker_postman(self) -> Postman:
        """The connection a worker process keeps between its deliveries (``MAIL_KEEPALIVE_S``)."""
        with self._lock:
            if self._postman is None:
                self._postman = kept_postman()
            return self._postman

    def server_failed(self) -> None:
        """The server failed for now (not a refusal of one row): the next success pulls the
        waiting rows forward."""
        with self._lock:
            self._failed_since_success = True

    def server_accepted(self, attempts: int) -> bool:
        """The server accepted a row at its ``attempts``-th try: whether recording it must pull
        the waiting rows forward (it follows failures). Called in the sending thread, so that a
        failure of the next row is not taken as pulled forward by this row's record."""
        with self._lock:
            pull = self._failed_since_success or attempts > 1
            self._failed_since_success = False
            return pull

    def pull_not_done(self) -> None:
        """A success that was to pull the waiting rows forward was not recorded: the next one
        pulls them."""
        with self._lock:
            self._failed_since_success = True


def delivery_state() -> DeliveryState:
    """The current app's DeliveryState, made at its first delivery."""
    extensions = current_app.extensions
    state: DeliveryState | None = extensions.get(_EXTENSION_KEY)
    if state is None:
        state = extensions.setdefault(_EXTENSION_KEY, DeliveryState())
    return state
