"""A player's choices about their turns, kept in ``players.preferences`` (a JSON dict).

- ``automatic_claims`` (default on, R5 for games by mail): at the start of each of their turns
  under the advanced rule, the server makes every claim the prover can prove.
- ``digest`` (default off): one email a day listing the games where it is their turn, instead of
  a "your turn" email per turn.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session

from service.models import Player

AUTOMATIC_CLAIMS = "automatic_claims"
DIGEST = "digest"


@dataclass(frozen=True)
class TurnPreferences:
    """What a player chose (or the defaults)."""

    automatic_claims: bool = True
    digest: bool = False


def turn_preferences(player: Player) -> TurnPreferences:
    """The player's choices, defaults filled in."""
    prefs = player.preferences or {}
    return TurnPreferences(
        automatic_claims=bool(prefs.get(AUTOMATIC_CLAIMS, True)),
        digest=bool(prefs.get(DIGEST, False)),
    )


def set_turn_preferences(session: Session, player: Player, chosen: TurnPreferences) -> None:
    """Store the player's choices (a new dict: JSON columns miss in-place changes)."""
    player.preferences = {
        **(player.preferences or {}),
        AUTOMATIC_CLAIMS: chosen.automatic_claims,
        DIGEST: chosen.digest,
    }
    session.add(player)
