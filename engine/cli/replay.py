"""``python -m engine replay FILE`` and ``python -m engine legal FILE`` (docs/formats.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TextIO

from engine.cli.board import describe_result, render_board
from engine.errors import EngineError, InvalidRecordError
from engine.legal import legal_moves
from engine.record import GameRecord, ReplayError, replay
from engine.state import SEATS, GameState
from engine.view import spectator_view


def load_record(path: str) -> GameRecord:
    """Read a record file; raises EngineError (InvalidRecordError) or OSError."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise InvalidRecordError(f"{path} is not JSON: {e}") from None
    return GameRecord.from_json(data)


def final_position_json(state: GameState) -> dict[str, Any]:
    """The `replay --json` object of docs/formats.md.

    Three-player additions (docs/formats.md, V6): each flag names its pair under ``"seats"`` and
    holds its cards under those two seats' keys; a shared draw's ``winner`` is the list of the
    seats that share it. With two players a draw's ``winner`` is ``null``.
    """
    rs = state.ruleset
    seats = rs.seats
    flags = []
    for i, f in enumerate(state.flags):
        pair = rs.flag_seats(i)
        flag: dict[str, Any] = {
            "flag": i + 1,
            "claimed_by": None if f.claimed_by is None else SEATS[f.claimed_by],
        }
        if rs.players > 2:
            flag["seats"] = list(pair)
        for seat, cards in zip(pair, f.cards, strict=True):
            flag[seat] = list(cards)
        flag["env"] = [card for card, _ in f.env]
        flags.append(flag)
    winner: str | list[str] | None = None
    if state.result is not None:
        winner = state.result.winner
        if winner is None and rs.players > 2:
            winner = list(state.result.draw_between)
    return {
        "ok": True,
        "to_move": None if state.result else state.to_move,
        "winner": winner,
        "result": state.result.termination.value if state.result else None,
        "flags": flags,
        "hands": {s: list(state.hands[i]) for i, s in enumerate(seats)},
        "decks": {"troops": len(state.troop_deck), "tactics": len(state.tactics_deck)},
        "discards": {s: list(state.discards[i]) for i, s in enumerate(seats)},
        "tactics_played": {s: state.tactics_played[i] for i, s in enumerate(seats)},
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
        hands = dict(zip(state.ruleset.seats, state.hands, strict=True))
        out.write(render_board(spectator_view(state), hands) + "\n" + describe_result(state) + "\n")
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
