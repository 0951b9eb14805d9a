"""Benchmarks of the claim prover, side by side with the brute-force oracle.

Part of ``python -m bench.engine``. Every figure is a median of real measurements
(``perf_counter_ns``) in this process; nothing here asserts a target, it only reports.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO

from engine.formations import formation_size
from engine.prover import UnseenTroops, prove_claim
from engine.rulesets import BATTLELINE, Ruleset
from tests.engine import oracle

WILDS = ("ALEXANDER", "CAVALRY", "SHIELD")


@dataclass
class Situation:
    """One flag as the claims command sees it."""

    mine: list[str]
    theirs: list[str]
    env: list[str]
    visible: list[str]
    completed_last: str = "theirs"


@dataclass
class Position:
    """A mid-game board: nine flags (both sides, env) and the discards, for the seat to move."""

    flags: list[tuple[list[str], list[str], list[str]]] = field(default_factory=list)
    discards: list[str] = field(default_factory=list)

    def visible(self) -> list[str]:
        cards = list(self.discards)
        for mine, theirs, env in self.flags:
            cards += mine + theirs + env
        return cards


def make_situation(rng: random.Random, kind: str, ruleset: Ruleset = BATTLELINE) -> Situation:
    """A random flag of one kind: plain, fog, wild, mud, mud-empty (Mud, nothing opposite)."""
    env = {"fog": ["FOG"], "mud": ["MUD"], "mud-empty": ["MUD"]}.get(kind, [])
    size = formation_size(env, ruleset)
    deck = list(ruleset.troops)
    rng.shuffle(deck)
    mine = [deck.pop() for _ in range(size)]
    if kind == "mud-empty":
        theirs: list[str] = []
    else:
        theirs = [deck.pop() for _ in range(rng.randint(1, size - 1))]
    if kind == "wild":
        theirs[0] = rng.choice(("ALEXANDER", "DARIUS"))
        mine[0] = rng.choice(("CAVALRY", "SHIELD"))
    # a mid-game amount of open information: 12 to 24 other troops face up
    visible = deck[: rng.randint(12, 24)]
    return Situation(mine, theirs, env, visible)


def prove(s: Situation, ruleset: Ruleset = BATTLELINE) -> bool:
    """The prover on one situation, building its UnseenTroops as a flag check would."""
    unseen = UnseenTroops.from_visible([*s.mine, *s.theirs, *s.visible], ruleset)
    return prove_claim(s.mine, s.theirs, s.env, unseen, ruleset, s.completed_last).claimable


def prove_by_oracle(s: Situation, ruleset: Ruleset = BATTLELINE) -> bool:
    """The oracle on one situation."""
    return oracle.claim(s.mine, s.theirs, s.env, s.visible, ruleset, s.completed_last)[0]


def time_each(fn: Callable[[], object], repeats: int) -> list[float]:
    """Seconds per call, one measurement per call."""
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        fn()
        out.append((time.perf_counter_ns() - t0) / 1e9)
    return out


def midgame_position(rng: random.Random, ruleset: Ruleset = BATTLELINE) -> Position:
    """About 20 cards on the board, a few discards, complete sides on both parts, Fog and Mud."""
    deck = list(ruleset.troops)
    rng.shuffle(deck)
    position = Position()
    env_at = rng.sample(range(9), 2)
    morale = list(WILDS)
    rng.shuffle(morale)
    counts = [(3, 3), (3, 1), (3, 2), (2, 3), (1, 3), (2, 1), (1, 0), (0, 1), (1, 1)]
    rng.shuffle(counts)
    for i, (a, b) in enumerate(counts):
        env = ["FOG"] if i == env_at[0] else ["MUD"] if i == env_at[1] else []
        mine = [deck.pop() for _ in range(a)]
        theirs = [deck.pop() for _ in range(b)]
        if mine and morale and rng.random() < 0.3:
            mine[0] = morale.pop()
        if theirs and morale and rng.random() < 0.3:
            theirs[0] = morale.pop()
        position.flags.append((mine, theirs, env))
    position.discards = [deck.pop() for _ in range(3)] + ["SCOUT"]
    return position


def check_all_flags(position: Position, ruleset: Ruleset = BATTLELINE) -> int:
    """What the engine does each turn: UnseenTroops once, then prove_claim for every flag."""
    unseen = UnseenTroops.from_visible(position.visible(), ruleset)
    claimable = 0
    for mine, theirs, env in position.flags:
        if prove_claim(mine, theirs, env, unseen, ruleset, "theirs").claimable:
            claimable += 1
    return claimable


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:10.1f} µs"


def run(out: TextIO, seed: int = 1, oracle_cases: int = 6) -> dict[str, float]:
    """Print the prover's figures and return them (seconds; ratios as plain numbers)."""
    rng = random.Random(seed)
    figures: dict[str, float] = {}
    out.write("== prover vs oracle (medians per flag; same situations) ==\n")
    out.write(f"{'kind':<10} {'prover':>13} {'oracle':>13} {'ratio':>10}\n")
    for kind in ("plain", "fog", "wild", "mud", "mud-empty"):
        cases = [make_situation(rng, kind) for _ in range(oracle_cases)]
        prover_times: list[float] = []
        oracle_times: list[float] = []
        for s in cases:
            assert prove(s) == prove_by_oracle(s), s  # the benchmark compares equal answers
            prover_times.append(statistics.median(time_each(lambda s=s: prove(s), 200)))
            oracle_times.append(statistics.median(time_each(lambda s=s: prove_by_oracle(s), 1)))
        p, o = statistics.median(prover_times), statistics.median(oracle_times)
        figures[f"{kind}.prover"], figures[f"{kind}.oracle"] = p, o
        figures[f"{kind}.ratio"] = o / p
        out.write(f"{kind:<10} {_us(p)} {_us(o)} {o / p:9.0f}x\n")

    out.write("\n== single flag, worst case over many situations ==\n")
    worst = 0.0
    worst_kind = ""
    for kind in ("plain", "fog", "wild", "mud", "mud-empty"):
        for _ in range(400):
            s = make_situation(rng, kind)
            t = min(time_each(lambda s=s: prove(s), 5))  # min of 5: the flag's own cost
            if t > worst:
                worst, worst_kind = t, kind
    figures["worst_single_flag"] = worst
    out.write(f"worst single flag: {_us(worst)} ({worst_kind})\n")

    out.write("\n== all nine flags of a mid-game position (UnseenTroops built once) ==\n")
    medians = []
    for _ in range(50):
        position = midgame_position(rng)
        medians.append(statistics.median(time_each(lambda p=position: check_all_flags(p), 200)))
    nine = statistics.median(medians)
    figures["nine_flags"] = nine
    out.write(
        f"nine flags, median over 50 positions x 200 runs: {_us(nine)}"
        f" (worst position median {_us(max(medians))})\n"
    )
    return figures


def summary(figures: dict[str, float], out: TextIO) -> None:
    """The targets next to what was measured."""
    out.write("\n== targets ==\n")
    out.write(f"nine flags < 100 µs median:  {_us(figures['nine_flags'])}\n")
    out.write(f"no single flag > 1 ms:       {_us(figures['worst_single_flag'])}\n")
    for kind in ("mud", "mud-empty"):
        out.write(f"prover >= 100x oracle ({kind}): {figures[kind + '.ratio']:.0f}x\n")
