"""Game rows: a new game, a game read by id, and the game-row lock a change holds.

Functions take the caller's session and never commit: the caller's ``session_scope`` decides.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping

import sqlalchemy as sa
from sqlmodel import Session, select

import engine
from service.catalogue import lazy_gettext
from service.models import Game, GameStatus, Seat
from service.refusal import Refusal


class GameNotFoundError(Refusal, LookupError):
    """No game with this id (or public id)."""

    status = 404
    title = lazy_gettext("Game not found")

    def __init__(self, game_ref: object) -> None:
        super().__init__(
            lazy_gettext(
                "There is no game %(game)s. Check that the link is complete.", game=str(game_ref)
            )
        )


# The statements every request runs are built once, with bound parameters: building one costs
# several times its execution (SQLAlchemy's construction and cache key; docs/architecture.md).
_LOCK_GAME = (
    select(Game)
    .where(Game.id == sa.bindparam("game_id"))
    .with_for_update()
    # A row already in the identity map must be re-read now that we hold the lock.
    .execution_options(populate_existing=True)
)


def lock_game(session: Session, game_id: int) -> Game:
    """Load a game for changing it, locked until the transaction ends.

    PostgreSQL: ``SELECT ... FOR UPDATE`` on the row. SQLite drops ``FOR UPDATE``; there the
    session's ``BEGIN IMMEDIATE`` (service.db) already holds the database's write lock.
    A second writer waits, then reads the state the first one committed.
    Raises GameNotFoundError.
    """
    game = session.exec(_LOCK_GAME, params={"game_id": game_id}).one_or_none()
    if game is None:
        raise GameNotFoundError(game_id)
    return game


def new_game(
    *,
    ruleset: str,
    claims: str,
    days_per_move: int,
    vacation_days: int,
    visibility: str,
    series_id: int | None = None,
    computer_delay_s: int = 0,
    creation_key: str | None = None,
    rated: bool = False,
) -> Game:
    """A new game row (not yet added), invited, under today's rules, with a fresh secret seed
    and its published commitment (R3) and the random address of its public page."""
    seed = secrets.token_hex(32)
    return Game(
        public_id=secrets.token_urlsafe(12),
        ruleset=ruleset,
        claims=claims,
        rules_version=engine.RULES_VERSION,
        status=GameStatus.INVITED,
        seed=seed,
        seed_commitment=engine.seed_commitment(seed),
        days_per_move=days_per_move,
        vacation_days=vacation_days,
        visibility=visibility,
        series_id=series_id,
        computer_delay_s=computer_delay_s,
        creation_key=creation_key,
        rated=rated,
    )


def add_agreed_game(session: Session, game: Game, players: Mapping[str, int]) -> dict[str, Seat]:
    """Add ``game`` (a ``new_game``) with a seat for each letter's player, accepted already:
    every player agreed (a challenge taken, a tournament's pairing, a series' next game). Returns
    the seats by letter; everything is flushed, so the game and its seats have their ids."""
    session.add(game)
    session.flush()
    assert game.id is not None
    seats = {
        letter: Seat(game_id=game.id, letter=letter, player_id=player_id, accepted=True)
        for letter, player_id in players.items()
    }
    session.add_all(seats.values())
    session.flush()
    return seats


def get_game(session: Session, game_id: int) -> Game:
    """A game by id, for reading. Raises GameNotFoundError."""
    game = session.get(Game, game_id)
    if game is None:
        raise GameNotFoundError(game_id)
    return game
