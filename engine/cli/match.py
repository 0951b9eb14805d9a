"""``python -m engine match``: computer levels against each other, one JSON line of results.

The bot's moves are timed in CPU time of this process (``resource``: the engine keeps away from
the wall clock, and a decision never reads a clock; only these figures do).
"""

from __future__ import annotations

import argparse
import json
import resource
from typing import TextIO

from engine.bots.levels import Baseline, BotLevel
from engine.bots.match import play_match
from engine.rulesets import RULESETS, ClaimTiming, get_ruleset

LEVELS = [level.value for level in (*BotLevel, *Baseline)]


def cpu_seconds() -> float:
    """CPU time used by this process so far (user and system), in seconds."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _positive(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number")
    return number


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``match`` beside the other commands."""
    p = sub.add_parser(
        "match",
        help="computer levels against each other: wins, losses, draws and time per move",
        description="Play GAMES games of the computer at level BOT against level AGAINST "
        "(every other seat), the bot changing seat every game, and print one JSON line.",
    )
    p.add_argument("--bot", required=True, choices=LEVELS, help="the level measured")
    p.add_argument("--against", required=True, choices=LEVELS, help="the level it meets")
    p.add_argument("--games", type=_positive, default=10, help="games to play (default 10)")
    p.add_argument("--seed", default="0", help="deals and choices follow from it (default 0)")
    p.add_argument("--ruleset", default="battleline", choices=sorted(RULESETS))
    p.add_argument("--claims", choices=["standard", "advanced"], default=None)
    p.add_argument(
        "--budget",
        type=_positive,
        default=None,
        help="the strong level's sampled worlds, the expert's iterations, per decision "
        "(default: their own), for both levels",
    )
    p.add_argument(
        "--against-budget",
        type=_positive,
        default=None,
        help="the budget of the level it meets, when it differs from --budget",
    )


def run_match(args: argparse.Namespace, out: TextIO) -> int:
    """Play the match the arguments ask for and print its JSON line; exit status 0."""
    ruleset = get_ruleset(args.ruleset)
    claims = ClaimTiming(args.claims) if args.claims else ruleset.default_claims
    result = play_match(
        args.bot,
        args.against,
        args.games,
        args.seed,
        ruleset,
        claims,
        budget=args.budget,
        against_budget=args.budget if args.against_budget is None else args.against_budget,
        clock=cpu_seconds,
    )
    out.write(json.dumps(result.to_json()) + "\n")
    return 0
