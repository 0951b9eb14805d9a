"""The board and a hand as plain text, for the terminal tools."""

from __future__ import annotations

from typing import Any

from engine.rulesets import get_ruleset
from engine.state import GameState


def render_board(seen: dict[str, Any]) -> str:
    """A view (engine.view or engine.public_view) as lines of text, one flag a line: the first
    seat of the flag's pair on the left, the second on the right, and a heading line wherever
    the pair changes (once with two players; once per row of the three-player ring)."""
    lines = []
    rs = get_ruleset(seen["ruleset"])
    flags = seen["flags"]
    pairs = [rs.flag_seats(f["flag"] - 1) for f in flags]
    width = max(
        [len(" ".join(f[left])) for f, (left, _) in zip(flags, pairs, strict=True)]
        + [len(" ".join(f[right])) for f, (_, right) in zip(flags, pairs, strict=True)]
        + [5]
    )
    heading: tuple[str, str] | None = None
    for f, (left, right) in zip(flags, pairs, strict=True):
        if heading != (left, right):
            heading = (left, right)
            lines.append(f"{left:>{width}}  flag  {right}")
        mark = f"[{f['claimed_by']}]" if f["claimed_by"] else "   "
        env = " ".join(f"{card}({side})" for card, side in f["env_sides"].items())
        lines.append(
            f"{' '.join(f[left]):>{width}}  {f['flag']:>2}{mark} {' '.join(f[right])}"
            + (f"   <{env}>" if env else "")
        )
    decks = seen["decks"]
    held = ", ".join(f"{seat} {n}" for seat, n in seen["flags_held"].items())
    played = ", ".join(f"{seat} {n}" for seat, n in seen["tactics_played"].items())
    lines.append(
        f"decks: troops {decks['troops']}, tactics {decks['tactics']}   "
        f"flags: {held}   tactics played: {played}"
    )
    for seat in rs.seats:
        if seen["discards"][seat]:
            lines.append(f"discards {seat}: {' '.join(seen['discards'][seat])}")
    if "hand" in seen:
        lines.append(f"hand {seen['seat']}: {' '.join(seen['hand'])}")
    if seen.get("hands"):
        for seat, hand in seen["hands"].items():
            lines.append(f"hand {seat}: {' '.join(hand)}")
    return "\n".join(lines)


def describe_result(state: GameState) -> str:
    """'A wins by breakthrough', 'draw (stalemate)', 'draw between B and C (resignation)' or
    'A to move (start)'."""
    if state.result is None:
        return f"{state.to_move} to move ({state.phase.value})"
    return state.result.describe(state.ruleset.seats)
