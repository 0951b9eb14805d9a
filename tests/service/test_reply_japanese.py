"""Replies in Japanese (「赤7をフラッグ3に、戦術カードを引く」): read by the same rules as English
(``service.present.reply_japanese``), full-width digits and half-width katakana included, and
the attribution lines of Japanese mail programs left out as quotes. The mail programs' own
replies are in the corpus (tests/fixtures/replies, ``*japanese*``). Pure: no app, no database."""

# ruff: noqa: E501  (the tables are one case a line)

from __future__ import annotations

import random
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine import Action
from engine.cards import COLOR_NAMES, is_troop, troop_parts
from service.inbound.reply_text import own_words
from service.present.reply_parts import split_parts
from service.present.reply_reading import names_a_move, read_turn, read_words
from tests.engine.builders import position

BATTLELINE = engine.get_ruleset("battleline")
SCOUT_HAND = ["R1", "G2", "R5", "Y9", "B3", "O4", "SCOUT"]
JA_COLOURS = {"R": "赤", "O": "橙", "Y": "黄", "G": "緑", "B": "青", "P": "紫"}
JA_TACTICS = {
    "ALEXANDER": "アレキサンダー", "DARIUS": "ダリウス", "CAVALRY": "援軍騎兵", "SHIELD": "盾",
    "FOG": "霧", "MUD": "泥濘", "SCOUT": "偵察", "REDEPLOY": "配置転換", "DESERTER": "脱走",
    "TRAITOR": "裏切り",
}  # fmt: skip
FULL_WIDTH = str.maketrans("0123456789", "０１２３４５６７８９")


def opening(seed: str = "seed0") -> engine.GameState:
    return engine.start(
        BATTLELINE, engine.ClaimTiming.ADVANCED, engine.deal_from_seed(BATTLELINE, seed)
    )


def a_play(state: engine.GameState) -> engine.Move:
    return next(m for m in engine.legal_moves(state) if m.action is Action.PLAY)


def notation(text: str, state: engine.GameState, seat: str | None = None) -> list[str]:
    reading = read_turn(text, state, seat or state.to_move)
    assert reading.problem is None, (text, reading)
    return [m.action_text() for m in reading.moves]


def test_a_whole_turn_in_japanese_words() -> None:
    state = opening()
    play = a_play(state)
    card, flag = play.card, play.flag
    assert card is not None and flag is not None and is_troop(card)
    colour, value = troop_parts(card)
    ja = f"{JA_COLOURS[colour]}{value}"
    wide = ja.translate(FULL_WIDTH)
    for text in (
        f"{ja}をフラッグ{flag}に、部隊カードを引く",
        f"{wide}をフラッグ{str(flag).translate(FULL_WIDTH)}に出して、部隊カードを引きます。",
        f"{ja}をフラッグ{flag}に出して部隊カードを引きます",
        f"フラッグ{flag}に{ja}を置きます。部隊カードを引きます。",
        f"「{ja}をフラッグ{flag}へ」、部隊",
        f"{card}>{flag}、部隊カード",
        f"{card}＞{flag}　部隊カードを引く",
        f"こんにちは！{ja}をフラッグ{flag}に、部隊カードを引きます。よろしくお願いします。",
        f"{JA_COLOURS[colour]}の{value}を{flag}番のフラッグに出して部隊カードを1枚引く",
    ):
        assert notation(text, state) == [f"{card}>{flag}", "draw troops"], text


@pytest.mark.parametrize(
    ("text", "moves"),
    [
        ("偵察を使い、部隊カードを2枚、戦術カードを1枚引いて、緑2と赤5を戻します",
         ["SCOUT", "draw troops", "draw troops", "draw tactics", "return G2 R5"]),
        ("偵察。部隊カードを引く。部隊カードを引く。戦術カードを引く。緑２と赤５を山札に戻す。",
         ["SCOUT", "draw troops", "draw troops", "draw tactics", "return G2 R5"]),
        ("偵察、部隊カードを3回引いて、緑2と赤5を返します",
         ["SCOUT", "draw troops", "draw troops", "draw troops", "return G2 R5"]),
    ],
)  # fmt: skip
def test_a_scout_turn_in_japanese(text: str, moves: list[str]) -> None:
    state = position(claims="advanced", hands={"A": SCOUT_HAND, "B": ["B1"]})
    assert notation(text, state, "A")[:5] == moves


@pytest.mark.parametrize(
    ("hand", "flags", "text", "move"),
    [
        (["REDEPLOY", "R1"], {3: {"A": ["R7"]}}, "配置転換でフラッグ3の赤7をフラッグ5へ", "REDEPLOY R7@3>5"),
        (["REDEPLOY", "R1"], {3: {"A": ["R7"]}}, "フラッグ3の赤7をフラッグ5へ配置転換します", "REDEPLOY R7@3>5"),
        (["REDEPLOY", "R1"], {3: {"A": ["R7"]}}, "配置転換：フラッグ3の赤7を捨て札に", "REDEPLOY R7@3>discard"),
        (["DESERTER", "R1"], {4: {"B": ["B8"]}}, "脱走でフラッグ4の青8を", "DESERTER B8@4"),
        (["DESERTER", "R1"], {8: {"B": ["SHIELD"]}}, "脱走でフラッグ8の盾を捨て札に", "DESERTER SHIELD@8"),
        (["TRAITOR", "R1"], {4: {"B": ["B8"]}}, "裏切りでフラッグ4の青8をフラッグ7に", "TRAITOR B8@4>7"),
        (["FOG", "R1"], {}, "霧をフラッグ3に", "FOG>3"),
        (["ALEXANDER", "R1"], {}, "アレキサンダーをフラッグ２に出します", "ALEXANDER>2"),
        (["CAVALRY", "R1"], {}, "援軍騎兵をフラッグ1に", "CAVALRY>1"),
        (["SHIELD", "R1"], {}, "盾をフラッグ9へ", "SHIELD>9"),
        (["MUD", "R1"], {}, "泥濘をフラッグ4に使います", "MUD>4"),
        (["R7", "G1"], {}, "7をフラッグ3に出します", "R7>3"),
        (["R7", "G1"], {}, "赤七をフラッグ三に", "R7>3"),
    ],
)  # fmt: skip
def test_tactics_and_values_in_japanese(
    hand: list[str], flags: dict[int, dict[str, list[str]]], text: str, move: str
) -> None:
    state = position(hands={"A": hand, "B": ["B1"]}, flags=flags)
    assert notation(text, state, "A")[:1] == [move]


def test_claims_pass_end_and_resign_in_japanese() -> None:
    state = opening()
    assert notation("投了します。良い対局でした、ありがとう！", state) == ["resign"]
    reading = read_turn("投了します。良い対局でした、ありがとう！", state, state.to_move)
    assert reading.chat == ("良い対局でした", "ありがとう")
    assert names_a_move("パス", BATTLELINE) and names_a_move("手番終了", BATTLELINE)
    refused = read_turn("投了しません、赤7をフラッグ3に", state, state.to_move)
    assert refused.problem is not None and "resign" in refused.problem


def test_two_claims_in_one_japanese_part_are_two_claims() -> None:
    for text in ("フラッグ2と3を確保します", "フラッグ２・３を確保", "claim 2 3"):
        found, _ = read_words(text, BATTLELINE)
        assert [(seen.action, seen.flag) for seen in found] == [
            (Action.CLAIM, 2), (Action.CLAIM, 3),
        ], text  # fmt: skip


def test_a_negation_in_japanese_plays_nothing() -> None:
    state = opening()
    play = a_play(state)
    assert play.card is not None
    colour, value = troop_parts(play.card)
    reading = read_turn(f"{JA_COLOURS[colour]}{value}はフラッグ{play.flag}に出さない", state, "A")
    assert not reading.playable and reading.problem is not None
    assert "says not to play" in reading.problem


def test_japanese_chat_is_chat() -> None:
    for remark in (
        "こんにちは",
        "ありがとうございます！",
        "いい手ですね！",
        "フラッグ7はまだ空いていますか？",
    ):
        assert not names_a_move(remark, BATTLELINE), remark


JAPANESE_REMARKS = (
    "こんにちは。", "いつもありがとうございます！", "いい手ですね！", "フラッグ7はまだ空いていますか？",
    "よろしくお願いします。", "また一緒に遊びましょう。", "今日は忙しかったです。", "お疲れさまでした。",
    "どうしてそこに出したのですか？", "山田より",
)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(
    before=st.lists(st.sampled_from(JAPANESE_REMARKS), max_size=3),
    after=st.lists(st.sampled_from(JAPANESE_REMARKS), max_size=3),
    seed=st.sampled_from(["seed0", "seed1", "seed2", "seed3"]),
)
def test_japanese_chat_around_a_turn_never_changes_its_moves(
    before: list[str], after: list[str], seed: str
) -> None:
    state = opening(seed)
    play = a_play(state)
    assert play.card is not None
    colour, value = troop_parts(play.card)
    turn = f"{JA_COLOURS[colour]}{value}をフラッグ{play.flag}に出して、部隊カードを引きます。"
    reading = read_turn("\n".join(["".join(before), turn, "".join(after)]), state, state.to_move)
    assert reading.problem is None, reading
    assert [m.action_text() for m in reading.moves] == [play.action_text(), "draw troops"]


def test_a_mud_discard_in_japanese_is_the_english_one() -> None:
    for text in (
        "泥濘のフラッグ4から赤3を捨てる",
        "フラッグ4の赤3を捨てます",
        "discard red 3 from flag 4",
    ):
        found, _ = read_words(text, BATTLELINE)
        assert [seen.move("A") for seen in found] == [
            engine.Move("A", Action.DISCARD, card="R3", source=4)
        ], text


def test_japanese_parts_are_shown_as_written() -> None:
    assert split_parts("赤7をフラッグ3に出して部隊カードを引きます", BATTLELINE) == [
        "赤7をフラッグ3に出して", "部隊カードを引きます",
    ]  # fmt: skip
    assert split_parts("赤7をフラッグ3に戦術カード", BATTLELINE) == [
        "赤7をフラッグ3に",
        "戦術カード",
    ]


@pytest.mark.parametrize(
    ("attribution", "quoted"),
    [
        ("2026年1月5日(月) 10:00 Battle Line by mail <play+x@bl.example>:", True),  # Gmail
        ("2026/01/05 10:00、Battle Line by mail <play+x@bl.example>のメール:", True),  # iPhone
        ("2026/01/05 10:00 に Battle Line by mail さんは書きました:", True),  # Thunderbird
        ("________________________________\n差出人: Battle Line by mail <b@bl.example>\n"
         "送信日時: 2026年1月5日 10:00\n宛先: 花子 <h@example.jp>\n件名: あなたの手番", False),  # Outlook
        ("差出人: Battle Line by mail <b@bl.example>\n日付: 2026年1月5日(月) 10:00\n"
         "件名: あなたの手番", False),  # Outlook on the web
        ("---------- 転送されたメッセージ ---------\nFrom: Battle Line by mail", False),
        ("-----元のメッセージ-----\nFrom: Battle Line by mail", False),
    ],
)  # fmt: skip
def test_japanese_attribution_lines_are_quotes(attribution: str, quoted: bool) -> None:
    copy = "こんにちは、花子さん\n\n  赤 7     R7>2 R7>3 R7>4\n  続けて引く山札: troops, tactics"
    below = "\n".join(f"> {line}" for line in copy.splitlines()) if quoted else copy
    text = f"パス\n\niPhoneから送信\n\n{attribution}\n\n{below}\n"
    assert own_words(text) == "パス"


# -------------------------------------------------------- any move, in English and in Japanese


@cache
def _samples() -> tuple[tuple[engine.GameState, engine.Move], ...]:
    """Every legal move of positions of random games (each action kind), with its position."""
    rng = random.Random(23)
    found: list[tuple[engine.GameState, engine.Move]] = []
    for n in range(10):
        state = opening(f"ja{n}")
        while state.result is None and state.ply < 160:
            moves = engine.legal_moves(state)
            found += [(state, move) for move in moves if rng.random() < 0.05 or move.action not in (
                Action.PLAY, Action.TRAITOR, Action.REDEPLOY)]  # fmt: skip
            found.append((state, engine.Move(state.to_move, Action.RESIGN)))
            state, _ = engine.apply(state, rng.choice(moves))
    return tuple(found)


def _english_card(card: str) -> str:
    if is_troop(card):
        colour, value = troop_parts(card)
        return f"{COLOR_NAMES[colour]} {value}"
    return card.lower()


def _japanese_card(card: str, draw: st.DrawFn) -> str:
    if not is_troop(card):
        return JA_TACTICS[card]
    colour, value = troop_parts(card)
    return JA_COLOURS[colour] + draw(st.sampled_from(["", "の"])) + str(value)


def english_words(move: engine.Move) -> str:
    """Plain English words for ``move``, as the English reader reads them."""
    a, card, flag, source = move.action, move.card, move.flag, move.source
    if a is Action.PLAY and card is not None:
        return f"play {_english_card(card)} on flag {flag}"
    if a is Action.CLAIM:
        return f"claim flag {flag}"
    if a is Action.DRAW:
        return f"draw a {str(move.deck).removesuffix('s')} card"
    if a is Action.RETURN:
        return "put back " + " and ".join(_english_card(c) for c in move.cards)
    if a is Action.SCOUT:
        return "play the scout"
    if a in (Action.PASS, Action.END, Action.RESIGN):
        return {Action.PASS: "pass", Action.END: "end my turn", Action.RESIGN: "resign"}[a]
    assert card is not None, move
    if a is Action.REDEPLOY:
        to = "the discard pile" if flag is None else f"flag {flag}"
        return f"redeploy {_english_card(card)} from flag {source} to {to}"
    if a is Action.DESERTER:
        return f"deserter: {_english_card(card)} from flag {source}"
    assert a is Action.TRAITOR, move
    return f"traitor: {_english_card(card)} from flag {source} to flag {flag}"


def japanese_words(move: engine.Move, draw: st.DrawFn) -> str:
    """Japanese words for ``move`` as a player may write them: particles, verbs, full-width
    digits drawn by hypothesis."""
    a, card, flag, source = move.action, move.card, move.flag, move.source
    to = draw(st.sampled_from(["に", "へ"]))
    if a is Action.PLAY and card is not None:
        verb = draw(st.sampled_from(["", "出す", "出します", "置く", "置きます", "使います"]))
        text = f"{_japanese_card(card, draw)}をフラッグ{flag}{to}{verb}"
    elif a is Action.CLAIM:
        text = f"フラッグ{flag}を" + draw(st.sampled_from(["確保", "確保します", "確保する"]))
    elif a is Action.DRAW:
        deck = "部隊カード" if move.deck is engine.Deck.TROOPS else "戦術カード"
        text = deck + draw(st.sampled_from(["", "を引く", "を引きます", "を1枚引きます"]))
    elif a is Action.RETURN:
        cards = "と".join(_japanese_card(c, draw) for c in move.cards)
        text = cards + draw(st.sampled_from(["を戻す", "を山札に戻します", "を返します"]))
    elif a is Action.SCOUT:
        text = draw(st.sampled_from(["偵察", "偵察を使う", "偵察を出します"]))
    elif a is Action.REDEPLOY and card is not None:
        where = "捨て札" if flag is None else f"フラッグ{flag}"
        text = f"配置転換でフラッグ{source}の{_japanese_card(card, draw)}を{where}{to}"
    elif a is Action.DESERTER and card is not None:
        text = f"脱走でフラッグ{source}の{_japanese_card(card, draw)}を捨て札に"
    elif a is Action.TRAITOR and card is not None:
        text = f"裏切りでフラッグ{source}の{_japanese_card(card, draw)}をフラッグ{flag}{to}"
    else:
        text = {
            Action.PASS: draw(st.sampled_from(["パス", "パスします"])),
            Action.END: draw(st.sampled_from(["手番終了", "手番を終了します", "ターン終了"])),
            Action.RESIGN: draw(st.sampled_from(["投了", "投了します"])),
        }[a]
    if draw(st.booleans()):
        text = text.translate(FULL_WIDTH)
    return text + draw(st.sampled_from(["", "。", "！"]))


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_any_move_reads_the_same_in_english_and_in_japanese(data: st.DataObject) -> None:
    state, move = data.draw(st.sampled_from(_samples()))
    english = english_words(move)
    japanese = japanese_words(move, data.draw)
    seat = move.seat
    assert read_turn(english, state, seat).moves == [move], english
    assert read_turn(japanese, state, seat).moves == [move], japanese


def test_every_kind_of_move_is_sampled() -> None:
    kinds = {move.action for _, move in _samples()}
    assert kinds >= set(Action) - {Action.TIMEOUT, Action.DISCARD}, kinds
