"""Tournaments: ``tournaments``, ``tournament_entrants``, ``tournament_rounds`` and
``tournament_games`` (the link from a game to its tournament round) (``service.tournaments``).

Revision ID: 0030
Revises: 0029
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel  # noqa: F401
from alembic import op

revision: str = "0030"
down_revision: str | None = "0029"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _when(name: str, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("public_id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("ruleset", sa.String(length=32), nullable=False),
        sa.Column("claims", sa.String(length=16), nullable=False),
        sa.Column("days_per_move", sa.Integer(), nullable=False),
        sa.Column("round_days", sa.Integer(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("double_round", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("rated", sa.Boolean(), nullable=False),
        _when("starts_at"),
        sa.Column("entry", sa.String(length=16), nullable=False),
        sa.Column("invited", sa.JSON(), nullable=False),
        sa.Column("rating_min", sa.Integer(), nullable=True),
        sa.Column("rating_max", sa.Integer(), nullable=True),
        sa.Column("max_players", sa.Integer(), nullable=False),
        sa.Column("scoring", sa.String(length=16), nullable=False),
        sa.Column("tie_breaks", sa.JSON(), nullable=False),
        sa.Column("deadline_policy", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("organiser_id", sa.Integer(), nullable=False),
        sa.Column("current_round", sa.Integer(), nullable=False),
        _when("paused_at", True),
        _when("created_at"),
        _when("finished_at", True),
        sa.CheckConstraint(
            "kind IN ('round-robin', 'swiss', 'ladder')", name="ck_tournaments_kind"
        ),
        sa.CheckConstraint("entry IN ('open', 'invited', 'rating')", name="ck_tournaments_entry"),
        sa.CheckConstraint(
            "status IN ('entering', 'playing', 'finished')", name="ck_tournaments_status"
        ),
        sa.CheckConstraint("scoring IN ('series', 'game')", name="ck_tournaments_scoring"),
        sa.CheckConstraint(
            "deadline_policy IN ('adjudicate', 'let-finish')", name="ck_tournaments_policy"
        ),
        sa.CheckConstraint("days_per_move BETWEEN 1 AND 14", name="ck_tournaments_days_per_move"),
        sa.CheckConstraint("max_players BETWEEN 2 AND 256", name="ck_tournaments_max_players"),
        sa.ForeignKeyConstraint(
            ["organiser_id"], ["players.id"], name="fk_tournaments_organiser_id_players"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_tournaments"),
        sa.UniqueConstraint("public_id", name="uq_tournaments_public_id"),
    )
    op.create_index("ix_tournaments_status", "tournaments", ["status"])
    op.create_table(
        "tournament_entrants",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("start_rating", sa.Float(), nullable=False),
        _when("entered_at"),
        _when("withdrawn_at", True),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name="fk_tournament_entrants_tournament_id_tournaments",
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name="fk_tournament_entrants_player_id_players"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_tournament_entrants"),
        sa.UniqueConstraint(
            "tournament_id", "player_id", name="uq_tournament_entrants_tournament_id"
        ),
    )
    op.create_index(
        "ix_tournament_entrants_tournament_id", "tournament_entrants", ["tournament_id"]
    )
    op.create_index("ix_tournament_entrants_player_id", "tournament_entrants", ["player_id"])
    op.create_table(
        "tournament_rounds",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        _when("started_at"),
        _when("deadline"),
        _when("closed_at", True),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name="fk_tournament_rounds_tournament_id_tournaments",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_tournament_rounds"),
        sa.UniqueConstraint("tournament_id", "number", name="uq_tournament_rounds_tournament_id"),
    )
    op.create_index("ix_tournament_rounds_deadline", "tournament_rounds", ["deadline"])
    op.create_table(
        "tournament_games",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("first_id", sa.Integer(), nullable=False),
        sa.Column("second_id", sa.Integer(), nullable=True),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("outcome", sa.String(length=16), nullable=True),
        sa.Column("finish", sa.String(length=16), nullable=True),
        sa.Column("first_flags", sa.Integer(), nullable=False),
        sa.Column("second_flags", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name="fk_tournament_games_tournament_id_tournaments",
        ),
        sa.ForeignKeyConstraint(
            ["first_id"], ["players.id"], name="fk_tournament_games_first_id_players"
        ),
        sa.ForeignKeyConstraint(
            ["second_id"], ["players.id"], name="fk_tournament_games_second_id_players"
        ),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name="fk_tournament_games_game_id_games"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_tournament_games"),
        sa.UniqueConstraint("game_id", name="uq_tournament_games_game_id"),
    )
    op.create_index(
        "ix_tournament_games_tournament_round", "tournament_games", ["tournament_id", "round"]
    )


def downgrade() -> None:
    op.drop_index("ix_tournament_games_tournament_round", table_name="tournament_games")
    op.drop_table("tournament_games")
    op.drop_index("ix_tournament_rounds_deadline", table_name="tournament_rounds")
    op.drop_table("tournament_rounds")
    op.drop_index("ix_tournament_entrants_player_id", table_name="tournament_entrants")
    op.drop_index("ix_tournament_entrants_tournament_id", table_name="tournament_entrants")
    op.drop_table("tournament_entrants")
    op.drop_index("ix_tournaments_status", table_name="tournaments")
    op.drop_table("tournaments")
