"""Pages and emails in the reader's language (Flask-Babel, gettext catalogues in
``translations/``; how to add a language: docs/translating.md).

Whose language:
- a page: the language chosen with the switch on every page (kept in the signed session cookie,
  and on the player when signed in), else the browser's ``Accept-Language``, else English;
- an email: always its recipient's (``Player.language``), whoever's request or task sends it.
  ``recipient_language`` forces it with Flask-Babel's ``force_locale``, which keeps the forced
  locale on ``flask.g`` (one per application context, so never shared between threads or
  requests) and restores the outer one afterwards, so an email queued while serving a Japanese
  page to its sender still reads in its English recipient's language.

Outside an application context Flask-Babel silently translates nothing; email rendering always
runs inside one (requests, Celery tasks via ``celery_init_app``, the embedded beat).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from flask import (
    Blueprint,
    Flask,
    Response,
    g,
    has_app_context,
    has_request_context,
    redirect,
    request,
    url_for,
)
from flask import session as cookie
from flask_babel import Babel, force_locale

from service.catalogue import (
    DEFAULT_LANGUAGE,
    PAGE_LANGUAGE_KEY,
    install_domain,
    lazy_gettext,
    page_language,
)
from service.db import session_scope
from service.models import Player
from service.refusal import Refusal
from service.signin import LANGUAGE_KEY, signed_in_player


@dataclass(frozen=True)
class Language:
    """A language every page and email is written in."""

    code: str
    """The BCP 47 code, as in ``lang=`` and ``Accept-Language`` ("en", "ja")."""
    name: str
    """Its name in itself, as the switch shows it ("English", "日本語")."""
    sentence_gap: str = " "
    """What goes between two sentences that are two messages: a space, none in Japanese (a
    sentence ends with 。)."""


LANGUAGES = (Language("en", "English"), Language("ja", "日本語", sentence_gap=""))
LANGUAGE_CODES = tuple(language.code for language in LANGUAGES)

TRANSLATIONS = Path(__file__).resolve().parent.parent / "translations"

bp = Blueprint("language", __name__)


class UnknownLanguageError(Refusal):
    status = 400
    title = lazy_gettext("Unknown language")

    def __init__(self) -> None:
        names = ", ".join(f"{lang.name} ({lang.code})" for lang in LANGUAGES)
        super().__init__(
            lazy_gettext(
                "This site is written in these languages: %(languages)s. Nothing was changed.",
                languages=names,
            )
        )


def checked_language(code: str | None) -> str | None:
    """``code`` if it is one of ``LANGUAGE_CODES``, else None."""
    return code if code in LANGUAGE_CODES else None


def select_page_language() -> str:
    """The language a page is written in (the module's docstring says the order); outside a
    request (a task, a command) English unless ``recipient_language`` forces one."""
    if not has_request_context():
        return DEFAULT_LANGUAGE
    chosen = checked_language(cookie.get(LANGUAGE_KEY))
    if chosen is not None:
        return chosen
    return request.accept_languages.best_match(LANGUAGE_CODES) or DEFAULT_LANGUAGE


def sentence_gap() -> str:
    """``Language.sentence_gap`` of the language being written (templates: between two
    sentences made of two messages)."""
    code = page_language()
    return next((lang.sentence_gap for lang in LANGUAGES if lang.code == code), " ")


def adopt_language(player: Player, language: str | None) -> None:
    """A player proving on a page that they are themselves (signing in, confirming their
    address, sending or accepting an invitation from the link emailed to them) who has not
    chosen a language gets that page's ``language``: their emails follow it from now on. A
    choice they made is never overridden; with no page (None) nothing is chosen for them."""
    if language is not None and checked_language(player.language) is None:
        player.language = language


def email_language(player: Player, unchosen: str | None = None) -> str | None:
    """The language to write to ``player`` in: theirs, or ``unchosen`` if they chose none."""
    return checked_language(player.language) or unchosen


@contextmanager
def recipient_language(code: str | None) -> Iterator[None]:
    """Within this block, gettext and Babel's formats speak ``code`` (a recipient's saved
    language; None or unknown: English)."""
    language = checked_language(code) or DEFAULT_LANGUAGE
    outer = g.get(PAGE_LANGUAGE_KEY) if has_app_context() else None
    with force_locale(language):
        if has_app_context():
            setattr(g, PAGE_LANGUAGE_KEY, language)
        try:
            yield
        finally:
            if has_app_context():
                setattr(g, PAGE_LANGUAGE_KEY, outer)


def _safe_next(target: str | None) -> str:
    """Only a path of this site (never ``//host`` or a scheme): the switch cannot send a
    browser elsewhere."""
    if target and target.startswith("/") and not target.startswith("//") and "\\" not in target:
        return target
    return url_for("lobby.new_game")


@bp.post("/language")
def choose_language() -> Response:
    """The switch on every page: remembers the choice in this browser and, when signed in, on
    the player (their emails follow it), then goes back to the page it was pressed on."""
    code = checked_language(request.form.get("language"))
    if code is None:
        raise UnknownLanguageError()
    cookie[LANGUAGE_KEY] = code
    with session_scope() as db:
        player = signed_in_player(db)
        if player is not None and player.language != code:
            player.language = code
    return redirect(_safe_next(request.form.get("next")), code=303)  # type: ignore[return-value]


def init_app(app: Flask) -> None:
    app.config.setdefault("BABEL_DEFAULT_LOCALE", DEFAULT_LANGUAGE)
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(TRANSLATIONS))
    babel = Babel(app, locale_selector=select_page_language)
    domain = babel.domain_instance = install_domain(app)
    # Flask-Babel installed Jinja's newstyle callables ({% trans %} formats as gettext does).
    # Ours replace gettext and ngettext: a rendered template finds the language's callables in
    # its context; a macro imported without context, in the environment.
    app.jinja_env.globals.update(domain.environment_words())
    app.context_processor(domain.template_words)
    app.jinja_env.globals["page_language"] = page_language
    app.jinja_env.globals["languages"] = LANGUAGES
    app.jinja_env.globals["sentence_gap"] = sentence_gap
    app.register_blueprint(bp)

    @app.after_request
    def vary_by_language(response: Response) -> Response:
        # A page's words depend on these two: no shared cache may serve one reader's language
        # to another.
        if response.mimetype == "text/html":
            response.vary.update(("Accept-Language", "Cookie"))
        return response
