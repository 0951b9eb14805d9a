"""Notices that one person's action sends to another (an opponent's "no longer gets our email")
are capped per recipient: one of a kind per game per day (UTC), counted by a row whose primary
key refuses a second, so concurrent requests cannot both send one."""

from __future__ import annotations

from sqlmodel import Session

from service import clock
from service.db import added_once
from service.outbox.kinds import MailKind
from service.outbox.models import NoticeDay


def first_today(session: Session, kind: MailKind, recipient_id: int, game_id: int) -> bool:
    """Record this notice for today; False when the recipient had one about this game today."""
    row = NoticeDay(
        kind=kind.value, recipient_id=recipient_id, game_id=game_id, day=clock.now().date()
    )
    return added_once(session, row)
