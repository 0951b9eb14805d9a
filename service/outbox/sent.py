"""Whether a game's invitations were asked for, a fact of the game (``Game.invited_at``), also
when an address refusing or bouncing them got none; and which of them cannot arrive."""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import Session

from service.games.loaded import LoadedGame
from service.models import Game, GameStatus
from service.outbox.addresses import BouncingAddress


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


def undelivered_invitations(
    loaded: LoadedGame, bouncing: Sequence[BouncingAddress]
) -> list[BouncingAddress]:
    """The invited seats, not yet accepted, whose invitation went out (``Game.invited_at``) to
    an address that bounces (a permanent SMTP refusal or a bounce report; an address already
    bouncing got none): their invitation cannot arrive, so the creator's page names them."""
    game = loaded.game
    if game.status != GameStatus.INVITED or game.invited_at is None:
        return []
    return [b for b in bouncing if not loaded.seats[b.seat].seat.accepted]
