"""The computer opponent's strength and speed: ``python -m bench.bots`` from the repository root.

Every level against every other (issue 26), in four variants: battleline under standard and
under advanced claims, schotten-totten, battleline-3p. A match plays ``--games`` games (default
400); the measured level changes seat every game and every round of seats shares a deal
(``engine.play_match``), so both levels play every seat of every deal. With three players the
measured level holds one seat and the other level the other two (a third of the wins is par).

Each row gives the measured level's wins with a 95% Wilson confidence interval, and the CPU
milliseconds per card choice (a choice of what to play at the start of a turn; claims and
draws take no search) of both levels: median and worst. Below the table, the aims: the new
``normal`` beats ``normal-2026`` (the level before issue 26, kept as a baseline) in 70% of the
games or more, ``strong`` beats ``strong-2026`` in 60% or more, ``expert`` beats ``strong`` in
60% or more, and every level spends at most 1 s per card choice (median) and 3 s at worst.

Times are CPU seconds of this process (``time.process_time``), so other work on the machine
does not count against a move. Nothing here asserts: it reports, one table (or with ``--json``
one JSON object a line). ``--games``, ``--levels`` and ``--variants`` shrink the run; a level
written ``expert@288`` plays with that budget (the strong level's worlds, the expert's
iterations) instead of its own, to measure what a budget buys; ``--jobs`` plays on several
cores (the same games: each is dealt and played from the seed and its number), and stderr tells
how far each match has come.
"""

from __future__ import annotations

import math
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, TextIO

from bench.report import Column, Table, arguments, json_line
from engine import RULESETS, ClaimTiming, MatchResult, play_match
from engine.bots.levels import Baseline, BotLevel
from engine.bots.match import merged
from engine.native import active_build

LEVELS = (
    BotLevel.RANDOM.value,
    BotLevel.EASY.value,
    Baseline.NORMAL_2026.value,
    BotLevel.NORMAL.value,
    Baseline.STRONG_2026.value,
    BotLevel.STRONG.value,
    BotLevel.EXPERT.value,
)
"""Every level and baseline, weakest first: each row measures the later against the earlier."""


@dataclass(frozen=True)
class Variant:
    """A ruleset under one claim timing."""

    name: str
    ruleset: str
    claims: ClaimTiming


VARIANTS = (
    Variant("battleline/standard", "battleline", ClaimTiming.STANDARD),
    Variant("battleline/advanced", "battleline", ClaimTiming.ADVANCED),
    Variant("schotten-totten", "schotten-totten", RULESETS["schotten-totten"].default_claims),
    Variant("battleline-3p", "battleline-3p", RULESETS["battleline-3p"].default_claims),
)

AIMS = {
    (BotLevel.NORMAL.value, Baseline.NORMAL_2026.value): 0.70,
    (BotLevel.STRONG.value, Baseline.STRONG_2026.value): 0.60,
    (BotLevel.EXPERT.value, BotLevel.STRONG.value): 0.60,
}
"""The share of games a level must win against another, by (level, other)."""

MEDIAN_MS_AIM = 1000.0
WORST_MS_AIM = 3000.0
"""CPU milliseconds per card choice, at most: the median and the worst (issue 26)."""

ENGINE = "compiled by mypyc" if active_build() else "pure Python"
"""Which modules play (engine/native.py): the times differ about twofold, the moves not at all."""

Z95 = 1.959964


def wilson(wins: float, games: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a share of ``wins`` in ``games``."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * games)) / (1 + z2 / games)
    half = Z95 * math.sqrt(p * (1 - p) / games + z2 / (4 * games * games)) / (1 + z2 / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def ms(values: Sequence[float], worst: bool = False) -> float | None:
    """Median (or worst) of CPU seconds, in milliseconds; None without values."""
    if not values:
        return None
    return round((max(values) if worst else statistics.median(values)) * 1000, 1)


PART_GAMES = 12
"""Games in a part of a match at most: what one process plays at a time, and how often the
progress line on stderr moves."""


@dataclass(frozen=True)
class Part:
    """Games ``first`` to ``first + games - 1`` of one match."""

    level: str
    other: str
    variant: Variant
    seed: str
    first: int
    games: int


def level_spec(spec: str) -> tuple[str, int | None]:
    """``"expert@288"`` -> ``("expert", 288)``, ``"normal"`` -> ``("normal", None)``. Raises
    ValueError for an unknown level or a budget below 1."""
    name, at, budget = spec.partition("@")
    if name not in LEVELS or (at and not (budget.isdigit() and int(budget) >= 1)):
        raise ValueError(spec)
    return name, int(budget) if at else None


def parts_of(
    level: str, other: str, variant: Variant, games: int, seed: str, start: int = 0
) -> list[Part]:
    """Games ``start`` to ``start + games - 1`` of a match, in parts of whole rounds of seats
    (every seat of a deal in the same part, when ``start`` begins a round)."""
    seats = len(RULESETS[variant.ruleset].seats)
    size = max(seats, PART_GAMES // seats * seats)
    end = start + games
    return [
        Part(level, other, variant, seed, first, min(size, end - first))
        for first in range(start, end, size)
    ]


def play_part(part: Part) -> tuple[MatchResult, float]:
    """A part's games, and the CPU seconds they took (in the process that played them)."""
    began = time.process_time()
    level, budget = level_spec(part.level)
    other, against_budget = level_spec(part.other)
    result = play_match(
        level,
        other,
        part.games,
        f"{part.seed}/{part.variant.name}",
        RULESETS[part.variant.ruleset],
        part.variant.claims,
        budget=budget,
        against_budget=against_budget,
        clock=time.process_time,
        first=part.first,
    )
    return result, time.process_time() - began


def match_record(part: Part, result: MatchResult, cpu: float) -> dict[str, Any]:
    """One match of the table as a JSON object; the per-choice times ride along under
    ``_times`` (the level's and the other's) for the summary."""
    level, other, variant = part.level, part.other, part.variant
    low, high = wilson(result.wins, result.games)
    aim = AIMS.get((level, other)) if variant.ruleset != "battleline-3p" else None
    return {
        "level": level,
        "against": other,
        "variant": variant.name,
        "first_game": part.first,
        "games": result.games,
        "wins": result.wins,
        "losses": result.losses,
        "draws": result.draws,
        "win_rate": round(result.wins / result.games, 4),
        "ci95": [round(low, 4), round(high, 4)],
        "aim": aim,
        "ok": None if aim is None else result.wins / result.games >= aim,
        "ms_median": ms(result.play_times),
        "ms_worst": ms(result.play_times, worst=True),
        "against_ms_median": ms(result.against_play_times),
        "against_ms_worst": ms(result.against_play_times, worst=True),
        "cpu_seconds": round(cpu, 1),
        "engine": ENGINE,
        "_times": (result.play_times, result.against_play_times),
    }


def play_matches(
    matches: list[list[Part]], jobs: int, progress: TextIO
) -> Iterator[dict[str, Any]]:
    """Every match's record, in the order given, as soon as it and those before it are done.
    With ``jobs`` above one, the parts of all matches are shared out among that many processes
    (the games and so the wins are the same as in one process: ``play_match``)."""
    pool = ProcessPoolExecutor(jobs) if jobs > 1 else None
    try:
        futures = [
            [pool.submit(play_part, part) if pool else None for part in parts] for parts in matches
        ]
        for parts, pending in zip(matches, futures, strict=True):
            planned = sum(part.games for part in parts)
            done: list[MatchResult] = []
            cpu = 0.0
            won = played = 0
            for part, future in zip(parts, pending, strict=True):
                result, seconds = future.result() if future else play_part(part)
                done.append(result)
                cpu += seconds
                won += result.wins
                played += result.games
                progress.write(
                    f"{part.level} v {part.other}, {part.variant.name}: "
                    f"{won} won of {played} ({planned})\n"
                )
                progress.flush()
            yield match_record(parts[0], merged(done), cpu)
    finally:
        if pool:
            pool.shutdown(cancel_futures=True)


TABLE = Table(
    (
        Column("match", 26, left=True),
        Column("variant", 21, left=True),
        Column("games", 6),
        Column("won", 5),
        Column("lost", 5),
        Column("drawn", 6),
        Column("win %", 7, ".1%"),
        Column("95% CI", 14),
        Column("aim", 5, ".0%"),
        Column("", 4),
        Column("ms med", 8, ".1f"),
        Column("ms max", 8, ".1f"),
        Column("its med", 8, ".1f"),
        Column("its max", 8, ".1f"),
    )
)


def table_row(data: dict[str, Any]) -> str:
    """One match as a row of the table."""
    low, high = data["ci95"]
    mark = "" if data["ok"] is None else ("ok" if data["ok"] else "LOW")
    return TABLE.row(
        data["level"] + " v " + data["against"],
        data["variant"],
        data["games"],
        data["wins"],
        data["losses"],
        data["draws"],
        data["win_rate"],
        f"{low:.1%}-{high:.1%}",
        data["aim"],
        mark,
        data["ms_median"],
        data["ms_worst"],
        data["against_ms_median"],
        data["against_ms_worst"],
    )


def speed_summary(times: dict[str, list[float]]) -> list[dict[str, Any]]:
    """Per level, its CPU milliseconds per card choice over the whole run, against the aims."""
    out = []
    for level in LEVELS:
        values = times.get(level)
        if not values:
            continue
        median, worst = ms(values), ms(values, worst=True)
        assert median is not None and worst is not None
        out.append(
            {
                "level": level,
                "choices": len(values),
                "ms_median": median,
                "ms_worst": worst,
                "ok": median <= MEDIAN_MS_AIM and worst <= WORST_MS_AIM,
            }
        )
    return out


def main(argv: list[str] | None = None, out: TextIO = sys.stdout) -> int:
    """Run every match of the table and report it."""
    parser = arguments(__doc__)
    parser.add_argument("--games", type=int, default=400, help="games per match (default 400)")
    parser.add_argument(
        "--levels",
        default=",".join(LEVELS),
        help="comma-separated levels to pair (default: all, "
        + ",".join(LEVELS)
        + "); LEVEL@N plays LEVEL with a budget of N",
    )
    parser.add_argument(
        "--variants",
        default=",".join(v.name for v in VARIANTS),
        help="comma-separated variants (default: all four)",
    )
    parser.add_argument("--seed", default="bench", help="deals and choices follow from it")
    parser.add_argument(
        "--first",
        type=int,
        default=0,
        help="the number of the first game of each match (default 0): a run from --first 200 "
        "plays the games a run of 400 would play after its first 200, so parts of a long "
        "match can run apart and be added up",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="processes playing at once (default 1; the games are the same with any number)",
    )
    args = parser.parse_args(argv)
    if args.games < 1 or args.jobs < 1 or args.first < 0:
        parser.error("--games and --jobs must be at least 1, --first at least 0")
    asked = list(dict.fromkeys(args.levels.split(",")))
    try:
        specs = {spec: level_spec(spec) for spec in asked}
    except ValueError:
        specs = {}
    # weakest first: by level, then by budget (a level's own budget first)
    levels = sorted(specs, key=lambda s: (LEVELS.index(specs[s][0]), specs[s][1] or 0))
    variants = [v for v in VARIANTS if v.name in args.variants.split(",")]
    if len(specs) < len(asked) or len(levels) < 2 or not variants:
        parser.error(
            "--levels needs two or more of "
            + ", ".join(LEVELS)
            + " (each may be LEVEL@N, N a budget of 1 or more); --variants some of "
            + ", ".join(v.name for v in VARIANTS)
        )
    if not args.json:
        out.write(f"Python {sys.version.split()[0]}; engine {ENGINE}; CPU time of one core; ")
        out.write(f"{args.games} games (from game {args.first}) " if args.first else "")
        out.write("" if args.first else f"{args.games} games ")
        out.write("a match, seats swapped; ms: per card choice, of the level (med, max) and of ")
        out.write("the level it meets (its med, its max)\n\n")
        out.write(TABLE.header() + "\n")
        out.flush()
    matches = [
        parts_of(level, other, variant, args.games, args.seed, args.first)
        for variant in variants
        for i, level in enumerate(levels)
        for other in levels[:i]
    ]
    times: dict[str, list[float]] = {}
    for data in play_matches(matches, args.jobs, sys.stderr):
        mine, theirs = data.pop("_times")
        times.setdefault(data["level"], []).extend(mine)
        times.setdefault(data["against"], []).extend(theirs)
        if args.json:
            json_line(data, out)
        else:
            out.write(table_row(data) + "\n")
        out.flush()
    speeds = speed_summary(times)
    if args.json:
        for record in speeds:
            json_line({"speed": record}, out)
        return 0
    out.write(f"\nms per card choice over the run (aim: median <= {MEDIAN_MS_AIM:.0f}, ")
    out.write(f"worst <= {WORST_MS_AIM:.0f})\n")
    for record in speeds:
        mark = "ok" if record["ok"] else "OVER"
        out.write(
            f"{record['level']:<14}{record['choices']:>8} choices"
            f"  median {record['ms_median']:>8.1f}  worst {record['ms_worst']:>8.1f}  {mark}\n"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
