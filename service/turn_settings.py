"""Settings of turns across days, read from the environment (``service.config`` adds them)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

GAME_DAY_S = 24 * 60 * 60
"""A real day: the length of a game day everywhere but in short-clock tests."""
DEFAULT_VACATION_DAYS = 7
MAX_VACATION_DAYS = 30


class TurnSettings(TypedDict):
    """The settings of turns across days (``turns_config_from_env`` says what each is)."""

    TURN_REMINDER_LEAD_H: float
    TURN_SCAN_EVERY_S: float
    TURN_SCAN_BATCH: int
    TURN_START_GRACE_S: float
    DIGEST_HOUR_UTC: int
    DIGEST_CHECK_EVERY_S: float
    COMPUTER_DELAY_S: int
    GAME_DAY_S: float


def turns_config_from_env(env: Mapping[str, str], *, embedded: bool) -> TurnSettings:
    """The reminder lead, how often the beat task scans, the digest hour, the computer's delay
    (a few seconds on the embedded default, ``embedded``), the length of a game day."""
    return {
        # The last reminder falls this long before the deadline.
        "TURN_REMINDER_LEAD_H": float(env.get("TURN_REMINDER_LEAD_H", "24")),
        # The beat task that sends reminders, uses vacation days and applies timeouts.
        "TURN_SCAN_EVERY_S": float(env.get("TURN_SCAN_EVERY_S", "60")),
        "TURN_SCAN_BATCH": int(env.get("TURN_SCAN_BATCH", "500")),
        # A turn whose start task has not run this long after the move is started by the scan.
        "TURN_START_GRACE_S": float(env.get("TURN_START_GRACE_S", "30")),
        # The daily digest goes out at this hour (UTC); the beat task looks this often.
        "DIGEST_HOUR_UTC": int(env.get("DIGEST_HOUR_UTC", "7")),
        "DIGEST_CHECK_EVERY_S": float(env.get("DIGEST_CHECK_EVERY_S", "900")),
        # A computer seat plays this long after its turn began (a new game keeps the value it
        # was created with): long enough that a game against it still reads as correspondence,
        # but a few seconds on the embedded default, where one person tries the service out.
        "COMPUTER_DELAY_S": int(env.get("COMPUTER_DELAY_S") or ("3" if embedded else "300")),
        # A day of the game clock (days per move, vacation days, one reminder a day). Only a
        # server that is not production may shorten it (service.config): short-clock tests.
        "GAME_DAY_S": float(env.get("GAME_DAY_S") or GAME_DAY_S),
    }
