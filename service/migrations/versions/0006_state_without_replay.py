"""State without replay: the game row knows its ply and the seat to move, and snapshots are kept
at the first ply of every block of plies (plus the latest), not after every move.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23
"""

import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import engine

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SNAPSHOT_BLOCK = 30
"""``service.games.store.SNAPSHOT_BLOCK`` when this was written (a migration keeps its own copy)."""


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("ply", sa.Integer(), server_default="0", nullable=False))
        batch_op.add_column(sa.Column("to_move", sa.String(length=1), nullable=True))
    bind = op.get_bind()
    bind.execute(
        sa.text(
            "UPDATE games SET ply = (SELECT count(*) FROM moves WHERE moves.game_id = games.id)"
        )
    )
    # The seat to move of games being played, from their latest snapshot (the engine reads it).
    rows = bind.execute(
        sa.text(
            "SELECT g.id, s.state FROM games g JOIN snapshots s ON s.game_id = g.id "
            "WHERE g.status = 'active' AND s.ply = g.ply"
        )
    ).all()
    for game_id, state in rows:
        data = state if isinstance(state, dict) else json.loads(state)
        seat = engine.state_from_json(data).to_move
        bind.execute(
            sa.text("UPDATE games SET to_move = :seat WHERE id = :id"),
            {"seat": seat, "id": game_id},
        )
    # Keep the first snapshot of each block and the latest of each game; drop the rest.
    bind.execute(
        sa.text(
            "DELETE FROM snapshots WHERE ply <> (SELECT max(l.ply) FROM snapshots l "
            "WHERE l.game_id = snapshots.game_id) AND ply <> (SELECT min(f.ply) FROM snapshots f "
            f"WHERE f.game_id = snapshots.game_id AND f.ply / {SNAPSHOT_BLOCK} = "
            f"snapshots.ply / {SNAPSHOT_BLOCK})"
        )
    )


def downgrade() -> None:
    # Dropped snapshots are a cache: the service replays the log where one is missing.
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("to_move")
        batch_op.drop_column("ply")
