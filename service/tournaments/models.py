"""The tables of ``service.tournaments``: a tournament, its entrants, its rounds and its games
(docs/tournaments.md). Imported by ``service/migrations/env.py``.
"""

from __future__ import annotations

import enum
from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from service.models import UTCDateTime, utcnow


class TournamentKind(enum.StrEnum):
    ROUND_ROBIN = "round-robin"
    SWISS = "swiss"
    LADDER = "ladder"


class Entry(enum.StrEnum):
    """Who may enter."""

    OPEN = "open"
    INVITED = "invited"
    """Only the addresses on the organiser's list."""
    RATING = "rating"
    """Only players whose rating in the variant's pool lies in the range."""


class TournamentStatus(enum.StrEnum):
    ENTERING = "entering"
    PLAYING = "playing"
    FINISHED = "finished"


class Tournament(SQLModel, table=True):
    """A tournament; its row is the lock every change of it takes (entries, rounds, the end)."""

    __tablename__ = "tournaments"
    __table_args__ = (
        sa.CheckConstraint("kind IN ('round-robin', 'swiss', 'ladder')", name="kind"),
        sa.CheckConstraint("entry IN ('open', 'invited', 'rating')", name="entry"),
        sa.CheckConstraint("status IN ('entering', 'playing', 'finished')", name="status"),
        sa.CheckConstraint("scoring IN ('series', 'game')", name="scoring"),
        sa.CheckConstraint("deadline_policy IN ('adjudicate', 'let-finish')", name="policy"),
        sa.CheckConstraint("days_per_move BETWEEN 1 AND 14", name="days_per_move"),
        sa.CheckConstraint("max_players BETWEEN 2 AND 256", name="max_players"),
    )

    id: int | None = Field(default=None, primary_key=True)
    public_id: str = Field(max_length=32, unique=True)
    name: str = Field(max_length=80)
    kind: str = Field(max_length=16)
    ruleset: str = Field(max_length=32)
    claims: str = Field(max_length=16)
    days_per_move: int
    round_days: int
    """Days each round lasts before its deadline (a round-robin's one deadline: the section's)."""
    rounds: int
    """A Swiss tournament's number of rounds (0 for the others: the schedule says)."""
    double_round: bool = Field(default=False, sa_column_kwargs={"server_default": sa.false()})
    """A round-robin where each pair plays twice, the second time with the seats swapped."""
    rated: bool
    starts_at: datetime = Field(sa_type=UTCDateTime, nullable=False)
    entry: str = Field(max_length=16)
    invited: list[str] = Field(default_factory=list, sa_type=sa.JSON, nullable=False)
    """Addresses allowed to enter (``entry`` invited), lower case."""
    rating_min: int | None = None
    rating_max: int | None = None
    max_players: int
    scoring: str = Field(max_length=16)
    tie_breaks: list[str] = Field(default_factory=list, sa_type=sa.JSON, nullable=False)
    """``tournaments.TieBreak`` values, in order."""
    deadline_policy: str = Field(max_length=16)
    status: str = Field(default=TournamentStatus.ENTERING, max_length=16, index=True)
    organiser_id: int = Field(foreign_key="players.id")
    current_round: int = Field(default=0)
    paused_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    """While set, the clocks of its games stand still (``service.tournaments.pause``)."""
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    finished_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class Entrant(SQLModel, table=True):
    __tablename__ = "tournament_entrants"
    __table_args__ = (sa.UniqueConstraint("tournament_id", "player_id"),)

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournaments.id", index=True)
    player_id: int = Field(foreign_key="players.id", index=True)
    start_rating: float = 1500.0
    """The rating in the variant's pool when the tournament started (the pairing order)."""
    entered_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    withdrawn_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    rung: int | None = None
    """A ladder's entrant: their rung, 1 at the top (None before the start, after a withdrawal,
    and in the other kinds)."""


class TournamentRound(SQLModel, table=True):
    __tablename__ = "tournament_rounds"
    __table_args__ = (sa.UniqueConstraint("tournament_id", "number"),)

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournaments.id")
    number: int
    started_at: datetime = Field(sa_type=UTCDateTime, nullable=False)
    deadline: datetime = Field(sa_type=UTCDateTime, nullable=False, index=True)
    closed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    """When every game of the round had a result (or the deadline adjudicated the rest)."""


class TournamentGame(SQLModel, table=True):
    """One pairing of a round: a game (``game_id``), or a bye (no second player). Its result is
    written in the transaction that ends the game (or forfeits or adjudicates it), from which the
    standings are computed (``tournaments.standings``)."""

    __tablename__ = "tournament_games"
    __table_args__ = (sa.Index("ix_tournament_games_tournament_round", "tournament_id", "round"),)

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournaments.id")
    round: int
    first_id: int = Field(foreign_key="players.id")
    second_id: int | None = Field(default=None, foreign_key="players.id")
    """None for a bye."""
    game_id: int | None = Field(default=None, foreign_key="games.id", unique=True)
    outcome: str | None = Field(default=None, max_length=16)
    """A ``tournaments.Outcome`` value once the pairing has a result; None while it is played."""
    finish: str | None = Field(default=None, max_length=16)
    first_flags: int = 0
    second_flags: int = 0
    challenged_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    """A ladder's challenge (round 1, the challenger first): when it was made."""
