"""One rematch per finished game: ``games.rematch_game_id``, unique, set by the first offer.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-25
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("rematch_game_id", sa.Integer(), nullable=True))
        batch_op.create_unique_constraint(
            batch_op.f("uq_games_rematch_game_id"), ["rematch_game_id"]
        )
        batch_op.create_foreign_key(
            batch_op.f("fk_games_rematch_game_id_games"), "games", ["rematch_game_id"], ["id"]
        )


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_games_rematch_game_id_games"), type_="foreignkey")
        batch_op.drop_constraint(batch_op.f("uq_games_rematch_game_id"), type_="unique")
        batch_op.drop_column("rematch_game_id")
