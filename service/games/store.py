"""Reading and writing games: the game-row lock, seats, the move log and snapshots.

Functions take the caller's session and never commit: the caller's ``session_scope`` decides.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import datetime
from typing import Any, NamedTuple

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import aliased
from sqlalchemy.orm.util import identity_key
from sqlmodel import Session, col, select

import engine
from service.db import read_rows
from service.models import (
    AddressStatus,
    Game,
    GameStatus,
    MoveEntry,
    Player,
    Seat,
    Snapshot,
    utcnow,
)
from service.refusal import Refusal


class GameNotFoundError(Refusal, LookupError):
    """No game with this id (or public id)."""

    status = 404
    title = "Game not found"

    def __init__(self, game_ref: object) -> None:
        super().__init__(f"There is no game {game_ref}. Check that the link is complete.")


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


def lock_game_with_seats(session: Session, game_id: int) -> Game:
    """``lock_game``, then what a change reads next in one more query: the seats, their players
    and address statuses, and the latest snapshot (``get_game_with_seats``). Read after the lock,
    so they are the state the lock protects (joined under ``FOR UPDATE``, they would come from
    before a wait for it: PostgreSQL re-reads only the locked rows). Raises GameNotFoundError."""
    game = lock_game(session, game_id)
    _game_with_seats(session, _GAME_WITH_SEATS_AFTER_LOCK, game_id, fresh=True)
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
    )


def get_game(session: Session, game_id: int) -> Game:
    """A game by id, for reading. Raises GameNotFoundError."""
    game = session.get(Game, game_id)
    if game is None:
        raise GameNotFoundError(game_id)
    return game


def _with_seats(where: Any, *, statuses: bool = False, nearest: bool = False) -> Any:
    """A game, its seats and their players, and its latest snapshot's state (None when there is
    none at the game's ply), by seat letter; with ``statuses`` the players' address status too
    (None where a player has no row); with ``nearest`` the snapshot nearest before (or at) the
    ply bound as ``near`` too, when it is not the latest (the position a replay page shows)."""
    entities: tuple[Any, ...] = (Game, Seat, Player, col(Snapshot.state).label("latest_state"))
    statement = (
        select(*entities)
        .join(Seat, col(Seat.game_id) == col(Game.id))
        .join(Player, col(Player.id) == col(Seat.player_id))
        # The latest snapshot is kept at the game's ply: every page starts from that position.
        .outerjoin(
            Snapshot,
            sa.and_(col(Snapshot.game_id) == col(Game.id), col(Snapshot.ply) == col(Game.ply)),
        )
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


def get_game_by_public_id(session: Session, public_id: str, near_ply: int | None = None) -> Game:
    """A game by the random id of its public page, with its seats (``seats_of`` then needs no
    query), and the snapshot nearest before ``near_ply`` (the position its replay page shows:
    ``snapshot_at_or_before`` then needs no query). Raises GameNotFoundError."""
    return _game_with_seats(
        session,
        _GAME_WITH_SEATS_BY_PUBLIC_ID,
        public_id,
        near=-1 if near_ply is None else near_ply,
    )


def get_game_with_seats(session: Session, game_id: int) -> Game:
    """``get_game``, ``seats_of``, ``address_statuses`` and the latest snapshot in one query:
    what a private page reads first."""
    return _game_with_seats(session, _GAME_WITH_SEATS, game_id)


def _game_with_seats(
    session: Session, statement: Any, game_ref: object, *, fresh: bool = False, near: int = -1
) -> Game:
    """The game that ``statement`` (``_with_seats``) selects by ``game_ref``, its seats and
    players loaded into the session's seat cache, all in one query (a game is made with its
    seats: no seat, no game), with what else the statement reads; ``fresh``: replacing what the
    session read of them before; ``near``: the ply of a ``nearest`` statement. Raises
    GameNotFoundError."""
    rows = session.execute(statement, {"ref": game_ref, "near": near}).all()
    if not rows:
        raise GameNotFoundError(game_ref)
    first = rows[0]
    game: Game = first.Game
    assert game.id is not None
    info = session.info

    def keep(key: str, value: Any) -> None:
        kept = info.setdefault(key, {})
        if fresh:
            kept[game.id] = value
        else:
            kept.setdefault(game.id, value)

    keep(SEATS_KEY, {row.Seat.letter: (row.Seat, row.Player) for row in rows})
    if first.latest_state is not None:
        info.setdefault(LATEST_KEY, {})[game.id] = StoredPosition(game.ply, first.latest_state)
    elif fresh:
        info.get(LATEST_KEY, {}).pop(game.id, None)
    fields = first._fields
    if "AddressStatus" in fields:
        keep(STATUSES_KEY, {row.Seat.letter: row.AddressStatus for row in rows})
    if "near_state" in fields and first.near_state is not None:
        position = StoredPosition(first.near_ply, first.near_state)
        info.setdefault(NEAREST_KEY, {})[game.id] = (near, position)
    return game


SEATS_KEY = "battleline.seats"
"""Where a session keeps the seats it loaded, by game id (``seats_of``)."""
LATEST_KEY = "battleline.latest_snapshot"
"""Where a session keeps the latest snapshot read with a game (``_game_with_seats``), by game
id: ``snapshot_at_or_before`` and ``snapshots_nearest`` at the game's ply need no query."""
NEAREST_KEY = "battleline.nearest_snapshot"
"""Where a session keeps, by game id, the snapshot nearest before a ply read with a game
(``get_game_by_public_id``): (that ply, the snapshot). ``snapshot_at_or_before`` of a ply from the
snapshot's up to that one needs no query."""
STATUSES_KEY = "battleline.address_statuses"
"""Where a session keeps the address status of each seat's player, by game id
(``address_statuses``)."""


def seats_of(session: Session, game_id: int) -> dict[str, tuple[Seat, Player]]:
    """The seats of a game with their players, by seat letter, in seat order.

    Loaded once per session (a request): seats are made with their game and never deleted, and
    the rows are the session's own objects, so a change to a seat shows through. The cache is
    dropped when the session flushes a new seat, commits or rolls back."""
    cache: dict[int, dict[str, tuple[Seat, Player]]] = session.info.setdefault(SEATS_KEY, {})
    if game_id not in cache:
        cache.update(seats_of_games(session, [game_id]))
    return cache.get(game_id, {})


def address_statuses(session: Session, game_id: int) -> dict[str, AddressStatus]:
    """The address status of each seat's player that has one, by seat letter: read with the
    game's seats (``get_game_with_seats``, which this reads first when it has not been)."""
    found = session.info.get(STATUSES_KEY, {}).get(game_id)
    if found is None:
        _game_with_seats(session, _GAME_WITH_SEATS, game_id)
        found = session.info[STATUSES_KEY][game_id]
    return {letter: status for letter, status in found.items() if status is not None}


def known_address_status(
    session: Session, game_id: int, player_id: int
) -> tuple[bool, AddressStatus | None]:
    """What this session read of a seat's player's address status with the game's seats,
    without a query: ``(True, the row)``, or ``(True, None)`` when the player has none;
    ``(False, None)`` when it was not read (or the player holds no seat of the game)."""
    statuses = session.info.get(STATUSES_KEY, {}).get(game_id)
    seats = session.info.get(SEATS_KEY, {}).get(game_id)
    if statuses is None or seats is None:
        return False, None
    for letter, (_, player) in seats.items():
        if player.id == player_id:
            # A row this session met since (made by a concurrent request, say) is the truth.
            met = session.identity_map.get(identity_key(AddressStatus, player_id))
            return True, met if isinstance(met, AddressStatus) else statuses.get(letter)
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
        found.setdefault(seat.game_id, {})[seat.letter] = (seat, player)
    return found


@sa.event.listens_for(Session, "after_flush")
def _forget_seats_after_new_ones(session: Session, _context: object) -> None:
    if any(isinstance(row, Seat) for row in session.new):
        session.info.pop(SEATS_KEY, None)
    # A status row made now is not among those read: read them again when next asked.
    if any(isinstance(row, (Seat, AddressStatus)) for row in session.new):
        session.info.pop(STATUSES_KEY, None)


@sa.event.listens_for(Session, "after_commit")
@sa.event.listens_for(Session, "after_rollback")
def _forget_seats(session: Session) -> None:
    session.info.pop(SEATS_KEY, None)
    session.info.pop(STATUSES_KEY, None)
    session.info.pop(LATEST_KEY, None)
    session.info.pop(NEAREST_KEY, None)


def find_player(session: Session, email: str) -> Player | None:
    """The player with this (normalised) email, if any."""
    return session.exec(select(Player).where(Player.email == email)).one_or_none()


def find_or_add_player(session: Session, email: str, display_name: str) -> Player:
    """The player with this (normalised) email, added if new. An existing player keeps their
    name; an invitation cannot rename someone (only ``name_by_owner`` does)."""
    player = find_player(session, email)
    if player is not None:
        return player
    try:
        # A savepoint: a concurrent request adding the same new address wins without an error.
        with session.begin_nested():
            player = Player(email=email, display_name=display_name)
            session.add(player)
    except IntegrityError:
        player = session.exec(
            select(Player).where(Player.email == email).execution_options(populate_existing=True)
        ).one()
    return player


def name_by_owner(session: Session, player: Player, name: str, *, again: bool) -> None:
    """The owner of the address (signed in, or following a link to their inbox) named themselves:
    their name from now on. ``again``: also over a name they chose before (their signed-in
    browser); a confirmed game's name replaces only a label someone else typed."""
    if player.name_confirmed and not again:
        return
    player.display_name = name
    player.name_confirmed = True
    session.add(player)


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


SNAPSHOT_BLOCK = 30
"""Snapshots are kept at the first ply of each block of this many plies, and at the latest
ply: any position is a snapshot plus fewer than two blocks of moves (a few hundred
microseconds of the engine), and a finished game of 120 plies keeps 5 or 6 snapshots instead of
one per move (a game's size: docs/architecture.md, measured by ``bench.storage``)."""


def latest_snapshot(session: Session, game_id: int) -> StoredPosition | None:
    """The snapshot with the highest ply, or None before the deal."""
    return snapshot_at_or_before(session, game_id, _PAST_EVERY_PLY)


_PAST_EVERY_PLY = 2**31 - 1
"""Higher than any ply (a game has a few hundred at most)."""


class StoredPosition(NamedTuple):
    """A snapshot as read: its ply and ``engine.state_to_json`` of the position."""

    ply: int
    state: dict[str, Any]


_SNAPSHOT_AT_OR_BEFORE = (
    sa.select(col(Snapshot.ply), col(Snapshot.state))
    .where(
        col(Snapshot.game_id) == sa.bindparam("game_id"),
        col(Snapshot.ply) <= sa.bindparam("ply"),
    )
    .order_by(col(Snapshot.ply).desc())
    .limit(1)
)


def snapshot_at_or_before(session: Session, game_id: int, ply: int) -> StoredPosition | None:
    """The snapshot nearest before (or at) ``ply``; one index range scan."""
    latest = _latest_read(session, game_id)
    if latest is not None and latest.ply == ply:
        return latest
    read_near: tuple[int, StoredPosition] | None = session.info.get(NEAREST_KEY, {}).get(game_id)
    if read_near is not None and read_near[1].ply <= ply <= read_near[0]:
        return read_near[1]
    row = read_rows(session, _SNAPSHOT_AT_OR_BEFORE, {"game_id": game_id, "ply": ply}).first()
    return None if row is None else StoredPosition(*row)


def _latest_read(session: Session, game_id: int) -> StoredPosition | None:
    """The latest snapshot of a game, if it was read with the game in this session."""
    found: StoredPosition | None = session.info.get(LATEST_KEY, {}).get(game_id)
    return found


def _nearest_snapshot_ply(name: str) -> Any:
    return (
        sa.select(sa.func.max(col(Snapshot.ply)))
        .where(
            col(Snapshot.game_id) == sa.bindparam("game_id"),
            col(Snapshot.ply) <= sa.bindparam(name),
        )
        .scalar_subquery()
    )


_SNAPSHOTS_NEAREST_TWO = sa.select(col(Snapshot.ply), col(Snapshot.state)).where(
    col(Snapshot.game_id) == sa.bindparam("game_id"),
    col(Snapshot.ply).in_([_nearest_snapshot_ply("first"), _nearest_snapshot_ply("second")]),
)


def snapshots_nearest(
    session: Session, game_id: int, first: int, second: int
) -> list[StoredPosition]:
    """The snapshots nearest before (or at) two plies, in one query of two index lookups: one
    row when both plies have the same nearest snapshot, none when the game has no snapshot.
    The latest snapshot read with the game stands for itself (then one lookup, or none)."""
    latest = _latest_read(session, game_id)
    if latest is not None and latest.ply == second:
        if first == second:
            return [latest]
        before = snapshot_at_or_before(session, game_id, first)
        return [latest] if before is None else [before, latest]
    rows = read_rows(
        session, _SNAPSHOTS_NEAREST_TWO, {"game_id": game_id, "first": first, "second": second}
    )
    return [StoredPosition(*row) for row in rows]


_SNAPSHOTS_UP_TO = (
    sa.select(col(Snapshot.ply), col(Snapshot.state))
    .where(
        col(Snapshot.game_id) == sa.bindparam("game_id"),
        col(Snapshot.ply) <= sa.bindparam("ply"),
    )
    .order_by(col(Snapshot.ply))
)


def snapshots_up_to(session: Session, game_id: int, ply: int) -> list[StoredPosition]:
    """Every snapshot of a game at or before ``ply``, in order (one per block of plies: a few)."""
    rows = read_rows(session, _SNAPSHOTS_UP_TO, {"game_id": game_id, "ply": ply})
    return [StoredPosition(*row) for row in rows]


def _replace_latest_snapshot() -> Any:
    table = Snapshot.__table__  # type: ignore[attr-defined]
    latest, prior = table.alias("latest"), table.alias("prior")
    latest_id = (
        sa.select(latest.c.id)
        .where(latest.c.game_id == sa.bindparam("of_game"), latest.c.ply < sa.bindparam("new_ply"))
        .order_by(latest.c.ply.desc())
        .limit(1)
        .scalar_subquery()
    )
    same_block_before = sa.exists().where(
        prior.c.game_id == table.c.game_id,
        prior.c.ply < table.c.ply,
        prior.c.ply >= table.c.ply - table.c.ply % SNAPSHOT_BLOCK,
    )
    return (
        sa.update(table)
        .where(table.c.id == latest_id, same_block_before)
        .values(
            ply=sa.bindparam("new_ply"),
            state=sa.bindparam("state", type_=table.c.state.type),
            created_at=sa.bindparam("now", type_=table.c.created_at.type),
        )
    )


_REPLACE_LATEST_SNAPSHOT = _replace_latest_snapshot()
"""The latest snapshot before a ply moves up to it, unless it is the first of its block: one
statement (it matches no row when the latest starts a block, and an INSERT follows)."""


def save_snapshot(session: Session, game_id: int, ply: int, state: dict[str, Any]) -> None:
    """Store ``engine.state_to_json`` of the game after ``ply`` log entries. The snapshot before
    it is replaced in place unless it is the first of its block (``SNAPSHOT_BLOCK``), so a game
    keeps one snapshot per block and its latest. (In place by a Core UPDATE: snapshots are read
    through this module's functions, never as ORM objects that would keep the old values.)"""
    session.flush()
    # The latest read is replaced, or one after it added (and the nearest may be the one replaced).
    session.info.pop(LATEST_KEY, None)
    session.info.pop(NEAREST_KEY, None)
    replaced = session.connection().execute(
        _REPLACE_LATEST_SNAPSHOT,
        {"of_game": game_id, "new_ply": ply, "state": state, "now": utcnow()},
    )
    if replaced.rowcount == 0:
        session.add(Snapshot(game_id=game_id, ply=ply, state=state))
        session.flush()


class LogEntry(NamedTuple):
    """One entry of the move log, as read (no ORM object: pages list a hundred of them)."""

    ply: int
    seat: str
    notation: str
    created_at: datetime
    proof: dict[str, Any] | None = None
    """A claim's proof (``MoveEntry.proof``)."""


_LOG_COLUMNS = (
    col(MoveEntry.ply),
    col(MoveEntry.seat),
    col(MoveEntry.notation),
    col(MoveEntry.created_at),
    col(MoveEntry.proof),
)


_MOVES_FROM = (
    sa.select(*_LOG_COLUMNS)
    .where(
        col(MoveEntry.game_id) == sa.bindparam("game_id"),
        col(MoveEntry.ply) >= sa.bindparam("first"),
        col(MoveEntry.ply) < sa.bindparam("end"),
    )
    .order_by(col(MoveEntry.ply))
)
_MOVE_LOG = (
    sa.select(*_LOG_COLUMNS)
    .where(col(MoveEntry.game_id) == sa.bindparam("game_id"))
    .order_by(col(MoveEntry.ply))
)


def moves_from(session: Session, game_id: int, first: int, end: int) -> list[LogEntry]:
    """The log entries of plies ``first`` to ``end - 1``, in order."""
    rows = read_rows(session, _MOVES_FROM, {"game_id": game_id, "first": first, "end": end})
    return list(map(LogEntry._make, rows.all()))


def append_move(session: Session, game_id: int, ply: int, seat: str, notation: str) -> None:
    """Append one entry to the move log (``append_moves``)."""
    append_moves(session, game_id, [(ply, seat, notation)])


_APPEND_MOVES = sa.insert(MoveEntry.__table__)  # type: ignore[attr-defined]


def append_moves(
    session: Session,
    game_id: int,
    entries: Sequence[tuple[int, str, str]],
    proofs: Sequence[dict[str, Any] | None] | None = None,
) -> None:
    """Append entries (ply, seat, notation) to the move log, in one statement, with the claims'
    ``proofs`` (one per entry: None for an entry that is no claim; None for all: no claims).
    A second entry for the same ply violates the unique key (IntegrityError here), so a lost
    race can never fork the log. (A Core INSERT: log entries are read as ``LogEntry`` tuples,
    never as ORM objects, and the ORM's flush would cost a move a tenth of its CPU.)"""
    kept = [None] * len(entries) if proofs is None else proofs
    now = utcnow()
    rows = [
        {"game_id": game_id, "ply": p, "seat": s, "notation": n, "created_at": now, "proof": proof}
        for (p, s, n), proof in zip(entries, kept, strict=True)
    ]
    session.connection().execute(_APPEND_MOVES, rows)


def move_log(session: Session, game_id: int) -> list[LogEntry]:
    """Every log entry of a game, in order."""
    # Rows made all at once, then named (map over .all(): a sixth of a long log's cost).
    return list(map(LogEntry._make, read_rows(session, _MOVE_LOG, {"game_id": game_id}).all()))
