"""The check of which words are in the reader's language (tests/language_check.py) finds what it
must and lets stay what is never translated."""

from __future__ import annotations

from flask.testing import FlaskClient

from tests.language_check import declared_language, english_words, japanese_in, visible_text


def test_what_is_never_translated_stays_in_a_japanese_text() -> None:
    text = (
        "Alice さんの手番です。R7 -> 3 troops のように返信してください(claim 2、pass、end、"
        "SCOUT、ALEXANDER、G10>4、c3)。A: return 2 face down (troops tactics)\n"
        "https://bl.test/p/abc?lang=ja alice@example.org Asia/Tokyo UTC SHA-256 JSON "
        "python -m engine replay · Battle Line by mail · Reiner Knizia · English · seed0"
    )
    assert english_words(text, names=["Alice"]) == []


def test_english_words_left_in_a_japanese_text_are_found_once_each() -> None:
    text = "あなたの手番です。Pass or End your turn.\nScout を出す。Battle Line, your turn"
    assert english_words(text) == ["Pass", "or", "End", "your", "turn", "Scout", "Battle", "Line"]


def test_a_name_is_let_stay_as_a_whole_word_only() -> None:
    assert english_words("Ann さん、Announce", names=["Ann"]) == ["Announce"]


def test_japanese_in_an_english_text_is_found_but_names_stay() -> None:
    assert japanese_in("Your turn against 健二 (手番)", names=["健二"]) == ["手番"]
    assert japanese_in("Language: English 日本語") == []


def test_the_html_a_reader_meets_without_code_or_words_marked_foreign() -> None:
    html = (
        '<html lang="ja"><head><title>手番</title><style>p{color:red}</style></head><body>'
        '<p>手番<img alt="Red 7" src="x"><span role="img" aria-label="赤7">7</span></p>'
        '<code>R7 -> 3 troops</code><input type="hidden" name="then" value="Draw later">'
        '<input type="submit" value="Confirm"><button lang="en">English words here</button>'
        '<p>Play<strong>now</strong></p><select translate="no"><option>Asia/Tokyo</option>'
        "<option>left as written</option></select></body></html>"
    )
    assert declared_language(html) == "ja"
    assert english_words(visible_text(html, "ja")) == ["Red", "Confirm", "Play", "now"]


def test_the_how_to_play_page_reads_whole_in_each_language(client: FlaskClient) -> None:
    japanese = client.get("/how-to-play", headers={"Accept-Language": "ja"}).get_data(as_text=True)
    english = client.get("/how-to-play", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert declared_language(japanese) == "ja" and declared_language(english) == "en"
    assert english_words(visible_text(japanese, "ja")) == []
    assert japanese_in(visible_text(japanese, "ja"))
    assert japanese_in(visible_text(english, "en")) == []
    assert {"How", "to", "play", "flag"} <= set(english_words(visible_text(english, "en")))
