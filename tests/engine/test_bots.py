"""The computer opponent: it decides from its seat's view only, its moves are always legal, it
plays whole games in every variant, and ``python -m engine match`` reports and repeats."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import get_type_hints

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    RULESETS,
    SEATS,
    Action,
    BotLevel,
    ClaimTiming,
    GameState,
    PlayerView,
    apply,
    choose_move,
    deal_from_seed,
    legal_moves,
    play_match,
    player_view,
    start,
)
from engine.bots.determinise import determinise, unseen_cards
from engine.bots.levels import Baseline
from tests.engine.builders import all_cards, position

ROOT = Path(__file__).resolve().parents[2]
LEVELS = list(BotLevel)
EVERY_LEVEL = [*BotLevel, *Baseline]
SEARCHING = {BotLevel.STRONG, BotLevel.EXPERT, Baseline.STRONG_2026}
TINY = 1
"""The search levels' budget in tests: one sampled world (or iteration) per decision keeps them
quick (how strong they are, and how fast, is bench/bots.py's business)."""

rulesets = st.sampled_from(sorted(RULESETS))
claim_timings = st.sampled_from(list(ClaimTiming))


def random_positions(ruleset: str, claims: ClaimTiming, seed: int) -> list[GameState]:
    """Every position of a game between random movers that claim what they can."""
    rs = RULESETS[ruleset]
    state = start(rs, claims, deal_from_seed(rs, f"bots/{seed}"))
    rng = random.Random(seed)
    seen = []
    while state.result is None:
        seen.append(state)
        moves = legal_moves(state)
        claimed = [m for m in moves if m.action is Action.CLAIM]
        state, _ = apply(state, claimed[0] if claimed else rng.choice(moves))
    return seen


# --- it sees its own view, nothing more -----------------------------------------------------------


def test_choose_move_takes_a_player_view_and_never_a_game_state() -> None:
    hints = get_type_hints(choose_move)
    assert hints["view"] is PlayerView
    assert GameState not in hints.values()
    state = start(
        RULESETS["battleline"], ClaimTiming.ADVANCED, deal_from_seed(RULESETS["battleline"], "s")
    )
    with pytest.raises(TypeError, match="PlayerView"):
        choose_move(state, "normal", random.Random(1))  # type: ignore[arg-type]


def two_worlds() -> tuple[GameState, GameState]:
    """Two positions that differ only in what A cannot see: B's hand and the order (and
    contents) of the decks."""
    common = {
        "flags": {
            2: {"A": ["R8", "R9"], "B": ["B3", "B4", "B5"]},
            5: {"A": ["G10"], "B": ["Y7", "O7"], "env": ["FOG:B"]},
            7: {"A": ["P2", "P3", "P4"], "B": ["O1"]},
        },
        "discards": {"B": ["SCOUT"]},
        "tactics_played": (1, 2),
        "claims": "advanced",
    }
    hand_a = ["R7", "R10", "Y1", "G5", "P9", "ALEXANDER", "TRAITOR"]
    first = position(
        **common,  # type: ignore[arg-type]
        hands={"A": hand_a, "B": ["B6", "B7", "O8", "O9", "Y8", "DESERTER", "MUD"]},
        troop_top=["G1", "G2"],
        tactics_top=["DARIUS", "CAVALRY"],
    )
    second = position(
        **common,  # type: ignore[arg-type]
        hands={"A": hand_a, "B": ["G1", "G2", "G3", "Y2", "P1", "CAVALRY", "REDEPLOY"]},
        troop_top=["B6", "B7", "O8"],
        tactics_top=["MUD", "DESERTER"],
    )
    return first, second


def test_two_worlds_differ_only_in_what_the_seat_cannot_see() -> None:
    first, second = two_worlds()
    assert first.hands[1] != second.hands[1]
    assert first.troop_deck != second.troop_deck and first.tactics_deck != second.tactics_deck
    assert sorted(all_cards(first)) == sorted(all_cards(second))
    assert player_view(first, "A") == player_view(second, "A")
    assert player_view(first, "A").to_json() == player_view(second, "A").to_json()
    assert player_view(first, "B") != player_view(second, "B"), "B's own hand differs"


@pytest.mark.parametrize("level", EVERY_LEVEL)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_other_hand_and_the_deck_order_do_not_change_the_choice(
    level: BotLevel, seed: int
) -> None:
    first, second = two_worlds()
    moves = [
        choose_move(player_view(state, "A"), level, random.Random(seed), budget=2)
        for state in (first, second)
    ]
    assert moves[0] == moves[1]
    assert moves[0] in legal_moves(first) and moves[1] in legal_moves(second)


@settings(max_examples=25, deadline=None)
@given(ruleset=rulesets, claims=claim_timings, seed=st.integers(0, 10**6), pick=st.randoms())
def test_a_determinisation_keeps_the_view_and_the_legal_moves(
    ruleset: str, claims: ClaimTiming, seed: int, pick: random.Random
) -> None:
    positions = random_positions(ruleset, claims, seed)
    for state in pick.sample(positions, min(12, len(positions))):
        seen = player_view(state, state.to_move)
        world = determinise(seen, random.Random(seed))
        assert player_view(world, state.to_move) == seen
        assert sorted(all_cards(world)) == sorted(all_cards(state))
        # the same moves (a Scout's returns list the hand in another order: compare as sets)
        assert set(legal_moves(world)) == set(legal_moves(state))
        hidden = set(unseen_cards(seen))
        others = [h for i, h in enumerate(state.hands) if SEATS[i] != state.to_move]
        assert hidden == {*state.troop_deck, *state.tactics_deck, *(c for h in others for c in h)}


# --- its moves are legal --------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(
    ruleset=rulesets,
    claims=claim_timings,
    level=st.sampled_from(LEVELS),
    seed=st.integers(0, 10**6),
    pick=st.randoms(),
)
def test_the_bot_chooses_a_legal_move_in_every_variant(
    ruleset: str, claims: ClaimTiming, level: BotLevel, seed: int, pick: random.Random
) -> None:
    positions = random_positions(ruleset, claims, seed)
    # every phase of a turn comes up in a game; the search levels are checked at fewer positions
    count = 6 if level in SEARCHING else 40
    for state in pick.sample(positions, min(count, len(positions))):
        move = choose_move(
            player_view(state, state.to_move), level, random.Random(seed), budget=TINY
        )
        assert move in legal_moves(state), (str(move), state.phase)


@settings(max_examples=20, deadline=None)
@given(
    ruleset=rulesets,
    claims=claim_timings,
    level=st.sampled_from(EVERY_LEVEL),
    seed=st.integers(0, 10**6),
    pick=st.randoms(),
)
def test_every_level_chooses_legally_and_alike_whatever_the_seat_cannot_see(
    ruleset: str, claims: ClaimTiming, level: BotLevel | Baseline, seed: int, pick: random.Random
) -> None:
    positions = random_positions(ruleset, claims, seed)
    for state in pick.sample(positions, min(3 if level in SEARCHING else 12, len(positions))):
        seat = state.to_move
        seen = player_view(state, seat)
        # another world the seat cannot tell from this one: the other hands and the decks
        # dealt again from the cards it has not seen
        other = determinise(seen, random.Random(seed + 1))
        assert player_view(other, seat) == seen
        moves = [
            choose_move(player_view(world, seat), level, random.Random(seed), budget=2)
            for world in (state, other)
        ]
        assert moves[0] == moves[1]
        assert moves[0] in legal_moves(state) and moves[1] in legal_moves(other)


@pytest.mark.parametrize("level", ["sometimes", ""])
def test_an_unknown_level_is_refused(level: str) -> None:
    state = start(
        RULESETS["battleline"], ClaimTiming.ADVANCED, deal_from_seed(RULESETS["battleline"], "x")
    )
    with pytest.raises(ValueError):
        choose_move(player_view(state, state.to_move), level, random.Random(1))


def test_only_the_seat_to_move_is_asked() -> None:
    state = start(
        RULESETS["battleline"], ClaimTiming.ADVANCED, deal_from_seed(RULESETS["battleline"], "x")
    )
    other = next(s for s in state.ruleset.seats if s != state.to_move)
    with pytest.raises(ValueError, match="turn"):
        choose_move(player_view(state, other), "normal", random.Random(1))


def test_the_bot_claims_a_provable_flag_at_once() -> None:
    state = position(
        claims="advanced",
        flags={4: {"A": ["R8", "R9", "R10"], "B": ["B1", "B2"]}},
        hands={"A": ["G1", "G2"], "B": ["Y5"]},
    )
    for level in LEVELS:
        move = choose_move(player_view(state, "A"), level, random.Random(1), budget=TINY)
        assert str(move) == "A: claim 4"


# --- whole games ----------------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", sorted(RULESETS))
@pytest.mark.parametrize("level", LEVELS)
def test_each_level_plays_whole_games_in_every_ruleset(ruleset: str, level: BotLevel) -> None:
    rs = RULESETS[ruleset]
    games = 1 if level in SEARCHING else rs.players
    for claims in ClaimTiming:
        result = play_match(level, "normal", games, f"whole/{claims}", rs, claims, budget=TINY)
        assert result.games == games == result.wins + result.losses + result.draws
        assert result.plies > 0


def test_a_match_repeats_for_its_seed() -> None:
    rs = RULESETS["schotten-totten"]
    first = play_match("normal", "random", 4, "again", rs)
    second = play_match("normal", "random", 4, "again", rs)
    assert (first.wins, first.losses, first.draws, first.plies) == (
        second.wins,
        second.losses,
        second.draws,
        second.plies,
    )


def test_an_observer_sees_every_position_of_every_game_and_changes_nothing() -> None:
    rs = RULESETS["schotten-totten"]
    seen: list[tuple[int, GameState]] = []
    watched = play_match(
        "normal", "random", 3, "watch", rs, first=2, observe=lambda g, s: seen.append((g, s))
    )
    alone = play_match("normal", "random", 3, "watch", rs, first=2)
    assert (watched.wins, watched.plies) == (alone.wins, alone.plies)
    assert [g for g, _ in seen] == sorted(g for g, _ in seen)
    assert {g for g, _ in seen} == {2, 3, 4}
    # one position before each move, and the end of each game
    assert len(seen) == watched.plies + 3
    ends = [s for _, s in seen if s.result is not None]
    assert len(ends) == 3
    for game in (2, 3, 4):
        plies = [s.ply for g, s in seen if g == game]
        assert plies == list(range(plies[0], plies[0] + len(plies)))


def test_three_players_each_computer_seat_decides_from_its_own_view() -> None:
    rs = RULESETS["no-tactics-3p"]
    state = start(rs, ClaimTiming.ADVANCED, deal_from_seed(rs, "three"))
    rng = random.Random(4)
    while state.result is None and state.ply < 60:
        seen = player_view(state, state.to_move)
        assert seen.seat == state.to_move and len(seen.hand) == len(
            state.hands[SEATS.index(seen.seat)]
        )
        move = choose_move(seen, "normal", rng)
        assert move.seat == state.to_move
        state, _ = apply(state, move)


# --- the command line -----------------------------------------------------------------------------


def engine_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )


@pytest.mark.parametrize("ruleset", ["battleline", "no-tactics-3p"])
def test_match_prints_one_json_line_that_repeats_for_a_seed(ruleset: str) -> None:
    args = ("match", "--bot", "normal", "--against", "random", "--games", "3", "--seed", "7")
    runs = [engine_cli(*args, "--ruleset", ruleset) for _ in range(2)]
    lines = []
    for done in runs:
        assert done.returncode == 0, done.stderr
        assert done.stdout.count("\n") == 1
        lines.append(json.loads(done.stdout))
    first, second = lines
    assert {"bot", "against", "games", "wins", "losses", "draws", "ms_per_move"} <= set(first)
    assert (first["bot"], first["against"], first["games"]) == ("normal", "random", 3)
    assert first["ruleset"] == ruleset
    assert first["wins"] + first["losses"] + first["draws"] == 3
    assert isinstance(first["ms_per_move"], float) and first["ms_per_move"] >= 0
    counts = ("wins", "losses", "draws", "plies_per_game")
    assert [first[k] for k in counts] == [second[k] for k in counts]


def test_match_with_standard_claims_and_the_strong_level() -> None:
    done = engine_cli(
        "match",
        "--bot",
        "strong",
        "--against",
        "normal",
        "--games",
        "1",
        "--budget",
        "1",
        "--claims",
        "standard",
        "--ruleset",
        "schotten-totten",
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert (out["claims"], out["budget"], out["games"]) == ("standard", 1, 1)


def test_match_with_a_budget_for_each_level() -> None:
    """``--against-budget`` gives the other level its own budget (as bench.bots' ``LEVEL@N``);
    without it both levels take ``--budget``."""
    common = ["match", "--bot", "strong", "--against", "expert", "--games", "2", "--budget", "1"]
    common += ["--ruleset", "schotten-totten"]
    one = json.loads(engine_cli(*common, "--against-budget", "2").stdout)
    assert (one["budget"], one["against_budget"]) == (1, 2)
    both = json.loads(engine_cli(*common).stdout)
    assert (both["budget"], both["against_budget"]) == (1, 1)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bot", "genius", "--against", "random"], "invalid choice: 'genius'"),
        (["--bot", "normal"], "--against"),
        (["--bot", "normal", "--against", "random", "--games", "0"], "not a positive number"),
        (["--bot", "normal", "--against", "random", "--games", "many"], "not a whole number"),
        (["--bot", "normal", "--against", "random", "--ruleset", "chess"], "invalid choice"),
        (["--bot", "normal", "--against", "random", "--claims", "never"], "invalid choice"),
    ],
)
def test_match_refuses_bad_arguments_with_exit_status_2(args: list[str], message: str) -> None:
    done = engine_cli("match", *args)
    assert done.returncode == 2
    assert message in done.stderr and done.stdout == ""
