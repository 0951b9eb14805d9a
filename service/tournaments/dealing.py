"""Dealing a tournament's games: a round-robin section all at once, a Swiss round after the one
before; every seat in and dealt at once, as a challenge's game (the players agreed by entering).
Each function works under the caller's tournament lock and leaves the commit to it."""

from __future__ import annotations

from datetime import datetime

from flask import current_app
from sqlmodel import Session, col, select

import engine
import tournaments
from service import clock
from service.games.loaded import load_game
from service.games.rows import add_agreed_game, new_game
from service.games.state import deal_game
from service.models import Visibility
from service.present import emails as mail_emails
from service.tournaments.emails import queue_over, queue_round
from service.tournaments.models import (
    Tournament,
    TournamentGame,
    TournamentKind,
    TournamentRound,
    TournamentStatus,
)
from service.tournaments.standing import entrants_of, pairings_of, results


def deal_pairing(
    session: Session, tournament: Tournament, pairing: tournaments.Pairing
) -> TournamentGame:
    """One game of the tournament, dealt, its players told, linked to its round."""
    assert tournament.id is not None
    game = new_game(
        ruleset=tournament.ruleset,
        claims=tournament.claims,
        days_per_move=tournament.days_per_move,
        vacation_days=7,
        visibility=Visibility.PUBLIC.value,
        computer_delay_s=int(current_app.config["COMPUTER_DELAY_S"]),
        rated=tournament.rated,
    )
    seats = engine.get_ruleset(tournament.ruleset).seats
    add_agreed_game(session, game, dict(zip(seats, (pairing.first, pairing.second), strict=True)))
    assert game.id is not None
    link = TournamentGame(
        tournament_id=tournament.id,
        round=pairing.round,
        first_id=pairing.first,
        second_id=pairing.second,
        game_id=game.id,
    )
    session.add(link)
    session.flush()
    mail_emails.queue_game_started(session, deal_game(session, load_game(session, game.id), now()))
    return link


def now() -> datetime:
    return clock.now()


def _open_round(session: Session, tournament: Tournament, number: int, at: datetime) -> None:
    assert tournament.id is not None
    session.add(
        TournamentRound(
            tournament_id=tournament.id,
            number=number,
            started_at=at,
            deadline=at + tournament.round_days * clock.game_day(),
        )
    )


def deal_section(session: Session, tournament: Tournament, players: tuple[int, ...]) -> None:
    """A round-robin: every game of the section at once (one deadline for all of them)."""
    table = tournaments.schedule(players, double=tournament.double_round)
    at = now()
    for number in range(1, table.rounds + 1):
        _open_round(session, tournament, number, at)
    for pairing in table.pairings:
        deal_pairing(session, tournament, pairing)
    tournament.current_round = table.rounds
    session.add(tournament)
    session.flush()
    queue_round(session, tournament, None)


def deal_swiss_round(session: Session, tournament: Tournament, number: int) -> bool:
    """Pair and deal Swiss round ``number``; False (nothing dealt) when the withdrawals leave no
    pairing without a repeat (the tournament then ends, docs/tournaments.md)."""
    assert tournament.id is not None
    entrants = entrants_of(session, tournament.id)
    games, byes = results(pairings_of(session, tournament.id))
    core = tuple(
        tournaments.Entrant(e.player_id, e.start_rating, e.withdrawn_at is not None)
        for e in entrants
    )
    try:
        paired = tournaments.pair_round(core, games, byes, number, tournament.rounds)
    except tournaments.SwissPairingError:
        return False
    _open_round(session, tournament, number, now())
    for pairing in paired.pairings:
        deal_pairing(session, tournament, pairing)
    if paired.bye is not None:
        session.add(
            TournamentGame(
                tournament_id=tournament.id,
                round=number,
                first_id=paired.bye,
                outcome=tournaments.Outcome.FIRST_WINS.value,
            )
        )
    tournament.current_round = number
    session.add(tournament)
    session.flush()
    queue_round(session, tournament, number)
    return True


def finish(session: Session, tournament: Tournament) -> None:
    tournament.status = TournamentStatus.FINISHED
    tournament.finished_at = now()
    session.add(tournament)
    session.flush()
    queue_over(session, tournament)


def advance(session: Session, tournament: Tournament) -> None:
    """After a result: when every pairing of the current round has one, close the round and deal
    the next (Swiss) or end the tournament. Under the tournament's lock; does nothing twice. A
    ladder has no rounds: it goes on until the organiser ends it."""
    assert tournament.id is not None
    if tournament.status != TournamentStatus.PLAYING or tournament.kind == TournamentKind.LADDER:
        return
    pairings = pairings_of(session, tournament.id)
    if any(p.outcome is None for p in pairings):
        return
    for row in _unclosed_rounds(session, tournament.id):
        row.closed_at = now()
        session.add(row)
    more = tournament.kind == TournamentKind.SWISS and tournament.current_round < tournament.rounds
    if not (more and deal_swiss_round(session, tournament, tournament.current_round + 1)):
        finish(session, tournament)


def _unclosed_rounds(session: Session, tournament_id: int) -> list[TournamentRound]:
    return list(
        session.exec(
            select(TournamentRound).where(
                TournamentRound.tournament_id == tournament_id,
                col(TournamentRound.closed_at).is_(None),
            )
        ).all()
    )
