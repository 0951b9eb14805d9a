"""``python -m engine replay FILE`` and ``python -m engine legal FILE`` (FORMATS.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TextIO

from engine.cli.board import describe_result, render_board
from engine.errors import EngineError, InvalidRecordError
from engine.record import GameRecord, ReplayError, replay
from engine.rules import legal_moves
from engine.state import SEATS, GameState
from engine.view import public_view


def load_record(path: str) -> GameRecord:
    """Read a record file; raises EngineError (InvalidRecordError) or OSError."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise InvalidRecordError(f"{path} is not JSON: {e}") from None
    return GameRecord.from_json(data)


def final_position_json(state: GameState) -> dict[str, Any]:
    """The `replay --json` object of FORMATS.md."""
    return {
        "ok": True,
        "to_move": None if state.result else state.to_move,
        "winner": state.result.winner if state.result else None,
        "result": state.result.termination.value if state.result else None,
        "flags": [
            {
                "flag": i + 1,
                "claimed_by": None if f.claimed_by is None else SEATS[f.claimed_by],
                "A": list(f.cards[0]),
                "B": list(f.cards[1]),
                "env": [card for card, _ in f.env],
            }
            for i, f in enumerate(state.flags)
        ],
        "hands": {s: list(state.hands[i]) for i, s in enumerate(SEATS)},
        "decks": {"troops": len(state.troop_deck), "tactics": len(state.tactics_deck)},
        "discards": {s: list(state.discards[i]) for i, s in enumerate(SEATS)},
        "tactics_played": {s: state.tactics_played[i] for i, s in enumerate(SEATS)},
    }


def _replayed(path: str, as_json: bool, out: TextIO) -> GameState | None:
    try:
        return replay(load_record(path))
    except ReplayError as e:
        message = {"ok": False, "move": e.move, "error": e.reason}
    except (EngineError, OSError) as e:
        message = {"ok": False, "move": 0, "error": str(e)}
    if as_json:
        out.write(json.dumps(message) + "\n")
    else:
        where = f"move {message['move']}: " if message["move"] else ""
        out.write(f"error: {where}{message['error']}\n")
    return None


def run_replay(path: str, as_json: bool, out: TextIO) -> int:
    """Replay a record and print the final position; 1 when a move is illegal."""
    state = _replayed(path, as_json, out)
    if state is None:
        return 1
    if as_json:
        out.write(json.dumps(final_position_json(state)) + "\n")
    else:
        seen = public_view(state)
        seen["hands"] = {s: list(state.hands[i]) for i, s in enumerate(SEATS)}
        out.write(render_board(seen) + "\n" + describe_result(seen) + "\n")
    return 0


def run_legal(path: str, as_json: bool, out: TextIO) -> int:
    """Print every action the seat to move may take after the record's moves."""
    state = _replayed(path, as_json, out)
    if state is None:
        return 1
    actions = [str(m) for m in legal_moves(state)]
    if as_json:
        to_move = None if state.result else state.to_move
        out.write(json.dumps({"to_move": to_move, "actions": actions}) + "\n")
    else:
        out.write("\n".join(actions) + ("\n" if actions else "the game is over\n"))
    return 0
