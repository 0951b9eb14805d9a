"""A ruleset's title in the reader's words ("Battle Line for three", 「バトルライン (3人用)」,
docs/glossary-ja.md). The engine's titles are English, for its own output; pages and emails name
a ruleset through here."""

from __future__ import annotations

from flask_babel import LazyString, lazy_gettext

import engine

RULESET_TITLES = {
    "battleline": lazy_gettext("Battle Line"),
    "no-tactics": lazy_gettext("Battle Line without tactics"),
    "playing-cards": lazy_gettext("Battle Line with playing cards"),
    "schotten-totten": lazy_gettext("Schotten-Totten"),
    "battleline-3p": lazy_gettext("Battle Line for three"),
    "no-tactics-3p": lazy_gettext("Battle Line for three without tactics"),
}


def ruleset_title(name: str) -> str:
    """The title of the ruleset ``name`` in the current language (the engine's for a ruleset
    this table does not know yet)."""
    title = RULESET_TITLES.get(name)
    return str(title) if title is not None else engine.get_ruleset(name).title


def lazy_ruleset_title(name: str) -> LazyString | str:
    """The title of the ruleset ``name``, put into words when a template renders it: a value
    built before the reader's language is known (an email's facts) reads in the reader's."""
    return RULESET_TITLES.get(name) or engine.get_ruleset(name).title
