"""Signed links: who may see a private page, make a move, or list their games.

A token is signed, not encrypted: anyone can read its payload, so it names only ids, a seat, a
token generation and (for a move) the ply; never a card. Each purpose has its own
salt, so a token made for one purpose is refused for another.

A valid signature is not enough: a token can be replayed until it expires. So the reader also
compares the token's generation with the seat's (revocation: bump the seat's generation), and the
playing area compares a move token's ply with the game's (a stale turn). Each failure has its own
error and message.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypedDict, cast, get_type_hints

from flask import current_app
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

import engine
from service.catalogue import lazy_gettext, ngettext
from service.refusal import Refusal, later

SECONDS_PER_DAY = 24 * 60 * 60


class Purpose(enum.StrEnum):
    """What a token lets its holder do; also its salt."""

    PRIVATE_PAGE = "private-page"
    MOVE_LINK = "move-link"
    MY_GAMES = "my-games"


class TokenError(Refusal):
    """A link that cannot be used. ``status`` is the HTTP status to answer with."""

    status = 400
    title = lazy_gettext("This link cannot be used")


class TamperedTokenError(TokenError):
    """The signature does not match: the link was changed, cut short, or is for something else."""

    status = 400
    title = lazy_gettext("This link is not valid")
    message = lazy_gettext(
        "This link was changed or cut short, or belongs to another page. "
        "Open the link exactly as it was sent to you."
    )


class ExpiredTokenError(TokenError):
    """The signature is good but older than ``TOKEN_MAX_AGE_DAYS``."""

    status = 410
    title = lazy_gettext("This link has expired")

    def __init__(self, max_age_days: int) -> None:
        super().__init__(
            later(
                lambda: ngettext(
                    "Links are valid for %(num)d day. Use a newer link from your latest email.",
                    "Links are valid for %(num)d days. Use a newer link from your latest email.",
                    max_age_days,
                )
            )
        )


class RevokedTokenError(TokenError):
    """The seat's (or player's) links were revoked after this one was made."""

    status = 403
    title = lazy_gettext("This link was withdrawn")
    message = lazy_gettext(
        "This link was replaced by a newer one. Use the link from your latest email."
    )


@dataclass(frozen=True)
class SeatToken:
    """A private-page link: one seat of one game."""

    game_id: int
    seat: str
    generation: int


@dataclass(frozen=True)
class MoveToken:
    """A move link: one seat of one game, valid only while the game is at ``ply``."""

    game_id: int
    seat: str
    generation: int
    ply: int


@dataclass(frozen=True)
class PlayerToken:
    """A "my games" link: one player."""

    player_id: int
    generation: int


def signed_serializer(salt: str) -> URLSafeTimedSerializer:
    """A serializer for one purpose (its salt) with the app's keys, newest last (rotation)."""
    config = current_app.config
    # itsdangerous signs with the last key and accepts every key of the list.
    keys = [*config["SECRET_KEY_FALLBACKS"], config["SECRET_KEY"]]
    return URLSafeTimedSerializer(keys, salt=salt)


def load_signed(serializer: URLSafeTimedSerializer, token: str) -> Any:
    """The payload of a token, checked for signature and age (TOKEN_MAX_AGE_DAYS).

    Raises ExpiredTokenError or TamperedTokenError; the payload's shape is the caller's to check.
    """
    max_age_days: int = current_app.config["TOKEN_MAX_AGE_DAYS"]
    try:
        return serializer.loads(token, max_age=max_age_days * SECONDS_PER_DAY)
    except SignatureExpired:
        raise ExpiredTokenError(max_age_days) from None
    except BadSignature:
        raise TamperedTokenError() from None


def _serializer(purpose: Purpose) -> URLSafeTimedSerializer:
    return signed_serializer(f"battleline.{purpose.value}")


def _dumps(purpose: Purpose, payload: Mapping[str, object]) -> str:
    token = _serializer(purpose).dumps(payload)
    assert isinstance(token, str)
    return token


MAX_ID = 2**31 - 1
"""The largest id a database column holds; a bigger number in a token names nothing."""


def checked_payload(payload: Any, fields: Mapping[str, type]) -> dict[str, Any]:
    """A signed payload with exactly ``fields``, each of its type, numbers from 0 to MAX_ID.
    Raises TamperedTokenError: a well-signed payload of another shape can only come from a bug
    or a leaked key, and must never reach the database (a huge id would not fit a column)."""
    if (
        not isinstance(payload, dict)
        or set(payload) != set(fields)
        or not all(type(payload[key]) is kind for key, kind in fields.items())
        or not all(0 <= value <= MAX_ID for value in payload.values() if type(value) is int)
        or ("s" in payload and payload["s"] not in engine.SEATS)
    ):
        raise TamperedTokenError()
    return payload


def _loads(purpose: Purpose, token: str, fields: Mapping[str, type]) -> Mapping[str, object]:
    return checked_payload(load_signed(_serializer(purpose), token), fields)


class _SeatPayload(TypedDict):
    """A seat's token: game, seat, generation."""

    g: int
    s: str
    n: int


class _MovePayload(_SeatPayload):
    """A move link's token: a seat's, and the ply."""

    p: int


class _PlayerPayload(TypedDict):
    """A "my games" token: player, generation."""

    u: int
    n: int


_SEAT_FIELDS = get_type_hints(_SeatPayload)
_MOVE_FIELDS = get_type_hints(_MovePayload)
_PLAYER_FIELDS = get_type_hints(_PlayerPayload)


def make_private_token(game_id: int, seat: str, generation: int) -> str:
    """The token of a seat's private page."""
    return _dumps(Purpose.PRIVATE_PAGE, _SeatPayload(g=game_id, s=seat, n=generation))


def read_private_token(token: str) -> SeatToken:
    """Check the signature and age of a private-page token. Raises TamperedTokenError or
    ExpiredTokenError; the caller checks the generation (``check_generation``)."""
    p = cast(_SeatPayload, _loads(Purpose.PRIVATE_PAGE, token, _SEAT_FIELDS))
    return SeatToken(game_id=p["g"], seat=p["s"], generation=p["n"])


def make_move_token(game_id: int, seat: str, generation: int, ply: int) -> str:
    """The token of a move link, valid while the game is at ``ply``."""
    return _dumps(Purpose.MOVE_LINK, _MovePayload(g=game_id, s=seat, n=generation, p=ply))


def read_move_token(token: str) -> MoveToken:
    """Check the signature and age of a move token. Raises TamperedTokenError or
    ExpiredTokenError; the caller checks the generation and the game's ply."""
    p = cast(_MovePayload, _loads(Purpose.MOVE_LINK, token, _MOVE_FIELDS))
    return MoveToken(game_id=p["g"], seat=p["s"], generation=p["n"], ply=p["p"])


def make_games_token(player_id: int, generation: int) -> str:
    """The token of a player's "my games" page."""
    return _dumps(Purpose.MY_GAMES, _PlayerPayload(u=player_id, n=generation))


def read_games_token(token: str) -> PlayerToken:
    """Check the signature and age of a "my games" token (TamperedTokenError, ExpiredTokenError)."""
    p = cast(_PlayerPayload, _loads(Purpose.MY_GAMES, token, _PLAYER_FIELDS))
    return PlayerToken(player_id=p["u"], generation=p["n"])


def check_generation(token_generation: int, current_generation: int) -> None:
    """Raise RevokedTokenError unless the token was made for the current generation."""
    if token_generation != current_generation:
        raise RevokedTokenError()
