"""Blocking: a player who blocks another gets no challenge, pairing or message from them, and
sends them none either. A block works in both directions whoever made it, and only its maker
can lift it."""

from __future__ import annotations

from sqlmodel import Session, col, or_, select

from service.db import added_once
from service.players.models import Block


def block(session: Session, blocker_id: int, blocked_id: int) -> bool:
    """``blocker_id`` blocks ``blocked_id``; False when they already did (nothing changes).
    Blocking oneself is refused by the caller, never stored."""
    if blocker_id == blocked_id:
        raise ValueError("a player cannot block themselves")
    if _block_row(session, blocker_id, blocked_id) is not None:
        return False
    return added_once(session, Block(blocker_id=blocker_id, blocked_id=blocked_id))


def unblock(session: Session, blocker_id: int, blocked_id: int) -> bool:
    """Lift the block ``blocker_id`` made; False when there was none (a block made by the other
    player is theirs to lift)."""
    row = _block_row(session, blocker_id, blocked_id)
    if row is None:
        return False
    session.delete(row)
    return True


def blocked_between(session: Session, one_id: int, other_id: int) -> bool:
    """Whether either player blocks the other."""
    found = session.exec(
        select(Block.id)
        .where(
            or_(
                (col(Block.blocker_id) == one_id) & (col(Block.blocked_id) == other_id),
                (col(Block.blocker_id) == other_id) & (col(Block.blocked_id) == one_id),
            )
        )
        .limit(1)
    ).first()
    return found is not None


def blocked_by(session: Session, blocker_id: int) -> list[int]:
    """The ids of the players ``blocker_id`` blocks, in the order they were blocked."""
    return list(
        session.exec(
            select(Block.blocked_id)
            .where(col(Block.blocker_id) == blocker_id)
            .order_by(col(Block.id))
        )
    )


def _block_row(session: Session, blocker_id: int, blocked_id: int) -> Block | None:
    return session.exec(
        select(Block).where(
            col(Block.blocker_id) == blocker_id, col(Block.blocked_id) == blocked_id
        )
    ).first()
