"""Automatch, "find me an opponent": a standing request (variant, claim timing, days per move)
waits, unlisted, until another player posts a compatible one; the second request is paired in
the transaction that posts it, the game is dealt and both players get its game-started email.

"Always keep one game going" (``Challenge.keep_going``): once paired, the request's ``renew_at``
is a due time in its row; the beat task ``RENEW_TASK`` finds due rows (and pairs requests
that were posted at the same moment and so did not see each other), and a request whose game
has ended is posted afresh (and paired if it can be), one whose game goes on is looked at again
``RENEW_CHECK_EVERY`` later. A player at their limit of open challenges is not renewed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlmodel import Session, col, select

from engine import ClaimTiming
from service import clock
from service.db import session_scope
from service.lobby.challenge_terms import ChallengeTerms
from service.lobby.challenges import ChallengeError, may_meet, post_challenge, take
from service.models import Game, GameStatus, Player
from service.players.challenge_models import Challenge, ChallengeKind, ChallengeStatus

RENEW_TASK = "worker.renew_standing_requests"
RENEW_CHECK_EVERY = timedelta(hours=1)
"""How often a kept-going request looks whether its game has ended."""
CANDIDATES = 20
"""Standing requests looked at per pairing (the oldest compatible first)."""
RENEW_BATCH = 100


def find_opponent(session: Session, player: Player, terms: ChallengeTerms) -> Challenge:
    """Post ``player``'s standing request and pair it with the oldest compatible one if there
    is one (the game is dealt now). Returns the request: taken, with its ``game_id``, or open.
    Raises the refusals of ``post_challenge``."""
    request = post_challenge(session, player, terms, ChallengeKind.AUTOMATCH)
    _pair(session, request, player)
    return request


def _pair(session: Session, request: Challenge, player: Player) -> None:
    assert player.id is not None
    now = clock.now()
    candidates = session.exec(
        select(Challenge)
        .join(Player, col(Player.id) == Challenge.poster_id)
        .where(
            col(Player.suspended_at).is_(None),
            col(Challenge.kind) == ChallengeKind.AUTOMATCH.value,
            col(Challenge.status) == ChallengeStatus.OPEN.value,
            col(Challenge.expires_at) > now,
            col(Challenge.ruleset) == request.ruleset,
            col(Challenge.claims) == request.claims,
            col(Challenge.days_per_move) == request.days_per_move,
            col(Challenge.rated) == request.rated,
            col(Challenge.poster_id) != player.id,
        )
        .order_by(col(Challenge.id))
        .limit(CANDIDATES)
        .with_for_update(skip_locked=True, of=Challenge)
    ).all()
    for candidate in candidates:
        if may_meet(session, candidate, player.id) is not None:
            continue
        game = take(session, candidate, player)
        if game is None:
            continue
        session.execute(
            sa.update(Challenge)
            .where(col(Challenge.id) == request.id)
            .values(
                status=ChallengeStatus.TAKEN.value,
                taken_by_id=candidate.poster_id,
                game_id=game.id,
            )
            .execution_options(synchronize_session=False)
        )
        session.execute(
            sa.update(Challenge)
            .where(col(Challenge.id).in_([request.id, candidate.id]), col(Challenge.keep_going))
            .values(renew_at=now + RENEW_CHECK_EVERY)
            .execution_options(synchronize_session=False)
        )
        session.refresh(request)
        return


@dataclass
class RenewReport:
    renewed: list[int] = field(default_factory=list)
    """Ids of the fresh requests posted."""
    waiting: int = 0
    """Requests whose game goes on."""
    expired: int = 0
    """Open challenges and requests past their expiry marked expired: the lobby's indexes
    then hold few that its queries must skip."""
    paired: list[int] = field(default_factory=list)
    """Ids of the games dealt to requests left waiting side by side (two posted at the same
    moment on PostgreSQL, neither transaction seeing the other's)."""


def _pair_waiting(session: Session, moment: datetime) -> list[int]:
    games: list[int] = []
    waiting = session.exec(
        select(col(Challenge.id))
        .where(
            col(Challenge.kind) == ChallengeKind.AUTOMATCH.value,
            col(Challenge.status) == ChallengeStatus.OPEN.value,
            col(Challenge.expires_at) > moment,
        )
        .order_by(col(Challenge.id))
        .limit(RENEW_BATCH)
    ).all()
    for request_id in waiting:
        # Locked, so that a request posted now does not take it as its candidate meanwhile.
        request = session.exec(
            select(Challenge)
            .where(col(Challenge.id) == request_id, col(Challenge.status) == "open")
            .with_for_update(skip_locked=True)
            .execution_options(populate_existing=True)
        ).first()
        player = session.get(Player, request.poster_id) if request is not None else None
        if request is None or player is None or player.suspended_at is not None:
            continue
        _pair(session, request, player)
        if request.game_id is not None:
            games.append(request.game_id)
    return games


def _mark_expired(session: Session, moment: datetime) -> int:
    due = (
        select(col(Challenge.id))
        .where(
            col(Challenge.status) == ChallengeStatus.OPEN.value,
            col(Challenge.expires_at) <= moment,
        )
        .limit(RENEW_BATCH)
    )
    marked = session.execute(
        sa.update(Challenge)
        .where(
            col(Challenge.id).in_(due.scalar_subquery()),
            col(Challenge.status) == ChallengeStatus.OPEN.value,
        )
        .values(status=ChallengeStatus.EXPIRED.value)
        .execution_options(synchronize_session=False)
    )
    return int(marked.rowcount)  # type: ignore[attr-defined]


def renew_due(now: datetime | None = None) -> RenewReport:
    """Mark a batch of challenges past their expiry, pair standing requests left waiting side by
    side, and renew the kept-going requests due by
    ``now`` whose game has ended (one transaction per batch; rows taken by another sweep at the
    same time are skipped). Idempotent: a renewed row's
    ``renew_at`` is cleared in the transaction that posts its successor."""
    moment = clock.now() if now is None else now
    report = RenewReport()
    with session_scope() as session:
        report.expired = _mark_expired(session, moment)
        report.paired = _pair_waiting(session, moment)
        due = session.exec(
            select(Challenge)
            .where(col(Challenge.renew_at) <= moment)
            .order_by(col(Challenge.renew_at))
            .limit(RENEW_BATCH)
            .with_for_update(skip_locked=True)
        ).all()
        for request in due:
            game = session.get(Game, request.game_id) if request.game_id is not None else None
            if game is not None and game.status in (GameStatus.INVITED, GameStatus.ACTIVE):
                request.renew_at = moment + RENEW_CHECK_EVERY
                report.waiting += 1
                session.add(request)
                continue
            request.renew_at = None
            session.add(request)
            player = session.get(Player, request.poster_id)
            if player is None:
                continue
            terms = ChallengeTerms(
                ruleset=request.ruleset,
                claims=ClaimTiming(request.claims),
                days_per_move=request.days_per_move,
                keep_going=True,
                rated=request.rated,
            )
            try:
                with session.begin_nested():
                    fresh = find_opponent(session, player, terms)
            except ChallengeError:
                continue  # at their limit of open challenges: not renewed
            assert fresh.id is not None
            report.renewed.append(fresh.id)
    return report
