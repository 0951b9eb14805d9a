"""The tournament a game was dealt for, as its pages, its emails and "my games" name it.

Read from the tables of ``service.tournaments`` by name: an area's models are not imported below
the areas (tests/service/test_layers.py), and a game needs four of their columns.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

from service.catalogue import gettext as _

TOURNAMENT_GAMES = sa.table(
    "tournament_games", sa.column("game_id"), sa.column("tournament_id"), sa.column("round")
)
TOURNAMENTS = sa.table(
    "tournaments", sa.column("id"), sa.column("public_id"), sa.column("name"), sa.column("kind")
)

LADDER = "ladder"
"""``tournaments.TournamentKind.LADDER``'s value: a ladder's games are challenges, not rounds."""


@dataclass(frozen=True, slots=True)
class TournamentNote:
    """A game's tournament: its page's id, its name, and the round the game was dealt in."""

    public_id: str
    name: str
    round: int
    ladder: bool

    @property
    def words(self) -> str:
        """In the language being written: "Autumn cup, round 2"; a ladder's game "Spring
        ladder, a ladder challenge" (a ladder has no rounds)."""
        if self.ladder:
            return _("%(name)s, a ladder challenge", name=self.name)
        return _("%(name)s, round %(num)d", name=self.name, num=self.round)


def note_of(public_id: str, name: str, round_number: int, kind: str) -> TournamentNote:
    """The note of one row of ``TOURNAMENT_GAMES`` joined to ``TOURNAMENTS``."""
    return TournamentNote(public_id, name, round_number, kind == LADDER)
