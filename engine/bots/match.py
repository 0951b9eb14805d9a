"""Matches between computer levels: whole games, each seat choosing from its own view.

``play_match`` is pure and deterministic: the deals and every seat's generator come from the
seed, so the same arguments give the same games. Timing is the caller's: pass a ``clock`` (CPU
seconds) to have the moves measured; the figures never steer a move. A caller that studies the
games themselves passes ``observe``, which sees every position.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from engine.apply import apply
from engine.bots.levels import Baseline, BotLevel, choose_move, level_of
from engine.deal import deal_from_seed, start
from engine.rulesets import ClaimTiming, Ruleset
from engine.state import GameState, Phase, Seat
from engine.view import player_view

MAX_PLIES = 5000
"""No game of this engine comes near it; a match stops with an error rather than loop."""


@dataclass
class MatchResult:
    """The outcome of a match, from the side of ``bot``."""

    bot: BotLevel | Baseline
    against: BotLevel | Baseline
    ruleset: str
    claims: ClaimTiming
    seed: str
    budget: int | None
    """The bot's search budget (the strong level's worlds, the expert's iterations per
    decision); None for its default."""
    against_budget: int | None = None
    """The same for the level it meets."""
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    """Games the bot's seat shared a draw in (a draw between the other two is a loss)."""
    plies: int = 0
    """Moves made in all games, by every seat."""
    times: list[float] = field(default_factory=list)
    """CPU seconds of each move of the bot (with a clock)."""
    play_times: list[float] = field(default_factory=list)
    """CPU seconds of each move of the bot that chose what to play at the start of a turn (the
    decisions the strong level searches; claims and draws left out)."""
    against_play_times: list[float] = field(default_factory=list)
    """The same for the seats of ``against`` (not in the JSON line)."""

    def to_json(self) -> dict[str, Any]:
        """The one JSON line of ``python -m engine match``: counts, and the bot's median CPU
        milliseconds per move (all moves; and those that chose a card to play)."""

        def ms(values: list[float]) -> float | None:
            return round(statistics.median(values) * 1000, 3) if values else None

        return {
            "bot": self.bot.value,
            "against": self.against.value,
            "games": self.games,
            "wins": self.wins,
            "losses": self.losses,
            "draws": self.draws,
            "ms_per_move": ms(self.times),
            "ms_per_play": ms(self.play_times),
            "ms_max": round(max(self.times) * 1000, 3) if self.times else None,
            "win_rate": round(self.wins / self.games, 4) if self.games else None,
            "ruleset": self.ruleset,
            "claims": self.claims.value,
            "seed": self.seed,
            "budget": self.budget,
            "against_budget": self.against_budget,
            "moves": len(self.times),
            "plies_per_game": round(self.plies / self.games, 1) if self.games else None,
        }


def play_match(
    bot: BotLevel | Baseline | str,
    against: BotLevel | Baseline | str,
    games: int,
    seed: str,
    ruleset: Ruleset,
    claims: ClaimTiming | None = None,
    *,
    budget: int | None = None,
    against_budget: int | None = None,
    clock: Callable[[], float] | None = None,
    first: int = 0,
    observe: Callable[[int, GameState], None] | None = None,
) -> MatchResult:
    """Play ``games`` games of ``bot`` against ``against`` (every other seat) and count them.

    The bot changes seat every game (A, B, and C with three players), and the games of one
    round of seats share a deal, so that each level plays every seat of it. ``budget`` is the
    bot's and ``against_budget`` the other level's (``choose_move``; None: the level's own
    default); a level may also be a ``Baseline``. ``first`` is the
    number of the first game: a match split into parts that start where the last ended plays
    the same games as the whole (``merged`` adds the parts up). ``observe(game, state)`` is
    called with every position of every game, before its move and once more at its end.
    Raises ValueError for a bad level, a count below 1 or a
    negative first game.
    """
    bot, against = level_of(bot), level_of(against)
    if games < 1 or first < 0:
        raise ValueError("a match has at least one game, numbered from 0")
    claims = claims or ruleset.default_claims
    result = MatchResult(bot, against, ruleset.name, claims, seed, budget, against_budget)
    seats = ruleset.seats
    for game in range(first, first + games):
        mine = seats[game % len(seats)]
        dealt = deal_from_seed(ruleset, f"{seed}/{game // len(seats)}")
        state = start(ruleset, claims, dealt)
        rngs: dict[Seat, random.Random] = {s: random.Random(f"{seed}/{game}/{s}") for s in seats}
        while state.result is None:
            if observe is not None:
                observe(game, state)
            seat = state.to_move
            level = bot if seat == mine else against
            seen = player_view(state, seat)
            began = clock() if clock is not None else 0.0
            spend = budget if seat == mine else against_budget
            move = choose_move(seen, level, rngs[seat], budget=spend)
            if clock is not None:
                spent = clock() - began
                choosing = state.phase is Phase.START and not seen.claimable
                if seat == mine:
                    result.times.append(spent)
                    if choosing:
                        result.play_times.append(spent)
                elif choosing:
                    result.against_play_times.append(spent)
            state, _ = apply(state, move)
            if state.ply > MAX_PLIES:
                raise RuntimeError(f"game {game} of the match did not end in {MAX_PLIES} moves")
        if observe is not None:
            observe(game, state)
        result.games += 1
        result.plies += state.ply
        outcome = state.result
        if outcome.winner == mine:
            result.wins += 1
        elif outcome.winner is None and mine in outcome.draw_between:
            result.draws += 1
        else:
            result.losses += 1
    return result


def merged(parts: list[MatchResult]) -> MatchResult:
    """The parts of one match (played with consecutive ``first`` games, in order) as one."""
    whole = replace(parts[0], times=[], play_times=[], against_play_times=[])
    whole.games = whole.wins = whole.losses = whole.draws = whole.plies = 0
    for part in parts:
        whole.games += part.games
        whole.wins += part.wins
        whole.losses += part.losses
        whole.draws += part.draws
        whole.plies += part.plies
        whole.times.extend(part.times)
        whole.play_times.extend(part.play_times)
        whole.against_play_times.extend(part.against_play_times)
    return whole
