"""The turn: which moves are legal now (`legal_moves`) and what a move does (`apply`).

Every check lives in one `_check_*` function that both `apply` (to raise a precise error) and
`legal_moves` (to list what passes) go through, so the two cannot disagree. Turn order and
game-over guards live once in `apply`; the handlers below them may assume them.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import permutations
from typing import TypeVar

from engine.cards import (
    ENVIRONMENT,
    LEADERS,
    MORALE,
    Card,
    Tactic,
    is_tactic,
    is_troop,
)
from engine.errors import IllegalMoveError
from engine.events import Event, FlagClaimed, GameEnded, TurnStarted
from engine.moves import Action, Deck, Move
from engine.prover import ClaimProof, UnseenTroops, prove_claim
from engine.rulesets import ClaimTiming
from engine.state import SEATS, FlagState, GameState, Outcome, Phase, Seat, Termination

T = TypeVar("T")

_GUILE_ACTIONS = {
    Action.REDEPLOY: Tactic.REDEPLOY.value,
    Action.DESERTER: Tactic.DESERTER.value,
    Action.TRAITOR: Tactic.TRAITOR.value,
}


# --- claims -----------------------------------------------------------------------------------


def visible_cards(state: GameState) -> list[Card]:
    """Every card face up: both sides of every flag and every discard (the evidence of R13)."""
    seen: list[Card] = []
    for flag in state.flags:
        seen.extend(flag.cards[0])
        seen.extend(flag.cards[1])
    seen.extend(state.discards[0])
    seen.extend(state.discards[1])
    return seen


def unseen_troops(state: GameState) -> UnseenTroops:
    """The troops no one can see: still in a deck or in a hand (either hand, R13)."""
    return UnseenTroops.from_visible(visible_cards(state), state.ruleset)


def claim_proof(
    state: GameState, seat: int, index: int, unseen: UnseenTroops | None = None
) -> ClaimProof:
    """Whether seat (index) could claim flag `index` (0-based) on the board as it stands, and why.

    Only the position decides; whether a claim is allowed at this moment of the turn is
    `_check_claim`'s business.
    """
    flag = state.flags[index]
    if flag.claimed_by is not None:
        return ClaimProof(
            False, f"flag {index + 1} is already held by {SEATS[flag.claimed_by]}", None, None
        )
    size = flag.size(state.ruleset)
    for side in (seat, 1 - seat):
        if len(flag.cards[side]) > size:
            owner = "your" if side == seat else "the opponent's"
            return ClaimProof(
                False,
                f"{owner} side holds {len(flag.cards[side])} cards since the Mud left "
                "and must first discard one (R20)",
                None,
                None,
            )
    mine_done = flag.completed_at(seat, state.ruleset)
    theirs_done = flag.completed_at(1 - seat, state.ruleset)
    completed_last = None
    if mine_done is not None and theirs_done is not None:
        completed_last = "mine" if mine_done > theirs_done else "theirs"
    return prove_claim(
        flag.cards[seat],
        flag.cards[1 - seat],
        flag.env_cards,
        unseen if unseen is not None else unseen_troops(state),
        state.ruleset,
        completed_last,
    )


def claim_proofs(state: GameState, seat: Seat) -> dict[int, ClaimProof]:
    """For each unclaimed flag (1-based), whether the seat could claim it now and why."""
    s = SEATS.index(seat)
    unseen = unseen_troops(state)
    return {
        i + 1: claim_proof(state, s, i, unseen)
        for i, flag in enumerate(state.flags)
        if flag.claimed_by is None
    }


def provable_flags(state: GameState, seat: Seat) -> list[int]:
    """The flags (1-based) the seat could prove on the board as it stands."""
    return _provable(state, SEATS.index(seat))


def _provable(state: GameState, seat: int) -> list[int]:
    unseen: UnseenTroops | None = None
    found = []
    for i, flag in enumerate(state.flags):
        # Cheap filters first: the prover only runs where the seat's side is complete.
        if flag.claimed_by is not None or flag.completed_at(seat, state.ruleset) is None:
            continue
        if unseen is None:
            unseen = unseen_troops(state)
        if claim_proof(state, seat, i, unseen).claimable:
            found.append(i + 1)
    return found


def automatic_claims(state: GameState) -> list[Move]:
    """The claims a player who chose automatic claims makes at the start of their turn (R5):
    every provable flag, lowest first. Empty unless the advanced rule is in force and the turn
    is at its start. Apply them one by one; a claim may end the game (R21)."""
    if state.result is not None or state.claims is not ClaimTiming.ADVANCED:
        return []
    if state.phase is not Phase.START:
        return []
    seat = SEATS[state.mover]
    return [Move(seat, Action.CLAIM, flag=flag) for flag in _provable(state, state.mover)]


def _claims_allowed_now(state: GameState) -> bool:
    if state.claims is ClaimTiming.ADVANCED:
        return state.phase is Phase.START
    return state.phase is Phase.AFTER_PLAY


def _check_claim(state: GameState, flag: int) -> ClaimProof:
    if not _claims_allowed_now(state):
        if state.claims is ClaimTiming.ADVANCED:
            raise IllegalMoveError(
                "under the advanced rule flags are claimed only at the start of your turn, "
                "before you play",
                "R5",
            )
        raise IllegalMoveError("flags are claimed after you play your card, before you draw", "R4")
    _check_flag_number(state, flag)
    proof = claim_proof(state, state.mover, flag - 1)
    if not proof.claimable:
        raise IllegalMoveError(f"flag {flag} cannot be claimed: {proof.reason}", "R13")
    return proof


def _victory(state: GameState, seat: int) -> Termination | None:
    held = [flag.claimed_by == seat for flag in state.flags]
    run = best = 0
    for h in held:
        run = run + 1 if h else 0
        best = max(best, run)
    if best >= state.ruleset.adjacent_to_win:
        return Termination.BREAKTHROUGH
    if sum(held) >= state.ruleset.flags_to_win:
        return Termination.ENVELOPMENT
    return None


# --- checks shared by apply and legal_moves -------------------------------------------------------


def _check_flag_number(state: GameState, flag: int | None) -> int:
    if flag is None or not 1 <= flag <= len(state.flags):
        raise IllegalMoveError(f"there is no flag {flag} (flags are 1 to {len(state.flags)})")
    return flag - 1


def _check_unclaimed(state: GameState, flag: int | None) -> FlagState:
    index = _check_flag_number(state, flag)
    f = state.flags[index]
    if f.claimed_by is not None:
        raise IllegalMoveError(
            f"flag {flag} is claimed by {SEATS[f.claimed_by]}: nothing may be played there "
            "nor taken from it",
            "R14",
        )
    return f


def _check_in_hand(state: GameState, card: Card | None) -> Card:
    if card is None or card not in state.hands[state.mover]:
        raise IllegalMoveError(f"{card} is not in your hand")
    return card


def _check_tactics_limit(state: GameState) -> None:
    mine, theirs = state.tactics_played[state.mover], state.tactics_played[1 - state.mover]
    if mine > theirs:
        raise IllegalMoveError(
            f"you have played {mine} tactics cards and your opponent {theirs}: you may play "
            "another only when you have not played more than your opponent",
            "R8",
        )


def _check_free_slot(state: GameState, flag: int | None) -> int:
    f = _check_unclaimed(state, flag)
    if len(f.cards[state.mover]) >= f.size(state.ruleset):
        raise IllegalMoveError(f"your side of flag {flag} is full")
    assert flag is not None
    return flag - 1


def _check_play(state: GameState, card: Card, flag: int | None) -> None:
    """A card from the hand to a flag: a troop, a morale or an environment tactics card."""
    _check_in_hand(state, card)
    if card in ENVIRONMENT:
        _check_tactics_limit(state)
        _check_unclaimed(state, flag)
        return
    if is_tactic(card) and card not in MORALE:
        raise IllegalMoveError(f"{card} is not played to a flag: see docs/notation.md")
    if card in MORALE:
        _check_tactics_limit(state)
        if card in LEADERS and state.leader_played[state.mover]:
            raise IllegalMoveError(
                "you have already played a Leader: the second stays in your hand to the end", "R9"
            )
    _check_free_slot(state, flag)


def _can_play_troop(state: GameState) -> bool:
    me = state.mover
    if not any(is_troop(c) for c in state.hands[me]):
        return False
    return any(
        f.claimed_by is None and len(f.cards[me]) < f.size(state.ruleset) for f in state.flags
    )


def _check_pass(state: GameState) -> None:
    if _can_play_troop(state):
        raise IllegalMoveError(
            "you may pass only when you cannot play a troop card (no troop in hand, or no free "
            "slot on your side of an unclaimed flag)",
            "R6",
        )


def _own_card_at(state: GameState, seat: int, card: Card | None, source: int | None) -> int:
    index = _check_flag_number(state, source)
    _check_unclaimed(state, source)
    if card not in state.flags[index].cards[seat]:
        whose = "your" if seat == state.mover else "your opponent's"
        raise IllegalMoveError(f"{card} is not on {whose} side of flag {source}")
    return index


def _check_redeploy(state: GameState, move: Move) -> None:
    if move.card in ENVIRONMENT:
        raise IllegalMoveError("Redeploy moves troop and morale cards, not Fog or Mud", "R17")
    _own_card_at(state, state.mover, move.card, move.source)
    if move.flag is not None:
        if move.flag == move.source:
            raise IllegalMoveError("Redeploy moves a card to another flag, or discards it", "R17")
        _check_free_slot(state, move.flag)


def _check_deserter(state: GameState, move: Move) -> None:
    opp = 1 - state.mover
    index = _check_flag_number(state, move.source)
    flag = _check_unclaimed(state, move.source)
    if move.card in ENVIRONMENT:
        if (move.card, opp) not in flag.env:
            raise IllegalMoveError(
                f"{move.card} is not on your opponent's side of flag {index + 1}"
            )
        return
    _own_card_at(state, opp, move.card, move.source)


def _check_traitor(state: GameState, move: Move) -> None:
    if move.card is None or not is_troop(move.card):
        raise IllegalMoveError("Traitor takes a troop card, not a tactics card", "R19")
    _own_card_at(state, 1 - state.mover, move.card, move.source)
    _check_free_slot(state, move.flag)


def _draw_due(state: GameState) -> bool:
    return (
        not state.scouted
        and len(state.hands[state.mover]) < state.ruleset.hand_size
        and bool(state.troop_deck or state.tactics_deck)
    )


def _deck(state: GameState, deck: Deck | None) -> tuple[Card, ...]:
    return state.tactics_deck if deck is Deck.TACTICS else state.troop_deck


def _check_draw_deck(state: GameState, deck: Deck | None) -> None:
    if not _deck(state, deck):
        raise IllegalMoveError(f"the {deck} deck is empty", "R7")


def _scout_returns_needed(state: GameState) -> int:
    return max(0, len(state.hands[state.mover]) - state.ruleset.hand_size)


# --- legal_moves ----------------------------------------------------------------------------------


def legal_moves(state: GameState) -> list[Move]:
    """Every move the seat to move may make now, in a stable order.

    Resigning (either seat, at any time) is always allowed and not listed.
    """
    if state.result is not None:
        return []
    return list(_generate(state))


def _generate(state: GameState) -> Iterator[Move]:
    me = state.mover
    seat = SEATS[me]
    phase = state.phase
    if phase is Phase.MUD_DISCARD:
        for s, index in state.pending_discards:
            if s == me:
                for card in state.flags[index].cards[me]:
                    yield Move(seat, Action.DISCARD, card=card, source=index + 1)
        return
    if _claims_allowed_now(state):
        for flag in _provable(state, me):
            yield Move(seat, Action.CLAIM, flag=flag)
    if phase is Phase.START:
        yield from _generate_plays(state)
        if not _can_play_troop(state):
            yield Move(seat, Action.PASS)
    elif phase is Phase.SCOUT:
        if state.scout_draws < 3:
            for deck in (Deck.TROOPS, Deck.TACTICS):
                if _deck(state, deck):
                    yield Move(seat, Action.DRAW, deck=deck)
        needed = _scout_returns_needed(state)
        for cards in permutations(state.hands[me], needed):
            yield Move(seat, Action.RETURN, cards=cards)
    elif phase is Phase.AFTER_PLAY:
        if _draw_due(state):
            for deck in (Deck.TROOPS, Deck.TACTICS):
                if _deck(state, deck):
                    yield Move(seat, Action.DRAW, deck=deck)
        else:
            yield Move(seat, Action.END)


def _generate_plays(state: GameState) -> Iterator[Move]:
    me, opp = state.mover, 1 - state.mover
    seat = SEATS[me]
    rs = state.ruleset
    hand = state.hands[me]
    tactics_ok = state.tactics_played[me] <= state.tactics_played[opp]
    open_flags = [i for i, f in enumerate(state.flags) if f.claimed_by is None]
    free = [i for i in open_flags if len(state.flags[i].cards[me]) < state.flags[i].size(rs)]
    # In the order a hand is shown (view), so pages list plays card by card as the hand reads.
    for card in sorted(hand, key=rs.card_order.__getitem__):
        if is_troop(card):
            for i in free:
                yield Move(seat, Action.PLAY, card=card, flag=i + 1)
            continue
        if not tactics_ok:
            continue
        if card in MORALE:
            if card in LEADERS and state.leader_played[me]:
                continue
            for i in free:
                yield Move(seat, Action.PLAY, card=card, flag=i + 1)
        elif card in ENVIRONMENT:
            for i in open_flags:
                yield Move(seat, Action.PLAY, card=card, flag=i + 1)
        elif card == Tactic.SCOUT:
            yield Move(seat, Action.SCOUT, card=card)
        elif card == Tactic.REDEPLOY:
            for i in open_flags:
                for own in state.flags[i].cards[me]:
                    for j in free:
                        if j != i:
                            yield Move(seat, Action.REDEPLOY, card=own, source=i + 1, flag=j + 1)
                    yield Move(seat, Action.REDEPLOY, card=own, source=i + 1, flag=None)
        elif card == Tactic.DESERTER:
            for i in open_flags:
                flag = state.flags[i]
                for theirs in flag.cards[opp]:
                    yield Move(seat, Action.DESERTER, card=theirs, source=i + 1)
                for env, owner in flag.env:
                    if owner == opp:
                        yield Move(seat, Action.DESERTER, card=env, source=i + 1)
        elif card == Tactic.TRAITOR:
            for i in open_flags:
                for theirs in state.flags[i].cards[opp]:
                    if is_troop(theirs):
                        for j in free:
                            yield Move(seat, Action.TRAITOR, card=theirs, source=i + 1, flag=j + 1)


# --- apply ----------------------------------------------------------------------------------------


def apply(state: GameState, move: Move) -> tuple[GameState, list[Event]]:
    """Apply a legal move and return the new state and what happened.

    Raises IllegalMoveError naming the rule that forbids the move; the given state is never
    changed (it is immutable).
    """
    if state.result is not None:
        raise IllegalMoveError(f"the game is over: {state.result}")
    if move.seat not in SEATS[: state.ruleset.players]:
        raise IllegalMoveError(f"{move.seat!r} is not a seat")
    seat = SEATS.index(move.seat)
    events: list[Event] = []
    if move.action is Action.RESIGN:
        return _finish(state, Outcome(SEATS[1 - seat], Termination.RESIGNATION), events)
    if move.action is Action.TIMEOUT:
        return _finish(state, Outcome(SEATS[1 - seat], Termination.TIME), events)
    if seat != state.mover:
        raise IllegalMoveError(f"it is {state.to_move}'s turn, not {move.seat}'s")
    handler = _HANDLERS[state.phase].get(move.action)
    if handler is None:
        raise IllegalMoveError(_out_of_phase(state, move))
    new = handler(state, move, events)
    return new, events


def _out_of_phase(state: GameState, move: Move) -> str:
    phase = state.phase
    if phase is Phase.MUD_DISCARD:
        flags = ", ".join(str(i + 1) for s, i in state.pending_discards if s == state.mover)
        return f"first discard one card from your four at flag {flags}: the Mud has left (R20)"
    if move.action is Action.CLAIM:
        try:
            _check_claim(state, move.flag or 0)
        except IllegalMoveError as e:
            return str(e)
    if phase is Phase.START:
        return f"'{move.action_text()}' comes later: first play a card (or pass, R6)"
    if phase is Phase.SCOUT:
        return "you are scouting: draw up to three cards, then put cards back (R16)"
    if move.action is Action.DRAW:
        return "no draw is due now: end your turn with 'end'"
    if move.action is Action.END and _draw_due(state):
        return "you must draw a card before your turn ends (R7)"
    return f"you have already played this turn: '{move.action_text()}' is not possible now"


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


def _pair(pair: tuple[T, T], seat: int, value: T) -> tuple[T, T]:
    """A per-seat pair with one seat's entry replaced."""
    return (value, pair[1]) if seat == 0 else (pair[0], value)


def _without(cards: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    i = cards.index(card)
    return cards[:i] + cards[i + 1 :]


def _add_card(flag: FlagState, seat: int, card: Card, ply: int) -> FlagState:
    cards = flag.cards[seat] + (card,)
    arrivals = flag.arrivals[seat] + (ply,)
    return flag.evolve(
        cards=_pair(flag.cards, seat, cards),
        arrivals=_pair(flag.arrivals, seat, arrivals),
    )


def _remove_card(flag: FlagState, seat: int, card: Card) -> FlagState:
    i = flag.cards[seat].index(card)
    cards = flag.cards[seat][:i] + flag.cards[seat][i + 1 :]
    arrivals = flag.arrivals[seat][:i] + flag.arrivals[seat][i + 1 :]
    return flag.evolve(
        cards=_pair(flag.cards, seat, cards),
        arrivals=_pair(flag.arrivals, seat, arrivals),
    )


def _settle_pending(state: GameState) -> tuple[tuple[int, int], ...]:
    """Pending R20 discards that are still needed (a side may have lost a card meanwhile)."""
    return tuple(
        (s, i)
        for s, i in state.pending_discards
        if len(state.flags[i].cards[s]) > state.flags[i].size(state.ruleset)
    )


def _play_tactic(state: GameState, card: Card) -> dict[str, object]:
    """The common part of playing any tactics card: out of the hand, counted for R8."""
    me = state.mover
    played = list(state.tactics_played)
    played[me] += 1
    return {
        "hands": _pair(state.hands, me, _without(state.hands[me], card)),
        "tactics_played": (played[0], played[1]),
    }


def _apply_claim(state: GameState, move: Move, events: list[Event]) -> GameState:
    assert move.flag is not None
    proof = _check_claim(state, move.flag)
    index = move.flag - 1
    flags = _with_flag(state.flags, index, state.flags[index].evolve(claimed_by=state.mover))
    new = _step(state, flags=flags)
    events.append(FlagClaimed(move.seat, move.flag, proof.reason))
    won = _victory(new, state.mover)
    if won is not None:
        outcome = Outcome(move.seat, won)
        events.append(GameEnded(outcome))
        return new.evolve(result=outcome, phase=Phase.OVER)
    return new


def _apply_play(state: GameState, move: Move, events: list[Event]) -> GameState:
    card = move.card
    if card is None:
        raise IllegalMoveError("no card named")
    _check_play(state, card, move.flag)
    assert move.flag is not None
    me, index = state.mover, move.flag - 1
    flag = state.flags[index]
    changes: dict[str, object] = {}
    if is_tactic(card):
        changes = _play_tactic(state, card)
    else:
        changes["hands"] = _pair(state.hands, me, _without(state.hands[me], card))
    if card in ENVIRONMENT:
        flag = flag.evolve(env=(*flag.env, (card, me)))
    else:
        flag = _add_card(flag, me, card, state.ply)
        if card in LEADERS:
            changes["leader_played"] = _pair(state.leader_played, me, True)
    return _step(
        state,
        flags=_with_flag(state.flags, index, flag),
        phase=Phase.AFTER_PLAY,
        played=True,
        **changes,
    )


def _apply_pass(state: GameState, move: Move, events: list[Event]) -> GameState:
    _check_pass(state)
    return _step(state, phase=Phase.AFTER_PLAY, played=True, passed=True)


def _apply_scout(state: GameState, move: Move, events: list[Event]) -> GameState:
    card = _check_in_hand(state, Tactic.SCOUT.value)
    _check_tactics_limit(state)
    me = state.mover
    return _step(
        state,
        discards=_pair(state.discards, me, (*state.discards[me], card)),
        phase=Phase.SCOUT,
        played=True,
        scouted=True,
        scout_draws=0,
        **_play_tactic(state, card),
    )


def _draw(state: GameState, deck: Deck | None) -> dict[str, object]:
    _check_draw_deck(state, deck)
    me = state.mover
    cards = _deck(state, deck)
    changes: dict[str, object] = {"hands": _pair(state.hands, me, (*state.hands[me], cards[0]))}
    changes["tactics_deck" if deck is Deck.TACTICS else "troop_deck"] = cards[1:]
    return changes


def _apply_scout_draw(state: GameState, move: Move, events: list[Event]) -> GameState:
    if state.scout_draws >= 3:
        raise IllegalMoveError("the Scout draws three cards at most: now put cards back", "R16")
    return _step(state, scout_draws=state.scout_draws + 1, **_draw(state, move.deck))


def _apply_scout_return(state: GameState, move: Move, events: list[Event]) -> GameState:
    needed = _scout_returns_needed(state)
    if len(move.cards) != needed:
        raise IllegalMoveError(
            f"put back exactly {needed} card{'s' if needed != 1 else ''}, to bring your hand "
            f"back to {state.ruleset.hand_size}",
            "R16",
        )
    me = state.mover
    hand = state.hands[me]
    troops, tactics = state.troop_deck, state.tactics_deck
    for card in move.cards:
        if card not in hand:
            raise IllegalMoveError(f"{card} is not in your hand (or is listed twice)", "R16")
        hand = _without(hand, card)
        # Each card goes face down on top of its own deck; the last one listed ends on top.
        if is_tactic(card):
            tactics = (card, *tactics)
        else:
            troops = (card, *troops)
    return _step(
        state,
        hands=_pair(state.hands, me, hand),
        troop_deck=troops,
        tactics_deck=tactics,
        phase=Phase.AFTER_PLAY,
    )


def _apply_redeploy(state: GameState, move: Move, events: list[Event]) -> GameState:
    tactic = _GUILE_ACTIONS[move.action]
    _check_in_hand(state, tactic)
    _check_tactics_limit(state)
    _check_redeploy(state, move)
    assert move.card is not None and move.source is not None
    me = state.mover
    flags = state.flags
    src = move.source - 1
    flags = _with_flag(flags, src, _remove_card(flags[src], me, move.card))
    discards = (*state.discards[me], tactic)
    if move.flag is None:
        discards = (*discards, move.card)
    else:
        dst = move.flag - 1
        flags = _with_flag(flags, dst, _add_card(flags[dst], me, move.card, state.ply))
    return _step(
        state,
        flags=flags,
        discards=_pair(state.discards, me, discards),
        phase=Phase.AFTER_PLAY,
        played=True,
        **_play_tactic(state, tactic),
    )


def _apply_deserter(state: GameState, move: Move, events: list[Event]) -> GameState:
    tactic = _GUILE_ACTIONS[move.action]
    _check_in_hand(state, tactic)
    _check_tactics_limit(state)
    _check_deserter(state, move)
    assert move.card is not None and move.source is not None
    me, opp = state.mover, 1 - state.mover
    index = move.source - 1
    flag = state.flags[index]
    if move.card in ENVIRONMENT:
        env = list(flag.env)
        env.remove((move.card, opp))
        flag = flag.evolve(env=tuple(env))
    else:
        flag = _remove_card(flag, opp, move.card)
    discards = _pair(state.discards, opp, (*state.discards[opp], move.card))
    discards = _pair(discards, me, (*discards[me], tactic))
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
        for s in (me, opp):
            if len(flag.cards[s]) > size:
                pending.append((s, index))
    phase = Phase.MUD_DISCARD if (me, index) in pending else Phase.AFTER_PLAY
    return new.evolve(pending_discards=tuple(pending), phase=phase)


def _apply_traitor(state: GameState, move: Move, events: list[Event]) -> GameState:
    tactic = _GUILE_ACTIONS[move.action]
    _check_in_hand(state, tactic)
    _check_tactics_limit(state)
    _check_traitor(state, move)
    assert move.card is not None and move.source is not None and move.flag is not None
    me, opp = state.mover, 1 - state.mover
    flags = state.flags
    src, dst = move.source - 1, move.flag - 1
    flags = _with_flag(flags, src, _remove_card(flags[src], opp, move.card))
    flags = _with_flag(flags, dst, _add_card(flags[dst], me, move.card, state.ply))
    new = _step(
        state,
        flags=flags,
        discards=_pair(state.discards, me, (*state.discards[me], tactic)),
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
            "R20",
        )
    index = _own_card_at(state, me, move.card, move.source)
    assert move.card is not None
    flags = _with_flag(state.flags, index, _remove_card(state.flags[index], me, move.card))
    new = _step(
        state, flags=flags, discards=_pair(state.discards, me, (*state.discards[me], move.card))
    )
    pending = _settle_pending(new)
    if any(s == me for s, _ in pending):
        phase = Phase.MUD_DISCARD
    else:
        phase = Phase.AFTER_PLAY if state.played else Phase.START
    return new.evolve(pending_discards=pending, phase=phase)


def _apply_draw(state: GameState, move: Move, events: list[Event]) -> GameState:
    if not _draw_due(state):
        raise IllegalMoveError(_out_of_phase(state, move))
    return _end_turn(_step(state, **_draw(state, move.deck)), events)


def _apply_end(state: GameState, move: Move, events: list[Event]) -> GameState:
    if _draw_due(state):
        raise IllegalMoveError("you must draw a card before your turn ends", "R7")
    return _end_turn(_step(state), events)


def _end_turn(state: GameState, events: list[Event]) -> GameState:
    if state.passed and state.previous_passed and not (_provable(state, 0) or _provable(state, 1)):
        # R22: two passes in succession and nothing left to claim.
        held = [sum(1 for f in state.flags if f.claimed_by == s) for s in (0, 1)]
        winner = None if held[0] == held[1] else SEATS[0 if held[0] > held[1] else 1]
        outcome = Outcome(winner, Termination.STALEMATE)
        events.append(GameEnded(outcome))
        return state.evolve(result=outcome, phase=Phase.OVER)
    nxt = 1 - state.mover
    owes = any(s == nxt for s, _ in state.pending_discards)
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
    )


_HANDLERS = {
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
