"""Which moves are legal now: the checks, and ``legal_moves`` built on them.

Every check lives in one ``check_*`` function that both ``engine.apply`` (to raise a precise
error) and ``legal_moves`` (to list what passes) go through, so the two cannot disagree. The
checks assume what ``apply`` guards once: the game goes on and the move is the mover's.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from itertools import permutations

from engine.cards import ENVIRONMENT, LEADERS, MORALE, Card, Tactic, is_tactic, is_troop
from engine.claims import claim_proof, claims_allowed_now, provable_flags
from engine.errors import IllegalMoveError, Why
from engine.moves import Action, Deck, Move
from engine.prover import ClaimProof, ClaimStatus
from engine.rulesets import ClaimTiming
from engine.state import SEATS, FlagState, GameState, Phase

# --- claims ---------------------------------------------------------------------------------------


def check_claim(state: GameState, flag: int) -> ClaimProof:
    """The proof that the mover may claim flag ``flag`` (1-based) now; raises IllegalMoveError
    when claims are not allowed at this moment (R4, R5), the flag is not one of the mover's
    (V6.2) or it is not provable (R13)."""
    if not claims_allowed_now(state):
        if state.claims is ClaimTiming.ADVANCED:
            raise IllegalMoveError(
                "under the advanced rule flags are claimed only at the start of your turn, "
                "before you play",
                Why.CLAIM_AT_START,
                "R5",
            )
        raise IllegalMoveError(
            "flags are claimed after you play your card, before you draw",
            Why.CLAIM_AFTER_PLAY,
            "R4",
        )
    check_flag_number(state, flag)
    proof = claim_proof(state, state.mover, flag - 1)
    if not proof.claimable:
        rule = "V6.2" if proof.status is ClaimStatus.NOT_YOURS else "R13"
        raise IllegalMoveError(
            f"flag {flag} cannot be claimed: {proof.reason}",
            Why.CLAIM_NOT_PROVABLE,
            rule,
            flag=flag,
            claim_status=proof.status.value,
        )
    return proof


# --- flags and cards ------------------------------------------------------------------------------


def check_flag_number(state: GameState, flag: int | None) -> int:
    """The 0-based index of flag ``flag`` (1-based); raises IllegalMoveError for no such flag."""
    if flag is None or not 1 <= flag <= len(state.flags):
        raise IllegalMoveError(
            f"there is no flag {flag} (flags are 1 to {len(state.flags)})",
            Why.NO_SUCH_FLAG,
            flag=flag,
            count=len(state.flags),
        )
    return flag - 1


def check_contested(state: GameState, index: int, rule: str) -> int:
    """The mover's side (0 or 1) at flag ``index`` (0-based); raises IllegalMoveError naming
    ``rule`` when the flag is not one of the mover's own (V6.2 for cards played there, V6.3 for
    what tactics do there). With two players every flag is both seats' own."""
    side = state.ruleset.side(index, state.mover)
    if side is None:
        first, second = state.ruleset.flag_seats(index)
        raise IllegalMoveError(
            f"flag {index + 1} lies between {first} and {second}: your cards and tactics act "
            "only at your own flags",
            Why.NOT_YOUR_FLAG,
            rule,
            flag=index + 1,
        )
    return side


def opponent_at(state: GameState, index: int, side: int) -> int:
    """The seat index on the other side of flag ``index`` from ``side``."""
    return state.ruleset.flag_pairs[index][1 - side]


def check_unclaimed(state: GameState, flag: int | None) -> FlagState:
    """Flag ``flag`` (1-based); raises IllegalMoveError when it is claimed (R14) or absent."""
    index = check_flag_number(state, flag)
    f = state.flags[index]
    if f.claimed_by is not None:
        raise IllegalMoveError(
            f"flag {flag} is claimed by {SEATS[f.claimed_by]}: nothing may be played there "
            "nor taken from it",
            Why.FLAG_CLAIMED,
            "R14",
            flag=flag,
            seat=SEATS[f.claimed_by],
        )
    return f


def check_in_hand(state: GameState, card: Card | None) -> Card:
    """The card, when the mover holds it; raises IllegalMoveError otherwise."""
    if card is None or card not in state.hands[state.mover]:
        raise IllegalMoveError(f"{card} is not in your hand", Why.CARD_NOT_IN_HAND, card=card)
    return card


def tactics_allowed(state: GameState) -> bool:
    """Whether the mover may play a tactics card now: it has not played more than any of its
    opponents (R8; against the fewer of its two opponents' counts, V6.4)."""
    return not tactics_ahead_of(state, state.mover)


def tactics_ahead_of(state: GameState, seat: int) -> tuple[int, ...]:
    """The opponents (seat indexes) that have played fewer tactics cards than ``seat``: while
    there is one, ``seat`` may play no tactics card (R8, V6.4). Each is one card behind (no seat
    can get further ahead), so ``seat`` may play again once each of them has played one."""
    played = state.tactics_played
    return tuple(i for i, n in enumerate(played) if i != seat and n < played[seat])


class TacticsBlock(enum.StrEnum):
    """Why a tactics card in a seat's hand cannot be played, whatever the board."""

    TACTICS_LIMIT = "tactics_limit"
    """The seat has played one more tactics card than an opponent (R8, V6.4): playable once that
    opponent has played one too."""
    LEADER_LIMIT = "leader_limit"
    """A second Leader after the seat's first (R9): never playable in this game."""


def blocked_tactics(state: GameState, seat: int) -> list[tuple[Card, TacticsBlock]]:
    """The tactics cards in ``seat``'s hand (index) that a limit keeps there, in hand order, each
    with the limit: the Leader limit first (it lasts to the end), then the tactics limit."""
    ahead = bool(tactics_ahead_of(state, seat))
    blocked: list[tuple[Card, TacticsBlock]] = []
    for card in sorted(state.hands[seat], key=state.ruleset.card_order.__getitem__):
        if not is_tactic(card):
            continue
        if card in LEADERS and state.leader_played[seat]:
            blocked.append((card, TacticsBlock.LEADER_LIMIT))
        elif ahead:
            blocked.append((card, TacticsBlock.TACTICS_LIMIT))
    return blocked


def check_tactics_limit(state: GameState) -> None:
    """Raises IllegalMoveError when the mover has played more tactics cards than an opponent
    (R8, V6.4)."""
    if tactics_allowed(state):
        return
    me = state.mover
    mine = state.tactics_played[me]
    theirs = min(n for i, n in enumerate(state.tactics_played) if i != me)
    if state.ruleset.players == 2:
        raise IllegalMoveError(
            f"you have played {mine} tactics cards and your opponent {theirs}: you may play "
            "another only when you have not played more than your opponent",
            Why.TACTICS_LIMIT,
            "R8",
            count=mine,
            other_count=theirs,
        )
    raise IllegalMoveError(
        f"you have played {mine} tactics cards and one of your opponents only {theirs}: you may "
        "play another only when you have not played more than either opponent",
        Why.TACTICS_LIMIT,
        "V6.4",
        count=mine,
        other_count=theirs,
    )


def check_free_slot(state: GameState, flag: int | None, rule: str = "V6.2") -> int:
    """The 0-based index of flag ``flag`` (1-based), when it is one of the mover's own (``rule``
    names the ruling otherwise) and the mover's side there has room; raises IllegalMoveError
    otherwise."""
    index = check_flag_number(state, flag)
    side = check_contested(state, index, rule)
    f = check_unclaimed(state, flag)
    if len(f.cards[side]) >= f.size(state.ruleset):
        raise IllegalMoveError(f"your side of flag {flag} is full", Why.FLAG_FULL, flag=flag)
    return index


def check_own_card_at(state: GameState, seat: int, card: Card | None, source: int | None) -> int:
    """The 0-based index of flag ``source`` (1-based), when ``card`` lies on seat (index)'s side
    of it and the flag is unclaimed and one of the mover's own (V6.3); raises IllegalMoveError
    otherwise. ``seat`` is the mover or the other seat of that flag."""
    index = check_flag_number(state, source)
    mine = check_contested(state, index, "V6.3")
    check_unclaimed(state, source)
    side = mine if seat == state.mover else 1 - mine
    if card not in state.flags[index].cards[side]:
        whose = "your" if seat == state.mover else "your opponent's"
        raise IllegalMoveError(
            f"{card} is not on {whose} side of flag {source}",
            Why.CARD_NOT_THERE,
            card=card,
            flag=source,
            seat=SEATS[seat],
        )
    return index


# --- playing a card -------------------------------------------------------------------------------


def check_play(state: GameState, card: Card, flag: int | None) -> None:
    """A card from the hand to a flag: a troop, a morale or an environment tactics card.

    Raises IllegalMoveError naming the rule that forbids it.
    """
    check_in_hand(state, card)
    if card in ENVIRONMENT:
        check_tactics_limit(state)
        check_contested(state, check_flag_number(state, flag), "V6.3")
        check_unclaimed(state, flag)
        return
    if is_tactic(card) and card not in MORALE:
        raise IllegalMoveError(
            f"{card} is not played to a flag: see docs/notation.md",
            Why.NOT_PLAYED_TO_FLAG,
            card=card,
        )
    if card in MORALE:
        check_tactics_limit(state)
        if card in LEADERS and state.leader_played[state.mover]:
            raise IllegalMoveError(
                "you have already played a Leader: the second stays in your hand to the end",
                Why.SECOND_LEADER,
                "R9",
                card=card,
            )
    check_free_slot(state, flag)


def can_play_troop(state: GameState) -> bool:
    """Whether the mover holds a troop and has a free slot on an unclaimed flag of its own (R6,
    V6.2)."""
    me = state.mover
    if not any(is_troop(c) for c in state.hands[me]):
        return False
    rs = state.ruleset
    flags = state.flags
    return any(
        flags[i].claimed_by is None and len(flags[i].cards[side]) < flags[i].size(rs)
        for i, side in rs.seat_flags[me]
    )


def check_pass(state: GameState) -> None:
    """Raises IllegalMoveError when the mover could play a troop instead of passing (R6)."""
    if can_play_troop(state):
        raise IllegalMoveError(
            "you may pass only when you cannot play a troop card (no troop in hand, or no free "
            "slot on your side of an unclaimed flag)",
            Why.MUST_PLAY_TROOP,
            "R6",
        )


def check_redeploy(state: GameState, move: Move) -> None:
    """The target of a Redeploy (R17); raises IllegalMoveError. The card in hand and the tactics
    limit are checked apart."""
    if move.card in ENVIRONMENT:
        raise IllegalMoveError(
            "Redeploy moves troop and morale cards, not Fog or Mud",
            Why.REDEPLOY_ENVIRONMENT,
            "R17",
            card=move.card,
        )
    check_own_card_at(state, state.mover, move.card, move.source)
    if move.flag is not None:
        if move.flag == move.source:
            raise IllegalMoveError(
                "Redeploy moves a card to another flag, or discards it",
                Why.REDEPLOY_SAME_FLAG,
                "R17",
                flag=move.flag,
            )
        check_free_slot(state, move.flag, "V6.3")


def check_deserter(state: GameState, move: Move) -> None:
    """The target of a Deserter (R18); raises IllegalMoveError. The card in hand and the tactics
    limit are checked apart."""
    index = check_flag_number(state, move.source)
    opp = opponent_at(state, index, check_contested(state, index, "V6.3"))
    flag = check_unclaimed(state, move.source)
    if move.card in ENVIRONMENT:
        if (move.card, opp) not in flag.env:
            raise IllegalMoveError(
                f"{move.card} is not on your opponent's side of flag {index + 1}",
                Why.CARD_NOT_THERE,
                card=move.card,
                flag=index + 1,
                seat=SEATS[opp],
            )
        return
    check_own_card_at(state, opp, move.card, move.source)


def check_traitor(state: GameState, move: Move) -> None:
    """The card taken and the target of a Traitor (R19); raises IllegalMoveError. The card in
    hand and the tactics limit are checked apart."""
    if move.card is None or not is_troop(move.card):
        raise IllegalMoveError(
            "Traitor takes a troop card, not a tactics card",
            Why.TRAITOR_TACTICS,
            "R19",
            card=move.card,
        )
    index = check_flag_number(state, move.source)
    opp = opponent_at(state, index, check_contested(state, index, "V6.3"))
    check_own_card_at(state, opp, move.card, move.source)
    check_free_slot(state, move.flag, "V6.3")


# --- drawing --------------------------------------------------------------------------------------


def draw_due(state: GameState) -> bool:
    """Whether the mover's turn must end with a draw (R7): no Scout this turn, a hand below the
    full size and a card left in a deck."""
    return (
        not state.scouted
        and len(state.hands[state.mover]) < state.ruleset.hand_size
        and bool(state.troop_deck or state.tactics_deck)
    )


def deck_cards(state: GameState, deck: Deck | None) -> tuple[Card, ...]:
    """The cards of a draw deck, top first (the troop deck unless ``deck`` is the tactics)."""
    return state.tactics_deck if deck is Deck.TACTICS else state.troop_deck


def check_draw_deck(state: GameState, deck: Deck | None) -> None:
    """Raises IllegalMoveError when the deck is empty (R7)."""
    if not deck_cards(state, deck):
        raise IllegalMoveError(
            f"the {deck} deck is empty", Why.DECK_EMPTY, "R7", deck=(deck or Deck.TROOPS).value
        )


def scout_draws_left(state: GameState) -> int:
    """How many more cards the mover may draw with the Scout being played now (R16): 0 outside
    a Scout, and never more than the decks hold."""
    if state.phase is not Phase.SCOUT:
        return 0
    left = state.ruleset.scout_draws - state.scout_draws
    return max(0, min(left, len(state.troop_deck) + len(state.tactics_deck)))


def check_scout_draw(state: GameState) -> None:
    """Raises IllegalMoveError when the Scout has drawn all it may (R16)."""
    if state.scout_draws >= state.ruleset.scout_draws:
        raise IllegalMoveError(
            f"the Scout draws {_count_words(state.ruleset.scout_draws)} cards at most: now put "
            "cards back",
            Why.SCOUT_DRAWS_DONE,
            "R16",
            count=state.ruleset.scout_draws,
        )


def scout_returns_due(state: GameState) -> int:
    """How many cards the mover must put back to end a Scout now: what brings the hand back to
    its full size (R16); 0 outside a Scout."""
    if state.phase is not Phase.SCOUT:
        return 0
    return max(0, len(state.hands[state.mover]) - state.ruleset.hand_size)


def out_of_phase(state: GameState, move: Move) -> IllegalMoveError:
    """Why the mover cannot make ``move`` at this point of the turn, as the error to raise (the
    move's action has no place in the current phase): its message is a sentence a player can
    read, which names its ruling itself."""
    phase = state.phase
    if phase is Phase.MUD_DISCARD:
        owed = [i + 1 for s, i in state.pending_discards if s == state.mover]
        flags = ", ".join(str(flag) for flag in owed)
        return IllegalMoveError(
            f"first discard one card from your four at flag {flags}: the Mud has left (R20)",
            Why.MUD_DISCARD_FIRST,
            flag=owed[0] if owed else None,
        )
    if move.action is Action.CLAIM:
        try:
            check_claim(state, move.flag or 0)
        except IllegalMoveError as e:
            e.rule = ""  # out of turn order: said by the message alone, as every other here
            return e
    text = move.action_text()
    if phase is Phase.START:
        return IllegalMoveError(
            f"'{text}' comes later: first play a card (or pass, R6)", Why.PLAY_FIRST, move=text
        )
    if phase is Phase.SCOUT:
        up_to = _count_words(state.ruleset.scout_draws)
        return IllegalMoveError(
            f"you are scouting: draw up to {up_to} cards, then put cards back (R16)",
            Why.SCOUTING,
            count=state.ruleset.scout_draws,
        )
    if move.action is Action.DRAW:
        return IllegalMoveError("no draw is due now: end your turn with 'end'", Why.NO_DRAW_DUE)
    if move.action is Action.END and draw_due(state):
        return IllegalMoveError("you must draw a card before your turn ends (R7)", Why.DRAW_FIRST)
    return IllegalMoveError(
        f"you have already played this turn: '{text}' is not possible now",
        Why.ALREADY_PLAYED,
        move=text,
    )


def _count_words(n: int) -> str:
    return {1: "one", 2: "two", 3: "three", 4: "four"}.get(n, str(n))


def automatic_end(state: GameState) -> Move | None:
    """The ``end`` that closes the mover's turn when it is the only legal move left (after a
    Scout, or a card played with a full hand or empty decks, with no claim to make): the service
    applies it at once, so that no player is asked for a move that is no choice. None otherwise."""
    if state.result is not None or state.phase is not Phase.AFTER_PLAY or draw_due(state):
        return None
    if claims_allowed_now(state) and provable_flags(state, SEATS[state.mover]):
        return None
    return Move(SEATS[state.mover], Action.END)


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
                side = state.ruleset.side(index, me)
                assert side is not None  # only a side of the flag's pair can owe (R20)
                for card in state.flags[index].cards[side]:
                    yield Move(seat, Action.DISCARD, card=card, source=index + 1)
        return
    if claims_allowed_now(state):
        for flag in provable_flags(state, seat):
            yield Move(seat, Action.CLAIM, flag=flag)
    if phase is Phase.START:
        yield from _generate_plays(state)
        if not can_play_troop(state):
            yield Move(seat, Action.PASS)
    elif phase is Phase.SCOUT:
        if state.scout_draws < state.ruleset.scout_draws:
            for deck in (Deck.TROOPS, Deck.TACTICS):
                if deck_cards(state, deck):
                    yield Move(seat, Action.DRAW, deck=deck)
        for cards in permutations(state.hands[me], scout_returns_due(state)):
            yield Move(seat, Action.RETURN, cards=cards)
    elif phase is Phase.AFTER_PLAY:
        if draw_due(state):
            for deck in (Deck.TROOPS, Deck.TACTICS):
                if deck_cards(state, deck):
                    yield Move(seat, Action.DRAW, deck=deck)
        else:
            yield Move(seat, Action.END)


def _generate_plays(state: GameState) -> Iterator[Move]:
    me = state.mover
    seat = SEATS[me]
    rs = state.ruleset
    flags = state.flags
    hand = state.hands[me]
    tactics_ok = tactics_allowed(state)
    # the mover's own unclaimed flags (V6.2), lowest first, with its side there
    mine = [(i, side) for i, side in rs.seat_flags[me] if flags[i].claimed_by is None]
    free = [i for i, side in mine if len(flags[i].cards[side]) < flags[i].size(rs)]
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
            for i, _ in mine:
                yield Move(seat, Action.PLAY, card=card, flag=i + 1)
        elif card == Tactic.SCOUT:
            yield Move(seat, Action.SCOUT, card=card)
        elif card == Tactic.REDEPLOY:
            for i, side in mine:
                for own in flags[i].cards[side]:
                    for j in free:
                        if j != i:
                            yield Move(seat, Action.REDEPLOY, card=own, source=i + 1, flag=j + 1)
                    yield Move(seat, Action.REDEPLOY, card=own, source=i + 1, flag=None)
        elif card == Tactic.DESERTER:
            for i, side in mine:
                flag = flags[i]
                opp = opponent_at(state, i, side)
                for theirs in flag.cards[1 - side]:
                    yield Move(seat, Action.DESERTER, card=theirs, source=i + 1)
                for env, owner in flag.env:
                    if owner == opp:
                        yield Move(seat, Action.DESERTER, card=env, source=i + 1)
        elif card == Tactic.TRAITOR:
            for i, side in mine:
                for theirs in flags[i].cards[1 - side]:
                    if is_troop(theirs):
                        for j in free:
                            yield Move(seat, Action.TRAITOR, card=theirs, source=i + 1, flag=j + 1)
