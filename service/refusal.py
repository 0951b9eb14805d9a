"""The base of every refusal the service explains to a person: a status and a readable message.

A refusal's title and message are lazy strings (``lazy_gettext``, or ``later`` for a sentence
with plurals): they are put into words when the answer is rendered, in the language of whoever
reads it then (a page's reader, or an email's recipient), not of whoever raised it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeAlias

from flask_babel import LazyString

from service.catalogue import lazy_gettext

Text: TypeAlias = str | LazyString
"""A message: plain text (names, notation) or a lazy translated sentence."""


def later(make: Callable[[], str]) -> LazyString:
    """Text that ``make`` writes when it is read (a sentence with ``ngettext``, or one chosen
    among several), so that it is written in the reader's language."""
    return LazyString(make)


class Refusal(Exception):
    """An action or page the service refuses. ``str(error)`` is the message for the person.

    The error blueprint answers every Refusal with ``status`` and ``title``; nothing was changed.
    """

    status = 400
    title: Text = lazy_gettext("This cannot be done")
    message: Text = lazy_gettext("This cannot be done.")
    """The message of a refusal that always says the same (``Refusal()``)."""
    page_url: str | None = None
    """The page that shows how things are now (a stale link's game), which the answer links to."""

    def __init__(self, message: Text | None = None) -> None:
        self.text: Text = self.message if message is None else message
        super().__init__(self.text)

    def __str__(self) -> str:
        return str(self.text)
