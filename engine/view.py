"""What one seat, or a spectator, may know: the only inputs pages and emails are rendered from.

``player_view(state, seat)`` and ``spectator_view(state)`` give frozen, typed views that carry
everything a page needs to show a position without knowing a rule: the seats and each flag's
pair, the formation size at each flag, whether a draw is due, whether claims are allowed now and
whether they come after the card, what a Scout may still draw and must put back and whether
that ends the turn. ``claim_proof_views`` explains each flag's claim with fields (what a proved
claim rests on included). Each view has ``to_json()``, plain JSON-ready data.

A player's view holds the seat's own hand, never another's, never the order of a deck; a
spectator's view holds no hand until the game is over.

``public_view`` is the spectator's view as a plain dict (``flags_held`` of a finished game's
result reads it).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from engine.cards import Card
from engine.claims import (
    claim_proof,
    claims_allowed_now,
    flags_held,
    provable_flags,
    unseen_troops,
)
from engine.formations import FormationValue
from engine.legal import (
    TacticsBlock,
    blocked_tactics,
    draw_due,
    scout_draws_left,
    scout_returns_due,
    tactics_ahead_of,
)
from engine.moves import Deck
from engine.prover import ClaimMargin, ClaimStatus, UnseenTroops
from engine.rulesets import ClaimTiming
from engine.state import SEATS, GameState, Phase, Seat, Termination

K = TypeVar("K")
V = TypeVar("V")


class FrozenMap(Mapping[K, V]):
    """A mapping that cannot be changed (and so can be hashed), for the per-seat parts of a
    view: ``view.flags_held["A"]``. Keys keep the order they were given in (seat order)."""

    __slots__ = ("_items",)
    _items: dict[K, V]

    def __init__(self, items: Mapping[K, V] | Iterable[tuple[K, V]] = ()) -> None:
        object.__setattr__(self, "_items", dict(items))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a {type(self).__name__} cannot be changed")

    def __getitem__(self, key: K) -> V:
        return self._items[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(tuple(self._items.items()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._items!r})"


@dataclass(frozen=True, slots=True)
class EnvironmentCard:
    """An environment tactics card at a flag (R15) and the seat whose side it lies on."""

    card: Card
    """``"FOG"`` or ``"MUD"``."""
    seat: Seat
    """The seat that played it (a Deserter of the other seat may take it away, R18)."""

    def to_json(self) -> dict[str, Any]:
        """``{"card": "MUD", "seat": "A"}``."""
        return {"card": self.card, "seat": self.seat}


@dataclass(frozen=True, slots=True)
class PendingDiscard:
    """A side that holds one card too many since its Mud left and owes a discard (R20)."""

    seat: Seat
    """The seat that owes it."""
    flag: int
    """The flag (1-based)."""

    def to_json(self) -> dict[str, Any]:
        """``{"seat": "B", "flag": 6}``."""
        return {"seat": self.seat, "flag": self.flag}


@dataclass(frozen=True, slots=True)
class BlockedTactic:
    """A tactics card in the seat's hand that a limit keeps there, and until when."""

    card: Card
    """The card (``"DARIUS"``)."""
    reason: TacticsBlock
    """The limit: the tactics limit (R8, V6.4) or the Leader limit (R9)."""
    waiting_for: tuple[Seat, ...]
    """Under the tactics limit, the opponents that must each play a tactics card before this
    one may be played; empty under the Leader limit (never in this game)."""

    def to_json(self) -> dict[str, Any]:
        """``{"card": "FOG", "reason": "tactics_limit", "waiting_for": ["B"]}``."""
        return {
            "card": self.card,
            "reason": self.reason.value,
            "waiting_for": list(self.waiting_for),
        }


@dataclass(frozen=True, slots=True)
class FlagView:
    """One flag as anyone may see it."""

    number: int
    """The flag's number, 1 (left) to the number of flags (``"flag"`` in JSON)."""
    seats: tuple[Seat, Seat]
    """The pair of seats that contests this flag; only they play, claim and compare here."""
    cards: FrozenMap[Seat, tuple[Card, ...]]
    """The formation cards (troops and morale tactics) on each side, by seat letter, in the
    order played."""
    env: tuple[EnvironmentCard, ...]
    """The environment tactics cards here, each with the seat that played it."""
    formation_size: int
    """Cards in a complete formation here: 3, or 4 under Mud (R10)."""
    claimed_by: Seat | None
    """The seat holding the flag, or None."""
    arrivals: FrozenMap[Seat, tuple[int, ...]] = field(default=FrozenMap(), compare=False)
    """The ply at which each card of ``cards`` arrived, by seat letter: who completed a
    formation last is read from it (R12). Open information (every move is seen), kept for
    the computer opponent rebuilding a position; not in ``to_json`` and not compared, so a
    flag reads the same with or without it."""

    def to_json(self) -> dict[str, Any]:
        """The flag as plain data; cards under ``"cards"`` by seat letter."""
        return {
            "flag": self.number,
            "seats": list(self.seats),
            "cards": {seat: list(cards) for seat, cards in self.cards.items()},
            "env": [e.to_json() for e in self.env],
            "formation_size": self.formation_size,
            "claimed_by": self.claimed_by,
        }


@dataclass(frozen=True, slots=True)
class ClaimProofView:
    """Whether a seat could claim one flag on the board as it stands, and why, as fields (R13).

    The sentence in ``reason`` is for reading only; decide on ``status``. The opponent's best
    formation names unseen troops, which may lie in either hand: it depends on open
    information only, but it is kept out of ``PlayerView`` so that a view never names a card a
    hand may hold.
    """

    flag: int
    """The flag (1-based)."""
    seat: Seat
    """The seat that would claim."""
    opponent: Seat
    """The other seat of the flag's pair."""
    provable: bool
    """True when the claim is proved now (``status`` is ``PROVED``)."""
    status: ClaimStatus
    """Why the claim holds or fails."""
    formation: FormationValue | None
    """The claimer's formation; None while their side is incomplete."""
    opponent_best: FormationValue | None
    """The best formation the opponent can still reach, with concrete cards (unseen troops it
    would add included), when it reaches at least the claimer's category (any sum under Fog);
    None when it cannot, when the opponent cannot complete, or when the claimer is incomplete."""
    opponent_cannot_complete: bool
    """True when too few unseen troops remain for the opponent ever to complete the side."""
    reason: str
    """The prover's sentence for people: ``"B8 B9 B10 (Wedge 27) would beat Wedge 12"``."""
    margin: ClaimMargin | None = None
    """What a proved claim rests on: the opponent out of troops or out of reach, below, or a tie
    the opponent loses (R12); None unless ``provable``. Not in ``to_json``, whose shape
    docs/formats.md gives."""

    def to_json(self) -> dict[str, Any]:
        """The proof as plain data; formations as ``FormationValue.to_json``."""
        return {
            "flag": self.flag,
            "seat": self.seat,
            "opponent": self.opponent,
            "provable": self.provable,
            "status": self.status.value,
            "formation": None if self.formation is None else self.formation.to_json(),
            "opponent_best": None if self.opponent_best is None else self.opponent_best.to_json(),
            "opponent_cannot_complete": self.opponent_cannot_complete,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class PublicView:
    """What anyone may see of a game at one position: the board, the counts, the discards, the
    turn and the result. Once the game is over both hands too (the seed is revealed then
    anyway, R3)."""

    ruleset: str
    """The ruleset's name (``"battleline"``)."""
    seats: tuple[Seat, ...]
    """Every seat of the ruleset, in seat order."""
    tactics: bool
    """Whether the ruleset has tactics cards (and so a tactics deck, tactics counts, Leaders)."""
    claims: ClaimTiming
    """When flags may be claimed (R4, R5)."""
    first: Seat
    """The seat that played first."""
    hand_size: int
    """The full hand of the ruleset (R7)."""
    formation_size: int
    """Cards in a complete formation at a flag without Mud (a flag's own size is
    ``FlagView.formation_size``)."""
    flags_to_win: int
    """Any this many flags win (an envelopment, R21)."""
    adjacent_to_win: int
    """This many adjacent flags win (a breakthrough, R21)."""
    scout_draws_max: int
    """Cards a Scout draws at most (R16)."""
    scout_returns_max: int
    """Cards a Scout puts back after drawing ``scout_draws_max`` (R16): the hand ends at its
    full size."""
    phase: Phase
    """Where the seat to move stands within its turn."""
    to_move: Seat | None
    """The seat whose turn it is; None once the game is over."""
    turn: int
    """Turns begun so far."""
    ply: int
    """Moves made so far (the number a move link carries)."""
    flags: tuple[FlagView, ...]
    """The line of flags, from flag 1."""
    decks: FrozenMap[Deck, int]
    """How many cards each draw deck holds (``decks["troops"]``)."""
    hand_sizes: FrozenMap[Seat, int]
    """How many cards each seat holds."""
    discards: FrozenMap[Seat, tuple[Card, ...]]
    """The face-up cards out of play on each seat's side, in the order they went there."""
    tactics_played: FrozenMap[Seat, int]
    """Tactics cards each seat has played so far (R8)."""
    leader_played: FrozenMap[Seat, bool]
    """Whether each seat has played its one Leader (R9)."""
    flags_held: FrozenMap[Seat, int]
    """How many flags each seat holds."""
    pending_discards: tuple[PendingDiscard, ...]
    """Sides that owe a discard since their Mud left (R20)."""
    draw_due: bool
    """Whether the seat to move has played and must end its turn with a draw (R7)."""
    claims_now: bool
    """Whether the seat to move may claim at this moment of its turn (R4, R5)."""
    scout_draws: int
    """Cards drawn so far with the Scout played this turn (0 without one)."""
    scout_draws_left: int
    """How many more cards the Scout may draw now (0 unless scouting; no more than the decks
    hold)."""
    scout_returns_due: int
    """How many cards the seat to move must put back to end its Scout now (0 unless
    scouting)."""
    result: Termination | None
    """How the game ended; None while it goes on."""
    winner: Seat | None
    """The winning seat; None for a draw and while the game goes on."""
    draw_between: tuple[Seat, ...]
    """The seats that share a draw, in seat order (both seats of a two-player draw; two or all
    three with three players, V6.6, V6.7); empty otherwise."""
    hands: FrozenMap[Seat, tuple[Card, ...]] | None
    """Every seat's hand, sorted, once the game is over; None before."""
    # Where the seat to move stands within its turn, beyond ``phase``: open information (every
    # move is seen) that the computer opponent needs to rebuild a position exactly. Not in
    # ``to_json``, whose shape docs/formats.md and the pages rely on.
    played: bool
    """Whether the seat to move has played a card (or passed) this turn."""
    passed: bool
    """Whether this turn's play was a pass (R6)."""
    scouted: bool
    """Whether this turn's play was a Scout, so that no draw follows (R16)."""
    passes_before: int
    """How many turns in a row ended with a pass just before this one (R22, V6.6)."""
    # What the claim timing means for the turn, so that no page compares ``claims`` (also not in
    # ``to_json``).
    claims_after_play: bool
    """Whether a seat claims after playing its card, before it draws (R4, the standard rule);
    False when it claims at the start of its turn only (R5, the advanced rule)."""
    scout_return_ends_turn: bool
    """Whether putting back the Scout's cards now ends the turn at once: no claim may follow it
    (R5, or nothing provable under R4) and no draw does (R16). False unless scouting."""

    def to_json(self) -> dict[str, Any]:
        """The view as plain data (enums as their values, per-seat parts as objects by seat)."""
        return {
            "ruleset": self.ruleset,
            "seats": list(self.seats),
            "tactics": self.tactics,
            "claims": self.claims.value,
            "first": self.first,
            "hand_size": self.hand_size,
            "formation_size": self.formation_size,
            "flags_to_win": self.flags_to_win,
            "adjacent_to_win": self.adjacent_to_win,
            "scout_draws_max": self.scout_draws_max,
            "scout_returns_max": self.scout_returns_max,
            "phase": self.phase.value,
            "to_move": self.to_move,
            "turn": self.turn,
            "ply": self.ply,
            "flags": [f.to_json() for f in self.flags],
            "decks": {deck.value: n for deck, n in self.decks.items()},
            "hand_sizes": dict(self.hand_sizes),
            "discards": {seat: list(cards) for seat, cards in self.discards.items()},
            "tactics_played": dict(self.tactics_played),
            "leader_played": dict(self.leader_played),
            "flags_held": dict(self.flags_held),
            "pending_discards": [p.to_json() for p in self.pending_discards],
            "draw_due": self.draw_due,
            "claims_now": self.claims_now,
            "scout_draws": self.scout_draws,
            "scout_draws_left": self.scout_draws_left,
            "scout_returns_due": self.scout_returns_due,
            "result": None if self.result is None else self.result.value,
            "winner": self.winner,
            "draw_between": list(self.draw_between),
            "hands": None
            if self.hands is None
            else {seat: list(cards) for seat, cards in self.hands.items()},
        }


@dataclass(frozen=True, slots=True)
class PlayerView(PublicView):
    """What one seat may know: the public view, its own hand, and the flags it may claim now."""

    seat: Seat
    """The seat this view is for."""
    opponents: tuple[Seat, ...]
    """The other seats, in the order they play after this one."""
    hand: tuple[Card, ...]
    """The seat's hand, sorted by color and value, tactics last (the order of the cards in a
    hand is nobody's information)."""
    claimable: tuple[int, ...]
    """The flags (1-based) the seat may claim at this very moment: its turn, a moment when
    claims are allowed, and provable (the claim moves of ``legal_moves``)."""
    blocked_tactics: tuple[BlockedTactic, ...] = ()
    """The tactics cards of ``hand`` that a limit keeps in it, whoever is to move (R8, R9,
    V6.4): they are in no legal move, and this says why and until when."""

    def to_json(self) -> dict[str, Any]:
        """The public view's data plus ``seat``, ``opponents``, ``hand``, ``claimable`` and
        ``blocked_tactics``."""
        data = PublicView.to_json(self)
        data["seat"] = self.seat
        data["opponents"] = list(self.opponents)
        data["hand"] = list(self.hand)
        data["claimable"] = list(self.claimable)
        data["blocked_tactics"] = [b.to_json() for b in self.blocked_tactics]
        return data


# --- building the views ---------------------------------------------------------------------------


def _sorted_hand(state: GameState, index: int) -> tuple[Card, ...]:
    return tuple(sorted(state.hands[index], key=state.ruleset.card_order.__getitem__))


def _public_fields(state: GameState) -> dict[str, Any]:
    """The fields of a PublicView, by name."""
    rs = state.ruleset
    seats = rs.seats
    flags = tuple(
        FlagView(
            number=i + 1,
            seats=rs.flag_seats(i),
            cards=FrozenMap(zip(rs.flag_seats(i), f.cards, strict=True)),
            env=tuple(EnvironmentCard(card, SEATS[side]) for card, side in f.env),
            formation_size=f.size(rs),
            claimed_by=None if f.claimed_by is None else SEATS[f.claimed_by],
            arrivals=FrozenMap(zip(rs.flag_seats(i), f.arrivals, strict=True)),
        )
        for i, f in enumerate(state.flags)
    )
    over = state.result is not None
    winner = state.result.winner if state.result is not None else None
    return {
        "ruleset": rs.name,
        "seats": seats,
        "tactics": rs.tactics,
        "claims": state.claims,
        "first": SEATS[state.first],
        "hand_size": rs.hand_size,
        "formation_size": rs.formation_size,
        "flags_to_win": rs.flags_to_win,
        "adjacent_to_win": rs.adjacent_to_win,
        "scout_draws_max": rs.scout_draws,
        # Played from a full hand, the Scout leaves one card fewer; the draws are all extra.
        "scout_returns_max": rs.scout_draws - 1,
        "phase": state.phase,
        "to_move": None if over else state.to_move,
        "turn": state.turn,
        "ply": state.ply,
        "flags": flags,
        "decks": FrozenMap(
            ((Deck.TROOPS, len(state.troop_deck)), (Deck.TACTICS, len(state.tactics_deck)))
        ),
        "hand_sizes": FrozenMap((s, len(state.hands[i])) for i, s in enumerate(seats)),
        "discards": FrozenMap((s, state.discards[i]) for i, s in enumerate(seats)),
        "tactics_played": FrozenMap((s, state.tactics_played[i]) for i, s in enumerate(seats)),
        "leader_played": FrozenMap((s, state.leader_played[i]) for i, s in enumerate(seats)),
        "flags_held": FrozenMap(flags_held(state)),
        "pending_discards": tuple(
            PendingDiscard(SEATS[s], i + 1) for s, i in state.pending_discards
        ),
        "draw_due": not over and state.played and draw_due(state),
        "claims_now": not over and claims_allowed_now(state),
        "scout_draws": state.scout_draws if state.scouted else 0,
        "scout_draws_left": 0 if over else scout_draws_left(state),
        "scout_returns_due": 0 if over else scout_returns_due(state),
        "result": None if state.result is None else state.result.termination,
        "winner": winner,
        "draw_between": () if state.result is None else state.result.draw_between,
        "hands": FrozenMap((s, _sorted_hand(state, i)) for i, s in enumerate(seats))
        if over
        else None,
        "played": state.played,
        "passed": state.passed,
        "scouted": state.scouted,
        "passes_before": state.previous_passes,
        "claims_after_play": state.claims is ClaimTiming.STANDARD,
        "scout_return_ends_turn": not over
        and state.phase is Phase.SCOUT
        and not (state.claims is ClaimTiming.STANDARD and provable_flags(state, state.to_move)),
    }


def _check_seat(state: GameState, seat: Seat) -> int:
    if seat not in state.ruleset.seats:
        raise ValueError(f"{seat!r} is not a seat")
    return SEATS.index(seat)


def spectator_view(state: GameState, *, reveal: bool = False) -> PublicView:
    """What anyone may see of the position (both hands too once the game is over).

    ``reveal``: show the hands of this earlier position too, because the game it belongs to is
    over (R3: the seed is public then, so every hand of every position is)."""
    fields = _public_fields(state)
    if reveal and fields["hands"] is None:
        fields["hands"] = FrozenMap(
            (s, _sorted_hand(state, i)) for i, s in enumerate(state.ruleset.seats)
        )
    return PublicView(**fields)


def player_view(state: GameState, seat: Seat) -> PlayerView:
    """What ``seat`` may know of the position: the public view, its hand, its opponents and the
    flags it may claim now. Raises ValueError for a letter that is not a seat of the game."""
    index = _check_seat(state, seat)
    may_claim = state.result is None and state.mover == index and claims_allowed_now(state)
    return PlayerView(
        **_public_fields(state),
        seat=seat,
        opponents=state.ruleset.opponents(seat),
        hand=_sorted_hand(state, index),
        claimable=tuple(provable_flags(state, seat)) if may_claim else (),
        blocked_tactics=()
        if state.result is not None
        else tuple(
            BlockedTactic(
                card,
                reason,
                tuple(SEATS[i] for i in tactics_ahead_of(state, index))
                if reason is TacticsBlock.TACTICS_LIMIT
                else (),
            )
            for card, reason in blocked_tactics(state, index)
        ),
    )


def claim_proof_views(state: GameState, seat: Seat) -> tuple[ClaimProofView, ...]:
    """For each unclaimed flag ``seat`` contests (V6.2), in order, whether it could claim it on
    the board as it stands, and why (whether claims are allowed at this moment is
    ``PublicView.claims_now``). Raises ValueError for a letter that is not a seat of the game."""
    index = _check_seat(state, seat)
    unseen = unseen_troops(state)
    return tuple(
        _proof_view(state, seat, index, i, side, unseen)
        for i, side in state.ruleset.seat_flags[index]
        if state.flags[i].claimed_by is None
    )


def claim_proof_view(state: GameState, seat: Seat, flag: int) -> ClaimProofView:
    """``claim_proof_views`` of one unclaimed flag (1-based) that ``seat`` contests: what a claim
    of it is kept with in a log. Raises ValueError for a seat that is not one of the game or
    does not contest the flag, or a flag out of range or claimed already."""
    index = _check_seat(state, seat)
    sides = [side for i, side in state.ruleset.seat_flags[index] if i == flag - 1]
    if not sides:
        raise ValueError(f"seat {seat} does not contest a flag {flag}")
    if state.flags[flag - 1].claimed_by is not None:
        raise ValueError(f"flag {flag} is claimed already")
    return _proof_view(state, seat, index, flag - 1, sides[0], unseen_troops(state))


def _proof_view(
    state: GameState, seat: Seat, index: int, i: int, side: int, unseen: UnseenTroops
) -> ClaimProofView:
    proof = claim_proof(state, index, i, unseen)
    return ClaimProofView(
        flag=i + 1,
        seat=seat,
        opponent=state.ruleset.flag_seats(i)[1 - side],
        provable=proof.claimable,
        status=proof.status,
        formation=proof.mine,
        opponent_best=proof.best_theirs,
        opponent_cannot_complete=proof.impossible,
        reason=proof.reason,
        margin=proof.margin,
    )


# --- the spectator's view as a dict -----------------------------------------------------------


def _legacy(seen: PublicView) -> dict[str, Any]:
    """A PublicView as the dict of ``public_view``."""
    flags = []
    for f in seen.flags:
        flag: dict[str, Any] = {"flag": f.number, "claimed_by": f.claimed_by}
        for seat in f.seats:
            flag[seat] = list(f.cards[seat])
        flag["env"] = [e.card for e in f.env]
        flag["env_sides"] = {e.card: e.seat for e in f.env}
        flag["size"] = f.formation_size
        flags.append(flag)
    view: dict[str, Any] = {
        "ruleset": seen.ruleset,
        "claims": seen.claims.value,
        "first": seen.first,
        "to_move": seen.to_move,
        "phase": seen.phase.value,
        "turn": seen.turn,
        "ply": seen.ply,
        "flags": flags,
        "hand_sizes": dict(seen.hand_sizes),
        "decks": {deck.value: n for deck, n in seen.decks.items()},
        "discards": {s: list(cards) for s, cards in seen.discards.items()},
        "tactics_played": dict(seen.tactics_played),
        "leader_played": dict(seen.leader_played),
        "scout_draws": seen.scout_draws,
        "pending_discards": [p.to_json() for p in seen.pending_discards],
        "draw_due": seen.draw_due,
        "claims_now": seen.claims_now,
        "flags_held": dict(seen.flags_held),
        "result": None,
        "winner": None,
    }
    if seen.result is not None:
        view["result"] = seen.result.value
        view["winner"] = seen.winner
    if seen.hands is not None:
        view["hands"] = {s: list(cards) for s, cards in seen.hands.items()}
    return view


def public_view(state: GameState) -> dict[str, Any]:
    """What anyone may see, as a JSON-ready dict: the board, counts, discards and the result.

    Once the game is over both hands are shown too (the seed is revealed then anyway, R3).
    Prefer ``spectator_view``, its typed form.
    """
    return _legacy(spectator_view(state))
