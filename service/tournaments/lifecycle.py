"""A tournament's life: created, entered and left, started, withdrawn from, paused, ended.

Each function works in the caller's transaction (its ``session_scope``) and takes the
tournament's row lock first, so that two entries for the last place, or a start and an entry,
happen one after the other: exactly one of them wins. Games are always locked before the
tournament (as the game-ending listener does, ``service.tournaments.results``), never after.
"""

from __future__ import annotations

import secrets
from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Session, col, select

import engine
import tournaments
from service.catalogue import lazy_gettext
from service.games.rows import lock_game
from service.games.state import apply_moves
from service.models import GameStatus, Player
from service.ratings.models import Rating
from service.ratings.pools import POOL_OF_RULESET
from service.tournaments import rungs
from service.tournaments.dealing import advance, deal_section, deal_swiss_round, finish, now
from service.tournaments.emails import queue_entered
from service.tournaments.models import (
    Entrant,
    Entry,
    Tournament,
    TournamentGame,
    TournamentKind,
    TournamentStatus,
)
from service.tournaments.settings import (
    NoSuchTournament,
    TournamentRefusal,
    TournamentSettings,
    check_settings,
    least_players,
)
from service.tournaments.standing import entrants_of

DEFAULT_RATING = 1500.0
"""The rating of a player with none yet in the variant's pool (Glicko-2's start)."""


def _signed_in(player: Player) -> None:
    if player.closed_at is not None or player.suspended_at is not None:
        raise TournamentRefusal(lazy_gettext("This account cannot take part in tournaments."), 403)
    if player.computer is None and not player.name_confirmed:
        raise TournamentRefusal(lazy_gettext("Sign in and choose your name first."), 403)


def create(session: Session, organiser: Player, settings: TournamentSettings) -> Tournament:
    """A new tournament, open for entries until it starts. Raises TournamentRefusal (400 for a
    setting that cannot be used, 403 for an organiser not signed in)."""
    _signed_in(organiser)
    check_settings(settings)
    assert organiser.id is not None
    tournament = Tournament(
        public_id=secrets.token_urlsafe(12),
        name=settings.name.strip(),
        kind=settings.kind.value,
        ruleset=settings.ruleset,
        claims=settings.claims.value,
        days_per_move=settings.days_per_move,
        round_days=settings.round_days,
        rounds=settings.rounds,
        double_round=settings.double_round,
        rated=settings.rated,
        starts_at=settings.starts_at,
        entry=settings.entry.value,
        invited=sorted({a.strip().lower() for a in settings.invited}),
        rating_min=settings.rating_min,
        rating_max=settings.rating_max,
        max_players=settings.max_players,
        scoring=settings.scoring.value,
        tie_breaks=[t.value for t in settings.chosen_tie_breaks()],
        deadline_policy=settings.deadline_policy.value,
        organiser_id=organiser.id,
    )
    session.add(tournament)
    session.flush()
    return tournament


def lock(session: Session, tournament_id: int) -> Tournament:
    """The tournament, locked until the transaction ends (SQLite: the write lock is held
    already). Raises NoSuchTournament (404)."""
    found = session.get(Tournament, tournament_id, with_for_update=True, populate_existing=True)
    if found is None:
        raise NoSuchTournament()
    return found


def rating_of(session: Session, player_id: int, ruleset: str) -> float:
    rating = session.exec(
        select(Rating.rating).where(
            Rating.player_id == player_id, Rating.pool == POOL_OF_RULESET[ruleset]
        )
    ).first()
    return DEFAULT_RATING if rating is None else rating


def _entering(tournament: Tournament) -> None:
    if tournament.status != TournamentStatus.ENTERING:
        raise TournamentRefusal(lazy_gettext("This tournament has started: entries are closed."))


def enter(session: Session, tournament_id: int, player: Player) -> Entrant:
    """``player`` enters. Raises TournamentRefusal: not signed in (403), not invited or outside
    the rating range (403), started or full or entered already (409)."""
    _signed_in(player)
    tournament = lock(session, tournament_id)
    _entering(tournament)
    assert player.id is not None
    if tournament.entry == Entry.INVITED and player.email.lower() not in tournament.invited:
        raise TournamentRefusal(lazy_gettext("This tournament is by invitation only."), 403)
    rating = rating_of(session, player.id, tournament.ruleset)
    if tournament.entry == Entry.RATING:
        assert tournament.rating_min is not None and tournament.rating_max is not None
        if not tournament.rating_min <= rating <= tournament.rating_max:
            raise TournamentRefusal(
                lazy_gettext("Your rating is outside this tournament's range."), 403
            )
    entrants = entrants_of(session, tournament_id)
    if any(e.player_id == player.id for e in entrants):
        raise TournamentRefusal(lazy_gettext("You have entered this tournament already."))
    if len(entrants) >= tournament.max_players:
        raise TournamentRefusal(lazy_gettext("This tournament is full."))
    entrant = Entrant(tournament_id=tournament_id, player_id=player.id, start_rating=rating)
    session.add(entrant)
    session.flush()
    queue_entered(session, tournament, player)
    return entrant


def leave(session: Session, tournament_id: int, player_id: int) -> None:
    """Leave before the start: the entry is removed. After the start, see ``withdraw``."""
    tournament = lock(session, tournament_id)
    _entering(tournament)
    entrant = _entrant(session, tournament_id, player_id)
    session.delete(entrant)
    session.flush()


def _entrant(session: Session, tournament_id: int, player_id: int) -> Entrant:
    found = session.exec(
        select(Entrant).where(
            Entrant.tournament_id == tournament_id, Entrant.player_id == player_id
        )
    ).one_or_none()
    if found is None:
        raise TournamentRefusal(lazy_gettext("This player has not entered this tournament."), 404)
    return found


def _organiser(tournament: Tournament, player: Player) -> None:
    if tournament.organiser_id != player.id:
        raise TournamentRefusal(lazy_gettext("Only the organiser can do this."), 403)


def start(session: Session, tournament_id: int, by: Player | None = None) -> Tournament:
    """Start: the ratings are taken as the pairing order and the round-robin's games, or the
    Swiss's first round, are dealt. ``by`` the organiser (None: the beat task at the start
    date). Raises TournamentRefusal: not the organiser (403), started (409), too few players
    (409)."""
    tournament = lock(session, tournament_id)
    if by is not None:
        _organiser(tournament, by)
    _entering(tournament)
    entrants = entrants_of(session, tournament_id)
    for entrant in entrants:
        entrant.start_rating = rating_of(session, entrant.player_id, tournament.ruleset)
        session.add(entrant)
    entrants = sorted(entrants, key=lambda e: (-e.start_rating, e.player_id))
    players = tuple(e.player_id for e in entrants)
    kind = TournamentKind(tournament.kind)
    least = least_players(kind, tournament.rounds)
    if len(players) < least:
        raise TournamentRefusal(
            lazy_gettext("This tournament needs at least %(count)s players.", count=least)
        )
    tournament.status = TournamentStatus.PLAYING
    session.add(tournament)
    if kind is TournamentKind.ROUND_ROBIN:
        deal_section(session, tournament, players)
    elif kind is TournamentKind.LADDER:
        rungs.place(session, tournament_id, players)
    elif not deal_swiss_round(session, tournament, 1):
        finish(session, tournament)
    return tournament


def _open_links(session: Session, tournament_id: int, player_id: int) -> list[TournamentGame]:
    """The player's pairings without a result, read afresh."""
    return list(
        session.exec(
            select(TournamentGame)
            .where(
                TournamentGame.tournament_id == tournament_id,
                col(TournamentGame.outcome).is_(None),
                sa.or_(
                    col(TournamentGame.first_id) == player_id,
                    col(TournamentGame.second_id) == player_id,
                ),
            )
            .order_by(col(TournamentGame.game_id))
            .execution_options(populate_existing=True)
        ).all()
    )


def withdraw(session: Session, tournament_id: int, player_id: int, now_: datetime) -> None:
    """The player leaves a started tournament: their finished games stand, every unfinished one
    is forfeited (the game resigned for them), and they are paired no more (a ladder's rungs
    move for the forfeit, then theirs is freed). Before the start it is ``leave``. Raises
    TournamentRefusal (404: not an entrant; 409: withdrawn already)."""
    for link in _open_links(session, tournament_id, player_id):
        if link.game_id is not None:  # games before the tournament, as the listener locks them
            lock_game(session, link.game_id)
    tournament = lock(session, tournament_id)
    if tournament.status == TournamentStatus.ENTERING:
        leave(session, tournament_id, player_id)
        return
    entrant = _entrant(session, tournament_id, player_id)
    if entrant.withdrawn_at is not None:
        raise TournamentRefusal(lazy_gettext("This player has withdrawn already."))
    entrant.withdrawn_at = now_
    session.add(entrant)
    forfeits: list[tuple[int, str]] = []
    # A ladder's rungs move while it is played; once ended, they stand.
    ladder = (
        tournament.kind == TournamentKind.LADDER and tournament.status == TournamentStatus.PLAYING
    )
    # Read again under the lock: a round dealt meanwhile has its games too (locked when resigned).
    for link in _open_links(session, tournament_id, player_id):
        if link.second_id is None:
            continue
        first = link.first_id == player_id
        result = tournaments.forfeit_result(link.round, link.first_id, link.second_id, player_id)
        link.outcome, link.finish = result.outcome.value, result.finish.value
        session.add(link)
        if ladder:  # the forfeit moves the rungs before the rung is freed
            rungs.after_result(session, tournament_id, link)
        if link.game_id is not None:
            first_seat, second_seat = engine.get_ruleset(tournament.ruleset).seats
            forfeits.append((link.game_id, first_seat if first else second_seat))
    if ladder:
        rungs.leave(session, tournament_id, player_id)
    session.flush()
    for game_id, seat in forfeits:
        game = lock_game(session, game_id)
        if game.status == GameStatus.ACTIVE:
            apply_moves(session, game_id, seat, game.ply, [engine.Action.RESIGN.value])
    advance(session, tournament)


def remove_player(session: Session, tournament_id: int, player_id: int, by: Player) -> None:
    """The organiser removes a player: a withdrawal in their name. (The withdrawal takes the
    locks, games first: the organiser is read without one, and cannot change.)"""
    tournament = session.get(Tournament, tournament_id)
    if tournament is None:
        raise NoSuchTournament()
    _organiser(tournament, by)
    withdraw(session, tournament_id, player_id, now())


def end(session: Session, tournament_id: int, by: Player) -> Tournament:
    """The organiser ends the tournament: no more rounds; the standings are those of the
    results so far."""
    tournament = lock(session, tournament_id)
    _organiser(tournament, by)
    if tournament.status == TournamentStatus.FINISHED:
        raise TournamentRefusal(lazy_gettext("This tournament has ended already."))
    finish(session, tournament)
    return tournament
