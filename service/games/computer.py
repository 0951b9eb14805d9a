"""The computer's seats: its players (one per level) and the turn it plays.

A computer seat is a seat whose player is one of the computer's own players
(``Player.computer`` holds the level). It reads no email (the outbox never queues one to it)
and it decides from its seat's view alone (``engine.player_view``): the function that chooses a
move never sees the game's state, the other hands or the order of the decks.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlmodel import Session, select

import engine
from engine.bots import BotLevel, choose_move
from service.games.loaded import LoadedGame
from service.games.state import apply_to_locked
from service.models import Game, Player

COMPUTER_DOMAIN = "computer.invalid"
"""The computer players' addresses end here: ``.invalid`` is reserved (RFC 2606), so no mail
server would ever take one, even if something tried to send to it."""

COMPUTER_LEVELS = tuple(level.value for level in BotLevel)
"""``random``, ``easy``, ``normal``, ``strong``, ``expert`` (engine.bots), weakest first."""

COMPUTER_LEVEL_WORDS: engine.FrozenMap[str, str] = engine.FrozenMap(
    {
        BotLevel.RANDOM.value: "plays any card at all, to learn the rules against",
        BotLevel.EASY.value: "knows what it wants but often plays a careless card",
        BotLevel.NORMAL.value: "plays the card that helps its flags most: a fair game for anyone",
        BotLevel.STRONG.value: "thinks ahead about the cards it cannot see: for a practised player",
        BotLevel.EXPERT.value: "searches several turns deep: the strongest it can be",
    }
)
"""Each level in words a player understands, for the new-game form."""

MOVES_PER_TURN_MAX = 24
"""More moves than any turn takes (claims, a card, a Scout's draws and returns, the draw): a
guard against a chooser that never ends its turn."""


def computer_name(level: str) -> str:
    return f"Computer ({level})"


def computer_email(level: str) -> str:
    return f"computer-{level}@{COMPUTER_DOMAIN}"


def computer_player(session: Session, level: str) -> Player:
    """The computer's player of ``level``, added on first use. Raises ValueError for a level the
    engine does not know."""
    if level not in COMPUTER_LEVELS:
        raise ValueError(f"no computer level {level!r}: one of {', '.join(COMPUTER_LEVELS)}")
    email = computer_email(level)
    player = session.exec(select(Player).where(Player.email == email)).one_or_none()
    if player is None:
        player = Player(email=email, display_name=computer_name(level), computer=level)
        session.add(player)
        session.flush()
    return player


def computer_due(game: Game) -> datetime:
    """When the computer plays the turn that began at ``game.turn_started_at``."""
    assert game.turn_started_at is not None
    return game.turn_started_at + timedelta(seconds=game.computer_delay_s)


def computer_rng(game: Game, ply: int) -> random.Random:
    """The computer's dice for the turn starting at ``ply``: the same on a second run of the same
    turn (a task run twice plays the same moves), drawn from the game's secret seed through a
    hash, so they tell nothing about the deal."""
    digest = hashlib.sha256(f"computer:{game.seed}:{ply}".encode()).digest()
    return random.Random(digest)


@dataclass(frozen=True, slots=True)
class ComputerTurn:
    """A computer seat's whole turn, chosen from the position at ``ply``: what it will play."""

    ply: int
    moves: tuple[engine.Move, ...]


def plan_computer_turn(
    state: engine.GameState, seat: str, level: str, rng: random.Random
) -> ComputerTurn:
    """``seat``'s whole turn, each move chosen from the seat's view of the position the moves
    before it lead to (the engine plays them out in memory). With ``computer_rng`` of the game
    and this position's ply, the same position gives the same moves: a turn chosen before the
    game is locked is the turn that would be chosen under the lock."""
    ply = state.ply
    moves: list[engine.Move] = []
    for _ in range(MOVES_PER_TURN_MAX):
        if state.result is not None or state.to_move != seat:
            break
        move = choose_move(engine.player_view(state, seat), level, rng)
        moves.append(move)
        state, events = engine.apply(state, move)
        if any(isinstance(event, engine.TurnStarted) for event in events):
            break
    return ComputerTurn(ply, tuple(moves))


def play_computer_turn(
    session: Session,
    loaded: LoadedGame,
    state: engine.GameState,
    seat: str,
    level: str,
    now: datetime,
    chosen: ComputerTurn | None = None,
) -> engine.GameState:
    """Play ``seat``'s whole turn, one move at a time, applied like a person's (the move
    listeners hear each: the next turn starts, or the game ends). Call with the game locked.
    ``chosen``: the turn planned before the lock (``plan_computer_turn``), used when it was
    planned from this very position; otherwise the search runs now. Returns the position after
    the turn."""
    if chosen is None or chosen.ply != state.ply:
        chosen = plan_computer_turn(state, seat, level, computer_rng(loaded.game, state.ply))
    for move in chosen.moves:
        if state.result is not None or state.to_move != seat:
            break
        state, _ = apply_to_locked(session, loaded, state, seat, state.ply, [move], now=now)
    return state
