"""The game's own words in the reader's language: variant titles, formation names, how a game
ended, a game's status, when claims are made, the computer's levels. The engine names these in
English for its own output (``Ruleset.title``, ``Formation.title``); pages and emails name them
through here, at render time (lazy strings, turned into text in the language being written).
The Japanese words are docs/glossary-ja.md's."""

from __future__ import annotations

from flask_babel import LazyString

import engine
from service.catalogue import gettext, lazy_gettext
from service.honorifics import NameList

RULESET_TITLES: dict[str, LazyString] = {
    "battleline": lazy_gettext("Battle Line"),
    "no-tactics": lazy_gettext("Battle Line without tactics"),
    "playing-cards": lazy_gettext("Battle Line with playing cards"),
    "schotten-totten": lazy_gettext("Schotten-Totten"),
    "battleline-3p": lazy_gettext("Battle Line for three"),
    "no-tactics-3p": lazy_gettext("Battle Line for three without tactics"),
}

FORMATION_NAMES: dict[engine.Formation, LazyString] = {
    engine.Formation.SUM: lazy_gettext("Sum"),
    engine.Formation.HOST: lazy_gettext("Host"),
    engine.Formation.SKIRMISH: lazy_gettext("Skirmish"),
    engine.Formation.BATTALION: lazy_gettext("Battalion"),
    engine.Formation.PHALANX: lazy_gettext("Phalanx"),
    engine.Formation.WEDGE: lazy_gettext("Wedge"),
}

TERMINATION_WORDS: dict[str, LazyString] = {
    "breakthrough": lazy_gettext("breakthrough"),
    "envelopment": lazy_gettext("envelopment"),
    "stalemate": lazy_gettext("stalemate"),
    "resignation": lazy_gettext("resignation"),
    "time": lazy_gettext("time"),
}

STATUS_WORDS: dict[str, LazyString] = {
    "invited": lazy_gettext("invited"),
    "active": lazy_gettext("active"),
    "declined": lazy_gettext("declined"),
    "finished": lazy_gettext("finished"),
    "playing": lazy_gettext("playing"),
    "left": lazy_gettext("left"),
}

CLAIM_TIMING_NAMES: dict[str, LazyString] = {
    "advanced": lazy_gettext("advanced"),
    "standard": lazy_gettext("standard"),
}

CLAIM_TIMING_CHOICES: dict[str, LazyString] = {
    "advanced": lazy_gettext("Advanced rule: claims at the start of your turn"),
    "standard": lazy_gettext("Standard claims: at the end of your turn"),
}
"""The claim timings as a form for games with other players offers them, the one that suits
play by mail first (and chosen unless the player picks the other)."""

CLAIM_TIMING_SENTENCES: dict[str, LazyString] = {
    "advanced": lazy_gettext("Advanced rule."),
    "standard": lazy_gettext("Standard claims."),
}
"""The claim timing of games offered to others (a challenge, a tournament), as a sentence."""

CLAIM_MOMENTS: dict[str, LazyString] = {
    "advanced": lazy_gettext("at the start of your turn"),
    "standard": lazy_gettext("after playing"),
}

COMPUTER_LEVEL_NAMES: dict[str, LazyString] = {
    "random": lazy_gettext("random"),
    "easy": lazy_gettext("easy"),
    "normal": lazy_gettext("normal"),
    "strong": lazy_gettext("strong"),
    "expert": lazy_gettext("expert"),
}

COMPUTER_LEVEL_WORDS: dict[str, LazyString] = {
    "random": lazy_gettext("plays any card at all, to learn the rules against"),
    "easy": lazy_gettext("knows what it wants but often plays a careless card"),
    "normal": lazy_gettext("plays the card that helps its flags most: a fair game for anyone"),
    "strong": lazy_gettext("thinks ahead about the cards it cannot see: for a practised player"),
    "expert": lazy_gettext("searches several turns deep: the strongest it can be"),
}
"""Each level in words a player understands (the engine's ``COMPUTER_LEVEL_WORDS`` are the
English; these are what pages show)."""

OUTBOX_STATUS_WORDS: dict[str, LazyString] = {
    "queued": lazy_gettext("queued"),
    "sending": lazy_gettext("sending"),
    "sent": lazy_gettext("sent"),
    "failed": lazy_gettext("failed"),
}


def _word(table: dict[str, LazyString], key: str) -> str:
    found = table.get(key)
    return key if found is None else str(found)


def ruleset_title(name: str) -> str:
    """A variant's title for people: ``"Battle Line"``, 「バトルライン」."""
    found = RULESET_TITLES.get(name)
    return engine.get_ruleset(name).title if found is None else str(found)


def lazy_ruleset_title(name: str) -> LazyString | str:
    """A variant's title put into words when a template renders it: a value built before the
    reader's language is known (an email's facts, a digest's list) reads in the reader's."""
    return RULESET_TITLES.get(name) or engine.get_ruleset(name).title


def formation_name(formation: engine.Formation) -> str:
    """A formation category's name: ``"Wedge"``, 「ウェッジ」."""
    return str(FORMATION_NAMES[formation])


def formation_value(value: engine.FormationValue) -> str:
    """A formation and its sum: ``"Wedge 27"``."""
    return f"{formation_name(value.formation)} {value.total}"


def termination_words(termination: str) -> str:
    """How a game ended, as a noun: ``"breakthrough"``, 「分断」."""
    return _word(TERMINATION_WORDS, str(termination))


def status_words(status: str) -> str:
    """A game's (or series') status: ``"being played"``, ``"finished"``."""
    return _word(STATUS_WORDS, str(status))


def claim_timing_name(claims: str) -> str:
    """``"advanced"`` or ``"standard"``, 「上級ルール」 or 「基本ルール」."""
    return _word(CLAIM_TIMING_NAMES, str(claims))


def claim_moment(claims: str) -> str:
    """When the seats of a game of claim timing ``claims`` claim: "at the start of your turn"."""
    return _word(CLAIM_MOMENTS, str(claims))


def computer_level_name(level: str) -> str:
    """A computer level's name: ``"normal"``."""
    return _word(COMPUTER_LEVEL_NAMES, level)


def computer_level_words(level: str) -> str:
    """What a computer level plays like, in a phrase."""
    return _word(COMPUTER_LEVEL_WORDS, level)


def outbox_status(status: str) -> str:
    """Where an email of the outbox stands: ``"queued"``, ``"sent"``."""
    return _word(OUTBOX_STATUS_WORDS, str(status))


def in_words(names: list[str]) -> str:
    """Names (or numbers) as a list in words, in the language being written: "Bob", "Bob and
    Carol", "Bob, Carol and Dan"."""
    names = [name if isinstance(name, str) else str(name) for name in names]  # Unhonoured kept
    if len(names) < 2:
        return names[0] if names else ""
    joined = gettext(
        "%(names)s and %(last)s", names=str(gettext(", ")).join(names[:-1]), last=names[-1]
    )
    return NameList(str(joined), names, in_words)
