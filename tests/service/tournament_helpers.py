"""Tournaments for the tests: signed-in players, a tournament made and entered, its games ended
by a resignation, each step in its own transaction."""

from __future__ import annotations

from datetime import UTC, datetime

from flask import Flask
from sqlmodel import select

import engine
import tournaments
from service.db import session_scope
from service.games.loaded import load_game
from service.games.state import apply_moves, load_state
from service.models import Game, GameStatus, Player
from service.tournaments import lifecycle
from service.tournaments.models import Tournament, TournamentGame, TournamentKind
from service.tournaments.settings import TournamentSettings
from service.tournaments.standing import entrants_of, pairings_of, results, standings_of
from tests.service.rating_games import signed_in_player

START = datetime(2026, 12, 1, tzinfo=UTC)


def players(app: Flask, count: int, prefix: str = "p") -> list[int]:
    return [
        signed_in_player(app, f"{prefix}{n}@example.org", f"{prefix.title()}layer {n}")
        for n in range(count)
    ]


def settings(
    kind: TournamentKind = TournamentKind.ROUND_ROBIN, **changes: object
) -> TournamentSettings:
    fields: dict[str, object] = {
        "name": "Winter cup",
        "kind": kind,
        "ruleset": "battleline",
        "claims": engine.ClaimTiming.ADVANCED,
        "days_per_move": 3,
        "round_days": 30,
        "rated": False,
        "starts_at": START,
        "max_players": 12 if kind is TournamentKind.ROUND_ROBIN else 64,
        "scoring": tournaments.Scoring.GAME,
        "deadline_policy": tournaments.DeadlinePolicy.ADJUDICATE,
        "rounds": 0 if kind is TournamentKind.ROUND_ROBIN else 3,
    }
    fields.update(changes)
    return TournamentSettings(**fields)  # type: ignore[arg-type]


def make(app: Flask, entrants: list[int], organiser: int, **changes: object) -> int:
    """A tournament by ``organiser`` that ``entrants`` entered, not started."""
    kind = changes.pop("kind", TournamentKind.ROUND_ROBIN)
    assert isinstance(kind, TournamentKind)
    with app.app_context(), session_scope() as session:
        owner = session.get(Player, organiser)
        assert owner is not None
        made = lifecycle.create(session, owner, settings(kind, **changes))
        assert made.id is not None
        tournament_id = made.id
    for player_id in entrants:
        with app.app_context(), session_scope() as session:
            player = session.get(Player, player_id)
            assert player is not None
            lifecycle.enter(session, tournament_id, player)
    return tournament_id


def start(app: Flask, tournament_id: int) -> None:
    with app.app_context(), session_scope() as session:
        lifecycle.start(session, tournament_id)


def tournament(app: Flask, tournament_id: int) -> Tournament:
    with app.app_context(), session_scope() as session:
        found = session.get(Tournament, tournament_id)
        assert found is not None
        return found


def links(app: Flask, tournament_id: int) -> list[TournamentGame]:
    with app.app_context(), session_scope() as session:
        return pairings_of(session, tournament_id)


def open_games(app: Flask, tournament_id: int) -> list[int]:
    with app.app_context(), session_scope() as session:
        return [
            g
            for g in session.exec(
                select(TournamentGame.game_id)
                .join(Game, Game.id == TournamentGame.game_id)  # type: ignore[arg-type]
                .where(
                    TournamentGame.tournament_id == tournament_id,
                    Game.status == GameStatus.ACTIVE,
                )
            ).all()
            if g is not None
        ]


def resign(app: Flask, game_id: int, seat: str) -> None:
    with app.app_context(), session_scope() as session:
        game = session.get(Game, game_id)
        assert game is not None
        apply_moves(session, game_id, seat, game.ply, ["resign"])


def play_one(app: Flask, game_id: int, now: datetime) -> None:
    """The seat to move plays its first legal move at ``now``."""
    with app.app_context(), session_scope() as session:
        state = load_state(session, load_game(session, game_id))
        assert state.to_move is not None
        move = engine.legal_moves(state)[0]
        apply_moves(session, game_id, move.seat, state.ply, [move], now=now)


def clock_of(app: Flask, game_id: int) -> tuple[datetime | None, datetime | None]:
    """A game's deadline and next check."""
    with app.app_context(), session_scope() as session:
        game = session.get(Game, game_id)
        assert game is not None
        return game.deadline, game.next_check_at


def recomputed(app: Flask, tournament_id: int) -> tournaments.Standings:
    """The standings recomputed from the game store (each game's final position), not from the
    results the listener wrote."""
    with app.app_context(), session_scope() as session:
        found = session.get(Tournament, tournament_id)
        assert found is not None
        order = tuple(e.player_id for e in entrants_of(session, tournament_id))
        pairings = pairings_of(session, tournament_id)
        _, byes = results(pairings)
        games: list[tournaments.GameResult] = []
        for row in pairings:
            if row.game_id is None or row.second_id is None:
                continue
            state = load_state(session, load_game(session, row.game_id))
            if state.result is None:
                continue
            held = engine.flags_held(state)
            winner = state.result.winner
            finish = (
                tournaments.Finish(row.finish)
                if row.finish == "forfeit"
                else (
                    tournaments.Finish.TIME
                    if state.result.termination is engine.Termination.TIME
                    else tournaments.Finish.PLAYED
                )
            )
            if finish is tournaments.Finish.FORFEIT:
                held = {"A": 0, "B": 0}
            games.append(
                tournaments.GameResult(
                    row.round,
                    row.first_id,
                    row.second_id,
                    tournaments.Outcome.FIRST_WINS
                    if winner == "A"
                    else tournaments.Outcome.SECOND_WINS
                    if winner == "B"
                    else tournaments.Outcome.DRAW,
                    held["A"],
                    held["B"],
                    finish,
                )
            )
        return tournaments.standings(
            order,
            tuple(games),
            byes,
            tournaments.Scoring(found.scoring),
            tuple(tournaments.TieBreak(t) for t in found.tie_breaks),
        )


def stored_standings(app: Flask, tournament_id: int) -> tournaments.Standings:
    """The standings the pages show (from the results the listener wrote)."""
    with app.app_context(), session_scope() as session:
        found = session.get(Tournament, tournament_id)
        assert found is not None
        return standings_of(session, found)
