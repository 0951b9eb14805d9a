"""What the outbox says was already asked for: an invitation queued, a game's invitation held."""

from __future__ import annotations

from sqlmodel import Session, select

from service.models import Game, GameStatus
from service.outbox.kinds import MailKind
from service.outbox.models import OutboxMessage


def invitation_sent(session: Session, game_id: int) -> bool:
    """True once the invitations of this game went out (``Game.invited_at``; before it was kept,
    an invitation in the outbox), also when an address refusing them got none."""
    game = session.get(Game, game_id)
    if game is not None and game.invited_at is not None:
        return True
    row = session.exec(
        select(OutboxMessage.id).where(
            OutboxMessage.game_id == game_id, OutboxMessage.kind == MailKind.INVITATION
        )
    ).first()
    return row is not None


def invitation_waits_for_confirmation(session: Session, game_id: int) -> bool:
    """True while a game's invitation is held back until its creator confirms their address
    (for the creator's page: "check your email")."""
    game = session.get(Game, game_id)
    return (
        game is not None
        and game.status == GameStatus.INVITED
        and not invitation_sent(session, game_id)
    )
