"""Snapshots: ``engine.state_to_json`` of a game's position at the first ply of each block of
plies and at the latest, so that any position is a snapshot plus a few moves of the log.

Functions take the caller's session and never commit: the caller's ``session_scope`` decides.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col

from service.db import read_rows
from service.games.loaded import NO_SNAPSHOTS, KnownSnapshots, StoredPosition
from service.json_columns import EngineStateJson
from service.models import Snapshot, utcnow

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


_SNAPSHOT_AT_OR_BEFORE = (
    sa.select(col(Snapshot.ply), col(Snapshot.state))
    .where(
        col(Snapshot.game_id) == sa.bindparam("game_id"),
        col(Snapshot.ply) <= sa.bindparam("ply"),
    )
    .order_by(col(Snapshot.ply).desc())
    .limit(1)
)


def snapshot_at_or_before(
    session: Session, game_id: int, ply: int, known: KnownSnapshots = NO_SNAPSHOTS
) -> StoredPosition | None:
    """The snapshot nearest before (or at) ``ply``: one of those ``known`` (read with the game,
    no query), else one index range scan."""
    found = known.at_or_before(ply)
    if found is not None:
        return found
    row = read_rows(session, _SNAPSHOT_AT_OR_BEFORE, {"game_id": game_id, "ply": ply}).first()
    return None if row is None else StoredPosition(*row)


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
    session: Session, game_id: int, first: int, second: int, known: KnownSnapshots = NO_SNAPSHOTS
) -> list[StoredPosition]:
    """The snapshots nearest before (or at) two plies, in one query of two index lookups: one
    row when both plies have the same nearest snapshot, none when the game has no snapshot.
    The latest snapshot ``known`` stands for itself (then one lookup, or none)."""
    latest = known.latest
    if latest is not None and latest.ply == second:
        if first == second:
            return [latest]
        before = snapshot_at_or_before(session, game_id, first, known)
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


def save_snapshot(session: Session, game_id: int, ply: int, state: EngineStateJson) -> None:
    """Store ``engine.state_to_json`` of the game after ``ply`` log entries. The snapshot before
    it is replaced in place unless it is the first of its block (``SNAPSHOT_BLOCK``), so a game
    keeps one snapshot per block and its latest. (In place by a Core UPDATE: snapshots are read
    through this module's functions, never as ORM objects that would keep the old values.)"""
    session.flush()
    replaced = session.connection().execute(
        _REPLACE_LATEST_SNAPSHOT,
        {"of_game": game_id, "new_ply": ply, "state": state, "now": utcnow()},
    )
    if replaced.rowcount == 0:
        session.add(Snapshot(game_id=game_id, ply=ply, state=state))
        session.flush()
