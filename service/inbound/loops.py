"""No mail loop with a naive auto-responder: one that answers every email, our refusals too,
without the headers (``Auto-Submitted``, ``Precedence``) that would mark its mail as a program's.
Each of its answers would get a refusal, up to the hourly limit of an address (720 a day).

So after ``REFUSALS_BEFORE_PAUSE`` refusals to one player with no move of theirs accepted by reply
in between, further replies of that player are still read (and a move in one is played) but a
refusal is not sent again until a day has passed since those refusals. The count is taken from
the outbox (what was queued, in the database), so it holds across processes and restarts.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlmodel import Session, col, func, select

from service.models import utcnow
from service.outbox.kinds import MailKind
from service.outbox.models import OutboxMessage

REFUSALS_BEFORE_PAUSE = 2
PAUSE = timedelta(days=1)
"""How far back the refusals are counted: the pause lasts until the older one is a day old."""
NOT_ANSWERED = (
    f"not answered: {REFUSALS_BEFORE_PAUSE} refusals within a day with no move played between"
)


def refusals_paused(session: Session, player_id: int, now: datetime | None = None) -> bool:
    """Whether a refusal to this player is not sent now: ``REFUSALS_BEFORE_PAUSE`` refusals
    were queued to them in the last ``PAUSE`` before ``now`` (default: the outbox's own clock),
    none of them followed by a receipt (a move played by reply)."""
    since = (now or utcnow()) - PAUSE
    receipt = session.exec(
        select(func.max(OutboxMessage.created_at)).where(
            OutboxMessage.kind == MailKind.REPLY_RECEIPT,
            OutboxMessage.player_id == player_id,
            col(OutboxMessage.created_at) >= since,
        )
    ).one()
    refusals = session.exec(
        select(func.count())
        .select_from(OutboxMessage)
        .where(
            OutboxMessage.kind == MailKind.REPLY_REFUSED,
            OutboxMessage.player_id == player_id,
            col(OutboxMessage.created_at) >= since,
            col(OutboxMessage.created_at) > (receipt or since - PAUSE),
        )
    ).one()
    return int(refusals) >= REFUSALS_BEFORE_PAUSE
