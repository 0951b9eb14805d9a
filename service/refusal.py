"""The base of every refusal the service explains to a person: a status and a readable message."""

from __future__ import annotations


class Refusal(Exception):
    """An action or page the service refuses. ``str(error)`` is the message for the person.

    The error blueprint answers every Refusal with ``status`` and ``title``; nothing was changed.
    """

    status = 400
    title = "This cannot be done"
    message = "This cannot be done."
    """The message of a refusal that always says the same (``Refusal()``)."""
    page_url: str | None = None
    """The page that shows how things are now (a stale link's game), which the answer links to."""

    def __init__(self, message: str | None = None) -> None:
        super().__init__(self.message if message is None else message)
