"""Times as their reader reads them: a deadline in the reader's own time zone, named, with the
time left ("Friday 28 November, 19:24 Europe/Paris time (2 days 23 hours left)").

Times are stored in UTC. A player may choose a time zone (``Player.time_zone``, an IANA
name checked against ``zoneinfo``); emails use it, pages too, and without one a time reads in UTC
with the zone named. Templates get ``deadline_words`` (text) and ``deadline_html`` (a ``<time>``
element carrying the moment in ISO form); both read ``time_zone`` and ``now`` from the template's
context when it has them.
"""

from __future__ import annotations

import functools
import json
import zoneinfo
from collections.abc import Callable, MutableMapping
from datetime import UTC, datetime, tzinfo
from typing import Any

from babel import Locale
from babel.dates import format_date, format_datetime
from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup, escape

from service import clock
from service.catalogue import gettext, ngettext, page_language

MAX_TIME_ZONE_LENGTH = 64
"""No IANA name is longer (the column's size)."""


class UnknownTimeZoneError(ValueError):
    """A name that is not one of the IANA time zones ``zoneinfo`` knows."""


@functools.cache
def time_zone_names() -> tuple[str, ...]:
    """Every IANA time zone name this machine knows, sorted, for a chooser."""
    return tuple(sorted(zoneinfo.available_timezones()))


@functools.cache
def _known_zones() -> frozenset[str]:
    return frozenset(time_zone_names())


def check_time_zone(name: str) -> str:
    """``name`` if it is a known IANA time zone ("Europe/Paris", "UTC"). Raises
    UnknownTimeZoneError otherwise (never opens a file named by the input: only names in the
    list are accepted)."""
    if len(name) > MAX_TIME_ZONE_LENGTH or name not in _known_zones():
        raise UnknownTimeZoneError(f"'{name[:MAX_TIME_ZONE_LENGTH]}' is not a time zone we know.")
    return name


def _zone(name: str | None) -> tzinfo:
    if not name or name == "UTC" or name not in _known_zones():
        return UTC
    return zoneinfo.ZoneInfo(name)


def _days(count: int) -> str:
    return str(ngettext("%(num)d day", "%(num)d days", count))


def _hours(count: int) -> str:
    return str(ngettext("%(num)d hour", "%(num)d hours", count))


def _minutes(count: int) -> str:
    return str(ngettext("%(num)d minute", "%(num)d minutes", count))


def _left(moment: datetime, now: datetime) -> tuple[int, int, int]:
    """The days, hours and minutes ``time_left`` says (minutes only under an hour, none above);
    all three 0 once ``moment`` has passed."""
    minutes = int((_utc(moment) - _utc(now)).total_seconds() // 60)
    if minutes <= 0:
        return 0, 0, 0
    if minutes < 60:
        return 0, 0, minutes
    days, hours = divmod(minutes // 60, 24)
    return days, hours, 0


def time_left(moment: datetime, now: datetime) -> str:
    """What is left until ``moment``: "2 days 23 hours", "5 hours", "40 minutes"; "no time" once
    it has passed. Counted down to the minute, shown to the hour above one hour."""
    days, hours, minutes = _left(moment, now)
    if not (days or hours or minutes):
        return str(gettext("no time"))
    if minutes:
        return _minutes(minutes)
    if days == 0:
        return _hours(hours)
    if not hours:
        return _days(days)
    return str(gettext("%(days)s %(hours)s", days=_days(days), hours=_hours(hours)))


def deadline_left(moment: datetime | None) -> tuple[int, int, int] | None:
    """What a page says is left until ``moment`` now, as numbers (``_left``): a page's ETag
    holds them, so the page changes when its words of the time left would."""
    return None if moment is None else _left(moment, clock.now())


DAY_AND_TIME_PATTERNS = {"en": "EEEE d MMMM, HH:mm", "ja": "M月d日(EEE) HH:mm"}
"""How a deadline's day and time read in each language (Babel's patterns); a language not
listed gets its locale's own medium date and time."""
DATE_PATTERNS = {"en": "d MMMM y"}
"""How a day reads ("3 March 2025"); a language not listed gets its locale's long date."""


@functools.cache
def _locale(language: str) -> Locale:
    # Babel parses a locale given by name again on every call, more than once a date.
    return Locale.parse(language)


def _day_and_time(at: datetime, language: str) -> str:
    pattern = DAY_AND_TIME_PATTERNS.get(language, "medium")
    return format_datetime(at, pattern, tzinfo=at.tzinfo, locale=_locale(language))


def local_time(moment: datetime, time_zone: str | None) -> str:
    """``moment`` in ``time_zone`` (UTC when None or unknown), the zone named, in the language
    being written: "Friday 28 November, 19:24 Europe/Paris time", "Friday 28 November, 18:24
    UTC"."""
    zone = _zone(time_zone)
    at = _utc(moment).astimezone(zone)
    when = _day_and_time(at, page_language())
    if zone is UTC:
        return str(gettext("%(time)s UTC", time=when))
    return str(gettext("%(time)s %(zone)s time", time=when, zone=time_zone))


def local_date(moment: datetime, time_zone: str | None) -> str:
    """The day of ``moment`` in ``time_zone``, in the language being written: "3 March 2025"."""
    at = _utc(moment).astimezone(_zone(time_zone))
    language = page_language()
    return format_date(at.date(), DATE_PATTERNS.get(language, "long"), locale=_locale(language))


def deadline_text(moment: datetime, time_zone: str | None, now: datetime) -> str:
    """A deadline for people: its local time and the time left."""
    return str(
        gettext(
            "%(time)s (%(left)s left)",
            time=local_time(moment, time_zone),
            left=time_left(moment, now),
        )
    )


def _utc(moment: datetime) -> datetime:
    # SQLite gives the stored UTC back without its offset.
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _context_zone_and_now(context: Context) -> tuple[str | None, datetime]:
    zone = context.get("time_zone")
    now = context.get("now")
    return (zone if isinstance(zone, str) else None), (
        now if isinstance(now, datetime) else clock.now()
    )


@pass_context
def deadline_words(context: Context, moment: datetime | None) -> str:
    """The template filter: a deadline as text, in the context's ``time_zone``."""
    if moment is None:
        return ""
    zone, now = _context_zone_and_now(context)
    return deadline_text(moment, zone, now)


@pass_context
def deadline_html(context: Context, moment: datetime | None) -> Markup:
    """The template filter for pages: the deadline's words in a ``<time>`` element whose
    ``datetime`` is the moment in UTC, with the words ``static/local-time.js`` needs to say it
    again in the browser's zone in the page's language (``script_words``)."""
    if moment is None:
        return Markup("")
    zone, now = _context_zone_and_now(context)
    iso = _utc(moment).strftime("%Y-%m-%dT%H:%M:%SZ")
    words = escape(deadline_text(moment, zone, now))
    script = _script_words_attribute(page_language())
    return Markup(f'<time datetime="{iso}" data-deadline data-words="{script}">{words}</time>')


@functools.cache
def _script_words_attribute(language: str) -> Markup:
    """``script_words`` as the escaped JSON of an attribute, made once per ``language`` (called
    while writing in it): the same for every deadline of every page."""
    return escape(json.dumps(script_words(), ensure_ascii=False, separators=(",", ":")))


def script_words() -> dict[str, str]:
    """The words of a deadline for ``static/local-time.js``, in the language being written:
    each count's one and other form (the two forms English and Japanese need), the zone and the
    time left around placeholders the script fills in."""
    return {
        "day1": _days(1).replace("1", "{n}", 1),
        "days": _days(2).replace("2", "{n}", 1),
        "hour1": _hours(1).replace("1", "{n}", 1),
        "hours": _hours(2).replace("2", "{n}", 1),
        "minute1": _minutes(1).replace("1", "{n}", 1),
        "minutes": _minutes(2).replace("2", "{n}", 1),
        "both": str(gettext("%(days)s %(hours)s", days="{days}", hours="{hours}")),
        "none": str(gettext("no time")),
        "utc": str(gettext("%(time)s UTC", time="{time}")),
        "zone": str(gettext("%(time)s %(zone)s time", time="{time}", zone="{zone}")),
        "left": str(gettext("%(time)s (%(left)s left)", time="{time}", left="{left}")),
    }


@pass_context
def reader_time(context: Context, moment: datetime | None) -> str:
    """The template filter for a stored moment (a game's last move, an email queued): its day
    and time in the context's ``time_zone``, the zone named, in the page's language."""
    if moment is None:
        return ""
    zone, _ = _context_zone_and_now(context)
    return local_time(moment, zone)


@pass_context
def reader_date(context: Context, moment: datetime | None) -> str:
    """The template filter for the day of a stored moment, in the page's language."""
    if moment is None:
        return ""
    zone, _ = _context_zone_and_now(context)
    return local_date(moment, zone)


def register(filters: MutableMapping[str, Callable[..., Any]]) -> None:
    """Add the filters to a Jinja environment's."""
    filters["deadline_words"] = deadline_words
    filters["deadline_html"] = deadline_html
    filters["reader_time"] = reader_time
    filters["reader_date"] = reader_date
