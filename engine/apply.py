"""What a move does: ``apply(state, move) -> (state, events)``, one handler per action.

Turn order and game-over guards live once in ``apply``; the handlers below it may assume them.
Each handler checks its move through ``engine.legal`` (the checks ``legal_moves`` uses too) and
returns a new state; the given state is never changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from engine.cards import ENVIRONMENT, LEADERS, Card, Tactic, is_tactic
from engine.claims import automatic_claims, claims_allowed_now, provable_flags, standing, victory
from engine.errors import IllegalMoveError, Why
from engine.events import Event, FlagClaimed, GameEnded, TurnStarted
from engine.legal import (
    automatic_end,
    check_claim,
    check_deserter,
    check_draw_deck,
    check_in_hand,
    check_own_card_at,
    check_pass,
    check_play,
    check_redeploy,
    check_scout_draw,
    check_tactics_limit,
    check_traitor,
    deck_cards,
    draw_due,
    legal_moves,
    opponent_at,
    out_of_phase,
    scout_returns_due,
)
from engine.moves import Action, Deck, Move
from engine.state import SEATS, FlagState, GameState, Outcome, Phase, Termination

T = TypeVar("T")

Handler = Callable[[GameState, Move, list[Event]], GameState]

_LEAVING = {Action.RESIGN: Termination.RESIGNATION, Action.TIMEOUT: Termination.TIME}

_GUILE_ACTIONS = {
    Action.REDEPLOY: Tactic.REDEPLOY.value,
    Action.DESERTER: Tactic.DESERTER.value,
    Action.TRAITOR: Tactic.TRAITOR.value,
}


def apply(state: GameState, move: Move) -> tuple[GameState, list[Event]]:
    """Apply a legal move and return the new state and what happened.

    Raises IllegalMoveError naming the rule that forbids the move; the given state is never
    changed (it is immutable).
    """
    if state.result is not None:
        raise IllegalMoveError(
            f"the game is over: {state.result.describe(state.ruleset.seats)}", Why.GAME_OVER
        )
    if move.seat not in state.ruleset.seats:
        raise IllegalMoveError(f"{move.seat!r} is not a seat", Why.NOT_A_SEAT, seat=move.seat)
    seat = SEATS.index(move.seat)
    events: list[Event] = []
    if move.action in _LEAVING:
        # R21, V6.7: the game ends at once; of the seats that remain, the most flags wins
        others = state.ruleset.opponents(move.seat)
        return _finish(state, standing(state, others, _LEAVING[move.action]), events)
    if seat != state.mover:
        raise IllegalMoveError(
            f"it is {state.to_move}'s turn, not {move.seat}'s", Why.NOT_YOUR_TURN, seat=move.seat
        )
    handler = _HANDLERS[state.phase].get(move.action)
    if handler is None:
        raise out_of_phase(state, move)
    new = handler(state, move, events)
    return new, events


def turn_endings(state: GameState, move: Move) -> list[Move]:
    """The draws (or ``end``) that may end the turn right after ``move``, so that a page can
    offer a card and the draw in one press. Empty when ``move`` ends the game or the turn, or
    leaves more to do first (a Scout, a Mud discard), or leaves only the ``end``, which the
    service makes by itself (``automatic_end``). Raises IllegalMoveError for an illegal
    ``move``."""
    after, _ = apply(state, move)
    return endings_after(state, after)


def endings_after(before: GameState, after: GameState) -> list[Move]:
    """``turn_endings`` of the move that led from ``before`` to ``after``, for a caller that
    applied it already."""
    if (
        after.result is not None
        or after.mover != before.mover
        or after.phase is not Phase.AFTER_PLAY
        or automatic_end(after) is not None
    ):
        return []
    return [m for m in legal_moves(after) if m.action in (Action.DRAW, Action.END)]


def turn_endings_by_move(
    state: GameState, moves: Iterable[Move] | None = None
) -> dict[Move, tuple[Move, ...]]:
    """``turn_endings`` of each card played to a flag and of a pass among the legal ``moves`` of
    ``state`` (``legal_moves(state)`` when not given), by move: what a page offers to end the
    turn in the same press. Cards differ only when no draw follows and a claim may (R4): a card
    that makes a flag provable leaves the ``end`` to choose, any other ends the turn itself."""
    found: dict[Move, tuple[Move, ...]] = {}
    shared: tuple[Move, ...] | None = None
    for move in legal_moves(state) if moves is None else moves:
        if move.action not in (Action.PLAY, Action.PASS):
            continue
        if move.action is Action.PLAY and shared is not None:
            found[move] = shared
            continue
        after, _ = apply(state, move)
        endings = tuple(endings_after(state, after))
        if move.action is Action.PLAY and (draw_due(after) or not claims_allowed_now(after)):
            # Every card leaves the same hand size and decks, and no claim can follow it.
            shared = endings
        found[move] = endings
    return found


def apply_automatic_claims(state: GameState) -> tuple[GameState, list[Move]]:
    """Make the automatic claims of the turn (R5, ``automatic_claims``), lowest flag first, up to
    the one that ends the game (R21): the position after them and the claims made. Every flag
    was provable at the start of the turn, but once a claim ends the game the rest cannot be
    made. Nothing is made unless the advanced rule is in force and the turn is at its start."""
    made: list[Move] = []
    for claim in automatic_claims(state):
        state, _ = apply(state, claim)
        made.append(claim)
        if state.result is not None:
            break
    return state, made


# --- building the next state ----------------------------------------------------------------------


def _finish(
    state: GameState, outcome: Outcome, events: list[Event]
) -> tuple[GameState, list[Event]]:
    events.append(GameEnded(outcome))
    return state.evolve(result=outcome, phase=Phase.OVER, ply=state.ply + 1), events


def _step(state: GameState, **changes: object) -> GameState:
    new: GameState = state.evolve(ply=state.ply + 1, **changes)
    return new


def _with_flag(flags: tuple[FlagState, ...], index: int, flag: FlagState) -> tuple[FlagState, ...]:
    return flags[:index] + (flag,) + flags[index + 1 :]


def _at(values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    """A per-seat (or per-side) tuple with one entry replaced."""
    return values[:index] + (value,) + values[index + 1 :]


def _pair(pair: tuple[T, T], side: int, value: T) -> tuple[T, T]:
    """A flag's pair of sides with one side replaced."""
    return (value, pair[1]) if side == 0 else (pair[0], value)


def _without(cards: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    i = cards.index(card)
    return cards[:i] + cards[i + 1 :]


def _side(state: GameState, index: int, seat: int) -> int:
    """The side of seat (index) at flag ``index``; the checks made sure it contests the flag."""
    side = state.ruleset.side(index, seat)
    assert side is not None, "checked before: the seat contests this flag"
    return side


def _add_card(flag: FlagState, side: int, card: Card, ply: int) -> FlagState:
    cards = flag.cards[side] + (card,)
    arrivals = flag.arrivals[side] + (ply,)
    return flag.evolve(
        cards=_pair(flag.cards, side, cards),
        arrivals=_pair(flag.arrivals, side, arrivals),
    )


def _remove_card(flag: FlagState, side: int, card: Card) -> FlagState:
    i = flag.cards[side].index(card)
    cards = flag.cards[side][:i] + flag.cards[side][i + 1 :]
    arrivals = flag.arrivals[side][:i] + flag.arrivals[side][i + 1 :]
    return flag.evolve(
        cards=_pair(flag.cards, side, cards),
        arrivals=_pair(flag.arrivals, side, arrivals),
    )


def _settle_pending(state: GameState) -> tuple[tuple[int, int], ...]:
    """Pending R20 discards that are still needed (a side may have lost a card meanwhile)."""
    return tuple(
        (s, i)
        for s, i in state.pending_discards
        if len(state.flags[i].cards[_side(state, i, s)]) > state.flags[i].size(state.ruleset)
    )


def _play_tactic(state: GameState, card: Card) -> dict[str, object]:
    """The common part of playing any tactics card: out of the hand, counted for R8."""
    me = state.mover
    return {
        "hands": _at(state.hands, me, _without(state.hands[me], card)),
        "tactics_played": _at(state.tactics_played, me, state.tactics_played[me] + 1),
    }


def _draw(state: GameState, deck: Deck | None) -> dict[str, object]:
    check_draw_deck(state, deck)
    me = state.mover
    cards = deck_cards(state, deck)
    changes: dict[str, object] = {"hands": _at(state.hands, me, (*state.hands[me], cards[0]))}
    changes["tactics_deck" if deck is Deck.TACTICS else "troop_deck"] = cards[1:]
    return changes


# --- the handlers ---------------------------------------------------------------------------------


def _apply_claim(state: GameState, move: Move, events: list[Event]) -> GameState:
    assert move.flag is not None
    proof = check_claim(state, move.flag)
    index = move.flag - 1
    flags = _with_flag(state.flags, index, state.flags[index].evolve(claimed_by=state.mover))
    new = _step(state, flags=flags)
    events.append(FlagClaimed(move.seat, move.flag, proof.reason))
    won = victory(new, state.mover)
    if won is not None:
        outcome = Outcome(move.seat, won)
    elif all(flag.claimed_by is not None for flag in flags):
        # V6.6: every flag held and no victory (three each): the most flags win, or share a draw
        outcome = standing(new, new.ruleset.seats, Termination.STALEMATE)
    else:
        return new
    events.append(GameEnded(outcome))
    return new.evolve(result=outcome, phase=Phase.OVER)


def _apply_play(state: GameState, move: Move, events: list[Event]) -> GameState:
    card = move.card
    if card is None:
        raise IllegalMoveError("no card named", Why.NO_CARD_NAMED)
    check_play(state, card, move.flag)
    assert move.flag is not None
    me, index = state.mover, move.flag - 1
    flag = state.flags[index]
    changes: dict[str, object] = {}
    if is_tactic(card):
        changes = _play_tactic(state, card)
    else:
        changes["hands"] = _at(state.hands, me, _without(state.hands[me], card))
    if card in ENVIRONMENT:
        flag = flag.evolve(env=(*flag.env, (card, me)))
    else:
        flag = _add_card(flag, _side(state, index, me), card, state.ply)
        if card in LEADERS:
            changes["leader_played"] = _at(state.leader_played, me, True)
    return _step(
        state,
        flags=_with_flag(state.flags, index, flag),
        phase=Phase.AFTER_PLAY,
        played=True,
        **changes,
    )


def _apply_pass(state: GameState, move: Move, events: list[Event]) -> GameState:
    check_pass(state)
    return _step(state, phase=Phase.AFTER_PLAY, played=True, passed=True)


def _apply_scout(state: GameState, move: Move, events: list[Event]) -> GameState:
    card = check_in_hand(state, Tactic.SCOUT.value)
    check_tactics_limit(state)
    me = state.mover
    return _step(
        state,
        discards=_at(state.discards, me, (*state.discards[me], card)),
        phase=Phase.SCOUT,
        played=True,
        scouted=True,
        scout_draws=0,
        **_play_tactic(state, card),
    )


def _apply_scout_draw(state: GameState, move: Move, events: list[Event]) -> GameState:
    check_scout_draw(state)
    return _step(state, scout_draws=state.scout_draws + 1, **_draw(state, move.deck))


def _apply_scout_return(state: GameState, move: Move, events: list[Event]) -> GameState:
    needed = scout_returns_due(state)
    if len(move.cards) != needed:
        raise IllegalMoveError(
            f"put back exactly {needed} card{'s' if needed != 1 else ''}, to bring your hand "
            f"back to {state.ruleset.hand_size}",
            Why.SCOUT_RETURN_COUNT,
            "R16",
            count=needed,
            other_count=state.ruleset.hand_size,
        )
    me = state.mover
    hand = state.hands[me]
    troops, tactics = state.troop_deck, state.tactics_deck
    for card in move.cards:
        if card not in hand:
            raise IllegalMoveError(
                f"{card} is not in your hand (or is listed twice)",
                Why.CARD_NOT_IN_HAND,
                "R16",
                card=card,
            )
        hand = _without(hand, card)
        # Each card goes face down on top of its own deck; the last one listed ends on top.
        if is_tactic(card):
            tactics = (card, *tactics)
        else:
            troops = (card, *troops)
    return _step(
        state,
        hands=_at(state.hands, me, hand),
        troop_deck=troops,
        tactics_deck=tactics,
        phase=Phase.AFTER_PLAY,
    )


def _apply_redeploy(state: GameState, move: Move, events: list[Event]) -> GameState:
    tactic = _GUILE_ACTIONS[move.action]
    check_in_hand(state, tactic)
    check_tactics_limit(state)
    check_redeploy(state, move)
    assert move.card is not None and move.source is not None
    me = state.mover
    flags = state.flags
    src = move.source - 1
    flags = _with_flag(flags, src, _remove_card(flags[src], _side(state, src, me), move.card))
    discards = (*state.discards[me], tactic)
    if move.flag is None:
        discards = (*discards, move.card)
    else:
        dst = move.flag - 1
        moved = _add_card(flags[dst], _side(state, dst, me), move.card, state.ply)
        flags = _with_flag(flags, dst, moved)
    return _step(
        state,
        flags=flags,
        discards=_at(state.discards, me, discards),
        phase=Phase.AFTER_PLAY,
        played=True,
        **_play_tactic(state, tactic),
    )


def _apply_deserter(state: GameState, move: Move, events: list[Event]) -> GameState:
    tactic = _GUILE_ACTIONS[move.action]
    check_in_hand(state, tactic)
    check_tactics_limit(state)
    check_deserter(state, move)
    assert move.card is not None and move.source is not None
    me, index = state.mover, move.source - 1
    mine = _side(state, index, me)
    opp = opponent_at(state, index, mine)
    flag = state.flags[index]
    if move.card in ENVIRONMENT:
        env = list(flag.env)
        env.remove((move.card, opp))
        flag = flag.evolve(env=tuple(env))
    else:
        flag = _remove_card(flag, 1 - mine, move.card)
    discards = _at(state.discards, opp, (*state.discards[opp], move.card))
    discards = _at(discards, me, (*discards[me], tactic))
    new = _step(
        state,
        flags=_with_flag(state.flags, index, flag),
        discards=discards,
        played=True,
        **_play_tactic(state, tactic),
    )
    pending = list(_settle_pending(new))
    if move.card == Tactic.MUD:
        # R20: a side left with four cards gives one up; the actor now, the other next turn.
        size = flag.size(state.ruleset)
        for s, side in ((me, mine), (opp, 1 - mine)):
            if len(flag.cards[side]) > size:
                pending.append((s, index))
    phase = Phase.MUD_DISCARD if (me, index) in pending else Phase.AFTER_PLAY
    return new.evolve(pending_discards=tuple(pending), phase=phase)


def _apply_traitor(state: GameState, move: Move, events: list[Event]) -> GameState:
    tactic = _GUILE_ACTIONS[move.action]
    check_in_hand(state, tactic)
    check_tactics_limit(state)
    check_traitor(state, move)
    assert move.card is not None and move.source is not None and move.flag is not None
    me = state.mover
    flags = state.flags
    src, dst = move.source - 1, move.flag - 1
    taken = _remove_card(flags[src], 1 - _side(state, src, me), move.card)
    flags = _with_flag(flags, src, taken)
    placed = _add_card(flags[dst], _side(state, dst, me), move.card, state.ply)
    flags = _with_flag(flags, dst, placed)
    new = _step(
        state,
        flags=flags,
        discards=_at(state.discards, me, (*state.discards[me], tactic)),
        phase=Phase.AFTER_PLAY,
        played=True,
        **_play_tactic(state, tactic),
    )
    return new.evolve(pending_discards=_settle_pending(new))


def _apply_discard(state: GameState, move: Move, events: list[Event]) -> GameState:
    me = state.mover
    if move.source is None or (me, move.source - 1) not in state.pending_discards:
        raise IllegalMoveError(
            f"you owe no discard at flag {move.source}: only a side left with four cards when "
            "the Mud leaves gives one up",
            Why.NO_DISCARD_OWED,
            "R20",
            flag=move.source,
        )
    index = check_own_card_at(state, me, move.card, move.source)
    assert move.card is not None
    kept = _remove_card(state.flags[index], _side(state, index, me), move.card)
    flags = _with_flag(state.flags, index, kept)
    new = _step(
        state, flags=flags, discards=_at(state.discards, me, (*state.discards[me], move.card))
    )
    pending = _settle_pending(new)
    if any(s == me for s, _ in pending):
        phase = Phase.MUD_DISCARD
    else:
        phase = Phase.AFTER_PLAY if state.played else Phase.START
    return new.evolve(pending_discards=pending, phase=phase)


def _apply_draw(state: GameState, move: Move, events: list[Event]) -> GameState:
    if not draw_due(state):
        raise out_of_phase(state, move)
    return _end_turn(_step(state, **_draw(state, move.deck)), events)


def _apply_end(state: GameState, move: Move, events: list[Event]) -> GameState:
    if draw_due(state):
        raise IllegalMoveError("you must draw a card before your turn ends", Why.DRAW_FIRST, "R7")
    return _end_turn(_step(state), events)


def _end_turn(state: GameState, events: list[Event]) -> GameState:
    rs = state.ruleset
    if (
        state.passed
        and state.previous_passes >= rs.players - 1
        and not any(provable_flags(state, seat) for seat in rs.seats)
    ):
        # R22, V6.6: every seat passed in succession and nothing is left to claim: the most
        # flags wins, seats level on the most share a draw.
        outcome = standing(state, rs.seats, Termination.STALEMATE)
        events.append(GameEnded(outcome))
        return state.evolve(result=outcome, phase=Phase.OVER)
    nxt = (state.mover + 1) % rs.players
    owes = any(s == nxt for s, _ in state.pending_discards)
    passes = min(state.previous_passes + 1, rs.players - 1) if state.passed else 0
    events.append(TurnStarted(SEATS[nxt], state.turn + 1))
    return state.evolve(
        mover=nxt,
        turn=state.turn + 1,
        phase=Phase.MUD_DISCARD if owes else Phase.START,
        played=False,
        passed=False,
        scouted=False,
        scout_draws=0,
        previous_passed=state.passed,
        previous_passes=passes,
    )


_HANDLERS: dict[Phase, dict[Action, Handler]] = {
    Phase.MUD_DISCARD: {Action.DISCARD: _apply_discard},
    Phase.START: {
        Action.CLAIM: _apply_claim,
        Action.PLAY: _apply_play,
        Action.PASS: _apply_pass,
        Action.SCOUT: _apply_scout,
        Action.REDEPLOY: _apply_redeploy,
        Action.DESERTER: _apply_deserter,
        Action.TRAITOR: _apply_traitor,
    },
    Phase.SCOUT: {Action.DRAW: _apply_scout_draw, Action.RETURN: _apply_scout_return},
    Phase.AFTER_PLAY: {
        Action.CLAIM: _apply_claim,
        Action.DRAW: _apply_draw,
        Action.END: _apply_end,
    },
    Phase.OVER: {},
}
