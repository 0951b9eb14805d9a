"""Build a position card by card for rule tests; every card not placed goes to the decks, so the
70 (or 60, 52, 54) cards are always all accounted for."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from engine import (
    SEATS,
    ClaimTiming,
    FlagState,
    GameState,
    Move,
    Phase,
    apply,
    get_ruleset,
    legal_moves,
    parse_move,
)


def position(
    *,
    ruleset: str = "battleline",
    claims: str = "standard",
    flags: Mapping[int, Mapping[str, Sequence[str]]] | None = None,
    hands: Mapping[str, Sequence[str]] | None = None,
    discards: Mapping[str, Sequence[str]] | None = None,
    troop_top: Sequence[str] = (),
    tactics_top: Sequence[str] = (),
    empty_decks: bool = False,
    to_move: str = "A",
    phase: Phase = Phase.START,
    tactics_played: tuple[int, ...] | None = None,
    leader_played: tuple[bool, ...] | None = None,
    claimed: Mapping[int, str] | None = None,
    ply: int = 100,
) -> GameState:
    """A position from the cards named: ``flags={3: {"A": ["R7"], "B": [], "env": ["MUD:A"]}}``.

    A flag's sides are named by the seats of its pair (``Ruleset.flag_seats``). Cards on a side
    arrive in the order listed, at plies counted up from ``ply - 50``. Unplaced cards go to the
    decks below ``troop_top`` / ``tactics_top``; with ``empty_decks`` they go to A's discards
    instead (face up, out of play), so the decks hold only the tops.
    """
    rs = get_ruleset(ruleset)
    seats = rs.seats
    used: list[str] = []
    arrival = ply - 50
    built = []
    for number in range(1, rs.flags + 1):
        spec = (flags or {}).get(number, {})
        pair = rs.flag_seats(number - 1)
        strangers = set(spec) - {*pair, "env"}
        assert not strangers, f"flag {number} is contested by {pair}, not {strangers}"
        sides: list[tuple[str, ...]] = []
        times: list[tuple[int, ...]] = []
        for seat in pair:
            cards = tuple(c.upper() for c in spec.get(seat, ()))
            sides.append(cards)
            times.append(tuple(range(arrival, arrival + len(cards))))
            arrival += len(cards)
            used.extend(cards)
        env = []
        for item in spec.get("env", ()):
            card, _, side = item.partition(":")
            env.append((card.upper(), SEATS.index(side or pair[0])))
            used.append(card.upper())
        owner = (claimed or {}).get(number)
        built.append(
            FlagState(
                cards=(sides[0], sides[1]),
                arrivals=(times[0], times[1]),
                env=tuple(env),
                claimed_by=None if owner is None else SEATS.index(owner),
            )
        )
    hand_cards = [tuple((hands or {}).get(s, ())) for s in seats]
    disc = [tuple((discards or {}).get(s, ())) for s in seats]
    used += [c for cards in (*hand_cards, *disc) for c in cards] + [*troop_top, *tactics_top]
    assert len(used) == len(set(used)), f"a card is placed twice: {sorted(used)}"
    assert set(used) <= rs.all_cards, set(used) - rs.all_cards
    rest_troops = tuple(c for c in rs.troops if c not in used)
    rest_tactics = tuple(c for c in rs.tactics_cards if c not in used)
    troops = tuple(troop_top) + (() if empty_decks else rest_troops)
    tactics = tuple(tactics_top) + (() if empty_decks else rest_tactics)
    if empty_decks:
        disc[0] = disc[0] + rest_troops + rest_tactics
    return GameState(
        ruleset=rs,
        claims=ClaimTiming(claims),
        flags=tuple(built),
        hands=tuple(hand_cards),
        troop_deck=troops,
        tactics_deck=tactics,
        discards=tuple(disc),
        tactics_played=tactics_played or (0,) * len(seats),
        leader_played=leader_played or (False,) * len(seats),
        first=0,
        mover=SEATS.index(to_move),
        phase=phase,
        ply=ply,
        played=phase is Phase.AFTER_PLAY,
    )


def play(state: GameState, *moves: str) -> GameState:
    """Apply moves in notation, one after another."""
    for text in moves:
        state, _ = apply(state, parse_move(text, state.ruleset))
    return state


def moves_of(state: GameState) -> list[str]:
    """The legal moves as notation strings."""
    return [str(m) for m in legal_moves(state)]


def all_cards(state: GameState) -> list[str]:
    """Every card of the state, wherever it is (each must appear exactly once)."""
    cards: list[str] = []
    for flag in state.flags:
        cards += [*flag.cards[0], *flag.cards[1], *(c for c, _ in flag.env)]
    for seat in range(state.ruleset.players):
        cards += [*state.hands[seat], *state.discards[seat]]
    return cards + [*state.troop_deck, *state.tactics_deck]


def as_moves(texts: Iterable[str], ruleset: str = "battleline") -> list[Move]:
    """Parse several moves."""
    rs = get_ruleset(ruleset)
    return [parse_move(t, rs) for t in texts]
