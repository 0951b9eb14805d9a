"""The deadline policy: which reminders, vacation days and timeouts are due at a given moment.

Pure: the clock comes in as ``now``, so tests move time forward without sleeping and the beat
task only asks "what is due now?" of data kept in the database (never a days-long countdown).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

DAY = timedelta(days=1)


class Due(enum.Enum):
    """What the beat task must do for a turn."""

    REMIND_HALF = "half"
    """Half of the time for the move is used."""
    REMIND_EIGHTY = "eighty"
    """80% of the time for the move is used."""
    REMIND_LAST_DAY = "last-day"
    """The deadline is less than the reminder lead (24 hours by default) away."""
    USE_VACATION = "vacation"
    """The deadline passed: a vacation day is used and the deadline moves a day on."""
    TIMEOUT = "timeout"
    """The deadline passed with no vacation day left: the player loses on time."""


@dataclass(frozen=True)
class TurnClock:
    """What the database knows about the time of one turn."""

    started: datetime
    """When the turn began (UTC)."""
    deadline: datetime
    """When it must be played (UTC); vacation days move it."""
    reminders_sent: frozenset[Due] = frozenset()
    """The reminders already sent for this turn."""
    last_reminder: datetime | None = None
    """When the game last sent this player a reminder (any turn): at most one a day."""
    vacation_days_left: int = 0
    """The player's vacation days left in this game."""
    day: timedelta = DAY
    """A day on this clock: a vacation day, the least time between two reminders (shorter only
    outside production, ``GAME_DAY_S``)."""


def reminder_moments(clock: TurnClock, lead: timedelta) -> dict[Due, datetime]:
    """When each reminder falls due: half and 80% of the time, and ``lead`` before the deadline."""
    span = clock.deadline - clock.started
    return {
        Due.REMIND_HALF: clock.started + span / 2,
        Due.REMIND_EIGHTY: clock.started + span * 0.8,
        Due.REMIND_LAST_DAY: clock.deadline - lead,
    }


def due_now(clock: TurnClock, now: datetime, lead: timedelta = DAY) -> Due | None:
    """The one thing to do for this turn at ``now``, or None.

    Past the deadline: a vacation day if one is left, else the timeout. Before it: the reminder
    that fell due last and was not sent, unless a reminder went out less than a day ago (at most
    one a day; reminders falling due together give one email, the most urgent). A reminder that
    would fall at the very start of the turn (the last-day one of a one-day turn) is not sent.
    """
    if now >= clock.deadline:
        return Due.USE_VACATION if clock.vacation_days_left > 0 else Due.TIMEOUT
    if clock.last_reminder is not None and now - clock.last_reminder < clock.day:
        return None
    moments = reminder_moments(clock, lead)
    fallen = [
        due
        for due, moment in moments.items()
        if clock.started < moment <= now and due not in clock.reminders_sent
    ]
    if not fallen:
        return None
    urgency = list(moments)  # half < eighty < last day, for reminders falling at one moment
    return max(fallen, key=lambda due: (moments[due], urgency.index(due)))


def mark_sent(clock: TurnClock, sent: Due, now: datetime, lead: timedelta = DAY) -> TurnClock:
    """The clock once reminder ``sent`` went out at ``now``: it and every reminder due no later
    count as sent, so an overtaken reminder never follows a more urgent one."""
    moments = reminder_moments(clock, lead)
    done = {due for due, moment in moments.items() if moment <= moments[sent]}
    return replace(clock, reminders_sent=clock.reminders_sent | done, last_reminder=now)


def after_vacation_day(clock: TurnClock) -> TurnClock:
    """The clock once a vacation day is used: a day more, one vacation day less."""
    return replace(
        clock, deadline=clock.deadline + clock.day, vacation_days_left=clock.vacation_days_left - 1
    )


def late_moment(clock: TurnClock, lead: timedelta = DAY) -> datetime:
    """When the opponent is told that the player runs late: 80% of the time used or ``lead``
    before the deadline, whichever comes first (only the 80% mark when the lead would fall at the
    very start of the turn)."""
    moments = reminder_moments(clock, lead)
    eighty, last_day = moments[Due.REMIND_EIGHTY], moments[Due.REMIND_LAST_DAY]
    return min(eighty, last_day) if last_day > clock.started else eighty


def next_check(clock: TurnClock, lead: timedelta = DAY, *, late_told: bool = True) -> datetime:
    """The earliest moment anything could fall due for this turn (a reminder, the late notice,
    the deadline): the beat task looks at a game again only then. Never later than the true
    moment, so nothing is missed; a check that finds nothing due only recomputes this."""
    candidates = [clock.deadline]
    gate = clock.last_reminder + clock.day if clock.last_reminder is not None else None
    for due, moment in reminder_moments(clock, lead).items():
        if due in clock.reminders_sent or moment <= clock.started:
            continue
        candidates.append(max(moment, gate) if gate is not None else moment)
    if not late_told:
        candidates.append(late_moment(clock, lead))
    return min(candidates)
