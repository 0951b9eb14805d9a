"""The database tables (SQLModel ``table=True`` classes only; forms and views have their own types).

The append-only move log is the truth; a snapshot is a cache of replaying it. Every time is stored
in UTC and read back timezone-aware on both databases.
"""

from __future__ import annotations

import enum
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from service.json_columns import ClaimProof, DealFields, EngineStateJson, GameResult, TurnChoices

# Named constraints, so that Alembic's batch mode on SQLite can find and alter them later.
SQLModel.metadata.naming_convention = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    """Now, in UTC, timezone-aware."""
    return datetime.now(UTC)


class UTCDateTime(sa.types.TypeDecorator[datetime]):
    """A timestamp stored in UTC and always read back timezone-aware.

    SQLite keeps no offset, so a naive value read back is UTC by construction.
    """

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("refusing a naive datetime: store UTC, timezone-aware")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


def timestamp_field(*, on_update: bool = False) -> Any:
    """A NOT NULL UTC timestamp, set to now when the row is made (and, with ``on_update``, each
    time it changes)."""
    kwargs: dict[str, object] = {"server_default": sa.func.now()}
    if on_update:
        kwargs["onupdate"] = utcnow
    return Field(
        default_factory=utcnow,
        sa_column_kwargs=kwargs,
        sa_type=UTCDateTime,
        nullable=False,
    )


class GameStatus(enum.StrEnum):
    """Where a game stands."""

    INVITED = "invited"
    """Created; the opponent has not answered yet."""
    ACTIVE = "active"
    """Accepted and dealt; moves are being played."""
    DECLINED = "declined"
    """The opponent said no; nothing was dealt."""
    FINISHED = "finished"
    """Over; the result is stored and the seed revealed (R3)."""


class Visibility(enum.StrEnum):
    """Who may find a game's public page."""

    PUBLIC = "public"
    """Listed, and its page open to anyone."""
    UNLISTED = "unlisted"
    """Its page open to whoever has the link, listed nowhere."""


class Player(SQLModel, table=True):
    """A person, known by email address. No password: signed links are the only credential."""

    __tablename__ = "players"

    id: int | None = Field(default=None, primary_key=True)
    email: str = Field(max_length=254, unique=True)
    """Normalised to lower case; unique."""
    display_name: str = Field(max_length=40)
    """Until ``name_confirmed``, only a label: the name someone first typed for this address."""
    name_confirmed: bool = Field(default=False, sa_column_kwargs={"server_default": sa.false()})
    """True once the owner chose ``display_name`` (signed in, or confirming a game they started
    under it): after that nobody else's typing renames them (``games.players.name_by_owner``)."""
    name_key: str | None = Field(default=None, max_length=160, unique=True)
    """The chosen name's key (``service.players.names.name_key``: case and look-alikes folded),
    unique: one player per name. None until the owner chose a name."""
    name_changed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    """When the owner last changed their chosen name (a change waits a month after it)."""
    preferences: TurnChoices = Field(
        default_factory=lambda: TurnChoices(),
        sa_type=sa.JSON,
        sa_column_kwargs={"server_default": sa.text("'{}'")},
        nullable=False,
    )
    """The player's default turn choices. Assign a new dict to change it: a JSON column does not
    notice a change made in place."""
    token_generation: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    """Bumped to revoke every "my games" link of this player."""
    session_generation: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    """In every sign-in cookie (``service.signin``): bumped to end every sign-in of this player."""
    digest_sent_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    """When this player's last daily digest was sent (``preferences["digest"]``)."""
    time_zone: str | None = Field(default=None, max_length=64)
    """The IANA time zone the player reads times in (``service.reader_time``); None: UTC."""
    language: str | None = Field(default=None, max_length=8)
    """The language their emails are written in, and their pages once signed in
    (``service.i18n.LANGUAGE_CODES``); None: English."""
    computer: str | None = Field(default=None, max_length=16)
    """For the computer's own players (one per level, address ``computer-<level>@...invalid``):
    the level (``engine.bots.BotLevel``) that plays its seats. It reads no email: nothing is ever
    queued to it (``service.outbox.queue.blocked_reason``)."""
    closed_at: datetime | None = Field(default=None, sa_type=UTCDateTime, nullable=True)
    """When the player closed their account (``service.history.closure``): their address and
    name are gone (a placeholder each), no email goes to them and no link of theirs works."""
    messages_off: bool = Field(default=False, sa_column_kwargs={"server_default": sa.false()})
    """The player reads no message of other players and sends none
    (``service.players.messages``)."""
    suspended_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    """An operator suspended this player (``flask moderation suspend``): they send no message and
    post no challenge; their running games go on (``service.players.moderation``)."""
    created_at: datetime = timestamp_field()


def _moment() -> Any:
    """A moment that may be unknown (NULL)."""
    return Field(default=None, sa_type=UTCDateTime, nullable=True)


class AddressStatus(SQLModel, table=True):
    """What is known about a player's address: one row per player, made when first needed (its
    rules are ``service.outbox.addresses``; here beside ``Player`` because the seats of a game
    are read with it: a page says which seats' email bounces)."""

    __tablename__ = "address_status"

    player_id: int = Field(foreign_key="players.id", primary_key=True)
    confirmed_at: datetime | None = _moment()
    """The player proved they read this address (a signed link); invitations may go out."""
    bounced_at: datetime | None = _moment()
    """An SMTP server refused mail to this address for good (5xx); cleared by a confirmation."""
    bounce_reason: str | None = Field(default=None, max_length=500)
    unsubscribed_at: datetime | None = _moment()
    """No email at all, except what the person asks for on the site (a confirmation, a link)."""
    refuses_invitations_at: datetime | None = _moment()
    """No invitation will be sent to this address, from anyone."""


class SeriesStatus(enum.StrEnum):
    PLAYING = "playing"
    FINISHED = "finished"
    LEFT = "left"
    """A player left: the game being played was the last."""


class Series(SQLModel, table=True):
    """Consecutive games between the same people, scored by R23: first to ``target_points``,
    or ``games_planned`` games. Its games point to it (``Game.series_id``)."""

    __tablename__ = "series"
    __table_args__ = (
        sa.CheckConstraint("status IN ('playing', 'finished', 'left')", name="status"),
    )

    id: int | None = Field(default=None, primary_key=True)
    games_planned: int = Field(default=1, sa_column_kwargs={"server_default": "1"})
    """How many games, when the series is a number of games (0 when it is played to points)."""
    target_points: int | None = Field(default=None)
    """The points that end the series (first to N), or None for a number of games."""
    public_id: str | None = Field(default=None, max_length=32, unique=True)
    """Random, unguessable: the address of the series page (as a game's public page)."""
    status: str = Field(
        default=SeriesStatus.PLAYING, max_length=16, sa_column_kwargs={"server_default": "playing"}
    )
    left_by: str | None = Field(default=None, max_length=1)
    """The seat letter of the player who left (``status`` left)."""
    created_at: datetime = timestamp_field()


class Game(SQLModel, table=True):
    """One game. Holds the secret seed: never hand this row to a template."""

    __tablename__ = "games"
    __table_args__ = (
        sa.CheckConstraint(
            "status IN ('invited', 'active', 'declined', 'finished')", name="status"
        ),
        sa.CheckConstraint("visibility IN ('public', 'unlisted')", name="visibility"),
        sa.CheckConstraint("days_per_move BETWEEN 1 AND 14", name="days_per_move"),
        sa.CheckConstraint("claims IN ('standard', 'advanced')", name="claims"),
        # The deadline scan's search for turns whose start was lost (migration 0007): only the
        # games whose turn start is pending are in it.
        sa.Index(
            "ix_games_unstarted_turn",
            "turn_started_at",
            postgresql_where=sa.text("turn_notified < current_turn"),
            sqlite_where=sa.text("turn_notified < current_turn"),
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    public_id: str = Field(max_length=32, unique=True)
    """Random, unguessable: the address of the public page (unlisted games must not be found)."""
    ruleset: str = Field(max_length=32)
    claims: str = Field(max_length=16)
    """``ClaimTiming`` value: ``advanced`` (R5) or ``standard`` (R4)."""
    rules_version: str = Field(max_length=32)
    """``engine.RULES_VERSION`` when the game was created, to replay it under the same rules."""
    status: str = Field(default=GameStatus.INVITED, max_length=16, index=True)
    seed: str = Field(max_length=128)
    """Secret until the game ends (R3)."""
    seed_commitment: str = Field(max_length=128)
    """``engine.seed_commitment(seed)``, published from the start (R3)."""
    deal: DealFields | None = Field(default=None, sa_type=sa.JSON)
    """The deal the seed produced, as in a record (docs/formats.md), plus ``first`` and ``cut``."""
    days_per_move: int = Field(default=3)
    visibility: str = Field(default=Visibility.UNLISTED, max_length=16)
    series_id: int | None = Field(default=None, foreign_key="series.id")
    created_at: datetime = timestamp_field()
    updated_at: datetime = timestamp_field(on_update=True)
    deadline: datetime | None = Field(
        default=None,
        sa_type=UTCDateTime,
        index=True,
    )
    """When the player to move runs out of time; a beat task looks for due ones."""
    invited_at: datetime | None = Field(default=None, sa_type=UTCDateTime, nullable=True)
    """When the invitations went out (``service.lobby.invitations``), also to an address that
    refuses them and so got none. Games invited before migration 0017 have only outbox rows."""
    result: GameResult | None = Field(default=None, sa_type=sa.JSON)
    """Winner and reason once finished."""
    ply: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    """How many entries the move log holds: the position every request starts from, without
    counting the log."""
    to_move: str | None = Field(default=None, max_length=1)
    """The seat to move while the game is played (None before the deal and after the end), so
    that lists of games need not read any position."""
    vacation_days: int = Field(default=7, sa_column_kwargs={"server_default": "7"})
    """Days each player may overrun their deadlines in this game before losing on time."""
    # The clock of the current turn, kept for service.turns (the deadline policy and the start
    # of a turn); reset when a turn begins.
    current_turn: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    """The engine's turn number of the turn being played (0 before the deal)."""
    turn_notified: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    """The last turn whose start was handled (automatic claims made, "your turn" queued): a
    second ``start_turn`` for it changes nothing."""
    turn_started_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    """When the current turn began."""
    reminders_sent: list[str] = Field(
        default_factory=list,
        sa_type=sa.JSON,
        sa_column_kwargs={"server_default": sa.text("'[]'")},
        nullable=False,
    )
    """``service.turns.deadlines.Due`` values of the reminders sent this turn."""
    last_reminder_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    """When this game last sent a reminder (any turn): at most one a day."""
    late_notice_sent: bool = Field(default=False, sa_column_kwargs={"server_default": sa.false()})
    """Whether the opponent was told this turn that the player to move runs late."""
    creation_key: str | None = Field(default=None, max_length=64, unique=True)
    """A hash of who created this game for whom with which settings, while the invitation is
    unanswered: the same form sent twice finds this game instead of making a second one."""
    computer_delay_s: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    """How long a computer seat waits before it plays its turn (so that a game against the
    computer still feels like correspondence); 0 in tests."""
    next_check_at: datetime | None = Field(default=None, sa_type=UTCDateTime, index=True)
    """When the deadline scan looks at this game next (a reminder, the late notice or the
    deadline may fall due then); None when nothing will."""
    rated: bool = Field(default=False, sa_column_kwargs={"server_default": sa.false()})
    """Chosen at creation: the game's end changes its players' ratings (``service.ratings``);
    else casual."""
    rematch_game_id: int | None = Field(default=None, foreign_key="games.id", unique=True)
    """The rematch of this finished game, set under this game's row lock by the first offer: a
    later offer (any seat's) joins it, so that a finished game has one rematch at most (unless
    it was declined)."""


class Seat(SQLModel, table=True):
    """A player's place in a game: the first seat of the ruleset's order created the game, the
    others were invited."""

    __tablename__ = "seats"
    __table_args__ = (
        sa.UniqueConstraint("game_id", "letter", name="uq_seats_game_id_letter"),
        sa.CheckConstraint("letter IN ('A', 'B', 'C')", name="letter"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id")
    letter: str = Field(max_length=1)
    """Which seat this is, in the engine's words (``"A"``, ``"B"``, ``"C"``)."""
    player_id: int = Field(foreign_key="players.id", index=True)
    token_generation: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    """Links carry the generation they were made for; bumping it revokes all older links."""
    accepted: bool = Field(default=False, sa_column_kwargs={"server_default": sa.false()})
    typed_name: str | None = Field(default=None, max_length=40)
    """The creator's seat: the name its form gave, the player's own once they confirm the game
    (``service.lobby.lifecycle.send_held_invitation``)."""
    vacation_days_used: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    """Vacation days this seat has used in this game (``Game.vacation_days`` in all)."""
    preferences: TurnChoices | None = Field(default=None, sa_type=sa.JSON, nullable=True)
    """This seat's own turn choices (``service.games.preferences``), over the player's defaults.
    A seat link changes only these: never another game's, never the player's."""


class MoveEntry(SQLModel, table=True):
    """One entry of the append-only move log, in docs/formats.md notation (``"A: R7>3"``)."""

    __tablename__ = "moves"
    __table_args__ = (sa.UniqueConstraint("game_id", "ply", name="uq_moves_game_id_ply"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id")
    ply: int
    """0 for the first entry; the unique key makes a lost race fail instead of forking the log."""
    seat: str = Field(max_length=1)
    notation: str = Field(max_length=200)
    created_at: datetime = timestamp_field()
    # SQL NULL, not JSON null, for the entries that are no claim: most of them, and null costs.
    proof: ClaimProof | None = Field(default=None, sa_type=sa.JSON(none_as_null=True))
    """For a claim, the proof that made it hold (``service.games.claim_proofs``), kept with it
    so that saying why needs no replay; None for other entries and for claims logged before
    revision 0011 (explained by a replay then)."""


class Snapshot(SQLModel, table=True):
    """``engine.state_to_json`` of a game after ``ply`` log entries: a cache of the replay."""

    __tablename__ = "snapshots"
    __table_args__ = (sa.UniqueConstraint("game_id", "ply", name="uq_snapshots_game_id_ply"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id")
    ply: int
    state: EngineStateJson = Field(sa_type=sa.JSON)
    created_at: datetime = timestamp_field()
