"""The engine's compiled modules against its pure-Python ones: ``python -m bench.native``.

The same work, side by side in one run: two processes, one with the build of engine/native.py
and one with ``-X engine-pure``, each choose the move of every level at the same positions
(every seventh ply of seeded games of the normal level, in battleline under advanced claims)
and play a few whole games of playouts (random legal moves, claims when provable). Each prints
its CPU milliseconds; this prints the medians of both and their ratio, and whether the moves
chosen were the same (they must be). Run ``scripts/venv.sh`` first, so that a build exists.
"""

from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from bench.report import Column, Table, arguments, json_line

ROOT = Path(__file__).resolve().parents[1]
LEVELS = ("normal", "strong", "expert")


def measure(positions: int) -> dict[str, Any]:
    """What one process measures: CPU seconds per choice of each level, and of a random
    playout per game, with the moves chosen."""
    from engine import (
        RULESETS,
        Action,
        ClaimTiming,
        PlayerView,
        apply,
        choose_move,
        deal_from_seed,
        legal_moves,
        player_view,
        start,
    )
    from engine.native import active_build

    rs = RULESETS["battleline"]
    views: list[PlayerView] = []
    game = 0
    while len(views) < positions:
        state = start(rs, ClaimTiming.ADVANCED, deal_from_seed(rs, f"native/{game}"))
        rng = random.Random(game)
        while state.result is None:
            view = player_view(state, state.to_move)
            if state.ply % 7 == 3 and state.played is False and not view.claimable:
                views.append(view)
            state, _ = apply(state, choose_move(view, "normal", rng))
        game += 1
    times: dict[str, list[float]] = {level: [] for level in LEVELS}
    chosen: list[str] = []
    for number, view in enumerate(views[:positions]):
        for level in LEVELS:
            began = time.process_time()
            move = choose_move(view, level, random.Random(number))
            times[level].append(time.process_time() - began)
            chosen.append(str(move))
    playouts = []
    for number in range(20):
        state = start(rs, ClaimTiming.ADVANCED, deal_from_seed(rs, f"playout/{number}"))
        rng = random.Random(number)
        began = time.process_time()
        while state.result is None:
            moves = legal_moves(state)
            claim = next((m for m in moves if m.action is Action.CLAIM), None)
            state, _ = apply(state, claim or rng.choice(moves))
        playouts.append(time.process_time() - began)
        chosen.append(str(state.result))
    times["playout"] = playouts
    return {
        "compiled": active_build() is not None,
        "ms": {name: statistics.median(values) * 1000 for name, values in times.items()},
        "moves": chosen,
    }


def _run(positions: int, *options: str) -> dict[str, Any]:
    done = subprocess.run(
        [
            sys.executable,
            *options,
            "-c",
            f"import json, bench.native as b; print(json.dumps(b.measure({positions})))",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


TABLE = Table(
    (
        Column("what", 22, left=True),
        Column("pure ms", 10, ".1f"),
        Column("compiled ms", 12, ".1f"),
        Column("ratio", 8, ".2f"),
    )
)


def main(argv: list[str] | None = None, out: TextIO = sys.stdout) -> int:
    parser = arguments(__doc__)
    parser.add_argument("--positions", type=int, default=24, help="positions (default 24)")
    args = parser.parse_args(argv)
    if args.positions < 1:
        parser.error("--positions must be at least 1")
    compiled = _run(args.positions)
    pure = _run(args.positions, "-X", "engine-pure")
    if not compiled["compiled"]:
        out.write("no build of these sources to compare: run scripts/venv.sh first\n")
        return 1
    same = compiled["moves"] == pure["moves"]
    rows = []
    for name in (*LEVELS, "playout"):
        what = "random playout (game)" if name == "playout" else f"{name} (choice)"
        slow, fast = pure["ms"][name], compiled["ms"][name]
        rows.append({"what": what, "pure_ms": slow, "compiled_ms": fast, "ratio": slow / fast})
    if args.json:
        for row in rows:
            json_line({**row, "same_moves": same}, out)
        return 0
    out.write(f"median CPU ms of {args.positions} positions (20 playouts); ")
    out.write(f"the same moves both ways: {'yes' if same else 'NO'}\n\n{TABLE.header()}\n")
    for row in rows:
        out.write(TABLE.row(row["what"], row["pure_ms"], row["compiled_ms"], row["ratio"]) + "\n")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
