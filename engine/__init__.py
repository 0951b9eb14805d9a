"""The Battle Line rules engine: pure, typed, deterministic. State in, state out.

Start a game with `deal_from_seed` (or `deal` with a `random.Random`) and `start`; ask
`legal_moves`; make a move with `apply`; show a seat only `view`, the public only `public_view`.
"""

from engine.cards import Card, CardKind, Tactic
from engine.deal import Deal, deal, deal_from_seed, seed_commitment, start
from engine.errors import (
    EngineError,
    IllegalMoveError,
    InvalidCardError,
    InvalidMoveError,
    InvalidRecordError,
    InvalidSituationError,
    UnknownRulesetError,
)
from engine.events import Event, FlagClaimed, GameEnded, TurnStarted
from engine.formations import Formation, FormationValue, evaluate
from engine.moves import Action, Deck, Move, parse_move
from engine.prover import ClaimProof, UnseenTroops, prove_claim
from engine.record import (
    GameRecord,
    ReplayError,
    replay,
    replay_states,
    state_from_json,
    state_to_json,
)
from engine.rules import (
    apply,
    automatic_claims,
    claim_proofs,
    legal_moves,
    provable_flags,
    visible_cards,
)
from engine.rulesets import RULESETS, ClaimTiming, Ruleset, get_ruleset
from engine.series import series_points
from engine.state import SEATS, FlagState, GameState, Outcome, Phase, Seat, Termination
from engine.view import public_view, view

RULES_VERSION = "1"
"""Bumped whenever a rule changes how a recorded game replays; games keep the version they began
with (the service refuses to replay a game under another)."""

__all__ = [
    "RULESETS",
    "RULES_VERSION",
    "SEATS",
    "Action",
    "Card",
    "CardKind",
    "ClaimProof",
    "ClaimTiming",
    "Deal",
    "Deck",
    "EngineError",
    "Event",
    "FlagClaimed",
    "FlagState",
    "Formation",
    "FormationValue",
    "GameEnded",
    "GameRecord",
    "GameState",
    "IllegalMoveError",
    "InvalidCardError",
    "InvalidMoveError",
    "InvalidRecordError",
    "InvalidSituationError",
    "Move",
    "Outcome",
    "Phase",
    "ReplayError",
    "Ruleset",
    "Seat",
    "Tactic",
    "Termination",
    "TurnStarted",
    "UnknownRulesetError",
    "UnseenTroops",
    "apply",
    "automatic_claims",
    "claim_proofs",
    "deal",
    "deal_from_seed",
    "evaluate",
    "get_ruleset",
    "legal_moves",
    "parse_move",
    "provable_flags",
    "prove_claim",
    "public_view",
    "replay",
    "replay_states",
    "seed_commitment",
    "series_points",
    "start",
    "state_from_json",
    "state_to_json",
    "view",
    "visible_cards",
]
