"""The board and a hand as plain text, for the terminal tools."""

from __future__ import annotations

from typing import Any


def render_board(seen: dict[str, Any]) -> str:
    """A view (engine.view or engine.public_view) as lines of text, one flag a line."""
    lines = []
    width = max(
        [len(" ".join(f["A"])) for f in seen["flags"]]
        + [len(" ".join(f["B"])) for f in seen["flags"]]
        + [5]
    )
    lines.append(f"{'A':>{width}}  flag  B")
    for f in seen["flags"]:
        mark = f"[{f['claimed_by']}]" if f["claimed_by"] else "   "
        env = " ".join(f"{card}({side})" for card, side in f["env_sides"].items())
        lines.append(
            f"{' '.join(f['A']):>{width}}  {f['flag']:>2}{mark} {' '.join(f['B'])}"
            + (f"   <{env}>" if env else "")
        )
    decks = seen["decks"]
    lines.append(
        f"decks: troops {decks['troops']}, tactics {decks['tactics']}   "
        f"flags: A {seen['flags_held']['A']}, B {seen['flags_held']['B']}   "
        f"tactics played: A {seen['tactics_played']['A']}, B {seen['tactics_played']['B']}"
    )
    for seat in ("A", "B"):
        if seen["discards"][seat]:
            lines.append(f"discards {seat}: {' '.join(seen['discards'][seat])}")
    if "hand" in seen:
        lines.append(f"hand {seen['seat']}: {' '.join(seen['hand'])}")
    if seen.get("hands"):
        for seat, hand in seen["hands"].items():
            lines.append(f"hand {seat}: {' '.join(hand)}")
    return "\n".join(lines)


def describe_result(seen: dict[str, Any]) -> str:
    """'A wins by breakthrough', 'draw (stalemate)' or 'A to move'."""
    if seen["result"] is None:
        return f"{seen['to_move']} to move ({seen['phase']})"
    if seen["winner"] is None:
        return f"draw ({seen['result']})"
    return f"{seen['winner']} wins by {seen['result']}"
