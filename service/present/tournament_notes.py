"""Which of a list's games belong to a tournament round, for the "my games" list. Read from the
tables of ``service.tournaments`` by name: an area's models are not imported below the areas
(tests/service/test_layers.py), and this is one read of two columns."""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa
from sqlmodel import Session

_LINKS = sa.table(
    "tournament_games", sa.column("game_id"), sa.column("tournament_id"), sa.column("round")
)
_TOURNAMENTS = sa.table("tournaments", sa.column("id"), sa.column("public_id"), sa.column("name"))


@dataclass(frozen=True, slots=True)
class TournamentNote:
    public_id: str
    name: str
    round: int


def tournament_notes(session: Session, game_ids: list[int]) -> dict[int, TournamentNote]:
    """Game id: its tournament and round, for the games of ``game_ids`` that have one."""
    if not game_ids:
        return {}
    rows = session.execute(
        sa.select(_LINKS.c.game_id, _TOURNAMENTS.c.public_id, _TOURNAMENTS.c.name, _LINKS.c.round)
        .join(_TOURNAMENTS, _TOURNAMENTS.c.id == _LINKS.c.tournament_id)
        .where(_LINKS.c.game_id.in_(game_ids))
    ).all()
    return {int(g): TournamentNote(str(p), str(n), int(r)) for g, p, n, r in rows}
