"""Being signed in on a browser: a cookie that says which player this browser belongs to.

A player signs in from the "my games" link, which is only ever emailed to their own address,
so the cookie proves what the link proved: this browser reads that mailbox. It lets its holder
create games in that address's name (the invitation goes at once, no confirmation email), see
"my games" and change player-wide settings. A seat link never signs anyone in: it may be
forwarded, and may change only its own seat's game.

The cookie is Flask's signed session (``SECRET_KEY``): HttpOnly, SameSite=Lax (a cross-site
POST does not carry it), Secure and ``__Host-`` in production (``service.config``). It names the
player, their "my games" link generation, their session generation and when it was signed in.
Every use of it is checked against the database (``signed_in_player``, the one way to read it):
"sign out everywhere" and any revocation of the player's links bump
``Player.session_generation`` and end every copy, and a sign-in ends
``PERMANENT_SESSION_LIFETIME`` after it was made, however often it is used (the cookie is not
renewed by requests). A cookie found ended is cleared then; pages that never ask who is signed in
(a private page, a public page) read no player for it.
"""

from __future__ import annotations

from datetime import timedelta

from flask import Flask, current_app
from flask import session as cookie
from sqlmodel import Session

from service import clock
from service.catalogue import lazy_gettext
from service.models import Player
from service.refusal import Refusal, Text

PLAYER_KEY = "player"
GENERATION_KEY = "generation"
SESSION_KEY = "session"
SIGNED_IN_AT_KEY = "signed_in_at"
"""Seconds since the epoch (UTC) when this browser signed in."""
LANGUAGE_KEY = "language"
"""The page language chosen on this browser (``service.i18n``), kept across sign-in and out."""


def sign_in(player: Player) -> None:
    """Sign this browser in as ``player`` (a fresh cookie: nothing of an earlier one is kept)."""
    assert player.id is not None
    language = player.language or cookie.get(LANGUAGE_KEY)
    cookie.clear()
    if language is not None:
        cookie[LANGUAGE_KEY] = language
    cookie.permanent = True
    cookie[PLAYER_KEY] = player.id
    cookie[GENERATION_KEY] = player.token_generation
    cookie[SESSION_KEY] = player.session_generation
    cookie[SIGNED_IN_AT_KEY] = int(clock.now().timestamp())


def sign_out() -> None:
    """Forget who this browser is; its language stays (it is not a credential)."""
    language = cookie.get(LANGUAGE_KEY)
    cookie.clear()
    if language is not None:
        cookie[LANGUAGE_KEY] = language


def sign_out_everywhere(session: Session, player: Player) -> None:
    """End every sign-in of ``player`` on every browser, this one included."""
    end_sign_ins(player)
    session.add(player)
    sign_out()


def end_sign_ins(player: Player) -> None:
    """A new session generation: every cookie made before names an old one."""
    player.session_generation += 1


def _lifetime() -> timedelta:
    lifetime: timedelta = current_app.config["PERMANENT_SESSION_LIFETIME"]
    return lifetime


def _is_current(player: Player | None, generation: object, session_generation: object) -> bool:
    return (
        player is not None
        and player.token_generation == generation
        and player.session_generation == session_generation
    )


def signed_in_player(session: Session) -> Player | None:
    """The player this browser is signed in as, or None (no cookie, or one that was revoked or
    has outlived its lifetime)."""
    player_id = cookie.get(PLAYER_KEY)
    generation = cookie.get(GENERATION_KEY)
    session_generation = cookie.get(SESSION_KEY)
    signed_in_at = cookie.get(SIGNED_IN_AT_KEY)
    if player_id is None:
        return None
    if not all(type(v) is int for v in (player_id, generation, session_generation, signed_in_at)):
        sign_out()
        return None
    assert isinstance(signed_in_at, int)
    age = clock.now().timestamp() - signed_in_at
    if not 0 <= age <= _lifetime().total_seconds():
        sign_out()
        return None
    player = session.get(Player, player_id)
    if not _is_current(player, generation, session_generation):
        sign_out()  # revoked: nothing reads this cookie again
        return None
    return player


class SignInFirstError(Refusal):
    """An action that needs a signed-in player, asked from a browser that is not signed in."""

    status = 401
    title = lazy_gettext("Please sign in first")
    message = lazy_gettext(
        'Only a signed-in player can do this. Ask for your games link on the "my games" page '
        "and sign in. Nothing was changed."
    )


def required_signed_in_player(session: Session, refusal: Text | None = None) -> Player:
    """The player this browser is signed in as. Raises SignInFirstError (saying ``refusal``
    when given) when it is not signed in."""
    player = signed_in_player(session)
    if player is None:
        raise SignInFirstError(refusal)
    return player


def signed_in_as(session: Session, email: str) -> Player | None:
    """The signed-in player if their address is ``email`` (normalised), else None."""
    player = signed_in_player(session)
    return player if player is not None and player.email == email else None


def init_app(app: Flask) -> None:
    # The cookie's expiry counts from the sign-in, not from the latest request.
    app.config["SESSION_REFRESH_EACH_REQUEST"] = False
