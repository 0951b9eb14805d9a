"""A player's "my games" page, reached by a signed link they ask for with their email address.

The answer to the request never tells whether the address is known. ``request_my_games_link``
is the one place that makes the link; ``send_my_games_link`` mails it, to a newcomer too (in
development the page also shows it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from flask import current_app
from flask_babel import LazyString
from sqlmodel import Session, col, select

from service import tokens
from service.catalogue import gettext, lazy_gettext
from service.game_words import ruleset_title
from service.games.players import find_or_add_player, find_player
from service.games.seats import seats_of_games
from service.limits import new_address_email_allowed
from service.links import external_url
from service.models import Game, GameStatus, Player, Seat, Visibility, utcnow
from service.outbox.kinds import MailKind
from service.outbox.queue import emails_queued_since
from service.player_fields import check_email
from service.present.emails import queue_my_games_email
from service.present.seat_names import SeatNames, names_of
from service.refusal import Refusal


class EmailFormError(Refusal):
    """The address typed is not an email address (said the same for known and unknown ones)."""

    status = 422
    title = lazy_gettext("Please check the address")


def _address_refused(email: str) -> LazyString:
    """Why ``email`` (which ``check_email`` refused) is no address, as one whole sentence."""
    if "\n" in email or "\r" in email:
        return lazy_gettext("The email address must be on one line.")
    if not email.strip():
        return lazy_gettext("The email address is required.")
    return lazy_gettext("The email address is not an email address like name@example.org.")


def request_my_games_link(session: Session, email: str) -> str | None:
    """The "my games" link of the player with this address, or None when no player has it.

    Raises EmailFormError when ``email`` is not an address. The caller must answer the person
    the same way in both cases (the mail area sends the link; nobody learns whether the
    address plays here).
    """
    player = find_player(session, _checked_address(email))
    return None if player is None else _my_games_link(player)


def _checked_address(email: str) -> str:
    """``email`` as stored (``check_email``); raises EmailFormError when it is no address."""
    try:
        return check_email(email)
    except ValueError:
        raise EmailFormError(_address_refused(email)) from None


def _my_games_link(player: Player) -> str | None:
    """The player's "my games" link; None for a closed account (its links died with it)."""
    if player.closed_at is not None:
        return None
    assert player.id is not None
    token = tokens.make_games_token(player.id, player.token_generation)
    return external_url("history.my_games", token=token)


def send_my_games_link(session: Session, email: str, language: str | None = None) -> str | None:
    """Email the "my games" link to the player with this address; an address no player has
    becomes a new player's (a newcomer signs in with it, then chooses their name), while new
    addresses' links stay under the site's ceiling (``limits.new_address_email_allowed``;
    over it, no player is added and nothing sent). No address gets more than
    ``MY_GAMES_EMAILS_PER_ADDRESS_PER_DAY`` of them a day (anyone can type any address: this
    must not become a way to flood someone). The email is in the player's language, or
    ``language`` (the page's) if they chose none; nothing is saved. Returns the link, or None.

    Raises EmailFormError when ``email`` is not an address. The caller answers the same
    whatever happened, so nobody learns whether the address plays here.
    """
    address = _checked_address(email)
    player = find_player(session, address)
    if player is None:
        if not new_address_email_allowed():
            return None
        # No label yet: the name page asks for one at the first sign-in.
        player = find_or_add_player(session, address, "")
    link = _my_games_link(player)
    if link is None:
        return None
    since = utcnow() - timedelta(days=1)
    already = emails_queued_since(session, MailKind.MY_GAMES, since, player_id=player.id)
    if already < int(current_app.config["MY_GAMES_EMAILS_PER_ADDRESS_PER_DAY"]):
        welcome = not _has_games(session, player)
        queue_my_games_email(session, player, link, welcome=welcome, language=language)
    return link


def _has_games(session: Session, player: Player) -> bool:
    return (
        session.exec(select(Seat.id).where(Seat.player_id == player.id).limit(1)).first()
        is not None
    )


def player_for_token(session: Session, token: tokens.PlayerToken) -> Player:
    """The player a "my games" token names. Raises RevokedTokenError (also for a closed
    account), or TamperedTokenError when no such player exists (a token for nobody is not a
    link we made)."""
    player = session.get(Player, token.player_id)
    if player is None:
        raise tokens.TamperedTokenError()
    tokens.check_generation(token.generation, player.token_generation)
    if player.closed_at is not None:
        raise tokens.RevokedTokenError()  # a closed account's links all died with it
    return player


@dataclass(frozen=True, slots=True)
class WatchedGame:
    """A game in the list of games anyone may watch."""

    public_id: str
    players: SeatNames
    title: str
    ruleset_title: str
    status: str
    result: Mapping[str, Any] | None
    """The stored result (``Game.result``)."""
    updated_at: datetime


def public_games(session: Session, limit: int = 100) -> list[WatchedGame]:
    """Games listed for anyone to watch (public ones being played or finished), newest first."""
    rows = session.exec(
        select(Game)
        .where(
            Game.visibility == Visibility.PUBLIC,
            col(Game.status).in_([GameStatus.ACTIVE, GameStatus.FINISHED]),
        )
        .order_by(col(Game.updated_at).desc(), col(Game.id).desc())
        .limit(limit)
    ).all()
    seats = seats_of_games(session, [game.id for game in rows if game.id is not None])
    listed = []
    for game in rows:
        assert game.id is not None
        names = names_of(seats.get(game.id, {}))
        listed.append(
            WatchedGame(
                public_id=game.public_id,
                players=names,
                title=str(gettext(" vs ")).join(names.values()),
                ruleset_title=ruleset_title(game.ruleset),
                status=game.status,
                result=game.result,
                updated_at=game.updated_at,
            )
        )
    return listed
