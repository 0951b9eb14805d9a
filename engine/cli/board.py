"""The board and a hand as plain text, for the terminal tools."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.cards import Card
from engine.moves import Deck
from engine.rulesets import Seat
from engine.state import GameState
from engine.view import PlayerView, PublicView


def render_board(seen: PublicView, hands: Mapping[Seat, Sequence[Card]] | None = None) -> str:
    """A view as lines of text, one flag a line: the first seat of the flag's pair on the left,
    the second on the right, and a heading line wherever the pair changes (once with two
    players; once per row of the three-player ring). A player's view ends with its hand;
    ``hands`` (else the view's own, once the game is over) adds every seat's."""
    lines = []
    flags = seen.flags
    width = max(
        [len(" ".join(f.cards[f.seats[0]])) for f in flags]
        + [len(" ".join(f.cards[f.seats[1]])) for f in flags]
        + [5]
    )
    heading: tuple[str, str] | None = None
    for f in flags:
        left, right = f.seats
        if heading != (left, right):
            heading = (left, right)
            lines.append(f"{left:>{width}}  flag  {right}")
        mark = f"[{f.claimed_by}]" if f.claimed_by else "   "
        env = " ".join(f"{e.card}({e.seat})" for e in f.env)
        lines.append(
            f"{' '.join(f.cards[left]):>{width}}  {f.number:>2}{mark} {' '.join(f.cards[right])}"
            + (f"   <{env}>" if env else "")
        )
    held = ", ".join(f"{seat} {n}" for seat, n in seen.flags_held.items())
    played = ", ".join(f"{seat} {n}" for seat, n in seen.tactics_played.items())
    lines.append(
        f"decks: troops {seen.decks[Deck.TROOPS]}, tactics {seen.decks[Deck.TACTICS]}   "
        f"flags: {held}   tactics played: {played}"
    )
    for seat in seen.seats:
        if seen.discards[seat]:
            lines.append(f"discards {seat}: {' '.join(seen.discards[seat])}")
    if isinstance(seen, PlayerView):
        lines.append(f"hand {seen.seat}: {' '.join(seen.hand)}")
    for seat, hand in (hands if hands is not None else seen.hands or {}).items():
        lines.append(f"hand {seat}: {' '.join(hand)}")
    return "\n".join(lines)


def describe_result(state: GameState) -> str:
    """'A wins by breakthrough', 'draw (stalemate)', 'draw between B and C (resignation)' or
    'A to move (start)'."""
    if state.result is None:
        return f"{state.to_move} to move ({state.phase.value})"
    return state.result.describe(state.ruleset.seats)
