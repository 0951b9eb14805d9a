"""Whether a game's invitations were asked for: a fact of the game (``Game.invited_at``), also
when an address refusing or bouncing them got none."""

from __future__ import annotations

from sqlmodel import Session

from service.models import Game, GameStatus


def invitation_sent(session: Session, game_id: int) -> bool:
    """True once the invitations of this game went out."""
    game = session.get(Game, game_id)
    return game is not None and game.invited_at is not None


def invitation_waits_for_confirmation(session: Session, game_id: int) -> bool:
    """True while a game's invitation is held back until its creator confirms their address
    (for the creator's page: "check your email")."""
    game = session.get(Game, game_id)
    return (
        game is not None
        and game.status == GameStatus.INVITED
        and not invitation_sent(session, game_id)
    )
