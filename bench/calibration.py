"""How far the appraisal's chances of the flags come true: ``python -m bench.calibration``.

The normal level plays itself (``--games`` games, dealt from ``--seed``). At the start of each
turn the seat to move appraises every flag still open (``Appraiser.of``: its view's chances,
before ``Weights.confidence`` bends them); when the game is over, each of those flags that
somebody claimed says whether the chance came true. The table gives, by tenth of chance, how
many flags fell there, the mean chance and the share the seat held in the end; below it, the
log-odds slope that fits best (``Weights.confidence`` at its measured value would be it), for
the whole game and by how many troops were left in the deck. A chance of 0 or 1 (a claimed
flag, or one nothing left can change) is left out: it is certain, and counted apart.

A calibrated appraisal holds 70% of the flags it gives 0.7. Nothing here asserts; it reports,
a table (or with ``--json`` one JSON object a line).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from typing import TextIO

from bench.report import Column, Table, arguments, json_line
from engine import RULESETS, ClaimTiming
from engine.bots.appraisal import Appraiser
from engine.bots.levels import BotLevel
from engine.bots.match import play_match
from engine.state import GameState, Phase

PHASES = ((30, 99, "deck 30+"), (15, 29, "deck 15-29"), (0, 14, "deck 0-14"))
"""The parts of a game the slope is also fitted for, by troops left in the deck."""


@dataclass(frozen=True, slots=True)
class Sample:
    """One open flag at one turn's start: the mover's chance, whether it held the flag in the
    end, and the troops left in the deck then."""

    chance: float
    held: bool
    deck: int


def samples(games: int, seed: str, ruleset: str, claims: ClaimTiming) -> list[Sample]:
    """The open flags of every turn's start of ``games`` self-play games of the normal level
    (``play_match``'s deals and seats), each flag that was claimed in the end."""
    rs = RULESETS[ruleset]
    out: list[Sample] = []
    seen: list[tuple[int, int, list[tuple[int, float]]]] = []

    def observe(_game: int, state: GameState) -> None:
        if state.result is None:
            if state.phase is Phase.START and not state.played:
                me = rs.seats.index(state.to_move)
                seen.append((me, len(state.troop_deck), Appraiser.of(state, me).chances(state)))
            return
        holders = [flag.claimed_by for flag in state.flags]
        for me, deck, chances in seen:
            for index, chance in chances:
                holder = holders[index]
                if holder is not None and 0.0 < chance < 1.0:
                    out.append(Sample(chance, holder == me, deck))
        seen.clear()

    play_match(BotLevel.NORMAL, BotLevel.NORMAL, games, seed, rs, claims, observe=observe)
    return out


def fitted_slope(points: list[Sample]) -> float | None:
    """The slope ``a`` of held ~ sigmoid(a * logit(chance) + b) that fits best (Newton's method
    on the log-likelihood); None for too few points."""
    if len(points) < 50:
        return None
    xs = [math.log(p.chance / (1.0 - p.chance)) for p in points]
    ys = [1.0 if p.held else 0.0 for p in points]
    a, b = 1.0, 0.0
    for _ in range(50):
        ga = gb = haa = hab = hbb = 0.0
        for x, y in zip(xs, ys, strict=True):
            s = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, a * x + b))))
            g, w = s - y, s * (1.0 - s)
            ga += g * x
            gb += g
            haa += w * x * x
            hab += w * x
            hbb += w
        det = haa * hbb - hab * hab
        if det <= 0.0:
            return None
        step_a = (hbb * ga - hab * gb) / det
        step_b = (haa * gb - hab * ga) / det
        a, b = a - step_a, b - step_b
        if abs(step_a) < 1e-9 and abs(step_b) < 1e-9:
            break
    return a


def main(argv: list[str] | None = None, out: TextIO = sys.stdout) -> int:
    """Play the games and report the calibration."""
    parser = arguments(__doc__)
    parser.add_argument("--games", type=int, default=400, help="self-play games (default 400)")
    parser.add_argument("--seed", default="calibration", help="deals and choices follow from it")
    parser.add_argument("--ruleset", default="battleline", choices=sorted(RULESETS))
    parser.add_argument(
        "--claims", default=ClaimTiming.ADVANCED.value, choices=[c.value for c in ClaimTiming]
    )
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    points = samples(args.games, args.seed, args.ruleset, ClaimTiming(args.claims))
    table = Table(
        (
            Column("chance", 10, left=True),
            Column("flags", 9, ","),
            Column("mean", 8, ".3f"),
            Column("held", 8, ".3f"),
        )
    )
    if not args.json:
        played = f"{args.games} games of {args.ruleset} ({args.claims} claims)"
        out.write(f"{played}, seed {args.seed}\n")
        out.write(table.header() + "\n")
    for tenth in range(10):
        part = [p for p in points if min(9, int(p.chance * 10)) == tenth]
        if not part:
            continue
        mean = sum(p.chance for p in part) / len(part)
        held = sum(p.held for p in part) / len(part)
        label = f"{tenth / 10:.1f}-{(tenth + 1) / 10:.1f}"
        if args.json:
            json_line({"chance": label, "flags": len(part), "mean": mean, "held": held}, out)
        else:
            out.write(table.row(label, len(part), mean, held) + "\n")
    fits = [("whole game", points)] + [
        (name, [p for p in points if low <= p.deck <= high]) for low, high, name in PHASES
    ]
    for name, part in fits:
        slope = fitted_slope(part)
        if args.json:
            json_line({"fit": name, "flags": len(part), "slope": slope}, out)
        else:
            shown = "-" if slope is None else f"{slope:.2f}"
            out.write(f"log-odds slope, {name}: {shown} ({len(part):,} flags)\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
