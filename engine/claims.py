"""Claims on the board: the open evidence (R13), the proof for each flag, which flags a seat can
prove, when claims are allowed (R4, R5), the flags each seat holds, victory (R21, V6.5) and how
a game without a victor stands (R22, V6.6, V6.7).

Only the position decides what is provable; whether a claim is legal at this moment of the turn
is ``engine.legal.check_claim``'s business. Each flag is decided between its own pair of seats
(V6.2): with two players, always A and B.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.cards import Card
from engine.moves import Action, Move
from engine.prover import ClaimProof, ClaimStatus, UnseenTroops, prove_claim
from engine.rulesets import ClaimTiming
from engine.state import SEATS, GameState, Outcome, Phase, Seat, Termination, derived


def visible_cards(state: GameState) -> list[Card]:
    """Every card face up: both sides of every flag and every seat's discards (the evidence of
    R13). Every hand, the third seat's included, and the decks are unseen."""
    seen: list[Card] = []
    for flag in state.flags:
        for side in flag.cards:
            seen.extend(side)
    for discards in state.discards:
        seen.extend(discards)
    return seen


def unseen_troops(state: GameState) -> UnseenTroops:
    """The troops no one can see: still in a deck or in a hand (any hand, R13); worked out once
    per state."""
    kept = derived(state)
    found: UnseenTroops | None = kept.get(_UNSEEN)
    if found is None:
        found = kept[_UNSEEN] = UnseenTroops.from_visible(visible_cards(state), state.ruleset)
    return found


_UNSEEN = "unseen troops"
_PROOF = "claim proof"


def claim_proof(
    state: GameState, seat: int, index: int, unseen: UnseenTroops | None = None
) -> ClaimProof:
    """Whether seat (index) could claim flag `index` (0-based) on the board as it stands, and why.

    The claim is decided between the flag's pair of seats (V6.2); a seat outside the pair gets
    ``ClaimStatus.NOT_YOURS``. ``unseen`` may be given when several flags of one position are
    checked, so that it is computed once. Only the position decides; whether a claim is allowed
    at this moment of the turn is ``engine.legal.check_claim``'s business.
    """
    rs = state.ruleset
    flag = state.flags[index]
    if flag.claimed_by is not None:
        return ClaimProof(
            ClaimStatus.CLAIMED,
            f"flag {index + 1} is already held by {SEATS[flag.claimed_by]}",
            None,
            None,
        )
    mine = rs.side(index, seat)
    if mine is None:
        first, second = rs.flag_seats(index)
        return ClaimProof(
            ClaimStatus.NOT_YOURS,
            f"flag {index + 1} is contested by {first} and {second} only (V6.2)",
            None,
            None,
        )
    theirs = 1 - mine
    size = flag.size(rs)
    for side in (mine, theirs):
        if len(flag.cards[side]) > size:
            owner = "your" if side == mine else "the opponent's"
            return ClaimProof(
                ClaimStatus.DISCARD_DUE,
                f"{owner} side holds {len(flag.cards[side])} cards since the Mud left "
                "and must first discard one (R20)",
                None,
                None,
            )
    mine_done = flag.completed_at(mine, rs)
    theirs_done = flag.completed_at(theirs, rs)
    completed_last = None
    if mine_done is not None and theirs_done is not None:
        completed_last = "mine" if mine_done > theirs_done else "theirs"
    # The prover's search, once per state and flag: a page asks for its view, its legal moves
    # and its proofs, and each of them proves the complete flags.
    kept = derived(state)
    key = (_PROOF, seat, index)
    found: ClaimProof | None = kept.get(key)
    if found is None:
        found = kept[key] = prove_claim(
            flag.cards[mine],
            flag.cards[theirs],
            flag.env_cards,
            unseen if unseen is not None else unseen_troops(state),
            rs,
            completed_last,
        )
    return found


def claim_proofs(state: GameState, seat: Seat) -> dict[int, ClaimProof]:
    """For each unclaimed flag the seat contests (1-based), whether it could claim it now and
    why."""
    s = SEATS.index(seat)
    unseen = unseen_troops(state)
    return {
        i + 1: claim_proof(state, s, i, unseen)
        for i, _ in state.ruleset.seat_flags[s]
        if state.flags[i].claimed_by is None
    }


def provable_flags(state: GameState, seat: Seat) -> list[int]:
    """The flags (1-based) the seat could prove on the board as it stands, lowest first."""
    s = SEATS.index(seat)
    rs = state.ruleset
    unseen: UnseenTroops | None = None
    found = []
    for i, side in rs.seat_flags[s]:
        flag = state.flags[i]
        # Cheap filters first: the prover only runs where the seat's side is complete.
        if flag.claimed_by is not None or flag.completed_at(side, rs) is None:
            continue
        if unseen is None:
            unseen = unseen_troops(state)
        if claim_proof(state, s, i, unseen).claimable:
            found.append(i + 1)
    return found


def claims_allowed_now(state: GameState) -> bool:
    """Whether the seat to move may claim at this moment of its turn: at the start of the turn
    under the advanced rule (R5), after playing its card under the standard rule (R4)."""
    if state.claims is ClaimTiming.ADVANCED:
        return state.phase is Phase.START
    return state.phase is Phase.AFTER_PLAY


def automatic_claims(state: GameState) -> list[Move]:
    """The claims a player who chose automatic claims makes at the start of their turn (R5):
    every provable flag, lowest first. Empty unless the advanced rule is in force and the turn
    is at its start. Apply them one by one; a claim may end the game (R21)."""
    if state.result is not None or state.claims is not ClaimTiming.ADVANCED:
        return []
    if state.phase is not Phase.START:
        return []
    seat = state.to_move
    return [Move(seat, Action.CLAIM, flag=flag) for flag in provable_flags(state, seat)]


def flags_held(state: GameState) -> dict[Seat, int]:
    """How many flags each seat holds, by seat letter in seat order."""
    held = dict.fromkeys(state.ruleset.seats, 0)
    for flag in state.flags:
        if flag.claimed_by is not None:
            held[SEATS[flag.claimed_by]] += 1
    return held


def victory(state: GameState, seat: int) -> Termination | None:
    """How seat (index) has won on the board as it stands (R21, V6.5), or None: a breakthrough
    (the ruleset's number of adjacent flags; around the ring, the corner flags join two rows)
    before an envelopment (its number of flags in all)."""
    rs = state.ruleset
    flags = state.flags
    if rs.ring:
        # around the ring the last flags run on into the first ones
        flags = flags + flags[: rs.adjacent_to_win - 1]
    run = best = 0
    for flag in flags:
        if flag.claimed_by == seat:
            run += 1
            best = max(best, run)
        else:
            run = 0
    if best >= rs.adjacent_to_win:
        return Termination.BREAKTHROUGH
    if sum(1 for flag in state.flags if flag.claimed_by == seat) >= rs.flags_to_win:
        return Termination.ENVELOPMENT
    return None


def standing(state: GameState, among: Iterable[Seat], termination: Termination) -> Outcome:
    """The outcome of a game that ends without a victory (R21): of the seats ``among``, the one
    holding the most flags wins, and seats level on the most share a draw (R22, V6.6). Of the
    seats that remain when one leaves, the same (V6.7; with two players, the other seat)."""
    held = flags_held(state)
    seats = [seat for seat in state.ruleset.seats if seat in set(among)]
    most = max(held[seat] for seat in seats)
    leaders = tuple(seat for seat in seats if held[seat] == most)
    if len(leaders) == 1:
        return Outcome(leaders[0], termination)
    return Outcome(None, termination, draw_between=leaders)
