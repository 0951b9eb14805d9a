"""Game records (docs/formats.md): a deal and a move list, exported as JSON and replayed.

Also the snapshot of a state as JSON, which the service keeps as a cache of replaying its log.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.apply import apply
from engine.cards import Card
from engine.deal import Deal, start
from engine.errors import EngineError, InvalidCardError, InvalidRecordError
from engine.moves import parse_move
from engine.rulesets import ClaimTiming, Ruleset, get_ruleset
from engine.state import (
    FlagState,
    GameState,
    Outcome,
    Phase,
    Termination,
)

RECORD_FORMAT = 1


@dataclass(frozen=True)
class GameRecord:
    """A whole game: ruleset, claim timing, the explicit deal and every move in notation."""

    ruleset: Ruleset
    claims: ClaimTiming
    deal: Deal
    moves: tuple[str, ...] = ()
    extras: dict[str, Any] = field(default_factory=dict)
    """Optional fields the service adds (seed, players, times); kept as they are."""

    def to_json(self) -> dict[str, Any]:
        """The record as docs/formats.md writes it."""
        out: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "ruleset": self.ruleset.name,
            "claims": self.claims.value,
            "first": self.deal.first,
            "deal": {
                **{
                    seat: list(hand)
                    for seat, hand in zip(self.ruleset.seats, self.deal.hands, strict=True)
                },
                "troops": list(self.deal.troops),
                "tactics": list(self.deal.tactics),
            },
            "moves": list(self.moves),
        }
        if self.deal.cuts:
            out["cuts"] = [list(cut) for cut in self.deal.cuts]
        for key, value in self.extras.items():
            out.setdefault(key, value)
        return out

    @classmethod
    def from_json(cls, data: Any) -> GameRecord:
        """Read a record; raises InvalidRecordError saying which field is wrong."""
        if not isinstance(data, dict):
            raise InvalidRecordError("a game record is a JSON object")
        if data.get("format", RECORD_FORMAT) != RECORD_FORMAT:
            raise InvalidRecordError(f"unknown record format {data.get('format')!r}")
        try:
            ruleset = get_ruleset(data.get("ruleset", "battleline"))
        except EngineError as e:
            raise InvalidRecordError(str(e)) from None
        claims_text = data.get("claims", ruleset.default_claims.value)
        if claims_text not in ("standard", "advanced"):
            raise InvalidRecordError(
                f"claims must be 'standard' or 'advanced', not {claims_text!r}"
            )
        seats = ruleset.seats
        first = data.get("first")
        if first not in seats:
            raise InvalidRecordError(f"first must be {_one_of(seats)}, not {first!r}")
        raw = data.get("deal")
        if not isinstance(raw, dict):
            raise InvalidRecordError(
                f"deal must be an object with {', '.join(seats)}, troops and tactics"
            )
        try:
            hands = tuple(_cards(raw.get(seat), ruleset, f"deal.{seat}") for seat in seats)
            troops = _cards(raw.get("troops", []), ruleset, "deal.troops")
            tactics = _cards(raw.get("tactics", []), ruleset, "deal.tactics")
        except InvalidCardError as e:
            raise InvalidRecordError(str(e)) from None
        every = [*(card for hand in hands for card in hand), *troops, *tactics]
        if len(set(every)) != len(every) or set(every) != ruleset.all_cards:
            raise InvalidRecordError(
                f"the deal must hold each of the {len(ruleset.all_cards)} cards of "
                f"{ruleset.title} exactly once"
            )
        moves = data.get("moves", [])
        if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
            raise InvalidRecordError("moves must be a list of strings")
        cuts = tuple(
            tuple(c)
            for c in data.get("cuts", [])
            if isinstance(c, list)
            and len(c) == len(seats)
            and all(card is None or isinstance(card, str) for card in c)
        )
        known = {"format", "ruleset", "claims", "first", "deal", "moves", "cuts"}
        return cls(
            ruleset=ruleset,
            claims=ClaimTiming(claims_text),
            deal=Deal(cuts=cuts, first=first, hands=hands, troops=troops, tactics=tactics),
            moves=tuple(moves),
            extras={k: v for k, v in data.items() if k not in known},
        )


def _one_of(seats: Sequence[str]) -> str:
    """``'A' or 'B'``, ``'A', 'B' or 'C'``."""
    quoted = [repr(seat) for seat in seats]
    return ", ".join(quoted[:-1]) + " or " + quoted[-1]


def _cards(raw: Any, ruleset: Ruleset, where: str) -> tuple[Card, ...]:
    if not isinstance(raw, list) or not all(isinstance(c, str) for c in raw):
        raise InvalidRecordError(f"{where} must be a list of card codes")
    return tuple(ruleset.parse_card(c) for c in raw)


class ReplayError(EngineError):
    """A record's move that cannot be applied; ``move`` counts entries from 1."""

    def __init__(self, move: int, message: str) -> None:
        super().__init__(f"move {move}: {message}")
        self.move = move
        self.reason = message


def replay_states(record: GameRecord) -> Iterable[GameState]:
    """The position before the first move and after every move, in order.

    Raises ReplayError at the first move that is malformed or illegal.
    """
    state = start(record.ruleset, record.claims, record.deal)
    yield state
    for number, text in enumerate(record.moves, start=1):
        try:
            state, _ = apply(state, parse_move(text, record.ruleset))
        except EngineError as e:
            raise ReplayError(number, str(e)) from None
        yield state


def replay(record: GameRecord) -> GameState:
    """The position after every move of the record (raises ReplayError)."""
    *_, last = replay_states(record)
    return last


# --- snapshots ------------------------------------------------------------------------------------


def state_to_json(state: GameState) -> dict[str, Any]:
    """Every field of a state as JSON (private: the service stores it, never shows it).

    Per-seat lists have one entry per seat; a flag's ``cards`` and ``arrivals`` are its pair's
    two sides (``Ruleset.flag_seats``). Beyond two seats the passes in a row and the seats
    sharing a draw are written too (V6.6), which two seats do not need.
    """
    data: dict[str, Any] = {
        "ruleset": state.ruleset.name,
        "claims": state.claims.value,
        "flags": [
            {
                "cards": [list(f.cards[0]), list(f.cards[1])],
                "arrivals": [list(f.arrivals[0]), list(f.arrivals[1])],
                "env": [[card, side] for card, side in f.env],
                "claimed_by": f.claimed_by,
            }
            for f in state.flags
        ],
        "hands": [list(h) for h in state.hands],
        "troop_deck": list(state.troop_deck),
        "tactics_deck": list(state.tactics_deck),
        "discards": [list(d) for d in state.discards],
        "tactics_played": list(state.tactics_played),
        "leader_played": list(state.leader_played),
        "first": state.first,
        "mover": state.mover,
        "phase": state.phase.value,
        "ply": state.ply,
        "turn": state.turn,
        "played": state.played,
        "passed": state.passed,
        "scouted": state.scouted,
        "scout_draws": state.scout_draws,
        "previous_passed": state.previous_passed,
        "pending_discards": [list(p) for p in state.pending_discards],
        "result": None
        if state.result is None
        else {"winner": state.result.winner, "termination": state.result.termination.value},
    }
    if state.ruleset.players > 2:
        data["previous_passes"] = state.previous_passes
        if state.result is not None:
            data["result"]["draw_between"] = list(state.result.draw_between)
    return data


def state_from_json(data: dict[str, Any]) -> GameState:
    """The inverse of state_to_json."""

    def pair(value: Sequence[Any]) -> tuple[Any, Any]:
        return (tuple(value[0]), tuple(value[1]))

    ruleset = get_ruleset(data["ruleset"])
    result = data["result"]
    outcome = None
    if result is not None:
        winner = result["winner"]
        # two seats write no draw_between: a draw of two is shared by both
        shared = () if winner is not None else ruleset.seats
        outcome = Outcome(
            winner,
            Termination(result["termination"]),
            tuple(result.get("draw_between", shared)),
        )
    return GameState(
        ruleset=ruleset,
        claims=ClaimTiming(data["claims"]),
        flags=tuple(
            FlagState(
                cards=pair(f["cards"]),
                arrivals=pair(f["arrivals"]),
                env=tuple((card, side) for card, side in f["env"]),
                claimed_by=f["claimed_by"],
            )
            for f in data["flags"]
        ),
        hands=tuple(tuple(hand) for hand in data["hands"]),
        troop_deck=tuple(data["troop_deck"]),
        tactics_deck=tuple(data["tactics_deck"]),
        discards=tuple(tuple(cards) for cards in data["discards"]),
        tactics_played=tuple(data["tactics_played"]),
        leader_played=tuple(data["leader_played"]),
        first=data["first"],
        mover=data["mover"],
        phase=Phase(data["phase"]),
        ply=data["ply"],
        turn=data["turn"],
        played=data["played"],
        passed=data["passed"],
        scouted=data["scouted"],
        scout_draws=data["scout_draws"],
        previous_passed=data["previous_passed"],
        previous_passes=data.get("previous_passes", int(data["previous_passed"])),
        pending_discards=tuple((s, i) for s, i in data["pending_discards"]),
        result=outcome,
    )
