"""Scores, tie-breaks and crosstables, recomputed from the results alone."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.tournaments.builders import round_robins
from tournaments import (
    Bye,
    Finish,
    GameResult,
    Outcome,
    Scoring,
    TieBreak,
    TournamentError,
    crosstable,
    forfeit_result,
    scores,
    standings,
)

W, L, D = Outcome.FIRST_WINS, Outcome.SECOND_WINS, Outcome.DRAW

# A section of four: 1 and 2 finish level on 2 points, 1 having beaten 2.
SECTION = (
    GameResult(1, 1, 2, W, 5, 2),
    GameResult(1, 3, 4, D, 3, 3),
    GameResult(2, 3, 1, W, 3, 1),
    GameResult(2, 2, 4, W, 5, 0),
    GameResult(3, 1, 4, W, 5, 4),
    GameResult(3, 2, 3, W, 5, 1),
)
PLAYERS = (1, 2, 3, 4)


def test_game_points_are_one_half_and_nothing() -> None:
    assert scores(PLAYERS, SECTION, (), Scoring.GAME) == {1: 2.0, 2: 2.0, 3: 1.5, 4: 0.5}


def test_series_points_are_five_for_the_winner_and_the_flags_held_otherwise() -> None:
    # 1: 5 + 1 + 5; 2: 2 + 5 + 5; 3: 3 + 5 + 1; 4: 3 + 0 + 4 (R23).
    assert scores(PLAYERS, SECTION, (), Scoring.SERIES) == {1: 11.0, 2: 12.0, 3: 9.0, 4: 7.0}


def test_sonneborn_berger_separates_the_level_players() -> None:
    table = standings(PLAYERS, SECTION, (), Scoring.GAME, (TieBreak.SONNEBORN_BERGER,))
    assert [(row.rank, row.player, row.tie_breaks) for row in table.rows] == [
        (1, 1, (2.5,)),  # beat 2 (2 points) and 4 (0.5)
        (2, 2, (2.0,)),  # beat 3 (1.5) and 4 (0.5)
        (3, 3, (2.25,)),  # beat 1, drew with 4
        (4, 4, (0.75,)),
    ]


def test_buchholz_is_level_in_a_full_round_robin_so_the_next_tie_break_decides() -> None:
    table = standings(
        PLAYERS, SECTION, (), Scoring.GAME, (TieBreak.BUCHHOLZ, TieBreak.DIRECT_ENCOUNTER)
    )
    assert [(row.player, row.tie_breaks) for row in table.rows[:2]] == [
        (1, (4.0, 1.0)),
        (2, (4.0, 0.0)),
    ]


def test_direct_encounter_counts_only_the_games_among_the_level_players() -> None:
    table = standings(PLAYERS, SECTION, (), Scoring.GAME, (TieBreak.DIRECT_ENCOUNTER,))
    assert [row.player for row in table.rows] == [1, 2, 3, 4]
    assert table.rows[0].tie_breaks == (1.0,)
    assert table.rows[2].tie_breaks == (0.0,)  # 3 is alone on 1.5


def test_direct_encounter_does_not_decide_when_the_level_players_did_not_all_meet() -> None:
    games = (GameResult(1, 1, 3, W), GameResult(1, 2, 4, W))
    table = standings(PLAYERS, games, (), Scoring.GAME, (TieBreak.DIRECT_ENCOUNTER,))
    assert [(row.rank, row.player, row.tie_breaks) for row in table.rows] == [
        (1, 1, (0.0,)),
        (1, 2, (0.0,)),
        (3, 3, (0.0,)),
        (3, 4, (0.0,)),
    ]


def test_a_bye_scores_a_win_and_meets_a_virtual_opponent_with_ones_own_score() -> None:
    games = (GameResult(1, 1, 2, W), GameResult(2, 3, 1, W), GameResult(2, 2, 4, D))
    byes = (Bye(1, 3), Bye(1, 4))
    totals = scores(PLAYERS, games, byes, Scoring.GAME)
    assert totals == {1: 1.0, 2: 0.5, 3: 2.0, 4: 1.5}
    table = standings(PLAYERS, games, byes, Scoring.GAME, (TieBreak.BUCHHOLZ,))
    row = {r.player: r for r in table.rows}
    assert row[3].tie_breaks == (2.0 + 1.0,)  # the virtual opponent (2) and player 1
    assert row[3].byes == 1 and row[3].games == 1


def test_a_forfeit_scores_a_win_without_flags_and_is_no_encounter() -> None:
    forfeit = forfeit_result(1, 1, 2, withdrawn=2)
    assert forfeit.finish is Finish.FORFEIT and forfeit.winner() == 1
    assert forfeit.points(1, Scoring.SERIES) == 5.0
    assert forfeit.points(2, Scoring.SERIES) == 0.0
    table = standings((1, 2), (forfeit,), (), Scoring.GAME, (TieBreak.SONNEBORN_BERGER,))
    assert [(r.player, r.tie_breaks) for r in table.rows] == [(1, (1.0,)), (2, (0.0,))]


@pytest.mark.parametrize(
    ("games", "byes"),
    [
        ((GameResult(1, 1, 9, W),), ()),
        ((GameResult(1, 1, 2, W), GameResult(1, 1, 3, W)), ()),
        ((GameResult(1, 1, 2, W),), (Bye(1, 2),)),
    ],
)
def test_results_that_cannot_belong_to_the_players_are_refused(
    games: tuple[GameResult, ...], byes: tuple[Bye, ...]
) -> None:
    with pytest.raises(TournamentError):
        standings(PLAYERS, games, byes, Scoring.GAME, ())


def test_a_game_against_oneself_or_a_drawn_forfeit_is_refused() -> None:
    with pytest.raises(TournamentError):
        GameResult(1, 1, 1, W)
    with pytest.raises(TournamentError):
        GameResult(1, 1, 2, D, finish=Finish.FORFEIT)


def test_the_crosstable_shows_each_meeting_from_both_sides() -> None:
    table = crosstable(PLAYERS, SECTION, Scoring.SERIES)
    first = table.rows[0]
    assert first.cells[0] is None
    assert [cell.points for cell in first.cells[1:] if cell] == [(5.0,), (1.0,), (5.0,)]
    assert first.score == 11.0
    column = [row.cells[0] for row in table.rows[1:]]
    assert [cell.points for cell in column if cell] == [(2.0,), (5.0,), (4.0,)]


TIE_BREAKS = st.lists(st.sampled_from(TieBreak), unique=True).map(tuple)


@given(
    section=round_robins(), scoring=st.sampled_from(Scoring), order=TIE_BREAKS, seed=st.randoms()
)
def test_standings_depend_on_the_results_not_their_order(
    section: tuple[tuple[int, ...], tuple[GameResult, ...]],
    scoring: Scoring,
    order: tuple[TieBreak, ...],
    seed: random.Random,
) -> None:
    players, games = section
    shuffled = list(games)
    seed.shuffle(shuffled)
    assert standings(players, tuple(shuffled), (), scoring, order) == standings(
        players, games, (), scoring, order
    )


@given(section=round_robins(), scoring=st.sampled_from(Scoring), order=TIE_BREAKS)
def test_standings_are_ordered_and_agree_with_the_crosstable(
    section: tuple[tuple[int, ...], tuple[GameResult, ...]],
    scoring: Scoring,
    order: tuple[TieBreak, ...],
) -> None:
    players, games = section
    table = standings(players, games, (), scoring, order)
    keys = [(row.score, row.tie_breaks) for row in table.rows]
    assert keys == sorted(keys, reverse=True)
    for before, after in zip(table.rows, table.rows[1:], strict=False):
        level = (before.score, before.tie_breaks) == (after.score, after.tie_breaks)
        assert (after.rank == before.rank) == level
    cross = crosstable(players, games, scoring)
    totals = {row.player: row.score for row in table.rows}
    for row in cross.rows:
        points = sum(sum(cell.points) for cell in row.cells if cell)
        assert points == totals[row.player]
    if scoring is Scoring.GAME:
        assert sum(totals.values()) == len(games)
