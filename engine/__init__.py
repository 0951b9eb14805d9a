"""The Battle Line rules engine: pure, typed, deterministic. State in, state out.

Start a game with `deal_from_seed` (or `deal` with a `random.Random`) and `start`; ask
`legal_moves`; make a move with `apply`; show a seat only its `player_view`, the public only the
`spectator_view` (`public_view` is the latter as a dict), and a seat's claims with
`claim_proof_views`. A computer seat moves with `choose_move(player_view(...), level, rng)`
(docs/bots.md); `play_match` measures the levels.

Two or three seats (`battleline-3p`, `no-tactics-3p`: V6) run the same code: every flag
has its pair of seats (`Ruleset.flag_seats`, `FlagView.seats`), and every rule works on the pair.
"""

from engine.native import use_build

use_build(__path__, "engine")  # compiled modules first, where built (engine/native.py)

from engine.apply import (
    apply,
    apply_automatic_claims,
    endings_after,
    turn_endings,
    turn_endings_by_move,
)
from engine.bots import BotLevel, MatchResult, choose_move, play_match
from engine.cards import Card, CardKind, Tactic
from engine.claims import (
    automatic_claims,
    claim_proofs,
    flags_held,
    provable_flags,
    visible_cards,
)
from engine.deal import Deal, deal, deal_from_seed, describe_cut, seed_commitment, start
from engine.errors import (
    EngineError,
    ExplainedError,
    IllegalMoveError,
    InvalidCardError,
    InvalidMoveError,
    InvalidRecordError,
    InvalidSituationError,
    UnknownRulesetError,
    Why,
)
from engine.events import Event, FlagClaimed, GameEnded, TurnStarted
from engine.formations import Formation, FormationValue, evaluate, formation_size
from engine.legal import TacticsBlock, automatic_end, legal_moves
from engine.moves import Action, Deck, Move, parse_action, parse_move
from engine.prover import (
    ClaimMargin,
    ClaimProof,
    ClaimStatus,
    UnseenTroops,
    claim_margin,
    prove_claim,
)
from engine.record import (
    GameRecord,
    ReplayError,
    replay,
    replay_states,
    state_from_json,
    state_to_json,
)
from engine.rulesets import RULESETS, ClaimTiming, Ruleset, get_ruleset
from engine.series import series_leaders, series_over, series_points, series_winner
from engine.state import FIRST_SEAT, SEATS, FlagState, GameState, Outcome, Phase, Seat, Termination
from engine.view import (
    BlockedTactic,
    ClaimProofView,
    EnvironmentCard,
    FlagView,
    FrozenMap,
    PendingDiscard,
    PlayerView,
    PublicView,
    claim_proof_view,
    claim_proof_views,
    player_view,
    public_view,
    spectator_view,
)

RULES_VERSION = "1"
"""Bumped whenever a rule changes how a recorded game replays; games keep the version they began
with (the service refuses to replay a game under another)."""

__all__ = [
    "FIRST_SEAT",
    "RULESETS",
    "RULES_VERSION",
    "SEATS",
    "Action",
    "BlockedTactic",
    "BotLevel",
    "Card",
    "CardKind",
    "ClaimMargin",
    "ClaimProof",
    "ClaimProofView",
    "ClaimStatus",
    "ClaimTiming",
    "Deal",
    "Deck",
    "EngineError",
    "EnvironmentCard",
    "Event",
    "ExplainedError",
    "FlagClaimed",
    "FlagState",
    "FlagView",
    "Formation",
    "FormationValue",
    "FrozenMap",
    "GameEnded",
    "GameRecord",
    "GameState",
    "IllegalMoveError",
    "InvalidCardError",
    "InvalidMoveError",
    "InvalidRecordError",
    "InvalidSituationError",
    "MatchResult",
    "Move",
    "Outcome",
    "PendingDiscard",
    "Phase",
    "PlayerView",
    "PublicView",
    "ReplayError",
    "Ruleset",
    "Seat",
    "Tactic",
    "TacticsBlock",
    "Termination",
    "TurnStarted",
    "UnknownRulesetError",
    "UnseenTroops",
    "Why",
    "apply",
    "apply_automatic_claims",
    "automatic_claims",
    "automatic_end",
    "choose_move",
    "claim_margin",
    "claim_proof_view",
    "claim_proof_views",
    "claim_proofs",
    "deal",
    "deal_from_seed",
    "describe_cut",
    "endings_after",
    "evaluate",
    "flags_held",
    "formation_size",
    "get_ruleset",
    "legal_moves",
    "parse_action",
    "parse_move",
    "play_match",
    "player_view",
    "provable_flags",
    "prove_claim",
    "public_view",
    "replay",
    "replay_states",
    "seed_commitment",
    "series_leaders",
    "series_over",
    "series_points",
    "series_winner",
    "spectator_view",
    "start",
    "state_from_json",
    "state_to_json",
    "turn_endings",
    "turn_endings_by_move",
    "visible_cards",
]
