"""Engine benchmarks: ``python -m bench.engine`` from the repository root.

Sections: the claim prover (against the brute-force oracle), the claim scan of whole positions
(two and three players), then playouts (every ruleset in ``engine.RULESETS``, the three-player
ones included).
"""

from __future__ import annotations

import random
import statistics
import sys
from typing import TextIO

from bench import playouts as playouts_bench
from bench import prover as prover_bench
from bench.report import Column, Table
from engine import (
    RULESETS,
    SEATS,
    Action,
    ClaimTiming,
    GameState,
    apply,
    claim_proofs,
    deal,
    legal_moves,
    start,
)
from engine.claims import claim_proof, unseen_troops

SCAN_TARGET = 100e-6
"""The nine-flag claim scan stays under this median (seconds)."""


def midgame_states(ruleset: str, games: int, seed: int = 1) -> list[GameState]:
    """One position from the middle third of each of ``games`` random games (the movers of the
    playouts: claim when possible, otherwise any legal move), at the start of a turn."""
    rs = RULESETS[ruleset]
    rng = random.Random(seed)
    found: list[GameState] = []
    while len(found) < games:
        state = start(rs, ClaimTiming.ADVANCED, deal(rs, rng))
        seen = [state]
        while state.result is None:
            moves = legal_moves(state)
            chosen = next((m for m in moves if m.action is Action.CLAIM), None)
            state, _ = apply(state, chosen or rng.choice(moves))
            seen.append(state)
        middle = [s for s in seen[len(seen) // 3 : 2 * len(seen) // 3] if s.played is False]
        if middle:
            found.append(rng.choice(middle))
    return found


def scan_nine_flags(state: GameState) -> int:
    """The unseen troops once, then the proof of every unclaimed flag for the first seat of its
    pair: nine flags, nine proofs, as ``bench.prover`` scans a two-player board."""
    rs = state.ruleset
    unseen = unseen_troops(state)
    proved = 0
    for i, flag in enumerate(state.flags):
        if flag.claimed_by is None:
            first = rs.flag_pairs[i][0]
            proved += claim_proof(state, first, i, unseen).claimable
    return proved


def scan_every_seat(state: GameState) -> int:
    """``claim_proofs`` for every seat: each unclaimed flag from both of its seats' sides."""
    return sum(
        p.claimable for seat in state.ruleset.seats for p in claim_proofs(state, seat).values()
    )


def run_scans(out: TextIO, positions: int = 40, repeats: int = 200) -> dict[str, float]:
    """Median seconds of each scan over mid-game positions of real random games, each time on a
    fresh copy of the position (``evolve()``, well under a microsecond): a state keeps the proofs
    worked out from it, which would answer every scan after the first."""
    figures: dict[str, float] = {}
    out.write("== claim scan of whole positions (mid-game states of random games) ==\n")
    table = Table(
        (
            Column("ruleset", 16, left=True),
            Column("nine flags", 14),
            Column("every seat", 14),
            Column("worst nine", 14),
        )
    )
    out.write(table.header() + "\n")
    for name in ("battleline", "battleline-3p", "no-tactics-3p"):
        states = midgame_states(name, positions)
        nine = [
            statistics.median(
                prover_bench.time_each(lambda s=s: scan_nine_flags(s.evolve()), repeats)
            )
            for s in states
        ]
        every = [
            statistics.median(
                prover_bench.time_each(lambda s=s: scan_every_seat(s.evolve()), repeats)
            )
            for s in states
        ]
        figures[f"{name}.nine"] = statistics.median(nine)
        figures[f"{name}.every"] = statistics.median(every)
        microseconds = (
            f"{v * 1e6:.1f} µs"
            for v in (figures[f"{name}.nine"], figures[f"{name}.every"], max(nine))
        )
        out.write(table.row(name, *microseconds) + "\n")
    return figures


def summary_scans(figures: dict[str, float], out: TextIO) -> None:
    """The nine-flag scans against the target."""
    for name in ("battleline", "battleline-3p", "no-tactics-3p"):
        value = figures[f"{name}.nine"]
        mark = "ok" if value < SCAN_TARGET else "OVER"
        out.write(f"nine-flag scan {name} < 100 µs median: {value * 1e6:8.1f} µs {mark}\n")


def summary_three_players(games: dict[str, float], out: TextIO) -> None:
    """The three-player playouts next to the two-player game they extend."""
    out.write("\nthree players beside two (games/s):\n")
    for claims in ClaimTiming:
        two = games[f"battleline/{claims}"]
        for name in ("battleline-3p", "no-tactics-3p"):
            out.write(
                f"  {name + ' ' + claims.value:<26}{games[f'{name}/{claims}']:>6.0f}"
                f"   (battleline {claims.value}: {two:.0f})\n"
            )


def main() -> None:
    """Run every section and print its figures."""
    out = sys.stdout
    out.write(f"Python {sys.version.split()[0]} ({sys.implementation.name})\n")
    out.write(f"seats known to the engine: {', '.join(SEATS)}\n\n")
    figures = prover_bench.run(out)
    prover_bench.summary(figures, out)

    out.write("\n")
    scans = run_scans(out)
    summary_scans(scans, out)

    out.write("\n")
    games = playouts_bench.run(out)
    playouts_bench.summary(games, out)
    summary_three_players(games, out)


if __name__ == "__main__":
    main()
