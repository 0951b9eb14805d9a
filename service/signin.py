"""Being signed in on a browser: a cookie that says which player this browser belongs to.

A player signs in from the "my games" link, which is only ever emailed to their own address,
so the cookie proves what the link proved: this browser reads that mailbox. It lets its holder
create games in that address's name (the invitation goes at once, no confirmation email), see
"my games" and change player-wide settings. A seat link never signs anyone in: it may be
forwarded, and may change only its own seat's game.

The cookie is Flask's signed session (``SECRET_KEY``): HttpOnly, SameSite=Lax (a cross-site
POST does not carry it), Secure and ``__Host-`` in production (``service.config``). It names the
player and their token generation, so "sign out everywhere" (a new generation) ends every copy.
"""

from __future__ import annotations

from flask import session as cookie
from sqlmodel import Session

from service.models import Player

PLAYER_KEY = "player"
GENERATION_KEY = "generation"


def sign_in(player: Player) -> None:
    """Sign this browser in as ``player`` (a fresh cookie: nothing of an earlier one is kept)."""
    assert player.id is not None
    cookie.clear()
    cookie.permanent = True
    cookie[PLAYER_KEY] = player.id
    cookie[GENERATION_KEY] = player.token_generation


def sign_out() -> None:
    cookie.clear()


def signed_in_player(session: Session) -> Player | None:
    """The player this browser is signed in as, or None (no cookie, or one that was revoked)."""
    player_id = cookie.get(PLAYER_KEY)
    generation = cookie.get(GENERATION_KEY)
    if type(player_id) is not int or type(generation) is not int:
        return None
    player = session.get(Player, player_id)
    if player is None or player.token_generation != generation:
        return None
    return player


def signed_in_as(session: Session, email: str) -> Player | None:
    """The signed-in player if their address is ``email`` (normalised), else None."""
    player = signed_in_player(session)
    return player if player is not None and player.email == email else None
