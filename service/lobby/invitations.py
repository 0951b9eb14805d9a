"""Keeping the service from mailing strangers.

- An invitation leaves only when the creator's own address says so: from their signed-in
  browser (``service.signin``), or by the button on the private page whose link was emailed to
  that address. A form naming someone else's address sends that person a confirmation email,
  never an invitation, and gives the form's sender no link.
- Invitations are limited per sender and per recipient per day, and confirmation emails per
  address per day (settings ``INVITATIONS_PER_SENDER_PER_DAY``, ...), counting emails actually
  queued: a 429 page beyond. A game for three sends two invitations: each counts for its
  recipient and for the sender, and either all of a game's invitations go or none.
  Requests per client address are limited in ``service.limits``.
- An address can refuse all invitations (a link in every invitation, and List-Unsubscribe).

Functions work in the caller's session and leave the commit to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from flask import current_app
from flask_babel import LazyString
from sqlmodel import Session

import engine
from service.catalogue import lazy_gettext, ngettext
from service.games.loaded import LoadedGame
from service.games.players import find_player
from service.lobby.forms import FormError, NewGame
from service.models import AddressStatus, GameStatus, Player, utcnow
from service.outbox.kinds import MailKind
from service.outbox.queue import emails_queued_since
from service.outbox.sent import invitation_sent
from service.present import emails
from service.refusal import Refusal, later

DAY = timedelta(days=1)


class TooManyInvitationsError(Refusal):
    """A daily limit of invitations or confirmation emails is reached."""

    status = 429
    title = lazy_gettext("Too many invitations today")


class BouncingInviteeError(FormError):
    """An invited address is known to bounce: its invitation could never arrive."""

    status = 400


def check_invitees_reachable(session: Session, new: NewGame) -> None:
    """Raise BouncingInviteeError, naming each field, when an invited address is known to
    bounce (an SMTP server refused it for good): the game would wait for an invitation that
    cannot arrive. Unlike refusing invitations, a bounce is no choice of the address's owner."""
    computers = dict(new.computers)
    errors: dict[str, str] = {}
    for letter, _, email in new.players[1:]:
        player = None if letter in computers else find_player(session, email)
        status = None if player is None else session.get(AddressStatus, player.id)
        if status is not None and status.bounced_at is not None:
            errors[f"{letter.lower()}_email"] = (
                f"Email to {email} bounces (the receiving server refused it for good), so an "
                "invitation could not arrive: please give another address (nothing was created)"
            )
    if errors:
        raise BouncingInviteeError(errors)


def check_invitation_limits(session: Session, creator: Player, invited: Sequence[Player]) -> None:
    """Raise TooManyInvitationsError when an invited address had its invitations for the day,
    or the creator cannot send one more invitation per invited player. Counts invitations
    actually sent, so games that strangers created in someone's name without their
    confirmation count for nobody."""
    config = current_app.config
    since = utcnow() - DAY
    assert creator.id is not None
    limit = int(config["INVITATIONS_PER_RECIPIENT_PER_DAY"])
    for player in invited:
        assert player.id is not None
        if emails_queued_since(session, MailKind.INVITATION, since, player_id=player.id) >= limit:
            raise TooManyInvitationsError(_received_all(player.display_name, limit))
    limit = int(config["INVITATIONS_PER_SENDER_PER_DAY"])
    sent = emails_queued_since(session, MailKind.INVITATION, since, inviter_id=creator.id)
    if sent >= limit:
        raise TooManyInvitationsError(_sent_all(limit))
    if sent + len(invited) > limit:
        raise TooManyInvitationsError(_too_many_for_game(len(invited), limit - sent, limit))


def _received_all(name: str, limit: int) -> LazyString:
    return later(
        lambda: ngettext(
            "%(name)s has received %(num)d invitation in the last 24 hours, the most we send "
            "to one person in a day. Please try again tomorrow. Nothing was sent.",
            "%(name)s has received %(num)d invitations in the last 24 hours, the most we send "
            "to one person in a day. Please try again tomorrow. Nothing was sent.",
            limit,
            name=name,
        )
    )


def _sent_all(limit: int) -> LazyString:
    return later(
        lambda: ngettext(
            "You have sent %(num)d invitation in the last 24 hours, the most one person may in "
            "a day. Please try again tomorrow. Nothing was sent.",
            "You have sent %(num)d invitations in the last 24 hours, the most one person may in "
            "a day. Please try again tomorrow. Nothing was sent.",
            limit,
        )
    )


def _too_many_for_game(needed: int, left: int, limit: int) -> LazyString:
    return later(
        lambda: ngettext(
            "This game needs %(num)d invitation, and you may send %(left)d more today "
            "(%(limit)d in 24 hours at most). Please try again tomorrow. Nothing was sent.",
            "This game needs %(num)d invitations, and you may send %(left)d more today "
            "(%(limit)d in 24 hours at most). Please try again tomorrow. Nothing was sent.",
            needed,
            left=left,
            limit=limit,
        )
    )


def check_confirmation_limit(session: Session, creator: Player) -> None:
    """Raise TooManyInvitationsError when this address had its confirmation emails for the day.
    Every one of them carries the owner's sign-in link, so strangers who use up the count do
    not lock the owner out: signed in, they create games with no confirmation email."""
    assert creator.id is not None
    limit = int(current_app.config["CONFIRMATIONS_PER_ADDRESS_PER_DAY"])
    since = utcnow() - DAY
    if emails_queued_since(session, MailKind.CONFIRM_ADDRESS, since, player_id=creator.id) >= limit:
        raise TooManyInvitationsError(
            later(
                lambda: ngettext(
                    "We have sent %(num)d confirmation email to this address in the last 24 "
                    "hours, the most we send to one address in a day. If it is yours, open the "
                    'link "sign in" in it and create the game again: signed in, you need no '
                    "confirmation. Otherwise try tomorrow. Nothing was created.",
                    "We have sent %(num)d confirmation emails to this address in the last 24 "
                    "hours, the most we send to one address in a day. If it is yours, open the "
                    'link "sign in" in one of them and create the game again: signed in, you '
                    "need no confirmation. Otherwise try tomorrow. Nothing was created.",
                    limit,
                )
            )
        )


def creator_and_invited(loaded: LoadedGame) -> tuple[Player, list[Player]]:
    """The player of the ruleset's first seat (who created the game) and the people at the
    other seats (invited; not the computer), in seat order."""
    seats = loaded.seats
    creator_seat = engine.FIRST_SEAT
    invited = [
        player
        for letter, (_, player) in seats.items()
        if letter != creator_seat and player.computer is None
    ]
    return seats[creator_seat][1], invited


def after_game_created(
    session: Session,
    loaded: LoadedGame,
    *,
    creator_present: bool,
    rematch_of: int | None = None,
    language: str | None = None,
) -> None:
    """The creation hook. ``creator_present``: the request comes from the creator's own
    signed-in browser (or an operator's command), so the invitations go now. Otherwise the
    email goes to the creator's address with the link that sends them: whoever typed the form
    gets nothing that only the address's owner may have. ``rematch_of``: the game a rematch
    plays again, which its invitations name. ``language``: the form's page's, for the
    confirmation email of a creator who chose none."""
    if creator_present:
        send_invitations(session, loaded, rematch_of=rematch_of)
    else:
        creator, _ = creator_and_invited(loaded)
        check_confirmation_limit(session, creator)
        emails.queue_confirmation(session, loaded, language=language)


def send_invitations(
    session: Session, loaded: LoadedGame, *, rematch_of: int | None = None
) -> bool:
    """Queue the invitations of a game still waiting for them, one to each invited seat, all
    within the daily limits (raises TooManyInvitationsError before queueing any). An address
    that refuses invitations gets none, silently: its seat waits as for one that does not
    answer. Returns False when they were sent before. Call with the game row locked."""
    game = loaded.game
    assert game.id is not None
    if game.status != GameStatus.INVITED or invitation_sent(session, game.id):
        return False
    creator, invited = creator_and_invited(loaded)
    if not invited:  # the computer plays every other seat: no one to invite
        return False
    check_invitation_limits(session, creator, invited)
    game.invited_at = utcnow()
    session.add(game)
    emails.queue_invitations(session, loaded, rematch_of=rematch_of)
    return True
