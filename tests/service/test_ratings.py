"""A rated game changes its players' ratings once, when it ends, in the transaction that ends
it; the correspondence rules (a game too short, a second loss on time without a move between,
vacation days) on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from flask import Flask
from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from service.db import session_scope
from service.models import Game, MoveEntry, Player, Seat
from service.ratings.models import RatingChange
from service.ratings.record import Verdict
from tests.service.rating_games import (
    changes,
    end_game,
    play_turns,
    rated_game,
    rating_of,
    signed_in_player,
    state_of,
)

ANN, BEN, CAL = "ann@example.org", "ben@example.org", "cal@example.org"


def test_a_rated_game_changes_both_ratings_once(app: Flask) -> None:
    game = rated_game(app)
    play_turns(app, game, 4)
    end_game(app, game, "B")
    rows = changes(app, game)
    assert [r.verdict for r in rows] == [Verdict.COUNTED] * 2
    ann, ben = rating_of(app, ANN), rating_of(app, BEN)
    assert ann is not None and ben is not None
    assert ann.rating == pytest.approx(1662.3, abs=0.5)
    assert ben.rating == pytest.approx(1337.7, abs=0.5)
    assert ann.games == ben.games == 1
    assert {r.before for r in rows} == {1500}


def test_a_casual_game_changes_nothing(app: Flask) -> None:
    game = rated_game(app, rated=False)
    play_turns(app, game, 4)
    end_game(app, game, "B")
    assert changes(app, game) == []
    assert rating_of(app, ANN) is None


def test_a_player_not_signed_in_makes_it_casual(app: Flask) -> None:
    game = rated_game(app)
    with app.app_context(), session_scope() as session:
        seat = session.exec(select(Seat).where(Seat.game_id == game, Seat.letter == "B")).one()
        player = session.get(Player, seat.player_id)
        assert player is not None
        player.name_confirmed = False
        session.add(player)
    play_turns(app, game, 4)
    end_game(app, game, "B")
    assert changes(app, game) == []


def test_fewer_than_two_turns_each_is_not_rated(app: Flask) -> None:
    """The first player plays a turn, the second one, the first a second; the second resigns
    in its second: it played one. Nobody has a rating yet (the first counted game makes it)."""
    game = rated_game(app)
    state = play_turns(app, game, 3)
    assert state.to_move is not None
    end_game(app, game, state.to_move)
    rows = changes(app, game)
    assert [r.verdict for r in rows] == [Verdict.TOO_SHORT] * 2
    assert all(r.before == r.after == 1500 for r in rows)
    assert rating_of(app, ANN) is None


def test_two_turns_each_is_rated(app: Flask) -> None:
    game = rated_game(app)
    state = play_turns(app, game, 4)
    assert state.to_move is not None
    end_game(app, game, state.to_move)  # at the start of its third turn
    assert [r.verdict for r in changes(app, game)] == [Verdict.COUNTED] * 2


def _on_time(app: Flask, game: int) -> str:
    """The seat to move loses on time; returns it."""
    seat = state_of(app, game).to_move
    assert seat is not None
    end_game(app, game, seat, how="timeout")
    return seat


def test_only_the_first_of_several_losses_on_time_counts(app: Flask) -> None:
    """Ann stops playing: she runs out of time in three games. The first is a rated loss; the
    others are annulled (no change), as on OGS."""
    games = [rated_game(app, (ANN, other)) for other in (BEN, CAL, "dan@example.org")]
    for game in games:
        play_turns(app, game, 4, then="A")
    for game in games:
        assert _on_time(app, game) == "A"
    verdicts = [{r.verdict for r in changes(app, game)} for game in games]
    assert verdicts == [{Verdict.COUNTED}, {Verdict.ANNULLED}, {Verdict.ANNULLED}]
    ann = rating_of(app, ANN)
    assert ann is not None and ann.games == 1
    assert rating_of(app, CAL) is None  # no counted game yet


def test_a_move_between_losses_on_time_makes_both_count(app: Flask) -> None:
    first, second = rated_game(app, (ANN, BEN)), rated_game(app, (ANN, CAL))
    play_turns(app, first, 4, then="A")
    play_turns(app, second, 4, then="B")
    assert _on_time(app, first) == "A"
    play_turns(app, second, 2, then="A")  # Cal, then Ann plays: she came back
    assert _on_time(app, second) == "A"
    assert {r.verdict for r in changes(app, second)} == {Verdict.COUNTED}
    ann = rating_of(app, ANN)
    assert ann is not None and ann.games == 2


def test_an_automatic_claim_is_no_move_of_the_player(app: Flask) -> None:
    """A claim logged for Ann between her losses on time (the start of her turn claims by
    itself in her absence) does not make the second count."""
    first, second = rated_game(app, (ANN, BEN)), rated_game(app, (ANN, CAL))
    play_turns(app, first, 4, then="A")
    play_turns(app, second, 4, then="A")
    assert _on_time(app, first) == "A"
    with app.app_context(), session_scope() as session:
        game = session.get(Game, second)
        assert game is not None
        # Beside the log, where no replay reads it: only its time and words matter here.
        session.add(MoveEntry(game_id=second, ply=10_000, seat="A", notation="A: claim 1"))
    assert _on_time(app, second) == "A"
    assert {r.verdict for r in changes(app, second)} == {Verdict.ANNULLED}


def test_the_winner_on_time_is_rated_normally(app: Flask) -> None:
    game = rated_game(app)
    play_turns(app, game, 4, then="A")
    assert _on_time(app, game) == "A"
    ann, ben = rating_of(app, ANN), rating_of(app, BEN)
    assert ann is not None and ben is not None
    assert ben.rating > 1500 > ann.rating
    rows = {r.player_id: r for r in changes(app, game)}
    assert [r.time_loss for r in rows.values()].count(True) == 1


def test_vacation_days_used_count_against_no_one(app: Flask) -> None:
    """The same game with and without vacation days used changes the ratings the same."""
    results = []
    for pair, used in (((ANN, BEN), 0), ((CAL, "dan@example.org"), 5)):
        game = rated_game(app, pair)
        play_turns(app, game, 4)
        with app.app_context(), session_scope() as session:
            for seat in session.exec(select(Seat).where(Seat.game_id == game)).all():
                seat.vacation_days_used = used
                session.add(seat)
        end_game(app, game, "B")
        results.append(sorted(round(r.after - r.before, 6) for r in changes(app, game)))
    assert results[0] == results[1]


def test_three_players_share_a_draw(app: Flask) -> None:
    """Battle Line for three: Cal resigns, the other two share a draw (V6.7) when level: both
    above Cal; the three are one pool."""
    for email in (ANN, BEN, CAL):
        signed_in_player(app, email, email[:3].title())
    game = rated_game(app, (ANN, BEN, CAL), ruleset="no-tactics-3p")
    play_turns(app, game, 6)
    state = end_game(app, game, "C")
    assert state.result is not None
    rows = {r.player_id: r for r in changes(app, game)}
    assert {r.pool for r in rows.values()} == {"three"}
    ann, cal = rating_of(app, ANN, "three"), rating_of(app, CAL, "three")
    assert ann is not None and cal is not None
    assert cal.rating < 1500 and ann.rating > cal.rating


def test_one_change_per_game_and_player_is_enforced(app: Flask) -> None:
    """The unique key refuses a second change of a game for a player."""
    game = rated_game(app)
    play_turns(app, game, 4)
    end_game(app, game, "B")
    row = changes(app, game)[0]
    with pytest.raises(IntegrityError), app.app_context(), session_scope() as session:
        session.add(
            RatingChange(
                game_id=row.game_id,
                player_id=row.player_id,
                pool=row.pool,
                verdict=row.verdict,
                before=1,
                after=2,
                deviation_after=3,
            )
        )
    with app.app_context(), session_scope() as session:
        assert session.get(Game, game) is not None
