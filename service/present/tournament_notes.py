"""Which of a list's games belong to a tournament, for the "my games" list."""

from __future__ import annotations

import sqlalchemy as sa
from sqlmodel import Session

from service.games.tournament_note import (
    TOURNAMENT_GAMES,
    TOURNAMENTS,
    TournamentNote,
    note_of,
)


def tournament_notes(session: Session, game_ids: list[int]) -> dict[int, TournamentNote]:
    """Game id: its tournament and round, for the games of ``game_ids`` that have one."""
    if not game_ids:
        return {}
    links, tournaments = TOURNAMENT_GAMES.c, TOURNAMENTS.c
    rows = session.execute(
        sa.select(
            links.game_id, tournaments.public_id, tournaments.name, links.round, tournaments.kind
        )
        .join(TOURNAMENTS, tournaments.id == links.tournament_id)
        .where(links.game_id.in_(game_ids))
    ).all()
    return {int(g): note_of(p, n, r, k) for g, p, n, r, k in rows}
