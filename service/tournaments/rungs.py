"""A ladder's rungs, stored on its entrants (``Entrant.rung``) and changed only as the pure core
says (``tournaments.ladder``): set in rating order at the start, after a challenge's result, and
when a player withdraws. Under the caller's tournament lock."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlmodel import Session

import tournaments
from service import clock
from service.tournaments.models import Entrant, TournamentGame
from service.tournaments.standing import entrants_of, results


def ladder_of(entrants: list[Entrant]) -> tournaments.Ladder:
    """The ladder, top rung first, of the entrants standing on one."""
    standing = sorted((e for e in entrants if e.rung is not None), key=lambda e: e.rung or 0)
    return tournaments.Ladder(tuple(e.player_id for e in standing))


def _store(session: Session, entrants: list[Entrant], ladder: tournaments.Ladder) -> None:
    for entrant in entrants:
        rung = ladder.rung(entrant.player_id) if entrant.player_id in ladder.rungs else None
        if entrant.rung != rung:
            entrant.rung = rung
            session.add(entrant)
    session.flush()


def place(session: Session, tournament_id: int, players: tuple[int, ...]) -> None:
    """The ladder's start: each player joins at the bottom, in the order given (the pairing
    order: rating at the start, highest on top)."""
    ladder = tournaments.Ladder(())
    for player in players:
        ladder = tournaments.join(ladder, player)
    _store(session, entrants_of(session, tournament_id), ladder)


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def day_number(moment: datetime) -> int:
    """The core's day number of ``moment``, in days of the game clock (``clock.game_day``)."""
    return (moment - _EPOCH) // clock.game_day()


def challenge_of(link: TournamentGame) -> tournaments.Challenge:
    """The challenge a ladder game plays: the challenger sits first."""
    assert link.second_id is not None and link.challenged_at is not None
    return tournaments.Challenge(link.first_id, link.second_id, day_number(link.challenged_at))


def after_result(session: Session, tournament_id: int, link: TournamentGame) -> None:
    """The rungs after a challenge's result (a win by the challenger standing below swaps the
    two, on time or by forfeit too); nothing when either player has left the ladder."""
    entrants = entrants_of(session, tournament_id)
    ladder = ladder_of(entrants)
    challenge = challenge_of(link)
    if not {challenge.challenger, challenge.defender} <= set(ladder.rungs):
        return
    games, _ = results([link])
    _store(session, entrants, tournaments.after_game(ladder, challenge, games[0]))


def leave(session: Session, tournament_id: int, player_id: int) -> None:
    """A withdrawn player's rung is freed: those below move up one."""
    entrants = entrants_of(session, tournament_id)
    ladder = ladder_of(entrants)
    if player_id in ladder.rungs:
        _store(session, entrants, tournaments.leave(ladder, player_id))
