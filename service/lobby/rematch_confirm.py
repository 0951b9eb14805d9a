"""A rematch asked for with a seat link alone: seat links are forwarded (asking a friend for
advice), so the seat's own address gets a signed link that offers it (``lifecycle.offer_rematch``)
unless the player's own browser is signed in (``service.signin``).

The link's token names the game, the seat and the seat's token generation (revoking the seat's
links revokes it). Opening it shows a button; only the button's POST offers the rematch.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from sqlmodel import Session

from service import clock, tokens
from service.games.loaded import LoadedGame
from service.links import external_url, private_page_url
from service.models import Player, Seat
from service.outbox.kinds import MailKind
from service.outbox.queue import emails_queued_since
from service.present.emails import GameFacts, facts_of
from service.present.recipients import queue_to


@dataclass(frozen=True, slots=True)
class RematchConfirmEmail:
    facts: GameFacts
    confirm_url: str
    """The page whose button offers the rematch."""
    private_url: str


SALT = "battleline.rematch-confirm"
_FIELDS = {"g": int, "s": str, "n": int}
EMAILS_PER_DAY = 3
"""At most this many such emails to one player a day: a forwarded link cannot flood them."""


def make_token(seat: Seat) -> str:
    payload = {"g": seat.game_id, "s": seat.letter, "n": seat.token_generation}
    token = tokens.signed_serializer(SALT).dumps(payload)
    assert isinstance(token, str)
    return token


def read_token(token: str) -> tokens.SeatToken:
    """The seat the token names (TamperedTokenError, ExpiredTokenError); the generation is
    checked by ``seat_for_token`` as for a private link."""
    loaded = tokens.load_signed(tokens.signed_serializer(SALT), token)
    p = tokens.checked_payload(loaded, _FIELDS)
    return tokens.SeatToken(p["g"], p["s"], p["n"])


def ask_owner(session: Session, loaded: LoadedGame, seat: Seat, player: Player) -> bool:
    """Email the seat's own address the link that offers the rematch; False when it was asked
    EMAILS_PER_DAY times in the last 24 hours already (nothing sent)."""
    assert player.id is not None
    since = clock.now() - timedelta(days=1)
    if emails_queued_since(session, MailKind.REMATCH_CONFIRM, since, player_id=player.id) >= (
        EMAILS_PER_DAY
    ):
        return False
    confirm_url = external_url("lobby.confirmed_rematch_page", token=make_token(seat))
    row = queue_to(
        session,
        MailKind.REMATCH_CONFIRM,
        player,
        lambda: RematchConfirmEmail(
            facts=facts_of(loaded.game), confirm_url=confirm_url, private_url=private_page_url(seat)
        ),
        game=loaded,
    )
    return row is not None
