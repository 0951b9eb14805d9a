"""The move log: append-only entries (the notation of docs/notation.md), read as ``LogEntry``
tuples.

Functions take the caller's session and never commit: the caller's ``session_scope`` decides.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import NamedTuple

import sqlalchemy as sa
from sqlmodel import Session, col

from service.db import read_rows
from service.json_columns import ClaimProof
from service.models import MoveEntry, utcnow


class LogEntry(NamedTuple):
    """One entry of the move log, as read (no ORM object: pages list a hundred of them)."""

    ply: int
    seat: str
    notation: str
    created_at: datetime
    proof: ClaimProof | None = None
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
    proofs: Sequence[ClaimProof | None] | None = None,
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
