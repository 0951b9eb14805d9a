"""Keeping the service from mailing strangers.

- The creator of a game confirms their own address (a signed link, then a button) before any
  invitation leaves; a creator already confirmed skips that.
- Invitations are limited per sender and per recipient per day, and confirmation emails per
  address per day (settings ``INVITATIONS_PER_SENDER_PER_DAY``, ...): a 429 page beyond.
- An address can refuse all invitations (a link in every invitation, and List-Unsubscribe).

Functions work in the caller's session and leave the commit to it.
"""

from __future__ import annotations

from datetime import timedelta

from flask import current_app
from sqlmodel import Session, col, func, select

from service import store
from service.mail import emails
from service.mail.addresses import is_confirmed
from service.mail.kinds import MailKind
from service.mail.models import AddressStatus, OutboxMessage
from service.models import Game, GameStatus, Player, Seat, utcnow
from service.refusal import Refusal

DAY = timedelta(days=1)


class TooManyInvitationsError(Refusal):
    """A daily limit of invitations or confirmation emails is reached."""

    status = 429
    title = "Too many invitations today"


class InvitationsRefusedError(Refusal):
    """The invited address asked for no invitations."""

    status = 403
    title = "This address takes no invitations"

    def __init__(self) -> None:
        super().__init__(
            "The person at this address asked not to receive invitations from this service. "
            "Nothing was created."
        )


def _games_created_since(session: Session, player_id: int, seat: str, since: object) -> int:
    count = session.exec(
        select(func.count())
        .select_from(Game)
        .join(Seat, col(Seat.game_id) == col(Game.id))
        .where(Seat.player_id == player_id, Seat.seat == seat, col(Game.created_at) >= since)
    ).one()
    return int(count)


def check_can_invite(session: Session, sender_email: str, recipient_email: str) -> None:
    """Refuse a new game before anything is stored: the recipient refuses invitations
    (InvitationsRefusedError) or a daily limit is reached (TooManyInvitationsError)."""
    config = current_app.config
    since = utcnow() - DAY
    recipient = store.find_player(session, recipient_email)
    if recipient is not None and recipient.id is not None:
        status = session.get(AddressStatus, recipient.id)
        if status is not None and (
            status.refuses_invitations_at is not None or status.unsubscribed_at is not None
        ):
            raise InvitationsRefusedError()
        limit = int(config["INVITATIONS_PER_RECIPIENT_PER_DAY"])
        if _games_created_since(session, recipient.id, "B", since) >= limit:
            raise TooManyInvitationsError(
                f"This address has received {limit} invitations in the last 24 hours, the most "
                "we send to one person in a day. Please try again tomorrow. Nothing was created."
            )
    sender = store.find_player(session, sender_email)
    if sender is None or sender.id is None:
        return
    limit = int(config["INVITATIONS_PER_SENDER_PER_DAY"])
    if _games_created_since(session, sender.id, "A", since) >= limit:
        raise TooManyInvitationsError(
            f"You have created {limit} games in the last 24 hours, the most one person may in a "
            "day. Please try again tomorrow. Nothing was created."
        )
    if not is_confirmed(session, sender.id):
        limit = int(config["CONFIRMATIONS_PER_ADDRESS_PER_DAY"])
        sent = session.exec(
            select(func.count())
            .select_from(OutboxMessage)
            .where(
                OutboxMessage.player_id == sender.id,
                OutboxMessage.kind == MailKind.CONFIRM_ADDRESS,
                col(OutboxMessage.created_at) >= since,
            )
        ).one()
        if int(sent) >= limit:
            raise TooManyInvitationsError(
                f"We have sent {limit} confirmation emails to your address in the last 24 hours. "
                "Please confirm with one of them; your games' invitations go out then. "
                "Nothing was created."
            )


def invitation_sent(session: Session, game_id: int) -> bool:
    """True once an invitation of this game is in the outbox."""
    row = session.exec(
        select(OutboxMessage.id).where(
            OutboxMessage.game_id == game_id, OutboxMessage.kind == MailKind.INVITATION
        )
    ).first()
    return row is not None


def after_game_created(session: Session, game: Game, creator: Player) -> None:
    """The creation hook: invite seat B now if the creator's address is confirmed, else ask the
    creator to confirm it first."""
    assert creator.id is not None
    if is_confirmed(session, creator.id):
        emails.queue_invitation(session, game)
    else:
        emails.queue_confirmation(session, game)


def send_pending_invitations(session: Session, creator: Player) -> list[int]:
    """After a confirmation: queue the invitation of every game the player created that is still
    waiting and was not sent yet. Returns those game ids."""
    games = session.exec(
        select(Game)
        .join(Seat, col(Seat.game_id) == col(Game.id))
        .where(Seat.player_id == creator.id, Seat.seat == "A", Game.status == GameStatus.INVITED)
        .order_by(col(Game.id))
    ).all()
    invited: list[int] = []
    for game in games:
        assert game.id is not None
        if not invitation_sent(session, game.id):
            emails.queue_invitation(session, game)
            invited.append(game.id)
    return invited


def invitation_waits_for_confirmation(session: Session, game_id: int) -> bool:
    """True while a game's invitation is held back until its creator confirms their address
    (for the creator's page: "check your email")."""
    game = session.get(Game, game_id)
    return (
        game is not None
        and game.status == GameStatus.INVITED
        and not invitation_sent(session, game_id)
    )
