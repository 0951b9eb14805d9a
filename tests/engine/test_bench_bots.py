"""bench/bots.py's match runner: a progress line after each part of a match, and one record of
the whole match."""

from __future__ import annotations

import io
from itertools import accumulate

from bench.bots import VARIANTS, parts_of, play_matches, play_part


def test_each_progress_line_counts_the_match_so_far_and_the_record_is_the_whole_match() -> None:
    parts = parts_of("random", "easy", VARIANTS[0], 30, "progress")
    assert [part.games for part in parts] == [12, 12, 6]
    progress = io.StringIO()
    (record,) = play_matches([parts], 1, progress)
    results = [play_part(part)[0] for part in parts]
    wins = list(accumulate(result.wins for result in results))
    assert progress.getvalue().splitlines() == [
        f"random v easy, battleline/standard: {won} won of {played} (30)"
        for won, played in zip(wins, [12, 24, 30], strict=True)
    ]
    assert (record["games"], record["wins"]) == (30, wins[-1])
    assert record["wins"] + record["losses"] + record["draws"] == 30
