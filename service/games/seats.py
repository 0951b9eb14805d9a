"""Seats: a game's seats and their players, the seat a private link names (the only way from a
token to a seat row), the address statuses of the seats' players, and revoking a seat's links.

A game's seats come with its ``LoadedGame`` (``service.games.loaded``): the functions here take
it and read nothing more, except those that say they read (``read_seats``, ``read_statuses``).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from sqlmodel import Session, col, select

from service import tokens
from service.games.loaded import LoadedGame, SeatHolder, load_game, lock_loaded_game
from service.models import AddressStatus, Player, Seat


def seat_for_token(
    session: Session, token: tokens.SeatToken, *, lock: bool = False
) -> tuple[LoadedGame, Seat]:
    """The game (loaded: ``load_game``) and seat a private-page token names, checking it was not
    revoked.

    ``lock=True`` locks the game row first (for a change). Raises GameNotFoundError, and the
    errors of ``checked_seat``.
    """
    # Locked: the seats read after the lock (lock_loaded_game), or two acceptances at once
    # would each miss the other's.
    loaded = (lock_loaded_game if lock else load_game)(session, token.game_id)
    return loaded, checked_seat(loaded, token.seat, token.generation)


def checked_seat(loaded: LoadedGame, letter: str, generation: int) -> Seat:
    """The seat ``letter`` of a loaded game, if a link of this ``generation`` still opens it.
    Raises TamperedTokenError when the game has no such seat (a well-signed token never names
    one: a two-player game has no seat C), RevokedTokenError when the link was revoked."""
    found = loaded.seats.get(letter)
    if found is None:
        raise tokens.TamperedTokenError()
    seat = found.seat
    tokens.check_generation(generation, seat.token_generation)
    return seat


_SEATS_OF_GAME = (
    select(Seat, Player)
    .join(Player, col(Player.id) == col(Seat.player_id))
    .where(Seat.game_id == sa.bindparam("game_id"))
    .order_by(col(Seat.letter))
)


def read_seats(session: Session, game_id: int) -> dict[str, SeatHolder]:
    """The seats of a game with their players, by seat letter, in seat order: one query, for a
    caller that holds no ``LoadedGame`` of it (``LoadedGame.seats`` has them)."""
    rows = session.execute(_SEATS_OF_GAME, {"game_id": game_id}).all()
    return {row.Seat.letter: SeatHolder(row.Seat, row.Player) for row in rows}


def read_statuses(session: Session, loaded: LoadedGame) -> dict[str, AddressStatus]:
    """The address status of each seat's player that has one, by seat letter: those read with
    the game when it was (``load_game``), else one query."""
    if loaded.statuses is not None:
        return {letter: s for letter, s in loaded.statuses.items() if s is not None}
    players = [held.player.id for held in loaded.seats.values()]
    rows = session.exec(select(AddressStatus).where(col(AddressStatus.player_id).in_(players)))
    found = {row.player_id: row for row in rows}
    return {
        letter: found[held.player.id]
        for letter, held in loaded.seats.items()
        if held.player.id in found
    }


def known_address_status(loaded: LoadedGame, player_id: int) -> tuple[bool, AddressStatus | None]:
    """What ``loaded`` holds of a seat's player's address status, without a query:
    ``(True, the row)``, or ``(True, None)`` when the player had none when the game was loaded;
    ``(False, None)`` when the statuses were not read (or the player holds no seat of the game).
    A row is the session's own (a change to it shows through); one made after the game was
    loaded is not in it: a caller that makes one loads the game again."""
    if loaded.statuses is None:
        return False, None
    for letter, held in loaded.seats.items():
        if held.player.id == player_id:
            return True, loaded.statuses.get(letter)
    return False, None


def seats_of_games(
    session: Session, game_ids: Sequence[int]
) -> dict[int, dict[str, tuple[Seat, Player]]]:
    """The seats of many games with their players, in one query: by game id, then seat letter
    (in seat order)."""
    if not game_ids:
        return {}
    rows = session.exec(
        select(Seat, Player)
        .join(Player, col(Player.id) == col(Seat.player_id))
        .where(col(Seat.game_id).in_(list(game_ids)))
        .order_by(col(Seat.game_id), col(Seat.letter))
    ).all()
    found: dict[int, dict[str, tuple[Seat, Player]]] = {}
    for seat, player in rows:
        found.setdefault(seat.game_id, {})[seat.letter] = SeatHolder(seat, player)
    return found


def revoke_seat_links(session: Session, seat: Seat) -> None:
    """Withdraw every link made for this seat so far (tokens carry the generation they were for),
    and end every sign-in of its player (``service.signin``: a link that leaked may have signed
    someone in). Lock the game first: a move link checked in a concurrent request must see one
    generation."""
    seat.token_generation += 1
    session.add(seat)
    player = session.get(Player, seat.player_id)
    if player is not None:
        player.session_generation += 1
        session.add(player)
    session.flush()
