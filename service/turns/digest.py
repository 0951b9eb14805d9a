"""The daily digest: one email a day, at ``DIGEST_HOUR_UTC``, to each player who chose it,
listing every game where it is their turn. A beat task looks every ``DIGEST_CHECK_EVERY_S``;
``players.digest_sent_at``, checked and set with the player's row locked, keeps it to one a day
however often the task runs (or if it ran late)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlalchemy as sa
from flask import current_app
from sqlmodel import Session, col, select

from service import clock
from service.catalogue import ngettext
from service.db import session_scope
from service.games.preferences import turn_preferences
from service.games.seats import seats_of_games
from service.i18n import recipient_language
from service.links import external_url
from service.models import Game, GameStatus, Player, Seat
from service.outbox.kinds import MailKind
from service.outbox.models import OutboxMessage
from service.present.game_lists import PlayerGame, player_games
from service.present.recipients import queue_to
from service.present.said import SaidMessage, said_since_last_turn
from service.present.seat_names import names_of

DIGEST_TASK = "worker.send_digests"
"""The Celery name of ``worker.tasks.send_digests``."""


@dataclass(frozen=True, slots=True)
class DigestEmail:
    """What the daily digest lists."""

    games: tuple[PlayerGame, ...]
    """The games where it is the player's turn, soonest deadline first."""
    my_games_request_url: str
    said: tuple[tuple[SaidMessage, ...], ...]
    """For each of ``games``, what the other seats said since the player's last turn there."""


def _said_in(
    session: Session, player: Player, games: Sequence[PlayerGame]
) -> tuple[tuple[SaidMessage, ...], ...]:
    """What was said in each of ``games``: their ids and seats read once for all of them."""
    public_ids = [listed.public_id for listed in games]
    ids = dict(
        session.exec(
            select(Game.public_id, Game.id).where(col(Game.public_id).in_(public_ids))
        ).all()
    )
    seats = seats_of_games(session, [game_id for game_id in ids.values() if game_id is not None])
    said = []
    for listed in games:
        game_id = ids[listed.public_id]
        assert game_id is not None
        names = names_of(seats[game_id])
        said.append(said_since_last_turn(session, game_id, listed.seat, player, names))
    return tuple(said)


def queue_digest(
    session: Session, player: Player, games: Sequence[PlayerGame]
) -> OutboxMessage | None:
    """The daily digest: each game where it is ``player``'s turn, with its private page."""
    return queue_to(
        session,
        MailKind.DIGEST,
        player,
        lambda: DigestEmail(
            tuple(games),
            external_url("history.my_games_request"),
            _said_in(session, player, games),
        ),
        subject=lambda: ngettext(
            "Your turn in %(num)d game: Battle Line by mail",
            "Your turn in %(num)d games: Battle Line by mail",
            len(games),
        ),
    )


def digest_moment(now: datetime) -> datetime:
    """The latest digest time (today's ``DIGEST_HOUR_UTC``, or yesterday's) at or before now."""
    hour = int(current_app.config["DIGEST_HOUR_UTC"])
    today = now.replace(hour=hour, minute=0, second=0, microsecond=0)
    return today if today <= now else today - timedelta(days=1)


def send_digests(now: datetime | None = None) -> list[int]:
    """Queue today's digest for every player who chose it, has a game to play, and has not had
    today's yet. Returns their player ids."""
    now = now or clock.now()
    since = digest_moment(now)
    with session_scope() as session:
        playing = session.exec(
            select(Player, Seat)
            .join(Seat, col(Seat.player_id) == col(Player.id))
            .join(Game, col(Game.id) == col(Seat.game_id))
            .where(
                Game.status == GameStatus.ACTIVE,
                # Only players whose digest of today is not out yet: not every player, daily.
                sa.or_(col(Player.digest_sent_at).is_(None), col(Player.digest_sent_at) < since),
            )
        ).all()
        ids = sorted(
            {p.id for p, seat in playing if p.id is not None and turn_preferences(p, seat).digest}
        )
    sent = []
    for player_id in ids:
        with session_scope() as session:
            player = session.get(Player, player_id, with_for_update=True, populate_existing=True)
            assert player is not None
            if player.digest_sent_at is not None and player.digest_sent_at >= since:
                continue  # another run sent it
            # The games' names (the computer's) in the recipient's words, as the email's.
            with recipient_language(player.language):
                games = [g for g in player_games(session, player, to_play=True) if g.digest]
                if not games:
                    continue
                queue_digest(session, player, games)
            player.digest_sent_at = now
            session.add(player)
            sent.append(player_id)
    return sent
