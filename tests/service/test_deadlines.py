"""The deadline policy with the clock moved forward (no sleeping for days)."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest

from service.turns.deadlines import (
    Due,
    TurnClock,
    after_vacation_day,
    due_now,
    mark_sent,
)

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
H = timedelta(hours=1)
D = timedelta(days=1)


def run_turn(days: int, vacation: int = 0, step: timedelta = H) -> list[tuple[float, Due]]:
    """Walk a whole turn hour by hour; return (hours since start, what was done)."""
    clock = TurnClock(started=T0, deadline=T0 + days * D, vacation_days_left=vacation)
    done: list[tuple[float, Due]] = []
    now = T0
    while now < T0 + 60 * D:
        due = due_now(clock, now)
        if due is Due.TIMEOUT:
            done.append(((now - T0) / H, due))
            break
        if due is Due.USE_VACATION:
            clock = after_vacation_day(clock)
        elif due is not None:
            clock = mark_sent(clock, due, now)
        if due is not None:
            done.append(((now - T0) / H, due))
        now += step
    return done


def test_reminders_at_half_eighty_percent_and_a_day_before() -> None:
    assert run_turn(days=10) == [
        (120, Due.REMIND_HALF),
        (192, Due.REMIND_EIGHTY),
        (216, Due.REMIND_LAST_DAY),
        (240, Due.TIMEOUT),
    ]


def test_at_most_one_reminder_a_day() -> None:
    done = run_turn(days=2)
    reminders = [hour for hour, due in done if due is not Due.TIMEOUT]
    assert all(b - a >= 24 for a, b in itertools.pairwise(reminders))
    assert done[0] == (24, Due.REMIND_LAST_DAY), "half and last-day fall together: one email"


def test_one_day_turn_has_no_reminder_at_its_start() -> None:
    done = run_turn(days=1)
    assert (0, Due.REMIND_LAST_DAY) not in done
    assert [due for _, due in done] == [Due.REMIND_HALF, Due.TIMEOUT]


def test_vacation_days_are_used_before_the_timeout() -> None:
    done = run_turn(days=3, vacation=2)
    assert [hour for hour, due in done if due is Due.USE_VACATION] == [72, 96]
    assert done[-1] == (120, Due.TIMEOUT)


@pytest.mark.parametrize("days", range(1, 15))
def test_every_turn_length_ends_in_a_timeout_once(days: int) -> None:
    done = run_turn(days=days)
    assert [due for _, due in done].count(Due.TIMEOUT) == 1
    assert done[-1] == (days * 24, Due.TIMEOUT)
    assert len({due for _, due in done}) == len(done), "no reminder twice in one turn"
