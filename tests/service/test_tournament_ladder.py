"""A ladder in the service: rungs in rating order at the start, a challenge dealt at once, the
core's refusals answered 4xx with nothing changed, the rungs after a win, a loss on time and a
withdrawal, two challenges at once by one player (one game), and no rounds for the beat."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta

import pytest
from flask import Flask
from sqlmodel import Session, func, select

from service import clock
from service.db import session_scope
from service.games.loaded import load_game
from service.games.state import apply_moves, load_state
from service.models import Player
from service.tournaments import beat, ladder, lifecycle, pause
from service.tournaments.models import (
    Entrant,
    TournamentGame,
    TournamentKind,
    TournamentRound,
    TournamentStatus,
)
from service.tournaments.settings import TournamentRefusal
from tests.service.tournament_helpers import (
    START,
    links,
    make,
    open_games,
    play_one,
    players,
    resign,
    tournament,
)
from tests.service.tournament_helpers import start as start_tournament

MOMENT = START + timedelta(days=1)


def make_ladder(app: Flask, count: int) -> tuple[int, list[int]]:
    """A started ladder of ``count`` players (all rated 1500: by player id), the first the
    organiser."""
    ids = players(app, count)
    tid = make(app, ids, ids[0], kind=TournamentKind.LADDER, rounds=0)
    start_tournament(app, tid)
    return tid, ids


def rungs(app: Flask, tid: int) -> list[int]:
    """Players top rung first."""
    with app.app_context(), session_scope() as session:
        rows = session.exec(
            select(Entrant).where(Entrant.tournament_id == tid, Entrant.rung != None)  # noqa: E711
        ).all()
        return [e.player_id for e in sorted(rows, key=lambda e: e.rung or 0)]


def entrant_id(session: Session, tid: int, player_id: int) -> int:
    found = session.exec(
        select(Entrant.id).where(Entrant.tournament_id == tid, Entrant.player_id == player_id)
    ).one()
    assert found is not None
    return found


def challenge(app: Flask, tid: int, challenger: int, defender: int, at: datetime) -> int:
    """The game dealt for the challenge."""
    with app.app_context(), session_scope() as session:
        player = session.get(Player, challenger)
        assert player is not None
        link = ladder.challenge(session, tid, player, entrant_id(session, tid, defender), at)
        assert link.game_id is not None
        return link.game_id


def refused(app: Flask, tid: int, challenger: int, defender: int, at: datetime) -> int:
    """The refusal's status; the transaction rolled back."""
    with pytest.raises(TournamentRefusal) as refusal:
        challenge(app, tid, challenger, defender, at)
    return refusal.value.status


def game_count(app: Flask) -> int:
    with app.app_context(), session_scope() as session:
        return session.exec(select(func.count()).select_from(TournamentGame)).one()


def days(app: Flask, count: int) -> timedelta:
    with app.app_context():
        return count * clock.game_day()


def lose_on_time(app: Flask, game_id: int, seat: str) -> None:
    """Play on until ``seat`` is to move, then its time runs out."""
    for _ in range(10):
        with app.app_context(), session_scope() as session:
            state = load_state(session, load_game(session, game_id))
            if state.to_move == seat:
                apply_moves(session, game_id, seat, state.ply, ["timeout"], by_server=True)
                return
        play_one(app, game_id, MOMENT)
    raise AssertionError(f"seat {seat} never came to move")


def test_a_ladder_starts_in_rating_order_and_has_no_rounds(app: Flask) -> None:
    tid, ids = make_ladder(app, 5)
    assert rungs(app, tid) == ids
    assert links(app, tid) == []
    game_id = challenge(app, tid, ids[4], ids[1], MOMENT)
    (link,) = links(app, tid)
    assert (link.first_id, link.second_id, link.round) == (ids[4], ids[1], 1)
    assert open_games(app, tid) == [game_id]
    with app.app_context(), session_scope() as session:
        assert session.exec(select(func.count()).select_from(TournamentRound)).one() == 0
    with app.app_context():
        report = beat.sweep(MOMENT + timedelta(days=400))
    assert report.deadlines == {}
    assert open_games(app, tid) == [game_id]
    assert tournament(app, tid).status == TournamentStatus.PLAYING


def test_challenges_the_rules_refuse_are_4xx_and_change_nothing(app: Flask) -> None:
    tid, ids = make_ladder(app, 6)
    (outsider,) = players(app, 1, prefix="o")
    assert refused(app, tid, ids[4], ids[0], MOMENT) == 409  # 4 places above
    assert refused(app, tid, ids[1], ids[2], MOMENT) == 409  # below
    assert refused(app, tid, ids[1], ids[1], MOMENT) == 409  # themself
    assert refused(app, tid, outsider, ids[1], MOMENT) == 403  # not an entrant
    other = make(app, [], ids[0], kind=TournamentKind.LADDER, rounds=0)
    with app.app_context(), session_scope() as session:
        player = session.get(Player, ids[4])
        assert player is not None
        with pytest.raises(TournamentRefusal) as wrong:
            ladder.challenge(session, tid, player, 10_000, MOMENT)
        assert wrong.value.status == 404
        with pytest.raises(TournamentRefusal) as not_started:
            ladder.challenge(session, other, player, entrant_id(session, tid, ids[1]), MOMENT)
        assert not_started.value.status == 409  # not started
    assert game_count(app) == 0 and rungs(app, tid) == ids
    game_id = challenge(app, tid, ids[4], ids[1], MOMENT)
    assert refused(app, tid, ids[5], ids[4], MOMENT) == 409  # the defender plays already
    resign(app, game_id, "A")  # the defender keeps the place
    assert rungs(app, tid) == ids
    assert refused(app, tid, ids[4], ids[1], MOMENT + days(app, 6)) == 409  # within 7 days
    assert game_count(app) == 1
    challenge(app, tid, ids[4], ids[1], MOMENT + days(app, 7))
    assert game_count(app) == 2


def test_no_challenge_in_a_paused_ladder_nor_in_a_round_robin(app: Flask) -> None:
    tid, ids = make_ladder(app, 3)
    with app.app_context(), session_scope() as session:
        organiser = session.get(Player, ids[0])
        assert organiser is not None
        pause.pause(session, tid, organiser, MOMENT)
    assert refused(app, tid, ids[2], ids[1], MOMENT) == 409
    round_robin = make(app, ids, ids[0])
    start_tournament(app, round_robin)
    before = game_count(app)
    assert refused(app, round_robin, ids[2], ids[1], MOMENT) == 404
    assert game_count(app) == before and rungs(app, tid) == ids


def test_a_win_by_the_lower_player_swaps_the_two_places(app: Flask) -> None:
    tid, ids = make_ladder(app, 5)
    game_id = challenge(app, tid, ids[3], ids[1], MOMENT)
    resign(app, game_id, "B")
    assert rungs(app, tid) == [ids[0], ids[3], ids[2], ids[1], ids[4]]
    (link,) = links(app, tid)
    assert link.outcome == "first"


def test_a_defender_who_loses_on_time_loses_the_place_a_challenger_does_not(
    app: Flask,
) -> None:
    tid, ids = make_ladder(app, 4)
    late_defender = challenge(app, tid, ids[2], ids[0], MOMENT)
    lose_on_time(app, late_defender, "B")
    assert rungs(app, tid) == [ids[2], ids[1], ids[0], ids[3]]
    late_challenger = challenge(app, tid, ids[3], ids[1], MOMENT)
    lose_on_time(app, late_challenger, "A")
    assert rungs(app, tid) == [ids[2], ids[1], ids[0], ids[3]]
    assert [r.finish for r in links(app, tid)] == ["time", "time"]


def test_a_withdrawal_forfeits_the_challenge_and_frees_the_place(app: Flask) -> None:
    tid, ids = make_ladder(app, 5)
    challenge(app, tid, ids[3], ids[1], MOMENT)
    with app.app_context(), session_scope() as session:
        lifecycle.withdraw(session, tid, ids[1], MOMENT)
    assert rungs(app, tid) == [ids[0], ids[3], ids[2], ids[4]]
    (link,) = links(app, tid)
    assert (link.outcome, link.finish) == ("first", "forfeit") and open_games(app, tid) == []
    assert tournament(app, tid).status == TournamentStatus.PLAYING


def test_after_the_end_a_game_ending_moves_nobody(app: Flask) -> None:
    tid, ids = make_ladder(app, 3)
    game_id = challenge(app, tid, ids[2], ids[1], MOMENT)
    with app.app_context(), session_scope() as session:
        organiser = session.get(Player, ids[0])
        assert organiser is not None
        lifecycle.end(session, tid, organiser)
    resign(app, game_id, "B")
    assert rungs(app, tid) == ids
    assert refused(app, tid, ids[1], ids[0], MOMENT) == 409


def test_two_challenges_at_once_by_one_player_deal_one_game(app: Flask) -> None:
    tid, ids = make_ladder(app, 5)
    barrier = threading.Barrier(2)
    outcomes: list[str] = []
    errors: list[BaseException] = []

    def run(defender: int) -> None:
        try:
            barrier.wait(timeout=30)
            try:
                challenge(app, tid, ids[4], defender, MOMENT)
                outcomes.append("dealt")
            except TournamentRefusal as refusal:
                outcomes.append(str(refusal.status))
        except BaseException as error:  # reported in the test's thread
            errors.append(error)

    threads = [threading.Thread(target=run, args=(d,)) for d in (ids[1], ids[2])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    assert sorted(outcomes) == ["409", "dealt"]
    assert game_count(app) == 1 and len(open_games(app, tid)) == 1
