"""Flask-Babel's gettext and ngettext, typed: the message in the current language
(``service.i18n``) as a ``str``, with its named placeholders filled. Named ``_`` and ``ngettext``
so that ``pybabel extract`` finds the messages."""

from __future__ import annotations

import flask_babel


def _(message: str, **values: object) -> str:
    """``message`` in the current language, ``%(name)s`` placeholders filled from ``values``."""
    return str(flask_babel.gettext(message, **values))


def ngettext(singular: str, plural: str, num: int, **values: object) -> str:
    """``singular`` or ``plural`` by ``num`` (``%(num)d``) in the current language."""
    return str(flask_babel.ngettext(singular, plural, num, **values))
