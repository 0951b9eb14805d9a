"""Players: found by their (normalised) address, added when new, named by themselves.

Functions take the caller's session and never commit: the caller's ``session_scope`` decides.
"""

from __future__ import annotations

from contextlib import suppress

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from service import clock
from service.models import Player
from service.players.names import NameRefusedError, NameTakenError, NameTooSoonError, choose_name


def find_player(session: Session, email: str) -> Player | None:
    """The player with this (normalised) email, if any."""
    return session.exec(select(Player).where(Player.email == email)).one_or_none()


def find_or_add_player(session: Session, email: str, display_name: str) -> Player:
    """The player with this (normalised) email, added if new. An existing player keeps their
    name; an invitation cannot rename someone (only ``name_by_owner`` does). A player with no
    label yet (a newcomer who asked for their sign-in link) takes the one typed here."""
    player = find_player(session, email)
    if player is not None:
        if not player.display_name and not player.name_confirmed:
            player.display_name = display_name
        return player
    try:
        # A savepoint: a concurrent request adding the same new address wins without an error.
        with session.begin_nested():
            player = Player(email=email, display_name=display_name)
            session.add(player)
    except IntegrityError:
        player = session.exec(
            select(Player).where(Player.email == email).execution_options(populate_existing=True)
        ).one()
    return player


def name_by_owner(session: Session, player: Player, name: str, *, again: bool) -> None:
    """The owner of the address (signed in, or following a link to their inbox) named themselves:
    their public name from now on, if the rules of names allow it (``service.players.names``:
    free, not reserved, not changed in the last month); otherwise their name stays as it is, and
    they choose one on their "my games" page. ``again``: also over a name they chose before
    (their signed-in browser); a confirmed game's name replaces only a label someone else
    typed."""
    if player.name_confirmed and not again:
        return
    # Refused, the game goes ahead under the name they have.
    with suppress(NameRefusedError, NameTakenError, NameTooSoonError):
        choose_name(session, player, name, clock.now())
