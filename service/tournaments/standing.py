"""A tournament's results and standings, read from its stored pairings and computed by the pure
core (``tournaments.standings``): never stored, so always those of the games."""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import Session, col, select

import tournaments
from service.tournaments.models import Entrant, Tournament, TournamentGame


def pairings_of(session: Session, tournament_id: int) -> list[TournamentGame]:
    """Every pairing (games and byes), by round then id."""
    return list(
        session.exec(
            select(TournamentGame)
            .where(TournamentGame.tournament_id == tournament_id)
            .order_by(col(TournamentGame.round), col(TournamentGame.id))
            .execution_options(populate_existing=True)
        ).all()
    )


def entrants_of(session: Session, tournament_id: int) -> list[Entrant]:
    """Entrants in pairing order: rating at the start, highest first, then by player id."""
    rows = session.exec(
        select(Entrant)
        .where(Entrant.tournament_id == tournament_id)
        .execution_options(populate_existing=True)
    ).all()
    return sorted(rows, key=lambda e: (-e.start_rating, e.player_id))


def results(
    pairings: Sequence[TournamentGame],
) -> tuple[tuple[tournaments.GameResult, ...], tuple[tournaments.Bye, ...]]:
    """The results so far: each finished game and each bye."""
    games: list[tournaments.GameResult] = []
    byes: list[tournaments.Bye] = []
    for row in pairings:
        if row.second_id is None:
            byes.append(tournaments.Bye(row.round, row.first_id))
        elif row.outcome is not None and row.finish is not None:
            games.append(
                tournaments.GameResult(
                    round=row.round,
                    first=row.first_id,
                    second=row.second_id,
                    outcome=tournaments.Outcome(row.outcome),
                    first_flags=row.first_flags,
                    second_flags=row.second_flags,
                    finish=tournaments.Finish(row.finish),
                )
            )
    return tuple(games), tuple(byes)


def standings_of(session: Session, tournament: Tournament) -> tournaments.Standings:
    assert tournament.id is not None
    players = tuple(e.player_id for e in entrants_of(session, tournament.id))
    games, byes = results(pairings_of(session, tournament.id))
    return tournaments.standings(
        players,
        games,
        byes,
        tournaments.Scoring(tournament.scoring),
        tuple(tournaments.TieBreak(t) for t in tournament.tie_breaks),
    )


def crosstable_of(session: Session, tournament: Tournament) -> tournaments.Crosstable:
    assert tournament.id is not None
    players = tuple(e.player_id for e in entrants_of(session, tournament.id))
    games, _ = results(pairings_of(session, tournament.id))
    return tournaments.crosstable(players, games, tournaments.Scoring(tournament.scoring))
