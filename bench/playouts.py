"""Random playouts: whole games per second per core, per variant (in ``python -m bench.engine``).

The mover is the one the tests use: it claims every provable flag (as the mail service's
automatic claims do) and otherwise picks any legal move, so each ply pays for `legal_moves`
(prover included) and `apply`.
"""

from __future__ import annotations

import random
import time
from typing import TextIO

from bench.report import Column, Table
from engine import RULESETS, Action, ClaimTiming, apply, deal, legal_moves, start

TARGET_GAMES_PER_SECOND = 300


def play_one(ruleset: str, claims: ClaimTiming, seed: int) -> int:
    """Play one random game to its end; return its number of plies."""
    rs = RULESETS[ruleset]
    rng = random.Random(seed)
    state = start(rs, claims, deal(rs, rng))
    while state.result is None:
        moves = legal_moves(state)
        chosen = next((m for m in moves if m.action is Action.CLAIM), None)
        state, _ = apply(state, chosen or rng.choice(moves))
    return state.ply


def run(out: TextIO, seconds_per_variant: float = 3.0) -> dict[str, float]:
    """Games per second for each variant and claim timing, measured one after another."""
    figures: dict[str, float] = {}
    out.write("Random playouts (one core)\n")
    table = Table(
        (
            Column("variant", 28, left=True),
            Column("games/s", 10, ".0f"),
            Column("plies/game", 12, ".0f"),
            Column("µs/ply", 9, ".1f"),
        )
    )
    out.write(table.header() + "\n")
    for name in RULESETS:
        for claims in (ClaimTiming.ADVANCED, ClaimTiming.STANDARD):
            games = plies = 0
            began = time.perf_counter()
            while time.perf_counter() - began < seconds_per_variant:
                plies += play_one(name, claims, games)
                games += 1
            spent = time.perf_counter() - began
            rate = games / spent
            figures[f"{name}/{claims}"] = rate
            row = (name + " " + claims.value, rate, plies / games, spent / plies * 1e6)
            out.write(table.row(*row) + "\n")
    return figures


def summary(figures: dict[str, float], out: TextIO) -> None:
    """One line against the aim of the issue."""
    worst = min(figures, key=lambda k: figures[k])
    out.write(
        f"\nslowest variant {worst}: {figures[worst]:.0f} games/s "
        f"(aim: {TARGET_GAMES_PER_SECOND} games/s per core)\n"
    )
