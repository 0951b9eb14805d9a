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

    ``lock=True`` locks the game row first (for a change). Raises GameNotFoundError, and the
    errors of ``checked_seat``.
    """
    # Locked: the seats read after the lock (store.lock_game_with_seats), or two acceptances
    # at once would each miss the other's.
    game = (store.lock_game_with_seats if lock else store.get_game_with_seats)(
        session, token.game_id
    )
    return game, checked_seat(session, token.game_id, token.seat, token.generation)


def checked_seat(session: Session, game_id: int, letter: str, generation: int) -> Seat:
    """The seat ``letter`` of a game, if a link of this ``generation`` still opens it. Raises
    TamperedTokenError when the game has no such seat (a well-signed token never names one:
    a two-player game has no seat C), RevokedTokenError when the link was revoked."""
    found = store.seats_of(session, game_id).get(letter)
    if found is None:
        raise tokens.TamperedTokenError()
    seat = found[0]
    tokens.check_generation(generation, seat.token_generation)
    return seat
