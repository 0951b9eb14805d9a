"""Seats: a game's seats and their players, the seat a private link names (the only way from a
token to a seat row), the address statuses of the seats' players, and revoking a seat's links.

A game's seats come with its ``LoadedGame`` (``service.games.loaded``): ``seats_of`` answers
from the one this session loaded, else reads them in one query and keeps them as that.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.orm.util import identity_key
from sqlmodel import Session, col, select

from service import tokens
from service.games.loaded import (
    NO_SNAPSHOTS,
    LoadedGame,
    SeatHolder,
    keep_loaded,
    load_game,
    loaded_in,
    lock_loaded_game,
)
from service.models import AddressStatus, Game, Player, Seat


def seat_for_token(
    session: Session, token: tokens.SeatToken, *, lock: bool = False
) -> tuple[Game, Seat]:
    """The game and seat a private-page token names, checking it was not revoked.

    ``lock=True`` locks the game row first (for a change). Raises GameNotFoundError, and the
    errors of ``checked_seat``.
    """
    # Locked: the seats read after the lock (lock_loaded_game), or two acceptances at once
    # would each miss the other's.
    loaded = (lock_loaded_game if lock else load_game)(session, token.game_id)
    return loaded.game, checked_seat(session, token.game_id, token.seat, token.generation)


def checked_seat(session: Session, game_id: int, letter: str, generation: int) -> Seat:
    """The seat ``letter`` of a game, if a link of this ``generation`` still opens it. Raises
    TamperedTokenError when the game has no such seat (a well-signed token never names one:
    a two-player game has no seat C), RevokedTokenError when the link was revoked."""
    found = seats_of(session, game_id).get(letter)
    if found is None:
        raise tokens.TamperedTokenError()
    seat = found[0]
    tokens.check_generation(generation, seat.token_generation)
    return seat


_SEATS_WITH_GAME = (
    select(Game, Seat, Player)
    .join(Seat, col(Seat.game_id) == col(Game.id))
    .join(Player, col(Player.id) == col(Seat.player_id))
    .where(Game.id == sa.bindparam("game_id"))
    .order_by(col(Seat.letter))
)


def seats_of(session: Session, game_id: int) -> dict[str, tuple[Seat, Player]]:
    """The seats of a game with their players, by seat letter, in seat order: those of the
    game's ``LoadedGame`` in this session (no query), else one query, kept as its
    ``LoadedGame`` (without statuses or snapshots). Seats are made with their game and never
    deleted, and the rows are the session's own objects, so a change to a seat shows through."""
    loaded = loaded_in(session, game_id)
    if loaded is None:
        rows = session.execute(_SEATS_WITH_GAME, {"game_id": game_id}).all()
        if not rows:
            return {}
        seats = {row.Seat.letter: SeatHolder(row.Seat, row.Player) for row in rows}
        loaded = keep_loaded(session, LoadedGame(rows[0].Game, seats, None, NO_SNAPSHOTS))
    return dict(loaded.seats)


def address_statuses(session: Session, game_id: int) -> dict[str, AddressStatus]:
    """The address status of each seat's player that has one, by seat letter: those of the
    game's ``LoadedGame`` when it read them, else ``load_game`` (one query)."""
    loaded = loaded_in(session, game_id)
    statuses = None if loaded is None else loaded.statuses
    if statuses is None:
        statuses = load_game(session, game_id).statuses
        assert statuses is not None
    return {letter: status for letter, status in statuses.items() if status is not None}


def known_address_status(
    session: Session, game_id: int, player_id: int
) -> tuple[bool, AddressStatus | None]:
    """What this session read of a seat's player's address status with the game's seats,
    without a query: ``(True, the row)``, or ``(True, None)`` when the player has none;
    ``(False, None)`` when it was not read (or the player holds no seat of the game)."""
    loaded = loaded_in(session, game_id)
    if loaded is None or loaded.statuses is None:
        return False, None
    for letter, held in loaded.seats.items():
        if held.player.id == player_id:
            # A row this session met since (made by a concurrent request, say) is the truth.
            met = session.identity_map.get(identity_key(AddressStatus, player_id))
            return True, met if isinstance(met, AddressStatus) else loaded.statuses.get(letter)
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
