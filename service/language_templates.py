"""Templates compiled once per language, their constant messages translated as they compile.

Most of a template's messages are constants, ``_("Your hand")``: a private page has about fifty,
and asked of the catalogue on every render they cost 3-4% of the page (bench.instructions).
Here each language gets its own overlay of the application's Jinja environment, with a
template cache of its own; as a template compiles in it, ``_("...")`` with one string and no
values becomes the string already translated (and formatted as gettext would, ``%%`` to ``%``),
marked safe where the template autoescapes as gettext's result is. Jinja's optimizer then
writes it into the compiled template as text. A message with values, ``ngettext`` and
``{% trans %}`` are still asked for as the template renders.

The application's environment itself compiles nothing of the service's templates: it hands
every request for a template to the overlay of the language being written (``page_language``,
a page's reader's or an email's recipient's), whose templates import and extend within it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import Any

from babel.support import NullTranslations
from flask.templating import Environment
from jinja2 import Template, pass_eval_context
from jinja2.ext import Extension
from jinja2.lexer import Token, TokenStream
from jinja2.nodes import EvalContext
from markupsafe import Markup

from service.catalogue import page_domain, page_language

TEMPLATE_CACHE_SIZE = 400
"""Templates kept compiled per language (Jinja's default; the service has about 150)."""

_MESSAGE_FILTER = "translated_message"

_CALL_TOKENS = 4
"""The tokens of a constant message: ``_``, ``(``, the string, ``)``."""

_NOT_BESIDE = frozenset({"dot", "tilde"})
"""Tokens a folded message may not stand beside: ``x._("...")`` is an attribute's call, and
Jinja's optimizer joins ``"..." ~ "..."`` of two constants as plain text, where gettext's
markup would have escaped the other string into it."""


@pass_eval_context
def translated_message(context: EvalContext, text: str) -> str:
    """A translated constant as gettext gives it: markup where the template autoescapes."""
    return Markup(text) if context.autoescape else text


class ConstantMessages(Extension):
    """Writes ``_("message")`` as ``("translated"|translated_message)`` in a language's
    overlay (``LanguageEnvironment``); elsewhere it changes nothing."""

    def filter_stream(self, stream: TokenStream) -> Iterator[Token]:
        catalogue: NullTranslations | None = getattr(self.environment, "catalogue", None)
        if catalogue is None:
            yield from stream
            return
        # A window of the call's tokens and the one after it; ``before`` came just before.
        window: list[Token] = []
        before: Token | None = None
        for token in stream:
            window.append(token)
            if len(window) <= _CALL_TOKENS:
                continue
            folded = _folded(window, before, catalogue)
            if folded is None:
                before = window.pop(0)
                yield before
            else:
                yield from folded
                before = window[_CALL_TOKENS - 1]
                del window[:_CALL_TOKENS]
        yield from window


def _folded(
    window: Sequence[Token], before: Token | None, catalogue: NullTranslations
) -> list[Token] | None:
    """The tokens of the translated constant for ``_ ( "message" )``, or None when the tokens
    are anything else (a call with values, beside ``_NOT_BESIDE``)."""
    name, opening, string, closing, after = window
    if (
        name.type != "name"
        or name.value != "_"
        or opening.type != "lparen"
        or string.type != "string"
        or closing.type != "rparen"
        or after.type in _NOT_BESIDE
        or (before is not None and before.type in _NOT_BESIDE)
    ):
        return None
    try:
        text = catalogue.ugettext(string.value) % {}
    except (KeyError, TypeError, ValueError):
        return None  # a message wanting values: left for gettext to refuse as it renders
    line = name.lineno
    return [
        Token(line, "lparen", "("),
        Token(line, "string", text),
        Token(line, "pipe", "|"),
        Token(line, "name", _MESSAGE_FILTER),
        Token(line, "rparen", ")"),
    ]


class LanguageEnvironment(Environment):
    """The application's Jinja environment: templates are compiled and kept per language."""

    catalogue: NullTranslations | None = None
    """An overlay's catalogue, its constant messages translated with it; None for the
    application's environment."""

    def __init__(self, *args: Any, **options: Any) -> None:
        options["extensions"] = [*options.get("extensions", ()), ConstantMessages]
        super().__init__(*args, **options)
        self.filters[_MESSAGE_FILTER] = translated_message
        self._overlays: dict[str, LanguageEnvironment] = {}
        self._overlays_made = threading.Lock()

    def get_template(self, name: Any, parent: str | None = None, globals: Any = None) -> Template:
        if self.catalogue is not None:
            return super().get_template(name, parent, globals)
        return self._overlay().get_template(name, parent, globals)

    def select_template(
        self, names: Any, parent: str | None = None, globals: Any = None
    ) -> Template:
        if self.catalogue is not None:
            return super().select_template(names, parent, globals)
        return self._overlay().select_template(names, parent, globals)

    def _overlay(self) -> LanguageEnvironment:
        """The overlay of the language being written, made the first time it is asked for
        (inside an application context, where its catalogue is found)."""
        code = page_language()
        overlay = self._overlays.get(code)
        if overlay is None:
            with self._overlays_made:
                overlay = self._overlays.get(code)
                if overlay is None:
                    # A cache of its own (an overlay copies its parent's by default), and the
                    # catalogue gettext reads while this language is being written.
                    overlay = self.overlay(cache_size=TEMPLATE_CACHE_SIZE)
                    overlay.catalogue = page_domain().get_translations()
                    self._overlays[code] = overlay
        return overlay
