"""Reading replies: the player's own words out of real mail programs' replies (the corpus in
tests/fixtures/replies; ``service.inbound.reply_text``), then those words into moves against a
position (``service.present.reply_reading``). Pure: no app, no database."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine import Action
from service.inbound.reply_text import html_to_text, own_words
from service.present.choices import Choice, move_code
from service.present.reply_parts import is_anchor, sentences, split_parts
from service.present.reply_reading import names_a_move, read_turn
from service.present.reply_wanted import another_claim, is_remark, merge_returns, wanted
from service.present.reply_words import card_of, number_of, tokens_of
from tests.engine.builders import position
from tests.service.replies import turn_text

BATTLELINE = engine.get_ruleset("battleline")


def test_what_is_never_the_players_words() -> None:
    quoted = "R7>3\n\nOn Mon, 5 Jan 2026, Bob <b@x.example> wrote:\n> c3\n> resign\n"
    assert own_words(quoted) == "R7>3"
    signed = "pass\n-- \nAlice | resign | R7>3"
    assert own_words(signed) == "pass"
    outlook = "troops\n\n________________________________\nFrom: Bob\nSent: today\nTo: Alice\n\nc3"
    assert own_words(outlook) == "troops"
    assert own_words("> R7>3\n> troops\n") == ""


def test_html_becomes_text_with_its_quotes() -> None:
    html = (
        "<html><head><style>p{color:red}</style><title>x</title></head><body>"
        "<div>R7&gt;3&nbsp;troops</div><blockquote><p>c3</p><blockquote>resign</blockquote>"
        "</blockquote><script>alert(1)</script></body></html>"
    )
    assert html_to_text(html) == "R7>3 troops\n> c3\n> > resign"


# ----------------------------------------------------------------------------- against a position


def opening(seed: str = "seed0", ruleset: str = "battleline") -> engine.GameState:
    rules = engine.get_ruleset(ruleset)
    return engine.start(rules, engine.ClaimTiming.ADVANCED, engine.deal_from_seed(rules, seed))


def a_play(state: engine.GameState) -> engine.Move:
    return next(m for m in engine.legal_moves(state) if m.action is Action.PLAY)


def test_a_whole_turn_in_notation_codes_and_words() -> None:
    state = opening()
    play = a_play(state)
    card, flag = play.card, play.flag
    assert card is not None and flag is not None
    color, value = engine.cards.troop_parts(card)
    color_word = engine.cards.COLOR_NAMES[color]
    for text in (
        f"{card}>{flag} draw troops",
        f"{card.lower()} >  {flag}\n\ntroops",
        f"  {card} > {flag},  TROOPS ",
        f"play {color_word} {value} on flag {flag} and draw a troop card",
        f"Hi Bob! {card}>{flag} then troops. Cheers",
        f"{value} of {color_word} to {flag}; draw from the troops deck",
    ):
        reading = read_turn(text, state, state.to_move)
        assert reading.problem is None, (text, reading)
        assert [m.action_text() for m in reading.moves] == [f"{card}>{flag}", "draw troops"]


def test_a_card_alone_leaves_the_turn_open_and_the_draw_follows_in_a_second_reply() -> None:
    state = opening()
    play = a_play(state)
    reading = read_turn(play.action_text(), state, state.to_move)
    assert reading.moves == [play]
    after, _ = engine.apply(state, play)
    assert read_turn("tactics", after, state.to_move).moves[0].action_text() == "draw tactics"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("hello, hope you are well", "We found no move in your reply."),
        ("", "We found no move in your reply."),
        ("draw troops", "'draw troops': draw troops cannot be played now"),
        ("not {play}", "says not to play something"),
        ("{card}", "it could mean"),
        ("{play} {play}", "already played"),
        ("{play} troops {play}", "your turn is over after 'troops'"),
        ("resign {play}", "To resign, reply with the single word 'resign'"),
        ("I will not resign", "To resign, reply with the single word 'resign'"),
        ("R9>12", "R9>12 cannot be played now"),
        ("play", "We found no move in your reply."),
    ],
)
def test_what_cannot_be_played(text: str, problem: str) -> None:
    state = opening()
    play = a_play(state)
    filled = text.format(play=play.action_text(), card=play.card)
    reading = read_turn(filled, state, state.to_move)
    assert not reading.playable
    assert reading.problem is not None and problem in reading.problem, reading
    no_move = ("hello, hope you are well", "", "play")
    assert names_a_move(filled, BATTLELINE) == (text not in no_move)


def test_not_your_turn_and_resign_at_any_time() -> None:
    state = opening()
    other = next(s for s in BATTLELINE.seats if s != state.to_move)
    reading = read_turn(a_play(state).action_text(), state, other)
    assert reading.problem is not None and "it is not your turn" in reading.problem
    resign = read_turn("I resign.", state, other)
    assert [m.action_text() for m in resign.moves] == ["resign"]


def test_every_short_code_reads_back_as_its_move() -> None:
    """``Choice.code`` (the codes listed in the emails) and the reader agree, for every legal
    move of many positions of random games, guile tactics included."""
    rng = random.Random(7)
    checked: set[Action] = set()
    for seed in ("seed0", "seed1", "seed2", "seed3"):
        state = opening(seed)
        while state.result is None and state.ply < 200:
            moves = engine.legal_moves(state)
            for index, move in enumerate(moves):
                code = Choice(move, index).code
                assert code == move_code(move)
                reading = read_turn(code, state, state.to_move)
                assert reading.moves == [move], (code, reading)
                checked.add(move.action)
            state, _ = engine.apply(state, rng.choice(moves))
    assert {Action.PLAY, Action.CLAIM, Action.DRAW} <= checked


def test_a_scout_turn_in_one_reply() -> None:
    rng = random.Random(3)
    for seed in (f"scout{i}" for i in range(40)):
        state = opening(seed)
        while state.result is None and state.ply < 150:
            moves = engine.legal_moves(state)
            scout = [m for m in moves if m.action is Action.SCOUT]
            if scout:
                hand = state.hands[engine.SEATS.index(state.to_move)]
                kept = [c for c in hand if c != "SCOUT"][:2]
                text = f"scout, troops, troops, troops, return {kept[0]} {kept[1]}"
                reading = read_turn(text, state, state.to_move)
                assert reading.problem is None, reading
                assert [m.action for m in reading.moves] == [
                    Action.SCOUT, Action.DRAW, Action.DRAW, Action.DRAW, Action.RETURN,
                ]  # fmt: skip
                assert reading.moves[-1].cards == tuple(kept)
                return
            state, _ = engine.apply(state, rng.choice(moves))
    pytest.fail("no position with a Scout to play was found")


SCOUT_HAND = ["R1", "G2", "R5", "Y9", "B3", "O4", "SCOUT"]


@pytest.mark.parametrize(
    "text",
    [
        "scout, draw troops twice and tactics, put back G2 and R5",
        "Scout. Draw troops twice, then tactics. Put back the green 2 and the red 5.",
        "play the scout, draw two troops and a tactics card, give back green 2, red five",
        "SCOUT troops troops tactics return G2 R5",
        "scout; troops 2 times; tactics; put back G2 R5; end",
    ],
)
def test_a_scout_turn_as_people_write_it(text: str) -> None:
    state = position(claims="advanced", hands={"A": SCOUT_HAND, "B": ["B1"]})
    reading = read_turn(text, state, "A")
    assert reading.problem is None, reading
    drawn = [str(m.deck) for m in reading.moves if m.action is Action.DRAW]
    assert [m.action for m in reading.moves][:5] == [
        Action.SCOUT, Action.DRAW, Action.DRAW, Action.DRAW, Action.RETURN,
    ]  # fmt: skip
    assert drawn == ["troops", "troops", "tactics"]
    assert reading.moves[4].cards == ("G2", "R5")


def test_twice_and_put_back_stay_out_of_chat() -> None:
    assert wanted("I'll be back twice as fast", BATTLELINE) is None
    assert wanted("back then", BATTLELINE) is None


def test_playing_cards_c3_is_a_claim_and_play_c3_a_card() -> None:
    state = opening("pc1", "playing-cards")
    assert wanted("c3", state.ruleset) is not None
    claim = wanted("c3", state.ruleset)
    assert claim is not None and claim.action is Action.CLAIM and claim.flag == 3
    card = wanted("play c3 on 5", state.ruleset)
    assert card is not None and card.card == "C3" and card.flag == 5
    spades = wanted("seven of spades to 2", state.ruleset)
    assert spades is not None and spades.card == "S7" and spades.flag == 2


def test_a_game_for_three() -> None:
    state = opening("three", "battleline-3p")
    play = a_play(state)
    reading = read_turn(f"{play.action_text()} troops", state, state.to_move)
    assert [m.action for m in reading.moves] == [Action.PLAY, Action.DRAW]


# ------------------------------------------------------------------ values, chat, flags already won


def _positions(seeds: int = 30, plies: int = 120) -> Iterator[engine.GameState]:
    """Positions of random games (the player to move may play a card)."""
    rng = random.Random(11)
    for n in range(seeds):
        state = opening(f"values{n}")
        while state.result is None and state.ply < plies:
            yield state
            state, _ = engine.apply(state, rng.choice(engine.legal_moves(state)))


def _troops_by_value(state: engine.GameState) -> dict[int, list[str]]:
    hand = state.hands[engine.SEATS.index(state.to_move)]
    found: dict[int, list[str]] = {}
    for card in hand:
        if engine.cards.is_troop(card):
            found.setdefault(engine.cards.troop_parts(card)[1], []).append(card)
    return found


def _play_of_a_value(alone: bool) -> tuple[engine.GameState, int, int, list[engine.Move]]:
    """A position, a value, a flag, and the legal plays of that value to that flag: one card of
    the value in hand (``alone``) or several."""
    for state in _positions():
        plays = [m for m in engine.legal_moves(state) if m.action is Action.PLAY]
        for value, cards in _troops_by_value(state).items():
            if (len(cards) == 1) != alone:
                continue
            for flag in range(1, state.ruleset.flags + 1):
                matching = [m for m in plays if m.card in cards and m.flag == flag]
                if len(matching) == len(cards):
                    return state, value, flag, matching
    raise AssertionError("no such position")


@pytest.mark.parametrize(
    "text",
    [
        "play the {value} on flag {flag}",
        "{value} to {flag}",
        "{value}>{flag}",
        "{value} > {flag} troops",
        "I'll put my {value} on flag {flag}, then draw troops",
    ],
)
def test_a_value_without_a_colour_is_the_one_card_of_that_value_in_hand(text: str) -> None:
    state, value, flag, (play,) = _play_of_a_value(alone=True)
    reading = read_turn(text.format(value=value, flag=flag), state, state.to_move)
    assert reading.problem is None, reading
    assert reading.moves[0] == play
    if "troops" in text:
        assert [m.action_text() for m in reading.moves[1:]] == ["draw troops"]


def test_a_value_held_twice_is_asked_back_naming_the_cards() -> None:
    state, value, flag, plays = _play_of_a_value(alone=False)
    reading = read_turn(f"play the {value} on flag {flag}", state, state.to_move)
    assert not reading.playable and reading.problem is not None
    assert f"could mean {len(plays)} moves" in reading.problem
    for play in plays:
        assert play.action_text() in reading.problem
    assert set(reading.parts[0].options) == set(plays)


def test_a_value_not_in_hand_says_so() -> None:
    state = opening()
    missing = next(v for v in range(1, 11) if v not in _troops_by_value(state))
    reading = read_turn(f"{missing} to 3", state, state.to_move)
    assert reading.problem is not None and f"no troop card of value {missing}" in reading.problem


def test_chat_around_the_moves_is_kept_apart_and_the_moves_are_played() -> None:
    state = opening()
    play = a_play(state).action_text()
    text = (
        f"Nice play on flag 2! {play}, troops. Is flag 7 really still open? Good play!\n"
        "Can I play R1 on 9 next time?\nSee you Friday"
    )
    reading = read_turn(text, state, state.to_move)
    assert reading.problem is None, reading
    assert [m.action_text() for m in reading.moves] == [play, "draw troops"]
    assert reading.chat == (
        "Nice play on flag 2", "Is flag 7 really still open", "Good play",
        "Can I play R1 on 9 next time", "See you Friday",
    )  # fmt: skip
    for remark in ("Nice play on flag 2!", "Is flag 7 really still open?", "see you at the end"):
        assert not names_a_move(remark, BATTLELINE), remark
    for move in ("troops?", f"{play}?", "end turn", "claim flag 3 please"):
        assert names_a_move(move, BATTLELINE), move


def _with_a_flag_won(by_mover: bool = True) -> tuple[engine.GameState, int]:
    for state in _positions(seeds=60, plies=200):
        mine = engine.SEATS.index(state.to_move)
        won = [
            i + 1
            for i, flag in enumerate(state.flags)
            if flag.claimed_by is not None and (flag.claimed_by == mine) == by_mover
        ]
        plays = [m for m in engine.legal_moves(state) if m.action is Action.PLAY]
        if won and plays and state.phase is engine.Phase.START:
            return state, won[0]
    raise AssertionError("no such position")


def test_a_claim_of_a_flag_already_won_is_noted_and_the_rest_is_played() -> None:
    state, flag = _with_a_flag_won()
    play = a_play(state)
    ending = engine.turn_endings(state, play)[0].action_text()
    reading = read_turn(f"claim {flag}, {play.action_text()} {ending}", state, state.to_move)
    assert reading.problem is None, reading
    assert [m.action_text() for m in reading.moves] == [play.action_text(), ending]
    (note,) = reading.notes
    assert f"flag {flag} is yours already" in note
    alone = read_turn(f"c{flag}", state, state.to_move)
    assert alone.problem is not None and "yours already" in alone.problem
    assert not alone.playable


REMARKS = (
    "Nice play on flag 2!", "Is flag 7 really still open?", "Good play!", "See you Friday.",
    "Hi Bob,", "Thanks!", "Can I play R1 on 9 next time?", "See you at the end of the week.",
    "Good luck with flag 4!", "Why did you play there?", "I'll draw my conclusions later.",
    "Nice 10 on flag 6!", "Cheers, Alice",
)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(
    before=st.lists(st.sampled_from(REMARKS), max_size=3),
    after=st.lists(st.sampled_from(REMARKS), max_size=3),
    seed=st.sampled_from(["seed0", "seed1", "seed2", "seed3"]),
)
def test_chat_around_a_turn_never_changes_its_moves(
    before: list[str], after: list[str], seed: str
) -> None:
    state = opening(seed)
    turn = turn_text(state)
    alone = read_turn(turn, state, state.to_move)
    text = "\n".join([" ".join(before), turn, " ".join(after)])
    reading = read_turn(text, state, state.to_move)
    assert reading.problem is None, (text, reading)
    assert reading.moves == alone.moves
    assert len(reading.chat) >= len(before) + len(after) - sum("," in r for r in before + after)


@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=160))
def test_any_text_reads_as_moves_or_a_reason_and_never_raises(text: str) -> None:
    state = opening()
    reading = read_turn(text, state, state.to_move)
    assert reading.playable == (reading.problem is None)
    assert names_a_move(text, BATTLELINE) or reading.problem == "We found no move in your reply."


def test_a_claim_of_a_flag_the_opponent_won_is_noted_too() -> None:
    state, flag = _with_a_flag_won(by_mover=False)
    play = a_play(state)
    reading = read_turn(f"c{flag} {play.action_text()}", state, state.to_move)
    assert reading.moves == [play], reading
    (note,) = reading.notes
    assert f"flag {flag} was claimed already, not by you" in note


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("R9>12", "R9>12 cannot be played now: '12' is not a flag (flags are 1 to 9)."),
        ("claim flag 12", "claim 12 cannot be played now: '12' is not a flag (flags are 1 to 9)."),
        ("play red 15 on 3", "R15>3 cannot be played now: 'R15>3': R15 is not a card of this"),
    ],
)
def test_a_flag_or_card_the_game_has_not_is_named_by_the_engines_parser(
    text: str, problem: str
) -> None:
    """The reader writes what it read in the notation and the engine's parser reads it: the
    parser says which flag or card the game has not."""
    reading = read_turn(text, opening(), opening().to_move)
    assert reading.problem is not None and problem in " ".join(reading.problem.split())


def test_the_readers_pieces() -> None:
    """The words, sentences and parts the reader works with (``reply_words``,
    ``reply_parts``, ``reply_wanted``)."""
    assert [number_of(w) for w in ("3", "third", "3rd", "seven", "x")] == [3, 3, 3, 7, None]
    assert tokens_of("play R7 > 3 (now)") == ["play", "R7>3", "now"]
    assert (card_of("fog", BATTLELINE), card_of("r7", BATTLELINE), card_of("Z9", BATTLELINE)) == (
        "FOG", "R7", None,
    )  # fmt: skip
    assert sentences("Hi Bob. R7>3! Is flag 7 open?") == [
        ("Hi Bob.", False), (" R7>3!", False), (" Is flag 7 open?", True),
    ]  # fmt: skip
    assert split_parts("R7>3 draw tactics, troops troops tactics", BATTLELINE) == [
        "R7>3", "draw tactics", "troops", "troops", "tactics",
    ]  # fmt: skip
    assert is_anchor("R7>3", BATTLELINE) and not is_anchor("nice", BATTLELINE)
    remark, play = wanted("Nice play on flag 2", BATTLELINE), wanted("R7 to 2", BATTLELINE)
    assert remark is not None and play is not None
    assert is_remark(remark) and not is_remark(play)
    claim = another_claim("5")
    assert claim is not None and (claim.action, claim.flag) == (Action.CLAIM, 5)
    back, fog = wanted("return R2", BATTLELINE), wanted("FOG", BATTLELINE)
    assert back is not None and fog is not None
    assert [part.cards for part in merge_returns([back, fog])] == [["R2", "FOG"]]
