"""The ladder's challenge rules."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments import (
    Challenge,
    ChallengeError,
    Finish,
    GameResult,
    Ladder,
    Outcome,
    TournamentError,
    after_game,
    check_challenge,
    forfeit_result,
    join,
    leave,
)

LADDER = Ladder((1, 2, 3, 4, 5, 6))


@pytest.mark.parametrize("defender", [2, 3, 4])
def test_a_player_may_challenge_up_to_three_rungs_above(defender: int) -> None:
    check_challenge(LADDER, Challenge(5, defender, day=100), ())


@pytest.mark.parametrize(
    ("challenger", "defender", "reason"),
    [
        (5, 1, "4 rungs up"),
        (3, 4, "not above"),
        (3, 3, "themself"),
        (9, 1, "not on the ladder"),
    ],
)
def test_a_challenge_out_of_reach_is_refused(challenger: int, defender: int, reason: str) -> None:
    with pytest.raises(ChallengeError, match=reason):
        check_challenge(LADDER, Challenge(challenger, defender, day=100), ())


@pytest.mark.parametrize(("day", "allowed"), [(100, False), (106, False), (107, True)])
def test_the_same_two_players_meet_again_only_after_seven_days(day: int, allowed: bool) -> None:
    earlier = (Challenge(4, 3, day=100),)
    check_challenge(LADDER, Challenge(3, 2, day), earlier)  # another pair is not held back
    # After a swap the other may challenge back: the same pair, held back as well.
    swapped = Ladder((1, 2, 4, 3, 5, 6))
    for ladder, challenge in ((LADDER, Challenge(4, 3, day)), (swapped, Challenge(3, 4, day))):
        if allowed:
            check_challenge(ladder, challenge, earlier)
        else:
            with pytest.raises(ChallengeError, match="from day 107"):
                check_challenge(ladder, challenge, earlier)


@pytest.mark.parametrize("busy", [5, 3])
def test_a_player_plays_one_challenge_at_a_time(busy: int) -> None:
    check_challenge(LADDER, Challenge(5, 3, day=100), (), frozenset({1}))
    with pytest.raises(ChallengeError, match=f"player {busy} is playing a challenge already"):
        check_challenge(LADDER, Challenge(5, 3, day=100), (), frozenset({busy}))


def test_the_challenger_who_wins_swaps_rungs_with_the_defender() -> None:
    challenge = Challenge(5, 2, day=1)
    won = GameResult(1, 5, 2, Outcome.FIRST_WINS, 5, 1)
    assert after_game(LADDER, challenge, won).rungs == (1, 5, 3, 4, 2, 6)


@pytest.mark.parametrize(
    "result",
    [
        GameResult(1, 2, 5, Outcome.FIRST_WINS, 5, 3),
        GameResult(1, 5, 2, Outcome.DRAW, 2, 2, Finish.ADJUDICATED),
        GameResult(1, 5, 2, Outcome.SECOND_WINS, 0, 0, Finish.TIME),
    ],
)
def test_a_defender_who_wins_or_draws_keeps_the_rung(result: GameResult) -> None:
    assert after_game(LADDER, Challenge(5, 2, day=1), result) == LADDER


def test_a_defender_who_loses_on_time_or_by_forfeit_loses_the_rung() -> None:
    challenge = Challenge(4, 3, day=1)
    on_time = GameResult(1, 3, 4, Outcome.SECOND_WINS, 2, 1, Finish.TIME)
    assert after_game(LADDER, challenge, on_time).rungs == (1, 2, 4, 3, 5, 6)
    forfeit = forfeit_result(1, 3, 4, withdrawn=3)
    assert after_game(LADDER, challenge, forfeit).rungs == (1, 2, 4, 3, 5, 6)


def test_a_game_of_other_players_is_not_the_challenges() -> None:
    with pytest.raises(TournamentError):
        after_game(LADDER, Challenge(4, 3, 1), GameResult(1, 1, 2, Outcome.FIRST_WINS))


def test_joining_starts_at_the_bottom_and_leaving_moves_those_below_up() -> None:
    assert join(LADDER, 7).rungs == (1, 2, 3, 4, 5, 6, 7)
    assert leave(LADDER, 3).rungs == (1, 2, 4, 5, 6)
    with pytest.raises(TournamentError):
        join(LADDER, 3)
    with pytest.raises(TournamentError):
        Ladder((1, 1))


@given(
    size=st.integers(2, 12),
    moves=st.lists(st.tuples(st.integers(0, 11), st.integers(1, 3), st.booleans()), max_size=30),
)
def test_results_only_ever_reorder_the_ladder(
    size: int, moves: list[tuple[int, int, bool]]
) -> None:
    ladder = Ladder(tuple(range(size)))
    for index, reach, challenger_wins in moves:
        low = index % size
        high = low - reach
        if high < 0:
            continue
        challenger, defender = ladder.rungs[low], ladder.rungs[high]
        outcome = Outcome.FIRST_WINS if challenger_wins else Outcome.SECOND_WINS
        before = ladder
        ladder = after_game(
            ladder, Challenge(challenger, defender, 0), GameResult(1, challenger, defender, outcome)
        )
        assert sorted(ladder.rungs) == list(range(size))
        moved = [p for p, q in zip(before.rungs, ladder.rungs, strict=True) if p != q]
        assert sorted(moved) == (sorted([challenger, defender]) if challenger_wins else [])
