"""Open challenges: a signed-in player offers a game to anyone; the lobby lists the offers and
whoever accepts one first gets the game, dealt at once (``lifecycle.create_agreed_game``).

Rules every way of meeting shares (the lobby here, automatch in ``service.lobby.automatch``):
a challenge lasts ``CHALLENGE_DAYS`` unless taken or withdrawn; a player has at most
``MAX_OPEN_CHALLENGES`` open; two players never meet when either blocks the other
(``service.players.blocks``) or when they already play a game of that variant; a player the
operator suspended (``service.players.moderation``) neither posts, accepts nor is offered. Taking a
challenge is one conditional UPDATE (open and unexpired to taken), so of two people accepting
at once exactly one gets the game, on SQLite and PostgreSQL alike.

Functions work in the caller's session and leave the commit to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, func, select
from sqlmodel.sql.expression import SelectOfScalar

from engine import ClaimTiming
from service import clock
from service.catalogue import lazy_gettext
from service.lobby.challenge_terms import ChallengeTerms
from service.lobby.forms import NewGame
from service.lobby.lifecycle import create_agreed_game
from service.models import Game, GameStatus, Player, Seat, Visibility
from service.players.blocks import blocked_between
from service.players.challenge_models import Challenge, ChallengeKind, ChallengeStatus
from service.players.models import Block
from service.refusal import Refusal, Text

CHALLENGE_DAYS = 7
"""How long a challenge waits for someone to accept it."""
MAX_OPEN_CHALLENGES = 5
"""Open challenges (and standing requests) one player may have at once."""
LOBBY_PAGE_SIZE = 50
"""Challenges on one page of the lobby: the page is bounded whatever the number of players."""


class ChallengeError(Refusal):
    """A challenge that cannot be posted, accepted or withdrawn; nothing was changed."""

    title = lazy_gettext("The lobby cannot do this")

    def __init__(self, message: Text, status: int) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class ListedChallenge:
    """One line of the lobby: what the game is and who offers it (their name, never their
    address)."""

    id: int
    poster_id: int
    poster_name: str
    ruleset: str
    claims: str
    days_per_move: int
    message: str | None
    played_only: bool
    expires_at: datetime
    rated: bool


def suspended_error() -> ChallengeError:
    """The refusal a suspended player gets for posting, accepting or asking for an opponent."""
    return ChallengeError(
        lazy_gettext(
            "Your account is suspended by the operator: you cannot post or accept challenges, "
            "nor ask for an opponent. Your running games go on. Nothing was changed."
        ),
        403,
    )


def nameless_error() -> ChallengeError:
    """The refusal a player with no name at all (a newcomer who has not chosen one) gets for
    posting, accepting or asking for an opponent: the lobby lists players by name."""
    return ChallengeError(
        lazy_gettext(
            "Choose the name other players will see first (your public name, from your games "
            "page). Nothing was changed."
        ),
        403,
    )


def _check_may_meet_strangers(player: Player, suspended_at: datetime | None) -> None:
    """Raises ChallengeError (403) when ``player`` may not post, accept or ask for an opponent:
    suspended by the operator (``suspended_at``, as the caller read it) or with no name yet."""
    if suspended_at is not None:
        raise suspended_error()
    if not player.display_name:
        raise nameless_error()


def _open_now(now: datetime) -> sa.ColumnElement[bool]:
    return sa.and_(col(Challenge.status) == ChallengeStatus.OPEN, col(Challenge.expires_at) > now)


def post_challenge(
    session: Session, poster: Player, terms: ChallengeTerms, kind: ChallengeKind
) -> Challenge:
    """Store an open challenge (or standing request) of ``poster``. Raises ChallengeError: 403
    when they are suspended or have no name, 429 when they have ``MAX_OPEN_CHALLENGES`` open
    already. Two posts at once are counted one after the other, and a suspension at the same
    moment either comes first or withdraws it: the poster's row is locked, and read as it is
    then."""
    assert poster.id is not None
    now = clock.now()
    suspended_at = session.exec(
        select(Player.suspended_at).where(Player.id == poster.id).with_for_update()
    ).one()
    _check_may_meet_strangers(poster, suspended_at)
    open_count = session.exec(
        select(func.count())
        .select_from(Challenge)
        .where(col(Challenge.poster_id) == poster.id, _open_now(now))
    ).one()
    if open_count >= MAX_OPEN_CHALLENGES:
        raise ChallengeError(
            lazy_gettext(
                "You already have %(count)s open challenges: withdraw one, or wait until one "
                "is accepted or expires. Nothing was changed.",
                count=MAX_OPEN_CHALLENGES,
            ),
            429,
        )
    challenge = Challenge(
        kind=kind.value,
        status=ChallengeStatus.OPEN.value,
        poster_id=poster.id,
        ruleset=terms.ruleset,
        claims=terms.claims.value,
        days_per_move=terms.days_per_move,
        message=terms.message,
        played_only=terms.played_only,
        keep_going=terms.keep_going and kind is ChallengeKind.AUTOMATCH,
        rated=terms.rated,
        expires_at=now + timedelta(days=CHALLENGE_DAYS),
    )
    session.add(challenge)
    session.flush()
    return challenge


def _games_between(one_id: int, other_id: int) -> SelectOfScalar[int | None]:
    mine, theirs = aliased(Seat), aliased(Seat)
    return (
        select(col(Game.id))
        .join(mine, col(mine.game_id) == Game.id)
        .join(theirs, col(theirs.game_id) == Game.id)
        .where(col(mine.player_id) == one_id, col(theirs.player_id) == other_id)
    )


def playing_variant(session: Session, one_id: int, other_id: int, ruleset: str) -> bool:
    """Whether the two already play (or are invited to) a game of ``ruleset``."""
    running = (GameStatus.INVITED.value, GameStatus.ACTIVE.value)
    query = _games_between(one_id, other_id).where(
        col(Game.ruleset) == ruleset, col(Game.status).in_(running)
    )
    return session.exec(query.limit(1)).first() is not None


def have_played(session: Session, one_id: int, other_id: int) -> bool:
    """Whether the two have played a game together (dealt: running or over)."""
    dealt = (GameStatus.ACTIVE.value, GameStatus.FINISHED.value)
    query = _games_between(one_id, other_id).where(col(Game.status).in_(dealt))
    return session.exec(query.limit(1)).first() is not None


def may_meet(session: Session, challenge: Challenge, taker_id: int) -> ChallengeError | None:
    """Why ``taker_id`` may not take ``challenge``, or None: its poster suspended (409, as if
    withdrawn), a block either way (403), a game of that variant they play already (409), a
    challenge for past opponents only (403)."""
    poster = session.get(Player, challenge.poster_id)
    if poster is None or poster.suspended_at is not None:
        return _gone()
    if blocked_between(session, challenge.poster_id, taker_id):
        return ChallengeError(lazy_gettext("This challenge is not open to you."), 403)
    if playing_variant(session, challenge.poster_id, taker_id, challenge.ruleset):
        return ChallengeError(
            lazy_gettext("You already play a game of this variant with this player."), 409
        )
    if challenge.played_only and not have_played(session, challenge.poster_id, taker_id):
        return ChallengeError(
            lazy_gettext("This challenge is only for players its poster has played before."), 403
        )
    return None


def take(session: Session, challenge: Challenge, taker: Player) -> Game | None:
    """Take ``challenge`` for ``taker`` and deal its game: the poster at seat A. None when it is
    no longer open (someone else took it first, it expired or was withdrawn): nothing changed."""
    assert taker.id is not None and challenge.id is not None
    taken = session.execute(
        sa.update(Challenge)
        .where(col(Challenge.id) == challenge.id, _open_now(clock.now()))
        .values(status=ChallengeStatus.TAKEN.value, taken_by_id=taker.id)
        .execution_options(synchronize_session=False)
    )
    if taken.rowcount != 1:  # type: ignore[attr-defined]
        return None
    poster = session.get(Player, challenge.poster_id)
    assert poster is not None
    game = create_agreed_game(
        session,
        NewGame(
            a_name=poster.display_name,
            a_email=poster.email,
            b_name=taker.display_name,
            b_email=taker.email,
            ruleset=challenge.ruleset,
            claims=ClaimTiming(challenge.claims),
            days_per_move=challenge.days_per_move,
            visibility=Visibility.UNLISTED,
            rated=challenge.rated,
        ),
    )
    session.execute(
        sa.update(Challenge)
        .where(col(Challenge.id) == challenge.id)
        .values(game_id=game.id)
        .execution_options(synchronize_session=False)
    )
    session.refresh(challenge)
    return game


def accept_challenge(session: Session, challenge_id: int, taker: Player) -> Game:
    """``taker`` accepts an open challenge of the lobby: the game is dealt at once. Raises
    ChallengeError: the taker suspended or nameless (403), no such challenge (404), their own
    (409), not open to them (403), already taken, withdrawn or expired (409)."""
    _check_may_meet_strangers(taker, taker.suspended_at)
    challenge = _challenge_row(session, challenge_id)
    if challenge is None or challenge.kind != ChallengeKind.OPEN:
        raise ChallengeError(lazy_gettext("There is no such challenge."), 404)
    if challenge.poster_id == taker.id:
        raise ChallengeError(lazy_gettext("You cannot accept your own challenge."), 409)
    assert taker.id is not None
    if challenge.status != ChallengeStatus.OPEN or challenge.expires_at <= clock.now():
        raise _gone()
    refused = may_meet(session, challenge, taker.id)
    if refused is not None:
        raise refused
    game = take(session, challenge, taker)
    if game is None:
        raise _gone()
    return game


def _challenge_row(session: Session, challenge_id: int) -> Challenge | None:
    # An id beyond the column's integers names no challenge (PostgreSQL refuses to look).
    if not 0 < challenge_id < 2**31:
        return None
    return session.get(Challenge, challenge_id)


def _gone() -> ChallengeError:
    return ChallengeError(
        lazy_gettext(
            "This challenge was already accepted by someone else, withdrawn or expired. "
            "Nothing was changed."
        ),
        409,
    )


def withdraw_challenge(session: Session, challenge_id: int, poster: Player) -> None:
    """The poster takes back one of their open challenges or standing requests. Raises
    ChallengeError: not theirs or not there (404), no longer open (409)."""
    challenge = _challenge_row(session, challenge_id)
    if challenge is None or challenge.poster_id != poster.id:
        raise ChallengeError(lazy_gettext("There is no such challenge."), 404)
    withdrawn = session.execute(
        sa.update(Challenge)
        .where(col(Challenge.id) == challenge_id, _open_now(clock.now()))
        .values(status=ChallengeStatus.WITHDRAWN.value, keep_going=False)
        .execution_options(synchronize_session=False)
    )
    if withdrawn.rowcount != 1:  # type: ignore[attr-defined]
        raise _gone()


def open_challenges(
    session: Session,
    *,
    ruleset: str | None = None,
    days_per_move: int | None = None,
    before_id: int | None = None,
    viewer_id: int | None = None,
    limit: int = LOBBY_PAGE_SIZE,
) -> list[ListedChallenge]:
    """One page of the lobby: open challenges newest first (ids below ``before_id``), by
    variant and days per move when given; none of a suspended player; for a signed-in
    ``viewer_id``, none of a player who blocks them or whom they block. One indexed query
    (``ix_challenges_lobby``)."""
    query = (
        sa.select(
            col(Challenge.id),
            col(Challenge.poster_id),
            col(Player.display_name),
            col(Challenge.ruleset),
            col(Challenge.claims),
            col(Challenge.days_per_move),
            col(Challenge.message),
            col(Challenge.played_only),
            col(Challenge.expires_at),
            col(Challenge.rated),
        )
        .join(Player, col(Player.id) == Challenge.poster_id)
        .where(
            col(Challenge.kind) == ChallengeKind.OPEN.value,
            _open_now(clock.now()),
            col(Player.suspended_at).is_(None),
        )
    )
    if ruleset is not None:
        query = query.where(col(Challenge.ruleset) == ruleset)
    if days_per_move is not None:
        query = query.where(col(Challenge.days_per_move) == days_per_move)
    if before_id is not None:
        query = query.where(col(Challenge.id) < before_id)
    if viewer_id is not None:
        query = query.where(~sa.exists(_block_between(viewer_id, col(Challenge.poster_id))))
    # Columns, not rows as objects: a page of the lobby is read, never changed.
    rows = session.execute(query.order_by(col(Challenge.id).desc()).limit(limit)).all()
    return [ListedChallenge(*row) for row in rows]


def _block_between(viewer_id: int, poster: Any) -> sa.Select[Any]:
    """A block either way between the viewer and ``poster`` (a column of the outer query)."""
    return sa.select(col(Block.id)).where(
        sa.or_(
            (col(Block.blocker_id) == viewer_id) & (col(Block.blocked_id) == poster),
            (col(Block.blocker_id) == poster) & (col(Block.blocked_id) == viewer_id),
        )
    )


def own_challenges(session: Session, poster: Player) -> Sequence[Challenge]:
    """The poster's open challenges and standing requests, newest first."""
    return session.exec(
        select(Challenge)
        .where(col(Challenge.poster_id) == poster.id, _open_now(clock.now()))
        .order_by(col(Challenge.id).desc())
    ).all()
