"""``python -m engine play``: a game in the terminal, two people at one keyboard or one person
against a random mover. Bad input gets an ``error:`` line and the game goes on."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from engine.apply import apply
from engine.claims import claim_proofs
from engine.cli.board import describe_result, render_board
from engine.deal import deal_from_seed, start
from engine.errors import EngineError
from engine.legal import legal_moves
from engine.moves import Action, Move, parse_move
from engine.record import GameRecord
from engine.rulesets import ClaimTiming, Ruleset
from engine.state import GameState, Seat
from engine.view import player_view

HELP = """Type the number of a move from the list, or the move itself in notation (R7>3,
FOG>2, SCOUT, draw troops, return R2 FOG, REDEPLOY R7@3>5, DESERTER B8@4, TRAITOR B8@4>7,
claim 3, pass, end, discard R7@6). Other commands: 'why' (which flags are provable and why),
'board', 'help', 'resign', 'quit'."""


def random_choice(state: GameState, rng: random.Random) -> Move:
    """The random mover: claims every provable flag first (as the mail service's automatic
    claims do), otherwise any legal move."""
    moves = legal_moves(state)
    for move in moves:
        if move.action is Action.CLAIM:
            return move
    return rng.choice(moves)


def play(
    ruleset: Ruleset,
    claims: ClaimTiming,
    seed: str,
    robots: set[Seat],
    read: Callable[[str], str],
    out: TextIO,
    save: str | None = None,
) -> GameState:
    """Run one game to its end (or until input ends) and return the last position."""
    dealt = deal_from_seed(ruleset, seed)
    state = start(ruleset, claims, dealt)
    moves: list[str] = []
    rng = random.Random(f"{seed}/robot")
    out.write(f"{ruleset.title}, {claims.value} claims, seed {seed!r}. {dealt.describe_cut()}.\n")
    out.write(HELP + "\n")
    shown: tuple[int, Seat] | None = None
    while state.result is None:
        seat = state.to_move
        if seat in robots:
            move = random_choice(state, rng)
            out.write(f"{move}\n")
        else:
            legal = legal_moves(state)
            if shown != (state.ply, seat):
                out.write("\n" + render_board(player_view(state, seat)) + "\n")
                out.write(f"{seat} to move ({state.phase.value}):\n")
                for number, m in enumerate(legal, start=1):
                    out.write(f"  {number:>3}. {m.action_text()}\n")
                shown = (state.ply, seat)
            try:
                line = read(f"{seat}> ").strip()
            except EOFError:
                out.write("\ninput ended; the game is left unfinished\n")
                break
            if not line:
                continue
            if line in ("quit", "exit"):
                break
            if line in ("help", "?"):
                out.write(HELP + "\n")
                continue
            if line == "board":
                shown = None
                continue
            if line == "why":
                for flag, proof in claim_proofs(state, seat).items():
                    mark = "provable" if proof.claimable else "not yet"
                    out.write(f"  flag {flag}: {mark}: {proof.reason}\n")
                continue
            if line.isdigit():
                if not 1 <= int(line) <= len(legal):
                    out.write(f"error: choose a number from 1 to {len(legal)}\n")
                    continue
                move = legal[int(line) - 1]
            else:
                try:
                    move = parse_move(f"{seat}: {line}", ruleset)
                except EngineError as e:
                    out.write(f"error: {e}\n")
                    continue
        try:
            state, _ = apply(state, move)
        except EngineError as e:
            out.write(f"error: {e}\n")
            continue
        moves.append(str(move))
    seen = player_view(state, ruleset.seats[0])
    out.write("\n" + render_board(seen) + "\n" + describe_result(state) + "\n")
    if save:
        record = GameRecord(ruleset, claims, dealt, tuple(moves), {"seed": seed})
        Path(save).write_text(json.dumps(record.to_json(), indent=1) + "\n", encoding="utf-8")
        out.write(f"record saved to {save}\n")
    return state
