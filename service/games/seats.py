"""The seat a private link names: the only way from a token to a seat row."""

from __future__ import annotations

from sqlmodel import Session

from service import tokens
from service.games import store
from service.models import Game, Seat


def seat_for_token(
    session: Session, token: tokens.SeatToken, *, lock: bool = False
) -> tuple[Game, Seat]:
    """The game and seat a private-page token names, checking it was not revoked.

    ``lock=True`` locks the game row first (for a change). Raises GameNotFoundError or
    RevokedTokenError.
    """
    game = (store.lock_game if lock else store.get_game)(session, token.game_id)
    seat = store.seats_of(session, token.game_id)[token.seat][0]
    tokens.check_generation(token.generation, seat.token_generation)
    return game, seat
