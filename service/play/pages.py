"""What the private page and the move-link pages show, built from the engine's view of one seat
and from ``legal_moves`` / ``claim_proofs``: plain dicts and lists, never the state itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlmodel import Session

import engine
from engine import Action, Move
from service.games import store
from service.models import Game, MoveEntry, Player, Seat
from service.present.words import instruction, narration, with_cards

RECENT_ENTRIES = 12
"""How many log entries the private page lists under "Latest moves"."""

_THEN_LATER = ""
"""The follow-up value meaning "I'll choose after seeing the card played"."""


def names_of(seats: dict[str, tuple[Seat, Player]]) -> dict[str, str]:
    """Display names by seat letter."""
    return {letter: player.display_name for letter, (_, player) in seats.items()}


def _move_form(move: Move) -> dict[str, Any]:
    return {"move": move.action_text(), "words": instruction(move)}


def _follow_ups(state: engine.GameState, move: Move) -> list[dict[str, Any]]:
    """The draws (or ``end``) that may follow ``move`` at once, asked of the engine."""
    after, _ = engine.apply(state, move)
    if after.result is not None or after.mover != state.mover:
        return []
    return [
        {"move": m.action_text(), "words": instruction(m)}
        for m in engine.legal_moves(after)
        if m.action in (Action.DRAW, Action.END)
    ]


def draws_after(state: engine.GameState, move: Move) -> list[dict[str, Any]]:
    """The draws (or ``end``) that may follow ``move`` at once: the confirm page of a move link
    offers them, so that one press plays the card and ends the turn."""
    return _follow_ups(state, move)


def action_groups(state: engine.GameState, seat: str) -> dict[str, Any]:
    """Every legal move of ``seat`` now, grouped the way the page offers them.

    Plays are grouped by card (a card, then its flags), Redeploy by the card moved, Traitor by
    the card taken. ``then`` lists the draws that may follow a card played to a flag or a pass,
    so a turn can be one press; choosing later is always offered too.
    """
    groups: dict[str, Any] = {
        "claims": [],
        "plays": [],
        "scout": None,
        "redeploys": [],
        "deserters": [],
        "traitors": [],
        "pass": None,
        "draws": [],
        "end": None,
        "discards": [],
        "scout_draws": [],
        "scout_return": None,
        "then": [],
        "count": 0,
    }
    if state.result is not None or state.to_move != seat:
        return groups
    moves = engine.legal_moves(state)
    groups["count"] = len(moves)
    by_card: dict[str, dict[str, Any]] = {}
    redeploy: dict[tuple[str, int], dict[str, Any]] = {}
    traitor: dict[tuple[str, int], dict[str, Any]] = {}
    first_play: Move | None = None
    for move in moves:
        a = move.action
        if a is Action.CLAIM:
            groups["claims"].append({**_move_form(move), "flag": move.flag})
        elif a is Action.PLAY:
            assert move.card is not None
            first_play = first_play or move
            group = by_card.setdefault(move.card, {"card": move.card, "flags": []})
            group["flags"].append({"flag": move.flag, "move": move.action_text()})
        elif a is Action.SCOUT:
            groups["scout"] = _move_form(move)
        elif a is Action.REDEPLOY:
            assert move.card is not None and move.source is not None
            group = redeploy.setdefault(
                (move.card, move.source),
                {"card": move.card, "source": move.source, "targets": []},
            )
            label = "discard it" if move.flag is None else f"flag {move.flag}"
            group["targets"].append({"label": label, "move": move.action_text()})
        elif a is Action.DESERTER:
            groups["deserters"].append(
                {**_move_form(move), "card": move.card, "source": move.source}
            )
        elif a is Action.TRAITOR:
            assert move.card is not None and move.source is not None
            group = traitor.setdefault(
                (move.card, move.source),
                {"card": move.card, "source": move.source, "targets": []},
            )
            group["targets"].append({"label": f"flag {move.flag}", "move": move.action_text()})
        elif a is Action.PASS:
            groups["pass"] = _move_form(move)
            groups["pass_then"] = _follow_ups(state, move)
        elif a is Action.DRAW:
            key = "scout_draws" if state.phase is engine.Phase.SCOUT else "draws"
            groups[key].append({**_move_form(move), "deck": str(move.deck)})
        elif a is Action.END:
            groups["end"] = _move_form(move)
        elif a is Action.DISCARD:
            groups["discards"].append(
                {**_move_form(move), "card": move.card, "source": move.source}
            )
        elif a is Action.RETURN and groups["scout_return"] is None:
            groups["scout_return"] = {"count": len(move.cards), "move": "return"}
    groups["plays"] = list(by_card.values())
    groups["redeploys"] = list(redeploy.values())
    groups["traitors"] = list(traitor.values())
    if first_play is not None:
        # Every card played to a flag leaves the same hand size and decks: one follow-up list.
        groups["then"] = _follow_ups(state, first_play)
    return groups


def proof_rows(state: engine.GameState, seat: str) -> list[dict[str, Any]]:
    """For every unclaimed flag, whether ``seat`` could claim it on the board as it stands, and
    the prover's reason (R13). The reasons name only cards nobody can see yet or open ones.

    Flags where the seat's own side is still incomplete share one row ("Flags 1, 2, 5"): early
    in a game that is most of them, and nine identical lines hide the ones that matter.
    """
    rows: list[dict[str, Any]] = []
    incomplete: list[int] = []
    for flag, proof in sorted(engine.claim_proofs(state, seat).items()):
        if not proof.claimable and proof.mine is None and "incomplete" in proof.reason:
            incomplete.append(flag)
            continue
        rows.append(
            {
                "label": f"Flag {flag}",
                "flag": flag,
                "claimable": proof.claimable,
                "reason": proof.reason,
                "reason_pieces": with_cards(proof.reason, state.ruleset),
            }
        )
    if incomplete:
        plural = len(incomplete) > 1
        reason = "your side is not complete yet"
        rows.append(
            {
                "label": ("Flags " if plural else "Flag ") + ", ".join(map(str, incomplete)),
                "flag": incomplete[0],
                "claimable": False,
                "reason": reason,
                "reason_pieces": with_cards(reason, state.ruleset),
            }
        )
    return rows


def log_rows(
    entries: Sequence[MoveEntry],
    ruleset: engine.Ruleset,
    names: dict[str, str],
    *,
    reader: str | None,
    finished: bool,
) -> list[dict[str, Any]]:
    """The move list as rows to draw. ``reader`` is the seat reading (its own Scout returns show
    in full), None for the public; everything shows in full once the game is ``finished``."""
    rows = []
    for entry in entries:
        move = engine.parse_move(entry.notation, ruleset)
        hide = not finished and entry.seat != reader
        rows.append(
            {
                "number": entry.ply + 1,
                "seat": entry.seat,
                "words": narration(move, names.get(entry.seat, entry.seat), hide_returned=hide),
                "notation": move.public_text() if hide else str(move),
                "time": entry.created_at,
            }
        )
    return rows


def private_page_context(
    session: Session, game: Game, seat: str, state: engine.GameState
) -> dict[str, Any]:
    """What the private page of ``seat`` shows besides the public summary: the seat's view,
    its legal moves as forms, the claim proofs and the latest moves."""
    assert game.id is not None
    seats = store.seats_of(session, game.id)
    names = names_of(seats)
    entries = store.move_log(session, game.id)[-RECENT_ENTRIES:]
    finished = state.result is not None
    return {
        "view": engine.view(state, seat),
        "actions": action_groups(state, seat),
        "proofs": [] if finished else proof_rows(state, seat),
        "recent": log_rows(entries, state.ruleset, names, reader=seat, finished=finished),
        "names": names,
        "opponent": "B" if seat == "A" else "A",
        "hand_size": state.ruleset.hand_size,
        "flags_to_win": state.ruleset.flags_to_win,
        "adjacent_to_win": state.ruleset.adjacent_to_win,
    }
