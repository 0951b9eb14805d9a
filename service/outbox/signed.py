"""Signed links of the mail area: confirm an address, unsubscribe, mute a game, refuse invitations.

Like ``service.tokens``: signed, not encrypted (the payload names only ids), one salt per purpose,
the same keys and rotation, the same errors. Each of these actions can be repeated without harm,
so the links need no generation counter.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from itsdangerous import URLSafeTimedSerializer

from service.links import external_url
from service.tokens import checked_payload, load_signed, signed_serializer


class MailPurpose(enum.StrEnum):
    """What a mail link lets its holder do; also its salt."""

    CONFIRM_ADDRESS = "confirm-address"
    UNSUBSCRIBE = "unsubscribe"
    MUTE_GAME = "mute-game"
    REFUSE_INVITATIONS = "refuse-invitations"


ENDPOINTS = {
    MailPurpose.CONFIRM_ADDRESS: "mail.confirm",
    MailPurpose.UNSUBSCRIBE: "mail.unsubscribe",
    MailPurpose.MUTE_GAME: "mail.mute",
    MailPurpose.REFUSE_INVITATIONS: "mail.refuse_invitations",
}


@dataclass(frozen=True)
class MailToken:
    """Who a mail link is for, and (to mute) which game."""

    player_id: int
    game_id: int | None = None


def _serializer(purpose: MailPurpose) -> URLSafeTimedSerializer:
    return signed_serializer(f"battleline.mail.{purpose.value}")


def make_token(purpose: MailPurpose, player_id: int, game_id: int | None = None) -> str:
    """The token of a mail link."""
    payload = {"u": player_id}
    if game_id is not None:
        payload["g"] = game_id
    token = _serializer(purpose).dumps(payload)
    assert isinstance(token, str)
    return token


def read_token(purpose: MailPurpose, token: str) -> MailToken:
    """Check a mail link's signature and age. Raises TamperedTokenError or ExpiredTokenError."""
    wants_game = purpose is MailPurpose.MUTE_GAME
    fields = {"u": int, "g": int} if wants_game else {"u": int}
    payload = checked_payload(load_signed(_serializer(purpose), token), fields)
    return MailToken(player_id=payload["u"], game_id=payload.get("g"))


def mail_link(purpose: MailPurpose, player_id: int, game_id: int | None = None) -> str:
    """The absolute signed link for ``purpose``."""
    return external_url(ENDPOINTS[purpose], token=make_token(purpose, player_id, game_id))
