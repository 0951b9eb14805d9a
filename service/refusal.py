"""The base of every refusal the service explains to a person: a status and a readable message."""

from __future__ import annotations


class Refusal(Exception):
    """An action or page the service refuses. ``str(error)`` is the message for the person.

    The error blueprint answers every Refusal with ``status`` and ``title``; nothing was changed.
    """

    status = 400
    title = "This cannot be done"
    page_url: str | None = None
    """The page that shows how things are now (a stale link's game), which the answer links to."""
