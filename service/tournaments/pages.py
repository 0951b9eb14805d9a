"""What the tournament pages show, as typed values read in one session: the list, and one
tournament's standings, rounds and crosstable."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, col, select

import tournaments
from service import clock
from service.models import Game, Player
from service.tournaments.ladder import ladder_state, may_challenge
from service.tournaments.models import Entrant, Tournament, TournamentKind, TournamentStatus
from service.tournaments.rungs import day_number
from service.tournaments.settings import least_players
from service.tournaments.standing import crosstable_of, entrants_of, pairings_of, standings_of

LIST_LIMIT = 100


@dataclass(frozen=True)
class TournamentLine:
    public_id: str
    name: str
    kind: str
    status: str
    entrants: int
    max_players: int


@dataclass(frozen=True)
class StandingLine:
    rank: int
    name: str
    score: float
    games: int
    byes: int
    tie_breaks: tuple[float, ...]
    withdrawn: bool


@dataclass(frozen=True)
class PairingLine:
    first: str
    second: str | None
    """None for a bye."""
    game_public_id: str | None
    outcome: str | None
    """A ``tournaments.Outcome`` value, None while played."""
    finish: str | None


@dataclass(frozen=True)
class RoundLines:
    number: int
    pairings: tuple[PairingLine, ...]


@dataclass(frozen=True)
class RungLine:
    rung: int
    name: str
    entrant_id: int
    """The entry's id, which the challenge button posts."""
    challengeable: bool
    """The visitor may challenge this player now (the core's rules)."""


@dataclass(frozen=True)
class EntrantLine:
    """An entrant the organiser may remove."""

    player_id: int
    name: str


@dataclass(frozen=True)
class CrossLine:
    name: str
    cells: tuple[str, ...]
    score: float


@dataclass(frozen=True)
class TournamentPage:
    public_id: str
    name: str
    kind: str
    status: str
    ruleset: str
    days_per_move: int
    round_days: int
    rounds: int
    double_round: bool
    rated: bool
    scoring: str
    tie_breaks: tuple[str, ...]
    organiser: str
    paused: bool
    entrants: tuple[str, ...]
    max_players: int
    standings: tuple[StandingLine, ...]
    rounds_played: tuple[RoundLines, ...]
    crosstable: tuple[CrossLine, ...]
    rungs: tuple[RungLine, ...]
    """A ladder's players, top rung first."""
    challenges: tuple[PairingLine, ...]
    """A ladder's games, the challenger first, latest last."""
    removable: tuple[EntrantLine, ...]
    """For the organiser of a tournament not finished: the players still in it."""
    visitor_entered: bool
    visitor_withdrawn: bool
    visitor_organises: bool
    entering: bool
    least_players: int
    """How many entrants it needs to start."""
    claims: str
    """The claim timing of its games (``engine.ClaimTiming``'s value)."""
    starts_at: datetime
    """When the beat starts it, if it has ``least_players`` by then (the organiser may sooner)."""
    start_passed: bool
    """``starts_at`` has come: it starts as soon as it has enough players."""


def tournament_list(session: Session) -> tuple[TournamentLine, ...]:
    rows = session.exec(
        select(Tournament).order_by(col(Tournament.created_at).desc()).limit(LIST_LIMIT)
    ).all()
    return tuple(
        TournamentLine(
            public_id=t.public_id,
            name=t.name,
            kind=t.kind,
            status=t.status,
            entrants=len(entrants_of(session, t.id)) if t.id is not None else 0,
            max_players=t.max_players,
        )
        for t in rows
    )


def _names(session: Session, ids: set[int]) -> dict[int, str]:
    if not ids:
        return {}
    rows = session.exec(select(Player).where(col(Player.id).in_(ids))).all()
    return {p.id: p.display_name for p in rows if p.id is not None}


def _cell(points: tuple[float, ...], forfeited: bool) -> str:
    text = " ".join(f"{p:g}" for p in points)
    return f"{text}F" if forfeited and text else text


def tournament_page(
    session: Session, tournament: Tournament, visitor: Player | None
) -> TournamentPage:
    assert tournament.id is not None
    entrants = entrants_of(session, tournament.id)
    pairings = pairings_of(session, tournament.id)
    names = _names(session, {e.player_id for e in entrants} | {tournament.organiser_id})
    withdrawn = {e.player_id for e in entrants if e.withdrawn_at is not None}
    game_ids = {p.game_id for p in pairings if p.game_id is not None}
    public = {
        g.id: g.public_id
        for g in session.exec(select(Game).where(col(Game.id).in_(game_ids))).all()
    }
    standings = standings_of(session, tournament)
    rounds: dict[int, list[PairingLine]] = {}
    for p in pairings:
        rounds.setdefault(p.round, []).append(
            PairingLine(
                first=names.get(p.first_id, "?"),
                second=None if p.second_id is None else names.get(p.second_id, "?"),
                game_public_id=None if p.game_id is None else public.get(p.game_id),
                outcome=p.outcome,
                finish=p.finish,
            )
        )
    cross: tuple[CrossLine, ...] = ()
    if tournament.kind == TournamentKind.ROUND_ROBIN and pairings:
        table = crosstable_of(session, tournament)
        cross = tuple(
            CrossLine(
                name=names.get(row.player, "?"),
                cells=tuple("" if c is None else _cell(c.points, c.forfeited) for c in row.cells),
                score=row.score,
            )
            for row in table.rows
        )
    me = None if visitor is None else visitor.id
    is_ladder = tournament.kind == TournamentKind.LADDER
    organises = me is not None and me == tournament.organiser_id
    removable: tuple[EntrantLine, ...] = ()
    if organises and tournament.status != TournamentStatus.FINISHED:
        removable = tuple(
            EntrantLine(e.player_id, names.get(e.player_id, "?"))
            for e in entrants
            if e.withdrawn_at is None
        )
    return TournamentPage(
        public_id=tournament.public_id,
        name=tournament.name,
        kind=tournament.kind,
        status=tournament.status,
        ruleset=tournament.ruleset,
        days_per_move=tournament.days_per_move,
        round_days=tournament.round_days,
        rounds=tournament.rounds,
        double_round=tournament.double_round,
        rated=tournament.rated,
        scoring=tournament.scoring,
        tie_breaks=tuple(tournament.tie_breaks),
        organiser=names.get(tournament.organiser_id, "?"),
        paused=tournament.paused_at is not None,
        entrants=tuple(names.get(e.player_id, "?") for e in entrants),
        max_players=tournament.max_players,
        standings=tuple(
            StandingLine(
                rank=row.rank,
                name=names.get(row.player, "?"),
                score=row.score,
                games=row.games,
                byes=row.byes,
                tie_breaks=row.tie_breaks,
                withdrawn=row.player in withdrawn,
            )
            for row in standings.rows
        ),
        rounds_played=()
        if is_ladder
        else tuple(RoundLines(n, tuple(rounds[n])) for n in sorted(rounds)),
        crosstable=cross,
        rungs=_rungs(session, tournament, entrants, names, me) if is_ladder else (),
        challenges=tuple(rounds.get(1, ())) if is_ladder else (),
        removable=removable,
        visitor_entered=me is not None and any(e.player_id == me for e in entrants),
        visitor_withdrawn=me in withdrawn,
        visitor_organises=organises,
        entering=tournament.status == TournamentStatus.ENTERING,
        least_players=least_players(TournamentKind(tournament.kind), tournament.rounds),
        claims=tournament.claims,
        starts_at=tournament.starts_at,
        start_passed=tournament.starts_at <= clock.now(),
    )


def _rungs(
    session: Session,
    tournament: Tournament,
    entrants: list[Entrant],
    names: dict[int, str],
    me: int | None,
) -> tuple[RungLine, ...]:
    """The ladder top down; the challenge buttons only for the signed-in entrant on it, while
    the ladder is played and not paused."""
    assert tournament.id is not None
    state = ladder_state(session, tournament.id)
    entry_of = {e.player_id: e.id for e in entrants if e.id is not None}
    active = tournament.status == TournamentStatus.PLAYING and tournament.paused_at is None
    today = day_number(clock.now())
    return tuple(
        RungLine(
            rung=number,
            name=names.get(player, "?"),
            entrant_id=entry_of[player],
            challengeable=active
            and me is not None
            and me in state.ladder.rungs
            and may_challenge(state, me, player, today),
        )
        for number, player in enumerate(state.ladder.rungs, start=1)
    )


def outcome_of(line: PairingLine) -> tournaments.Outcome | None:
    return None if line.outcome is None else tournaments.Outcome(line.outcome)
