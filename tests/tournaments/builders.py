"""Results for tournament tests: a section's games with outcomes drawn by hypothesis."""

from __future__ import annotations

from hypothesis import strategies as st

from tournaments import Finish, GameResult, Outcome, schedule

FLAGS_TO_WIN = 5


@st.composite
def game_results(draw: st.DrawFn, round: int, first: int, second: int) -> GameResult:
    """A finished game: a winner holding 3 to 5 flags or a draw on flags, any finish."""
    outcome = draw(st.sampled_from(Outcome))
    finish = draw(st.sampled_from([Finish.PLAYED, Finish.TIME, Finish.ADJUDICATED]))
    low = draw(st.integers(0, 4))
    if outcome is Outcome.DRAW:
        return GameResult(round, first, second, outcome, low, low, finish)
    high = draw(st.integers(min(low + 1, FLAGS_TO_WIN), FLAGS_TO_WIN))
    if outcome is Outcome.FIRST_WINS:
        return GameResult(round, first, second, outcome, high, low, finish)
    return GameResult(round, first, second, outcome, low, high, finish)


@st.composite
def round_robins(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[GameResult, ...]]:
    """A section of 3 to 8 players with every scheduled game finished."""
    count = draw(st.integers(3, 8))
    players = tuple(range(1, count + 1))
    section = schedule(players, double=draw(st.booleans()))
    games = tuple(draw(game_results(p.round, p.first, p.second)) for p in section.pairings)
    return players, games
