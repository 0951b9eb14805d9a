"""Round deadlines: adjudication by the flags held, and when the next round starts."""

from __future__ import annotations

import pytest

from tournaments import (
    DeadlinePolicy,
    Finish,
    OpenGame,
    Outcome,
    Scoring,
    TournamentError,
    adjudicate,
    at_deadline,
    next_round_may_start,
)


@pytest.mark.parametrize(
    ("first", "second", "outcome"),
    [(2, 1, Outcome.FIRST_WINS), (0, 3, Outcome.SECOND_WINS), (2, 2, Outcome.DRAW)],
)
def test_more_flags_wins_and_as_many_is_a_draw(first: int, second: int, outcome: Outcome) -> None:
    assert adjudicate(first, second) is outcome


def test_a_negative_flag_count_is_refused() -> None:
    with pytest.raises(TournamentError):
        adjudicate(-1, 0)


def test_a_deadline_adjudicates_every_open_game_and_scores_it_as_played() -> None:
    open_games = (OpenGame(3, 1, 2, 3, 1), OpenGame(3, 4, 5, 1, 1))
    results = at_deadline(open_games, DeadlinePolicy.ADJUDICATE)
    assert [(r.outcome, r.finish) for r in results] == [
        (Outcome.FIRST_WINS, Finish.ADJUDICATED),
        (Outcome.DRAW, Finish.ADJUDICATED),
    ]
    assert [results[0].points(p, Scoring.SERIES) for p in (1, 2)] == [5.0, 1.0]
    assert [results[1].points(p, Scoring.SERIES) for p in (4, 5)] == [1.0, 1.0]
    assert at_deadline(open_games, DeadlinePolicy.LET_FINISH) == ()


@pytest.mark.parametrize(
    ("open_games", "passed", "policy", "starts"),
    [
        (0, False, DeadlinePolicy.LET_FINISH, True),
        (2, False, DeadlinePolicy.ADJUDICATE, False),
        (2, True, DeadlinePolicy.ADJUDICATE, True),
        (2, True, DeadlinePolicy.LET_FINISH, False),
    ],
)
def test_the_next_round_starts_when_the_round_is_over_or_adjudicated(
    open_games: int, passed: bool, policy: DeadlinePolicy, starts: bool
) -> None:
    assert next_round_may_start(open_games, passed, policy) is starts
