"""``service.catalogue`` gives the words Flask-Babel gives, without Flask-Babel's lookup on each
message: every message of the template, in every language, singular and plural, inside a
request and inside an email's ``recipient_language``."""

from __future__ import annotations

import re
from typing import Any

import flask_babel
import pytest
from babel.messages.pofile import read_po
from flask import Flask, render_template_string
from jinja2.runtime import Context

from service import catalogue
from service.i18n import LANGUAGE_CODES, TRANSLATIONS, recipient_language

PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")


def _messages() -> list[tuple[str, ...]]:
    with open(TRANSLATIONS / "messages.pot", "rb") as f:
        return [m.id if isinstance(m.id, tuple) else (m.id,) for m in read_po(f) if m.id]


def _values(*texts: str) -> dict[str, object]:
    return {name: 3 for text in texts for name in PLACEHOLDER.findall(text)}


def test_the_catalogue_says_what_flask_babel_says(bare_app: Flask) -> None:
    messages = _messages()
    assert len(messages) > 500
    differ = 0
    for code in LANGUAGE_CODES:
        with bare_app.test_request_context(), recipient_language(code):
            for message in messages:
                if len(message) == 1:
                    values = _values(message[0])
                    ours = catalogue.gettext(message[0], **values)
                    assert ours == flask_babel.gettext(message[0], **values), (code, message)
                    differ += ours != message[0] % values if values else ours != message[0]
                else:
                    singular, plural = message[:2]
                    for num in (1, 2, 5):
                        values = _values(singular, plural)
                        values.pop("num", None)
                        ours = catalogue.ngettext(singular, plural, num, **values)
                        theirs = flask_babel.ngettext(singular, plural, num, **values)
                        assert ours == theirs, (code, message, num)
    assert differ > 500, "the Japanese catalogue was not read"


def test_outside_an_application_nothing_is_translated() -> None:
    assert catalogue.gettext("Hello %(name)s,", name="Ann") == "Hello Ann,"
    assert catalogue.ngettext("%(num)d card", "%(num)d cards", 2) == "2 cards"


def test_a_message_inside_a_loop_does_not_copy_the_context(
    bare_app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Jinja copies the whole context for every call, made inside a loop or a block that set
    variables of its own, of a function that asks for the context: the templates' gettext asks
    for the evaluation context only (a private page has about thirty such messages, after its
    board block's ``{% set %}``)."""
    copies: list[Context] = []
    derived = Context.derived

    def counted(self: Context, locals: dict[str, Any] | None = None) -> Context:
        copies.append(self)
        return derived(self, locals)

    monkeypatch.setattr(Context, "derived", counted)
    template = (
        "{% for n in (1, 2) %}{% set m = n %}{{ _('Pass') }}: "
        "{{ ngettext('%(num)d card', '%(num)d cards', m) }}. {% endfor %}"
        "{% block b %}{% set x = 1 %}{% trans %}Pass{% endtrans %}{% endblock %}"
    )
    with bare_app.test_request_context():
        html = render_template_string(template)
    assert html == "Pass: 1 card. Pass: 2 cards. Pass"
    assert copies == []
