"""Exactly one rating change per finished game, however its end is raced: a resignation and a
loss on time sent at the same moment, for games of the same two players ending at once, in
real concurrent transactions (on PostgreSQL, and on SQLite where they queue)."""

from __future__ import annotations

import itertools
import threading

from flask import Flask
from sqlmodel import col, select

from service.db import session_scope
from service.games.state import apply_moves
from service.models import Game, GameStatus, Player
from service.ratings.models import Rating, RatingChange
from service.ratings.record import Verdict
from service.refusal import Refusal
from tests.service.rating_games import play_turns, rated_game, state_of

GAMES = 50
AT_ONCE = 5
"""Games ended in the same moment (each by two finishers): within the connection pool."""


def _finish(app: Flask, game_id: int, seat: str, ply: int, how: str) -> bool:
    """Whether this finisher ended the game (False: the other was first)."""
    with app.app_context():
        try:
            with session_scope() as session:
                apply_moves(session, game_id, seat, ply, [how], by_server=how == "timeout")
        except Refusal:
            return False
    return True


def test_fifty_racing_finishes_rate_once(app: Flask) -> None:
    games = [rated_game(app) for _ in range(GAMES)]
    for game in games:
        play_turns(app, game, 4)
    outcomes: dict[int, list[bool]] = {game: [] for game in games}
    lock = threading.Lock()
    for start in range(0, GAMES, AT_ONCE):
        batch = games[start : start + AT_ONCE]
        plans = []
        for game in batch:
            state = state_of(app, game)
            assert state.to_move is not None and state.result is None
            other = next(s for s in state.ruleset.seats if s != state.to_move)
            plans += [
                (game, other, state.ply, "resign"),
                (game, state.to_move, state.ply, "timeout"),
            ]
        barrier = threading.Barrier(len(plans))
        errors: list[BaseException] = []

        def run(
            game: int,
            seat: str,
            ply: int,
            how: str,
            barrier: threading.Barrier = barrier,
            errors: list[BaseException] = errors,
        ) -> None:
            try:
                barrier.wait(timeout=30)
                ended = _finish(app, game, seat, ply, how)
                with lock:
                    outcomes[game].append(ended)
            except BaseException as error:  # reported in the test's thread
                errors.append(error)

        threads = [threading.Thread(target=run, args=plan) for plan in plans]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert not errors, errors
    assert all(sorted(ended) == [False, True] for ended in outcomes.values()), outcomes
    with app.app_context(), session_scope() as session:
        finished = session.exec(select(Game).where(col(Game.id).in_(games))).all()
        assert {g.status for g in finished} == {GameStatus.FINISHED}
        rows = session.exec(
            select(RatingChange).order_by(col(RatingChange.created_at), col(RatingChange.id))
        ).all()
        per_game: dict[int, int] = {}
        for row in rows:
            per_game[row.game_id] = per_game.get(row.game_id, 0) + 1
        assert per_game == dict.fromkeys(games, 2)
        # No change was lost to another: each player's changes follow on from each other, and
        # their rating counts exactly the counted ones.
        for player in session.exec(select(Player).where(col(Player.computer).is_(None))).all():
            mine = [r for r in rows if r.player_id == player.id]
            for earlier, later in itertools.pairwise(mine):
                assert later.before == earlier.after
            rating = session.exec(select(Rating).where(Rating.player_id == player.id)).one()
            assert rating.games == sum(r.verdict == Verdict.COUNTED for r in mine)
            assert rating.rating == mine[-1].after
