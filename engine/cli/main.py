"""The ``python -m engine`` dispatcher: claims, compare, replay, legal, play, deal, match."""

from __future__ import annotations

import argparse
import json
import secrets
import sys

from engine.cli import match
from engine.cli.claims import run_claims, run_compare
from engine.cli.play import play
from engine.cli.replay import run_legal, run_replay
from engine.deal import deal_from_seed, seed_commitment
from engine.record import GameRecord
from engine.rulesets import RULESETS, SEATS, ClaimTiming, get_ruleset


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m engine", description="Battle Line rules engine"
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("claims", help="JSON lines of flag situations in, claimable or not out")
    sub.add_parser("compare", help="JSON lines of two complete sides in, the winner out")
    for name, text in (
        ("replay", "replay a record, print the final position"),
        ("legal", "replay a record, print the legal actions"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("file")
        p.add_argument("--json", action="store_true", help="one JSON object (docs/formats.md)")
    play = sub.add_parser("play", help="play a game in the terminal")
    play.add_argument("--ruleset", default="battleline", choices=sorted(RULESETS))
    play.add_argument("--claims", choices=["standard", "advanced"], default=None)
    play.add_argument("--seed", default=None, help="deal from this seed (default: a fresh one)")
    play.add_argument(
        "--random",
        action="append",
        default=[],
        choices=list(SEATS),
        help="this seat is played by a random mover (repeatable; C with three players)",
    )
    play.add_argument("--save", default=None, help="write the game record to this file")
    deal = sub.add_parser("deal", help="re-deal a game from its revealed seed, to verify it (R3)")
    deal.add_argument("seed")
    deal.add_argument("--ruleset", default="battleline", choices=sorted(RULESETS))
    deal.add_argument("--claims", choices=["standard", "advanced"], default=None)
    deal.add_argument(
        "--first",
        choices=list(SEATS),
        default=None,
        help="this seat plays first, with no cut (a game of a series after the first, R2)",
    )
    match.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; the exit status of docs/formats.md (0, or 1 for a record that fails)."""
    args = _parser().parse_args(argv)
    if args.command == "claims":
        run_claims(sys.stdin, sys.stdout)
        return 0
    if args.command == "compare":
        run_compare(sys.stdin, sys.stdout)
        return 0
    if args.command == "replay":
        return run_replay(args.file, args.json, sys.stdout)
    if args.command == "legal":
        return run_legal(args.file, args.json, sys.stdout)
    if args.command == "match":
        return match.run_match(args, sys.stdout)
    ruleset = get_ruleset(args.ruleset)
    claims = ClaimTiming(args.claims) if args.claims else ruleset.default_claims
    if args.command == "deal":
        if args.first is not None and args.first not in ruleset.seats:
            _parser().error(f"{ruleset.title} has no seat {args.first}")
        dealt = deal_from_seed(ruleset, args.seed, args.first)
        record = GameRecord(ruleset, claims, dealt, (), {"seed": args.seed})
        out = record.to_json()
        out["seed_commitment"] = seed_commitment(args.seed)
        out["cut"] = dealt.describe_cut()
        print(json.dumps(out))
        return 0
    strangers = set(args.random) - set(ruleset.seats)
    if strangers:
        _parser().error(f"{ruleset.title} has no seat {', '.join(sorted(strangers))}")
    seed = args.seed or secrets.token_hex(8)
    play(ruleset, claims, seed, set(args.random), input, sys.stdout, args.save)
    return 0
