"""A game as a page or a change reads it first, in one query: ``LoadedGame``, a frozen value of
the game row, its seats and their players, their address statuses and its latest snapshot.

``load_game``, ``lock_loaded_game`` and ``load_game_by_public_id`` run that query and return the
value; a request passes it down to the readers below it (seat lookups, positions, emails), which
start from it instead of asking again. Nothing is kept anywhere else: whatever is not in a
``LoadedGame`` is read when asked, by a function that says it reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import sqlalchemy as sa
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from service.games.rows import GameNotFoundError, lock_game
from service.games.tournament_note import TOURNAMENT_GAMES, TOURNAMENTS, TournamentNote, note_of
from service.json_columns import EngineStateJson
from service.models import AddressStatus, Game, Player, Seat, Snapshot


class StoredPosition(NamedTuple):
    """A snapshot as read: its ply and ``engine.state_to_json`` of the position."""

    ply: int
    state: EngineStateJson
    """The engine's own serialisation of a position (``engine.state_from_json`` reads it)."""


@dataclass(frozen=True, slots=True)
class KnownSnapshots:
    """The snapshots read with a game: ``snapshot_at_or_before`` answers from them, no query.
    They stay true after later moves: the log only grows, so a position at a ply never changes."""

    latest: StoredPosition | None = None
    """The snapshot at the game's ply, when there is one."""
    nearest: StoredPosition | None = None
    """The snapshot nearest before (or at) ``nearest_for``, when it is not the latest."""
    nearest_for: int = -1
    """The ply ``nearest`` was read for: it stands for every ply from its own up to this one."""

    def at_or_before(self, ply: int) -> StoredPosition | None:
        """The snapshot nearest before (or at) ``ply`` if it is one of these, else None."""
        if self.latest is not None and self.latest.ply == ply:
            return self.latest
        if self.nearest is not None and self.nearest.ply <= ply <= self.nearest_for:
            return self.nearest
        return None


NO_SNAPSHOTS = KnownSnapshots()


class SeatHolder(NamedTuple):
    """A seat of a game and the player holding it."""

    seat: Seat
    player: Player


@dataclass(frozen=True, slots=True)
class LoadedGame:
    """A game row with what every page and change reads next, read in one query."""

    game: Game
    seats: Mapping[str, SeatHolder]
    """Its seats and their players, by seat letter, in seat order (the session's own rows: a
    change to one shows through)."""
    statuses: Mapping[str, AddressStatus | None] | None
    """Each seat's player's address status by seat letter (None where the player has no row);
    None when these were not read (the public page reads none)."""
    snapshots: KnownSnapshots
    tournament: TournamentNote | None = None
    """The tournament the game was dealt for, if any."""

    @property
    def id(self) -> int:
        assert self.game.id is not None
        return self.game.id


def _with_seats(where: Any, *, statuses: bool = False, nearest: bool = False) -> Any:
    """A game, its seats and their players, its latest snapshot's state (None when there is
    none at the game's ply) and its tournament (None for most games), by seat letter; with
    ``statuses`` the players' address status too (None where a player has no row); with
    ``nearest`` the snapshot nearest before (or at) the ply bound as ``near`` too, when it is
    not the latest (the position a replay page shows)."""
    links, tournaments = TOURNAMENT_GAMES.c, TOURNAMENTS.c
    entities: tuple[Any, ...] = (
        Game,
        Seat,
        Player,
        col(Snapshot.state).label("latest_state"),
        tournaments.public_id.label("tournament_public_id"),
        tournaments.name.label("tournament_name"),
        tournaments.kind.label("tournament_kind"),
        links.round.label("tournament_round"),
    )
    statement = (
        select(*entities)
        .join(Seat, col(Seat.game_id) == col(Game.id))
        .join(Player, col(Player.id) == col(Seat.player_id))
        # The latest snapshot is kept at the game's ply: every page starts from that position.
        .outerjoin(
            Snapshot,
            sa.and_(col(Snapshot.game_id) == col(Game.id), col(Snapshot.ply) == col(Game.ply)),
        )
        .outerjoin(TOURNAMENT_GAMES, links.game_id == col(Game.id))
        .outerjoin(TOURNAMENTS, tournaments.id == links.tournament_id)
    )
    if statuses:
        statement = statement.add_columns(AddressStatus).outerjoin(
            AddressStatus, col(AddressStatus.player_id) == col(Player.id)
        )
    if nearest:
        near, before = aliased(Snapshot, name="near"), aliased(Snapshot, name="before")
        nearest_ply = (
            sa.select(sa.func.max(col(before.ply)))
            .where(col(before.game_id) == col(Game.id), col(before.ply) <= sa.bindparam("near"))
            .scalar_subquery()
        )
        statement = statement.add_columns(
            col(near.ply).label("near_ply"), col(near.state).label("near_state")
        ).outerjoin(
            near,
            sa.and_(
                col(near.game_id) == col(Game.id),
                col(near.ply) == nearest_ply,
                col(near.ply) < col(Game.ply),  # the latest comes as latest_state
            ),
        )
    return statement.where(where).order_by(col(Seat.letter))


# What a page reads first, in one round trip: the game row, its seats, their players and the
# latest position; a private page also says whose email bounces (the address statuses).
_GAME_WITH_SEATS = _with_seats(Game.id == sa.bindparam("ref"), statuses=True)
_GAME_WITH_SEATS_BY_PUBLIC_ID = _with_seats(Game.public_id == sa.bindparam("ref"), nearest=True)
# The same after the game's lock: rows read before the lock (in this session) are read again.
_GAME_WITH_SEATS_AFTER_LOCK = _GAME_WITH_SEATS.execution_options(populate_existing=True)


def load_game(session: Session, game_id: int) -> LoadedGame:
    """A game by id with its seats, their address statuses and its latest snapshot, in one
    query: what a private page reads first. Raises GameNotFoundError."""
    return _load(session, _GAME_WITH_SEATS, game_id)


def lock_loaded_game(session: Session, game_id: int) -> LoadedGame:
    """``rows.lock_game``, then ``load_game`` in one more query. Read after the lock, so they
    are the state the lock protects (joined under ``FOR UPDATE``, they would come from before a
    wait for it: PostgreSQL re-reads only the locked rows). Raises GameNotFoundError."""
    lock_game(session, game_id)
    return _load(session, _GAME_WITH_SEATS_AFTER_LOCK, game_id)


def load_game_by_public_id(
    session: Session, public_id: str, near_ply: int | None = None
) -> LoadedGame:
    """A game by the random id of its public page, with its seats and the snapshot nearest
    before ``near_ply`` (the position its replay page shows). Raises GameNotFoundError."""
    near = -1 if near_ply is None else near_ply
    return _load(session, _GAME_WITH_SEATS_BY_PUBLIC_ID, public_id, near)


def _load(session: Session, statement: Any, game_ref: object, near: int = -1) -> LoadedGame:
    """The ``LoadedGame`` that ``statement`` (``_with_seats``) selects by ``game_ref`` (a game
    is made with its seats: no seat, no game); ``near``: the ply of a ``nearest`` statement.
    Raises GameNotFoundError."""
    rows = session.execute(statement, {"ref": game_ref, "near": near}).all()
    if not rows:
        raise GameNotFoundError(game_ref)
    first = rows[0]
    fields = first._fields
    near_state = first.near_state if "near_state" in fields else None
    latest = (
        None if first.latest_state is None else StoredPosition(first.Game.ply, first.latest_state)
    )
    return LoadedGame(
        game=first.Game,
        seats={row.Seat.letter: SeatHolder(row.Seat, row.Player) for row in rows},
        statuses=(
            {row.Seat.letter: row.AddressStatus for row in rows}
            if "AddressStatus" in fields
            else None
        ),
        snapshots=KnownSnapshots(
            latest=latest,
            nearest=None if near_state is None else StoredPosition(first.near_ply, near_state),
            nearest_for=near,
        ),
        tournament=None
        if first.tournament_public_id is None
        else note_of(
            first.tournament_public_id,
            first.tournament_name,
            first.tournament_round,
            first.tournament_kind,
        ),
    )
