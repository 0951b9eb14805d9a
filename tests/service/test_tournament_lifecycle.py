"""A tournament's life on SQLite and PostgreSQL: entered, started (a round-robin's games all at
once, a Swiss round by round), its results written when its games end, withdrawals forfeited,
round deadlines adjudicated, standings equal to a recomputation from the games."""

from __future__ import annotations

from datetime import datetime, timedelta
from itertools import combinations

import pytest
from flask import Flask
from sqlmodel import select

import tournaments
from service import clock
from service.db import session_scope
from service.models import Game, GameStatus, Player, Seat
from service.tournaments import beat, lifecycle, pause, results
from service.tournaments.models import TournamentKind, TournamentStatus
from service.tournaments.settings import TournamentRefusal
from tests.service.tournament_helpers import (
    START,
    clock_of,
    links,
    make,
    open_games,
    play_one,
    players,
    recomputed,
    resign,
    start,
    stored_standings,
    tournament,
)


def _seat_of(app: Flask, game_id: int, player_id: int) -> str:
    with app.app_context(), session_scope() as session:
        return session.exec(
            select(Seat.letter).where(Seat.game_id == game_id, Seat.player_id == player_id)
        ).one()


def _finish_open_games(app: Flask, tournament_id: int) -> None:
    """Each open game is resigned by its second seat (the first seat wins)."""
    for game_id in open_games(app, tournament_id):
        resign(app, game_id, "B")


def test_a_round_robin_deals_every_game_at_once_and_ends_with_its_last(app: Flask) -> None:
    ids = players(app, 5)
    tid = make(app, ids, ids[0])
    start(app, tid)
    rows = links(app, tid)
    assert len(rows) == 10 and all(r.game_id is not None for r in rows)
    assert {frozenset((r.first_id, r.second_id)) for r in rows} == {
        frozenset(pair) for pair in combinations(ids, 2)
    }
    assert len(open_games(app, tid)) == 10
    assert tournament(app, tid).status == TournamentStatus.PLAYING
    _finish_open_games(app, tid)
    assert tournament(app, tid).status == TournamentStatus.FINISHED
    found = stored_standings(app, tid)
    assert found == recomputed(app, tid)
    assert sum(row.score for row in found.rows) == 10


def test_a_swiss_pairs_each_round_when_the_last_ends(app: Flask) -> None:
    ids = players(app, 7)
    tid = make(app, ids, ids[0], kind=TournamentKind.SWISS, rounds=3)
    start(app, tid)
    for round_number in (1, 2, 3):
        current = [r for r in links(app, tid) if r.round == round_number]
        assert len([r for r in current if r.second_id is None]) == 1  # the bye
        assert len(open_games(app, tid)) == 3
        _finish_open_games(app, tid)
    rows = links(app, tid)
    pairs = [frozenset((r.first_id, r.second_id)) for r in rows if r.second_id is not None]
    assert len(pairs) == len(set(pairs)) == 9
    byes = [r.first_id for r in rows if r.second_id is None]
    assert len(byes) == len(set(byes)) == 3
    assert tournament(app, tid).status == TournamentStatus.FINISHED
    assert stored_standings(app, tid) == recomputed(app, tid)


def test_a_withdrawal_forfeits_the_open_games_and_is_not_paired_again(app: Flask) -> None:
    ids = players(app, 4)
    tid = make(app, ids, ids[0], kind=TournamentKind.SWISS, rounds=2)
    start(app, tid)
    leaver = ids[3]
    with app.app_context(), session_scope() as session:
        lifecycle.withdraw(session, tid, leaver, START)
    first = [r for r in links(app, tid) if leaver in (r.first_id, r.second_id)]
    assert [r.finish for r in first] == ["forfeit"]
    assert first[0].game_id is not None
    with app.app_context(), session_scope() as session:
        game = session.get(Game, first[0].game_id)
        assert game is not None and game.status == GameStatus.FINISHED
    _finish_open_games(app, tid)  # round 1's other game: round 2 is paired without the leaver
    second = [r for r in links(app, tid) if r.round == 2]
    assert all(leaver not in (r.first_id, r.second_id) for r in second)
    assert len(second) == 2  # one game, one bye
    assert stored_standings(app, tid) == recomputed(app, tid)


def test_a_passed_round_deadline_adjudicates_and_pairs_the_next_round(app: Flask) -> None:
    ids = players(app, 4)
    tid = make(app, ids, ids[0], kind=TournamentKind.SWISS, rounds=2, round_days=3)
    start(app, tid)
    later = tournament(app, tid).created_at + timedelta(days=400)
    with app.app_context(), session_scope() as session:
        assert results.due_tournaments(session, later) == [tid]
        assert results.at_deadline(session, tid, later) == 2
    first = [r for r in links(app, tid) if r.round == 1]
    assert {r.finish for r in first} == {"adjudicated"}
    assert {r.outcome for r in first} == {"draw"}  # no flag claimed: as many each
    assert len(open_games(app, tid)) == 2 + 2  # drawn games play on; round 2's are dealt
    # A drawn game is decided: it plays on with no clock (no reminder, no loss on time).
    drawn = [r.game_id for r in first if r.game_id is not None]
    assert {clock_of(app, g) for g in drawn} == {(None, None)}
    play_one(app, drawn[0], later)
    assert clock_of(app, drawn[0]) == (None, None)
    assert tournament(app, tid).current_round == 2
    with app.app_context(), session_scope() as session:  # round 2's deadline, passed too
        assert results.at_deadline(session, tid, later) == 2
    with app.app_context(), session_scope() as session:  # once only
        assert results.at_deadline(session, tid, later) == 0
    assert tournament(app, tid).status == TournamentStatus.FINISHED


def test_let_finish_waits_for_the_games(app: Flask) -> None:
    ids = players(app, 4)
    tid = make(
        app,
        ids,
        ids[0],
        kind=TournamentKind.SWISS,
        rounds=2,
        deadline_policy=tournaments.DeadlinePolicy.LET_FINISH,
    )
    start(app, tid)
    later = tournament(app, tid).created_at + timedelta(days=400)
    with app.app_context(), session_scope() as session:
        assert results.at_deadline(session, tid, later) == 0
    assert tournament(app, tid).current_round == 1


def test_leaving_before_the_start_frees_the_place(app: Flask) -> None:
    ids = players(app, 4)
    tid = make(app, ids, ids[0], max_players=4)
    with app.app_context(), session_scope() as session:
        lifecycle.leave(session, tid, ids[1])
    start(app, tid)
    assert len(links(app, tid)) == 3
    assert _seat_of(app, links(app, tid)[0].game_id or 0, links(app, tid)[0].first_id) == "A"


def test_the_beat_starts_a_due_tournament_once_and_waits_on_too_few(app: Flask) -> None:
    ids = players(app, 4)
    ready = make(app, ids[:3], ids[0])
    waiting = make(app, ids[:2], ids[0])
    with app.app_context():
        assert beat.sweep(START - timedelta(seconds=1)).started == []
        report = beat.sweep(START)
        assert report.started == [ready] and report.not_started == [waiting]
        assert beat.sweep(START).started == []
    assert len(links(app, ready)) == 3
    assert tournament(app, waiting).status == TournamentStatus.ENTERING


def test_a_pause_stops_every_clock_and_the_resumption_moves_them_on(app: Flask) -> None:
    ids = players(app, 3)
    tid = make(app, ids, ids[0])
    start(app, tid)
    game_ids = open_games(app, tid)

    def clocks() -> list[tuple[object, object]]:
        with app.app_context(), session_scope() as session:
            rows = [session.get(Game, g) for g in game_ids]
            return [(g.deadline, g.next_check_at) for g in rows if g is not None]

    before = clocks()
    moment = START + timedelta(days=1)
    with app.app_context(), session_scope() as session:
        organiser = session.get(Player, ids[0])
        assert organiser is not None
        pause.pause(session, tid, organiser, moment)
    assert all(check is None for _, check in clocks())
    with app.app_context(), session_scope() as session:
        assert results.due_tournaments(session, moment + timedelta(days=400)) == []
    with app.app_context(), session_scope() as session:
        organiser = session.get(Player, ids[0])
        assert organiser is not None
        pause.resume(session, tid, organiser, moment + timedelta(days=5))
    after = clocks()
    for (old, _), (new, check) in zip(before, after, strict=True):
        assert isinstance(old, datetime) and isinstance(new, datetime)
        assert new - old == timedelta(days=5)
        assert check == moment + timedelta(days=5)


def test_a_turn_begun_during_a_pause_runs_from_the_resumption(app: Flask) -> None:
    ids = players(app, 3)
    tid = make(app, ids, ids[0])
    start(app, tid)
    game_id = open_games(app, tid)[0]
    paused_at = START + timedelta(days=1)
    with app.app_context(), session_scope() as session:
        organiser = session.get(Player, ids[0])
        assert organiser is not None
        pause.pause(session, tid, organiser, paused_at)
    play_one(app, game_id, paused_at + timedelta(days=2))
    play_one(app, game_id, paused_at + timedelta(days=2))
    deadline, check = clock_of(app, game_id)
    assert check is None, "a move made during a pause starts no clock"
    resumed = paused_at + timedelta(days=6)
    with app.app_context(), session_scope() as session:
        organiser = session.get(Player, ids[0])
        game = session.get(Game, game_id)
        assert organiser is not None and game is not None
        pause.resume(session, tid, organiser, resumed)
        turn = game.days_per_move * clock.game_day()
    deadline, check = clock_of(app, game_id)
    assert deadline == resumed + turn


def test_the_organiser_removes_a_player_and_ends_the_tournament(app: Flask) -> None:
    ids = players(app, 5)
    tid = make(app, ids[1:], ids[0])
    start(app, tid)
    with app.app_context(), session_scope() as session:
        organiser = session.get(Player, ids[0])
        assert organiser is not None
        lifecycle.remove_player(session, tid, ids[4], organiser)
    removed = [r for r in links(app, tid) if ids[4] in (r.first_id, r.second_id)]
    assert len(removed) == 3 and {r.finish for r in removed} == {"forfeit"}
    assert len(open_games(app, tid)) == 3
    with app.app_context(), session_scope() as session:
        organiser = session.get(Player, ids[0])
        assert organiser is not None
        lifecycle.end(session, tid, organiser)
    assert tournament(app, tid).status == TournamentStatus.FINISHED
    assert stored_standings(app, tid) == recomputed(app, tid)
    # A game still open when the tournament ended keeps counting once it ends.
    resign(app, open_games(app, tid)[0], "B")
    assert stored_standings(app, tid) == recomputed(app, tid)


def test_a_double_round_robin_plays_each_pair_twice_seats_swapped(app: Flask) -> None:
    ids = players(app, 4)
    tid = make(app, ids, ids[0], double_round=True)
    start(app, tid)
    games = [r for r in links(app, tid) if r.second_id is not None]
    assert len(games) == 2 * 6
    seats = {(r.first_id, r.second_id) for r in games}
    assert all((b, a) in seats for a, b in seats), "every pair meets once each way round"
    assert tournament(app, tid).current_round == 2 * 3


def test_only_a_round_robin_is_played_twice_over(app: Flask) -> None:
    ids = players(app, 4)
    with pytest.raises(TournamentRefusal):
        make(app, ids, ids[0], kind=TournamentKind.SWISS, rounds=2, double_round=True)
