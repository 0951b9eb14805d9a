"""The computer opponent: ``choose_move(view, level, rng)`` for a seat that sees only its own
view (docs/bots.md), and ``play_match`` to measure the levels against each other."""

from engine.native import use_build

use_build(__path__, "engine.bots")  # compiled modules first, where built (engine/native.py)

from engine.bots.levels import BotLevel, choose_move
from engine.bots.match import MatchResult, play_match
from engine.bots.search import DEFAULT_BUDGET

__all__ = ["DEFAULT_BUDGET", "BotLevel", "MatchResult", "choose_move", "play_match"]
