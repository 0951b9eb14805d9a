"""The catalogue of the language being written, found quickly: gettext for the service's own
code and for templates, asking the application's ``PageDomain`` straight away.

Flask-Babel's ``gettext`` walks its context through Flask's ``g`` proxy and looks the domain up
on every message: a private page asks for about forty messages from Python and a hundred from
its templates. Which language is being written (a page's reader's, or an email's recipient's
under ``service.i18n.recipient_language``) is ``page_language``, kept on the application
context's ``g``. Outside an application context nothing is translated, as with Flask-Babel.
"""

from __future__ import annotations

from collections.abc import Callable

from babel.support import NullTranslations
from flask import Flask, current_app
from flask.ctx import _AppCtxGlobals
from flask.globals import _cv_app
from flask_babel import Domain, LazyString, get_locale
from jinja2 import pass_eval_context
from jinja2.nodes import EvalContext
from markupsafe import Markup

from service.honorifics import honour

DEFAULT_LANGUAGE = "en"

_DOMAIN_KEY = "page_domain"
"""Where an application keeps its ``PageDomain`` (``Flask.extensions``)."""

_UNTRANSLATED = NullTranslations()


PAGE_LANGUAGE_KEY = "_page_language"
"""``flask.g``'s copy of ``page_language``: a page asks once per card it draws, and Flask-Babel's
``get_locale`` costs twenty times the cached drawing of a card."""


def _app_globals() -> _AppCtxGlobals | None:
    """The application context's ``g``, or None outside one: read from Flask's context variable
    rather than through the ``g`` proxy, which costs more than the rest of ``page_language``."""
    context = _cv_app.get(None)
    return None if context is None else context.g


def page_language() -> str:
    """The code of the language the current page or email is being written in."""
    app_globals = _app_globals()
    if app_globals is None:
        return DEFAULT_LANGUAGE
    code: str | None = app_globals.__dict__.get(PAGE_LANGUAGE_KEY)
    if code is None:
        locale = get_locale()
        code = locale.language if locale is not None else DEFAULT_LANGUAGE
        setattr(app_globals, PAGE_LANGUAGE_KEY, code)
    return code


class PageDomain(Domain):  # type: ignore[misc]  # Flask-Babel ships no types
    """Flask-Babel's message domain, its catalogue looked up once per request and language:
    Flask-Babel's own lookup walks its context and the locale on every message, and a page has
    a hundred."""

    _CACHED = "_translations"
    """Where ``g`` keeps the language code and catalogue last looked up."""

    def __init__(self) -> None:
        super().__init__()
        self._words: dict[int, tuple[NullTranslations, TemplateWords]] = {}

    def template_words(self) -> TemplateWords:
        """The gettext callables of the language being written, for a template's context (a
        context processor: once per render, so inside ``recipient_language`` too): a page's
        hundred messages then skip the lookup of the language and catalogue each."""
        translations = self.get_translations()
        kept = self._words.get(id(translations))
        if kept is None or kept[0] is not translations:
            kept = (translations, _template_words(translations))
            self._words[id(translations)] = kept
        return kept[1]

    def environment_words(self) -> TemplateWords:
        """The gettext callables for the templates' environment, asking ``template_words`` on
        each call: a macro imported without context sees only the environment's globals, and
        Jinja's own callables format every message again (a page's board and counts)."""

        @pass_eval_context
        def gettext(context: EvalContext, string: str, /, **variables: object) -> str:
            return self.template_words()["gettext"](context, string, **variables)

        @pass_eval_context
        def ngettext(
            context: EvalContext, singular: str, plural: str, num: int, /, **variables: object
        ) -> str:
            return self.template_words()["ngettext"](context, singular, plural, num, **variables)

        return {"gettext": gettext, "ngettext": ngettext, "_": gettext}

    def get_translations(self) -> NullTranslations:
        app_globals = _app_globals()
        if app_globals is None:
            outside: NullTranslations = super().get_translations()
            return outside
        # Checked first against g's copy of the language, without page_language's lookup:
        # a page's Python asks for about eighty messages.
        kept = app_globals.__dict__
        cached: tuple[str, NullTranslations] | None = kept.get(self._CACHED)
        if cached is not None and cached[0] == kept.get(PAGE_LANGUAGE_KEY):
            return cached[1]
        code = page_language()
        if cached is None or cached[0] != code:
            cached = (code, super().get_translations())
            setattr(app_globals, self._CACHED, cached)
        return cached[1]


TemplateWords = dict[str, Callable[..., str]]


def _template_words(translations: NullTranslations) -> TemplateWords:
    """Jinja's newstyle ``gettext`` and ``ngettext`` (``jinja2.ext``'s, same escaping and
    formatting), calling ``translations`` straight away. A message without placeholders is
    formatted once per catalogue and kept: most of a page's messages are such. They take the
    evaluation context (its autoescape) rather than the whole context, which Jinja copies for
    every call made inside a loop or a block with variables of its own."""
    ugettext, ungettext = translations.ugettext, translations.ungettext
    plain: dict[tuple[str, bool], str] = {}

    @pass_eval_context
    def gettext(context: EvalContext, string: str, /, **variables: object) -> str:
        escaped = bool(context.autoescape)
        if not variables:
            kept = plain.get((string, escaped))
            if kept is None:
                kept = plain[string, escaped] = _formatted(ugettext(string), escaped, {})
            return kept
        return _formatted(ugettext(string), escaped, variables)

    @pass_eval_context
    def ngettext(
        context: EvalContext, singular: str, plural: str, num: int, /, **variables: object
    ) -> str:
        variables.setdefault("num", num)
        text = ungettext(singular, plural, num)
        return _formatted(text, bool(context.autoescape), variables)

    return {"gettext": gettext, "ngettext": ngettext, "_": gettext}


def _formatted(text: str, escaped: bool, variables: dict[str, object]) -> str:
    """A translated message with its placeholders filled, as Jinja's newstyle gettext does it:
    under autoescape the message is markup and the values are escaped into it."""
    text, variables = honour(text, variables)
    return (Markup(text) if escaped else text) % variables


def install_domain(app: Flask) -> PageDomain:
    """A new ``PageDomain`` for ``app``, kept where ``gettext`` finds it."""
    domain = app.extensions[_DOMAIN_KEY] = PageDomain()
    return domain


def page_domain() -> PageDomain:
    """The current application's ``PageDomain`` (``install_domain``)."""
    domain: PageDomain = current_app.extensions[_DOMAIN_KEY]
    return domain


def _translations() -> NullTranslations:
    """The catalogue of the language being written; none outside an application context or in
    an application without the service's languages (``service.i18n.init_app``)."""
    context = _cv_app.get(None)
    domain: PageDomain | None = None if context is None else context.app.extensions.get(_DOMAIN_KEY)
    return _UNTRANSLATED if domain is None else domain.get_translations()


def gettext(string: str, /, **variables: object) -> str:
    """``string`` in the language being written, its ``%(name)s`` placeholders filled."""
    text: str = _translations().ugettext(string)
    if not variables:
        return text
    text, variables = honour(text, variables)
    return text % variables


def ngettext(singular: str, plural: str, num: int, /, **variables: object) -> str:
    """The singular or plural message for ``num`` in the language being written, with
    ``%(num)d`` and the other placeholders filled."""
    variables.setdefault("num", num)
    text: str = _translations().ungettext(singular, plural, num)
    text, variables = honour(text, variables)
    return text % variables


def lazy_gettext(string: str, /, **variables: object) -> LazyString:
    """``gettext`` when the text is read (in its reader's language), not now."""
    return LazyString(gettext, string, **variables)
