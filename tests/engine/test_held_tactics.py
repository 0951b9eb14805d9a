"""Tactics cards a limit keeps in the hand (R8, R9, V6.4) are named in the seat's view with the
limit and until when, and the ``end`` that is the only move left is said by the engine."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    Action,
    BlockedTactic,
    Move,
    Phase,
    TacticsBlock,
    automatic_end,
    legal_moves,
    player_view,
)
from tests.engine.builders import play, position


def test_the_tactics_limit_names_each_tactics_card_and_whom_it_waits_for() -> None:
    state = position(
        hands={"A": ["R1", "FOG", "SCOUT"], "B": ["B2"]}, tactics_played=(1, 0), to_move="A"
    )
    assert not [m for m in legal_moves(state) if m.card in ("FOG", "SCOUT")]
    blocked = player_view(state, "A").blocked_tactics
    assert blocked == (
        BlockedTactic("FOG", TacticsBlock.TACTICS_LIMIT, ("B",)),
        BlockedTactic("SCOUT", TacticsBlock.TACTICS_LIMIT, ("B",)),
    )
    # Also when it is not the seat's turn: the hand is shown then too.
    assert player_view(state, "B").blocked_tactics == ()
    level = position(hands={"A": ["FOG"], "B": ["B2"]}, tactics_played=(1, 1), to_move="B")
    assert player_view(level, "A").blocked_tactics == ()


def test_a_second_leader_is_kept_for_good_and_says_so_first() -> None:
    state = position(
        hands={"A": ["R1", "DARIUS", "MUD"], "B": ["B2"]},
        tactics_played=(2, 1),
        leader_played=(True, False),
    )
    blocked = player_view(state, "A").blocked_tactics
    assert [(b.card, b.reason, b.waiting_for) for b in blocked] == [
        ("DARIUS", TacticsBlock.LEADER_LIMIT, ()),
        ("MUD", TacticsBlock.TACTICS_LIMIT, ("B",)),
    ]
    assert player_view(state, "A").to_json()["blocked_tactics"][0] == {
        "card": "DARIUS",
        "reason": "leader_limit",
        "waiting_for": [],
    }


def test_three_players_wait_for_the_opponents_behind() -> None:
    state = position(ruleset="battleline-3p", hands={"A": ["TRAITOR"]}, tactics_played=(1, 1, 0))
    (blocked,) = player_view(state, "A").blocked_tactics
    assert blocked.waiting_for == ("C",)


@settings(max_examples=60, deadline=None)
@given(
    st.tuples(st.integers(0, 3), st.integers(0, 3)),
    st.tuples(st.booleans(), st.booleans()),
    st.sets(st.sampled_from(["ALEXANDER", "DARIUS", "CAVALRY", "FOG", "SCOUT", "TRAITOR"])),
)
def test_a_tactics_card_in_hand_is_playable_or_blocked_never_both(
    played: tuple[int, int], leaders: tuple[bool, bool], tactics: set[str]
) -> None:
    state = position(
        flags={1: {"A": ["R1"], "B": ["B1"]}},
        hands={"A": ["R2", *sorted(tactics)], "B": ["B2"]},
        tactics_played=played,
        leader_played=leaders,
    )
    # A Redeploy, Deserter or Traitor move names the card it acts on: the tactics card is its
    # action.
    playable = {
        m.card if m.action is Action.PLAY else m.action.value.upper() for m in legal_moves(state)
    }
    blocked = {b.card for b in player_view(state, "A").blocked_tactics}
    assert blocked | (playable & tactics) == tactics
    assert not blocked & playable


def test_the_end_is_automatic_only_when_it_is_the_only_move() -> None:
    # After a Scout put its cards back: nothing but the end is left.
    state = position(hands={"A": ["R1", "R2", "R3", "R4", "R5", "R6", "SCOUT"], "B": ["B2"]})
    scouted = play(state, "A: SCOUT", "A: draw troops", "A: draw troops", "A: draw troops")
    assert automatic_end(scouted) is None  # scouting: cards to put back
    back = play(scouted, "A: return R1 R2")
    assert back.phase is Phase.AFTER_PLAY
    assert legal_moves(back) == [Move("A", Action.END)] == [automatic_end(back)]
    # A card played with a hand to fill: draws, no automatic end.
    drawn = play(state, "A: R1>1")
    assert automatic_end(drawn) is None and Action.END not in {m.action for m in legal_moves(drawn)}
    # Both decks empty: the end alone.
    empty = position(hands={"A": ["R1"], "B": ["B2"]}, empty_decks=True)
    assert automatic_end(play(empty, "A: R1>1")) == Move("A", Action.END)


def test_no_automatic_end_while_a_claim_can_be_made() -> None:
    # Standard rule: claims come after the card; a provable flag leaves a choice.
    state = position(
        flags={1: {"A": ["R8", "R9"], "B": ["B1", "B2", "B3"]}},
        hands={"A": ["R10"], "B": ["B5"]},
        empty_decks=True,
    )
    after = play(state, "A: R10>1")
    assert {m.action for m in legal_moves(after)} == {Action.CLAIM, Action.END}
    assert automatic_end(after) is None
