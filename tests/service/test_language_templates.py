"""Templates compiled per language (``service.language_templates``): a constant message is
written translated into the compiled template, and every page reads as it did when each
message was asked of the catalogue as the template rendered."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import SimpleNamespace
from typing import Any

import pytest
from flask import Flask, templating
from flask.testing import FlaskClient
from jinja2 import Template

import service
from service import catalogue
from service.db import get_engine, session_scope
from service.games.loaded import load_game
from service.games.state import load_state
from service.i18n import LANGUAGE_CODES, recipient_language
from service.outbox import queue
from service.outbox.kinds import MailKind
from service.outbox.queue import render_email
from service.present.emails import queue_game_started
from service.present.game_emails import queue_your_turn
from tests.service.conftest import make_test_app
from tests.service.test_pages_ja import mid_game  # noqa: F401  # a fixture

MESSAGE = "Open the page to see how things stand now"
"""A constant message of ``error.html``."""


def _compiled(app: Flask, name: str) -> str:
    """The Python the language being written compiles the template ``name`` to."""
    environment = app.jinja_env.get_template(name).environment
    assert environment.loader is not None
    source, _, _ = environment.loader.get_source(environment, name)
    code: str = environment.compile(source, name, raw=True)
    return code


def test_a_constant_message_is_compiled_translated(bare_app: Flask) -> None:
    words = {}
    for code in LANGUAGE_CODES:
        with bare_app.test_request_context(), recipient_language(code):
            words[code] = catalogue.gettext(MESSAGE)
            compiled = _compiled(bare_app, "error.html")
            assert words[code] in compiled, code
            assert "resolve('_')" not in compiled, code
    assert words["ja"] != words["en"] == MESSAGE


def test_each_language_renders_its_own_compiled_templates(bare_app: Flask) -> None:
    shown: dict[str, Template] = {}
    for code in [*LANGUAGE_CODES, *LANGUAGE_CODES]:
        with bare_app.test_request_context(), recipient_language(code):
            template = bare_app.jinja_env.get_template("error.html")
            html = template.render(title="t", message="m", page_url="/x")
            assert catalogue.gettext(MESSAGE) in html
            assert shown.setdefault(code, template) is template, "compiled again"
    assert shown["en"] is not shown["ja"]


@pytest.mark.parametrize(
    "source",
    [
        '{{ _("a < b %% c") }}|{{ _("x %(n)s", n="<i>") }}|{{ _("Pass")|upper }}',
        '{% set t = _("Pass") %}{{ t ~ "<br>" }}|{{ _("Pass") ~ "<br>" }}|{{ "<" ~ _("Pass") }}',
        '{{ (_("Pass") ~ "<br>")|safe }}|{{ ("<br>" ~ _("Pass"))|safe }}',
        '{% autoescape false %}{{ _("a < b") }}{{ _("Pass") ~ "<br>" }}{% endautoescape %}',
        '{{ m._("Pass") }}|{{ {"k": _("Pass")}["k"] }}|{{ [_("Pass")]|join("<") }}',
    ],
)
def test_a_folded_message_reads_as_gettext_gives_it(bare_app: Flask, source: str) -> None:
    """The same template compiled with its messages folded (a language's overlay) and asked
    for as it renders (the application's own environment, which folds nothing)."""
    values = {"m": SimpleNamespace(_=lambda text: f"method {text}")}
    for code in LANGUAGE_CODES:
        with bare_app.test_request_context(), recipient_language(code):
            overlay = bare_app.jinja_env.get_template("error.html").environment
            folded = overlay.from_string(source).render(values)
            asked = bare_app.jinja_env.from_string(source).render(values)
            assert folded == asked, code


@pytest.fixture
def unfolded_app(database_url: str) -> Iterator[Flask]:
    """An application on the same database with Flask's own Jinja environment: its templates
    ask for every message as they render."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(service, "LanguageEnvironment", templating.Environment)
        app = make_test_app(database_url)
    assert type(app.jinja_env) is templating.Environment
    yield app
    get_engine(app).dispose()


def test_every_page_reads_as_when_each_message_was_asked_for(
    client: FlaskClient,
    unfolded_app: Flask,
    mid_game: SimpleNamespace,  # noqa: F811
) -> None:
    public = f"/games/{mid_game.public_id}"
    pages = [
        f"/p/{mid_game.token['A']}",
        f"/p/{mid_game.token['B']}",
        f"/p/{mid_game.token['A']}/resign",
        public,
        f"{public}?ply=0",
        "/games",
        "/games/new",
        "/dev/outbox",
        "/no-such-page",
    ]
    asked = unfolded_app.test_client()
    for code in LANGUAGE_CODES:
        for page in pages:
            ours = client.get(page, headers={"Accept-Language": code})
            theirs = asked.get(page, headers={"Accept-Language": code})
            assert ours.status_code == theirs.status_code, page
            assert ours.get_data(as_text=True) == theirs.get_data(as_text=True), (code, page)


def test_every_email_reads_as_when_each_message_was_asked_for(
    app: Flask,
    unfolded_app: Flask,
    mid_game: SimpleNamespace,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The emails of the position in each language, rendered again from the same values by
    the application that asks for every message."""
    rendered: list[tuple[str, MailKind, dict[str, Any], tuple[str, str]]] = []

    def recorded(kind: MailKind, context: Mapping[str, Any]) -> tuple[str, str]:
        bodies = render_email(kind, context)
        rendered.append((catalogue.page_language(), kind, dict(context), bodies))
        return bodies

    monkeypatch.setattr(queue, "render_email", recorded)
    for code in LANGUAGE_CODES:
        with app.app_context(), session_scope() as session:
            loaded = load_game(session, mid_game.id)
            for _, player in loaded.seats.values():
                player.language = code
            state = load_state(session, loaded)
            queue_your_turn(session, loaded, state)
            queue_game_started(session, loaded)
    kinds = (MailKind.YOUR_TURN, MailKind.GAME_STARTED)
    expected = {(code, kind) for code in LANGUAGE_CODES for kind in kinds}
    assert {(language, kind) for language, kind, _, _ in rendered} >= expected
    for language, kind, context, bodies in rendered:
        with unfolded_app.app_context(), recipient_language(language):
            assert render_email(kind, context) == bodies, (language, kind)
