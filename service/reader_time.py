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
import zoneinfo
from collections.abc import Callable, MutableMapping
from datetime import UTC, datetime, tzinfo
from typing import Any

from babel import Locale
from babel.dates import format_datetime
from flask import has_app_context
from flask_babel import get_locale, ngettext
from flask_babel import gettext as _
from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup, escape

from service import clock

MAX_TIME_ZONE_LENGTH = 64
"""No IANA name is longer (the column's size)."""


class UnknownTimeZoneError(ValueError):
    """A name that is not one of the IANA time zones ``zoneinfo`` knows."""


@functools.cache
def time_zone_names() -> tuple[str, ...]:
    """Every IANA time zone name this machine knows, sorted, for a chooser."""
    return tuple(sorted(zoneinfo.available_timezones()))


def check_time_zone(name: str) -> str:
    """``name`` if it is a known IANA time zone ("Europe/Paris", "UTC"). Raises
    UnknownTimeZoneError otherwise (never opens a file named by the input: only names in the
    list are accepted)."""
    if len(name) > MAX_TIME_ZONE_LENGTH or name not in set(time_zone_names()):
        raise UnknownTimeZoneError(f"'{name[:MAX_TIME_ZONE_LENGTH]}' is not a time zone we know.")
    return name


def _zone(name: str | None) -> tzinfo:
    if not name or name == "UTC" or name not in set(time_zone_names()):
        return UTC
    return zoneinfo.ZoneInfo(name)


def _locale() -> Locale:
    """The language being written (a page's or an email's recipient's), English outside an app."""
    locale = get_locale() if has_app_context() else None
    return locale if locale is not None else Locale("en")


def time_left(moment: datetime, now: datetime) -> str:
    """What is left until ``moment``: "2 days 23 hours", "5 hours", "40 minutes"; "no time" once
    it has passed. Counted down to the minute, shown to the hour above one hour."""
    minutes = int((_utc(moment) - _utc(now)).total_seconds() // 60)
    if minutes <= 0:
        return str(_("no time"))
    if minutes < 60:
        return str(ngettext("%(num)d minute", "%(num)d minutes", minutes))
    days, hours = divmod(minutes // 60, 24)
    hours_text = str(ngettext("%(num)d hour", "%(num)d hours", hours))
    if days == 0:
        return hours_text
    days_text = str(ngettext("%(num)d day", "%(num)d days", days))
    return str(_("%(days)s %(hours)s", days=days_text, hours=hours_text)) if hours else days_text


def deadline_left(moment: datetime | None) -> str:
    """The time left until ``moment`` now (a page's ETag holds it: the page says it)."""
    return "" if moment is None else time_left(moment, clock.now())


def local_time(moment: datetime, time_zone: str | None) -> str:
    """``moment`` in ``time_zone`` (UTC when None or unknown), the zone named: "Friday 28
    November, 19:24 Europe/Paris time", "Friday 28 November, 18:24 UTC"."""
    zone = _zone(time_zone)
    at = _utc(moment).astimezone(zone)
    # A CLDR pattern, translated with the messages: each language orders its own date.
    when = format_datetime(at, str(_("EEEE d MMMM, HH:mm")), locale=_locale())
    if zone is UTC:
        return str(_("%(when)s UTC", when=when))
    return str(_("%(when)s %(zone)s time", when=when, zone=time_zone))


def deadline_text(moment: datetime, time_zone: str | None, now: datetime) -> str:
    """A deadline for people: its local time and the time left."""
    return str(
        _(
            "%(when)s (%(left)s left)",
            when=local_time(moment, time_zone),
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
    ``datetime`` is the moment in UTC."""
    if moment is None:
        return Markup("")
    zone, now = _context_zone_and_now(context)
    iso = _utc(moment).strftime("%Y-%m-%dT%H:%M:%SZ")
    words = escape(deadline_text(moment, zone, now))
    return Markup(f'<time datetime="{iso}" data-deadline>{words}</time>')


def register(filters: MutableMapping[str, Callable[..., Any]]) -> None:
    """Add the filters to a Jinja environment's."""
    filters["deadline_words"] = deadline_words
    filters["deadline_html"] = deadline_html
