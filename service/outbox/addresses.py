"""What each address asked for or showed: confirmed, bouncing, unsubscribed, refusing invitations,
muting a game. Functions work in the caller's session and leave the commit to it."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime

from flask import Flask, current_app, has_app_context
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from service.games.loaded import LoadedGame
from service.games.seats import read_statuses
from service.models import AddressStatus, utcnow
from service.outbox.models import GameMute

UnreachableListener = Callable[[Session, int, str], None]
"""Runs in the caller's transaction when a player's address stops taking our email:
(session, player id, why: ``"unsubscribed"`` or ``"bouncing"``)."""

UNREACHABLE_LISTENERS_KEY = "battleline.unreachable_listeners"


def add_unreachable_listener(app: Flask, listener: UnreachableListener) -> None:
    """Run ``listener`` whenever an address of ``app`` becomes unreachable (unsubscribed, or
    bouncing for the first time), in the transaction that records it: the other seats of the
    player's games are told (the app factory registers that)."""
    app.extensions.setdefault(UNREACHABLE_LISTENERS_KEY, []).append(listener)


def _now_unreachable(session: Session, player_id: int, why: str) -> None:
    if has_app_context():
        for listener in current_app.extensions.get(UNREACHABLE_LISTENERS_KEY, ()):
            listener(session, player_id, why)


def address_status(session: Session, player_id: int) -> AddressStatus:
    """The player's address row, made if missing (a concurrent maker wins without an error)."""
    status = session.get(AddressStatus, player_id)
    if status is not None:
        return status
    try:
        with session.begin_nested():
            status = AddressStatus(player_id=player_id)
            session.add(status)
    except IntegrityError:
        status = session.get(AddressStatus, player_id, populate_existing=True)
        assert status is not None
    return status


def is_confirmed(session: Session, player_id: int) -> bool:
    """True once the player followed a confirmation link."""
    status = session.get(AddressStatus, player_id)
    return status is not None and status.confirmed_at is not None


def confirm(session: Session, player_id: int) -> bool:
    """Record that the player reads this address; it no longer counts as bouncing.
    Returns True if it was not confirmed before."""
    status = address_status(session, player_id)
    first = status.confirmed_at is None
    if first:
        status.confirmed_at = utcnow()
    status.bounced_at = None
    status.bounce_reason = None
    session.add(status)
    return first


def mark_bouncing(session: Session, player_id: int, reason: str) -> None:
    """An SMTP server refused this address for good: stop mailing it, tell the game pages."""
    status = address_status(session, player_id)
    first = status.bounced_at is None
    status.bounced_at = utcnow()
    status.bounce_reason = reason[:500]
    session.add(status)
    if first and status.unsubscribed_at is None:
        _now_unreachable(session, player_id, "bouncing")


def set_unsubscribed(session: Session, player_id: int, unsubscribed: bool) -> None:
    """No email at all (but what the person requests on the site), or email again."""
    status = address_status(session, player_id)
    newly = unsubscribed and status.unsubscribed_at is None and status.bounced_at is None
    status.unsubscribed_at = utcnow() if unsubscribed else None
    session.add(status)
    if newly:
        _now_unreachable(session, player_id, "unsubscribed")


def set_refuses_invitations(session: Session, player_id: int, refuses: bool) -> None:
    """No invitations from anyone, or invitations again."""
    status = address_status(session, player_id)
    status.refuses_invitations_at = utcnow() if refuses else None
    session.add(status)


def set_game_muted(session: Session, player_id: int, game_id: int, muted: bool) -> None:
    """No more email about this game for this player, or email again."""
    mute = session.get(GameMute, (player_id, game_id))
    if muted and mute is None:
        session.add(GameMute(player_id=player_id, game_id=game_id))
    elif not muted and mute is not None:
        session.delete(mute)
    session.flush()


def is_game_muted(session: Session, player_id: int, game_id: int) -> bool:
    return session.get(GameMute, (player_id, game_id)) is not None


@dataclass(frozen=True)
class BouncingAddress:
    """A seat of a game whose address refuses our email. Show ``email`` only to its owner."""

    seat: str
    player_name: str
    email: str
    since: datetime
    reason: str


@dataclass(frozen=True)
class BounceNotice:
    """A bouncing address as one reader's page tells it."""

    player_name: str
    yours: bool
    """The reader's own address: only then is ``email`` given."""
    email: str | None
    since: datetime


def bounce_notices(
    bouncing: Iterable[BouncingAddress], reader_seat: str
) -> tuple[BounceNotice, ...]:
    """``bouncing`` as ``reader_seat``'s page says it: their own address, others' names only."""
    return tuple(
        BounceNotice(
            player_name=b.player_name,
            yours=b.seat == reader_seat,
            email=b.email if b.seat == reader_seat else None,
            since=b.since,
        )
        for b in bouncing
    )


def bouncing_addresses(session: Session, loaded: LoadedGame) -> list[BouncingAddress]:
    """The seats of a game whose email bounces, so the game page can tell both players that
    emails to them do not arrive (they can still play from their private page). The address
    statuses read with the game, else one query (``read_statuses``)."""
    statuses = read_statuses(session, loaded)
    found: list[BouncingAddress] = []
    for letter, (_, player) in loaded.seats.items():
        status = statuses.get(letter)
        if status is not None and status.bounced_at is not None:
            found.append(
                BouncingAddress(
                    seat=letter,
                    player_name=player.display_name,
                    email=player.email,
                    since=status.bounced_at,
                    reason=status.bounce_reason or "",
                )
            )
    return found
