"""Round-robin sections by the FIDE Berger tables."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from caissify_pairings import generate_pairings
from hypothesis import given
from hypothesis import strategies as st

from tournaments import TournamentError, berger_round, schedule

# The FIDE Handbook's Berger tables (C.05, Annex 1), round by round, first seat first.
FIDE_BERGER = {
    4: [["1-4", "2-3"], ["4-3", "1-2"], ["2-4", "3-1"]],
    6: [
        ["1-6", "2-5", "3-4"],
        ["6-4", "5-3", "1-2"],
        ["2-6", "3-1", "4-5"],
        ["6-5", "1-4", "2-3"],
        ["3-6", "4-2", "5-1"],
    ],
    8: [
        ["1-8", "2-7", "3-6", "4-5"],
        ["8-5", "6-4", "7-3", "1-2"],
        ["2-8", "3-1", "4-7", "5-6"],
        ["8-6", "7-5", "1-4", "2-3"],
        ["3-8", "4-2", "5-1", "6-7"],
        ["8-7", "1-6", "2-5", "3-4"],
        ["4-8", "5-3", "6-2", "7-1"],
    ],
}


@pytest.mark.parametrize("size", sorted(FIDE_BERGER))
def test_berger_rounds_match_the_fide_tables(size: int) -> None:
    for round, boards in enumerate(FIDE_BERGER[size], start=1):
        assert [f"{a}-{b}" for a, b in berger_round(size, round)] == boards


@pytest.mark.parametrize("size", [4, 6, 8, 10, 12])
def test_berger_rounds_match_the_pairing_library_round_robin(size: int) -> None:
    players = [
        {"id": n, "name": str(n), "rating": 3000 - n, "starting_number": n}
        for n in range(1, size + 1)
    ]
    for round in range(1, size):
        games = generate_pairings("round_robin", players, set(), round, size - 1)
        expected = sorted((g["white_id"], g["black_id"]) for g in games)
        assert sorted(berger_round(size, round)) == expected


@given(count=st.integers(3, 12), double=st.booleans())
def test_everyone_meets_everyone_once_a_cycle(count: int, double: bool) -> None:
    players = tuple(range(101, 101 + count))
    section = schedule(players, double=double)
    meetings = Counter(frozenset((p.first, p.second)) for p in section.pairings)
    cycles = 2 if double else 1
    assert set(meetings) == {frozenset(pair) for pair in combinations(players, 2)}
    assert set(meetings.values()) == {cycles}
    assert len(section.pairings) == cycles * count * (count - 1) // 2
    rounds = (count - 1 + count % 2) * cycles
    assert section.rounds == rounds
    for round in range(1, rounds + 1):
        seated = [p for g in section.pairings if g.round == round for p in (g.first, g.second)]
        resting = [player for r, player in section.rests if r == round]
        assert sorted(seated + resting) == sorted(players)
        assert len(resting) == count % 2


@given(count=st.integers(3, 12))
def test_first_seats_are_balanced(count: int) -> None:
    section = schedule(tuple(range(count)), double=False)
    firsts = Counter(p.first for p in section.pairings)
    games = Counter(p for g in section.pairings for p in (g.first, g.second))
    for player in range(count):
        assert abs(2 * firsts[player] - games[player]) <= 1


def test_a_double_round_robin_swaps_the_seats_of_the_first_cycle() -> None:
    section = schedule((1, 2, 3, 4), double=True)
    first_cycle = [(p.first, p.second) for p in section.pairings if p.round <= 3]
    second_cycle = [(p.second, p.first) for p in section.pairings if p.round > 3]
    assert first_cycle == second_cycle
    assert Counter(p.first for p in section.pairings) == {1: 3, 2: 3, 3: 3, 4: 3}


def test_an_odd_section_rests_each_player_once() -> None:
    section = schedule((10, 20, 30, 40, 50))
    assert sorted(player for _, player in section.rests) == [10, 20, 30, 40, 50]
    assert section.rounds == 5
    assert len(section.pairings) == 10


def test_twelve_players_make_sixty_six_games() -> None:
    assert len(schedule(tuple(range(12))).pairings) == 66


@pytest.mark.parametrize("players", [(1, 2), tuple(range(13)), (1, 2, 2)])
def test_a_section_outside_the_rules_is_refused(players: tuple[int, ...]) -> None:
    with pytest.raises(TournamentError):
        schedule(players)
