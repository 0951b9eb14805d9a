"""Reading replies (``service.present.reply_reading``): the player's own words out of real mail
programs' replies (the corpus in tests/fixtures/replies), then those words into moves against a
position. Pure: no app, no database."""

from __future__ import annotations

import email
import json
import random
from pathlib import Path

import pytest

import engine
from engine import Action
from service.present.choices import Choice, move_code
from service.present.reply_reading import (
    html_to_text,
    names_a_move,
    own_words,
    read_turn,
    wanted,
    written_text,
)
from tests.engine.builders import position

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "replies"
EXPECTED: dict[str, dict[str, object]] = json.loads((CORPUS / "expected.json").read_text())
BATTLELINE = engine.get_ruleset("battleline")


def test_the_corpus_has_a_reply_of_every_common_mail_program() -> None:
    names = sorted(p.name for p in CORPUS.glob("*.eml"))
    assert names == sorted(EXPECTED)
    for client in ("gmail", "outlook", "apple", "thunderbird", "k9", "fairemail", "ios"):
        assert any(client in name for name in names), client
    for language in ("german", "french"):
        assert any(language in name for name in names), language
    assert any("html_only" in name for name in names)
    assert any("bottom_posting" in name for name in names)
    assert any("top_posting" in name for name in names)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_players_own_words_of_each_reply(name: str) -> None:
    message = email.message_from_bytes((CORPUS / name).read_bytes())
    assert written_text(message) == EXPECTED[name]["words"]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_moves_each_reply_names(name: str) -> None:
    """Each part read as the move it names in full (whatever the position)."""
    message = email.message_from_bytes((CORPUS / name).read_bytes())
    words = written_text(message)
    named = []
    for part in (wanted(words_, BATTLELINE) for words_ in _parts(words)):
        if part is not None:
            move = part.move("A")
            assert move is not None, part
            named.append(move.action_text())
    assert named == EXPECTED[name]["moves"]


def _parts(text: str) -> list[str]:
    from service.present.reply_reading import _split, normalised  # the reader's own cut

    return _split(normalised(text), BATTLELINE)


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
