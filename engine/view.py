"""What one seat, or a spectator, may know: the only inputs pages and emails are rendered from.

A view is JSON-ready plain data. It holds the seat's own hand, never the other's, never the
order of a deck; a spectator's view holds no hand until the game is over.
"""

from __future__ import annotations

from typing import Any

from engine.rules import _claims_allowed_now, _draw_due
from engine.state import SEATS, GameState, Seat


def _board(state: GameState) -> list[dict[str, Any]]:
    rs = state.ruleset
    return [
        {
            "flag": i + 1,
            "claimed_by": None if f.claimed_by is None else SEATS[f.claimed_by],
            "A": list(f.cards[0]),
            "B": list(f.cards[1]),
            "env": [card for card, _ in f.env],
            "env_sides": {card: SEATS[side] for card, side in f.env},
            "size": f.size(rs),
        }
        for i, f in enumerate(state.flags)
    ]


def public_view(state: GameState) -> dict[str, Any]:
    """What anyone may see: the board, counts, discards and the result.

    Once the game is over both hands are shown too (the seed is revealed then anyway, R3).
    """
    view: dict[str, Any] = {
        "ruleset": state.ruleset.name,
        "claims": state.claims.value,
        "first": SEATS[state.first],
        "to_move": None if state.result else state.to_move,
        "phase": state.phase.value,
        "turn": state.turn,
        "ply": state.ply,
        "flags": _board(state),
        "hand_sizes": {s: len(state.hands[i]) for i, s in enumerate(SEATS)},
        "decks": {"troops": len(state.troop_deck), "tactics": len(state.tactics_deck)},
        "discards": {s: list(state.discards[i]) for i, s in enumerate(SEATS)},
        "tactics_played": {s: state.tactics_played[i] for i, s in enumerate(SEATS)},
        "leader_played": {s: state.leader_played[i] for i, s in enumerate(SEATS)},
        "scout_draws": state.scout_draws if state.scouted else 0,
        "pending_discards": [{"seat": SEATS[s], "flag": i + 1} for s, i in state.pending_discards],
        "draw_due": state.result is None and state.played and _draw_due(state),
        "claims_now": state.result is None and _claims_allowed_now(state),
        "flags_held": {
            s: sum(1 for f in state.flags if f.claimed_by == i) for i, s in enumerate(SEATS)
        },
        "result": None,
        "winner": None,
    }
    if state.result is not None:
        view["result"] = state.result.termination.value
        view["winner"] = state.result.winner
        order = state.ruleset.card_order.__getitem__
        view["hands"] = {s: sorted(state.hands[i], key=order) for i, s in enumerate(SEATS)}
    return view


def view(state: GameState, seat: Seat) -> dict[str, Any]:
    """What `seat` may know: the public view plus its own hand."""
    if seat not in SEATS[: state.ruleset.players]:
        raise ValueError(f"{seat!r} is not a seat")
    seen = public_view(state)
    seen["seat"] = seat
    hand = state.hands[SEATS.index(seat)]
    # Sorted by color and value: the order of the cards in hand is nobody's information.
    seen["hand"] = sorted(hand, key=state.ruleset.card_order.__getitem__)
    return seen
