"""Every email's text part fits an 80-column mail program: lines of at most 78 columns (a kana
or kanji takes two), but for a link, which is never cut and keeps a line of its own."""

from __future__ import annotations

import itertools
import unicodedata
from pathlib import Path

from flask import Flask
from flask.testing import FlaskClient
from hypothesis import given
from hypothesis import strategies as st

import engine
from service import tokens
from service.db import session_scope
from service.games.players import find_or_add_player
from service.i18n import LANGUAGE_CODES, recipient_language
from service.outbox.queue import fit_lines
from service.present.board import board_of
from service.present.plain_text import board_lines
from service.present.seat_names import seat_labels
from service.text_wrap import NO_LINE_END, NO_LINE_START, display_width, has_wide, pieces, wrap_line
from tests.engine.builders import position
from tests.service.conftest import VALID_FORM
from tests.worker.outbox_rows import rows
from tests.worker.turn_games import create_confirm_accept, state_of

LINK = "https://bl.test/p/eyJnIjoxLCJzIjoiQSIsIm4iOjB9.awXotQ.pDq_oh4MgCoQZmklodaWPgiqSso"


def test_long_lines_wrap_at_spaces_keeping_their_indentation() -> None:
    text = "Short line.\n  " + "word " * 30 + "end\n\nYour private page: " + LINK
    fitted = fit_lines(text)
    lines = fitted.splitlines()
    assert lines[0] == "Short line." and lines[-1] == LINK and lines[-2] == "Your private page:"
    assert all(len(line) <= 78 for line in lines[:-1])
    assert all(line.startswith("  ") for line in lines[1:4])
    assert " ".join(fitted.split()) == " ".join(text.split())  # nothing lost, nothing added
    assert fit_lines("x" * 90) == "x" * 90  # a word is never cut


def test_every_email_of_a_game_start_fits_78_columns(app: Flask, client: FlaskClient) -> None:
    create_confirm_accept(app, client, VALID_FORM)
    sent = rows(app)
    assert {row.kind for row in sent} >= {"confirm_address", "invitation", "your_turn"}
    for row in sent:
        for line in row.text_body.splitlines():
            assert len(line) <= 78 or line.strip().startswith("http"), (row.kind, line)


def test_every_japanese_email_of_a_game_start_fits_78_columns(
    app: Flask, client: FlaskClient
) -> None:
    """A kana or kanji takes two columns: a Japanese line fits by its display width, broken
    between characters where there are no spaces."""
    with app.app_context(), session_scope() as session:
        find_or_add_player(session, "alice@example.org", "Alice").language = "ja"
        find_or_add_player(session, "bob@example.org", "Bob").language = "ja"
    create_confirm_accept(app, client, VALID_FORM)
    sent = rows(app)
    assert {row.kind for row in sent} >= {"confirm_address", "invitation", "your_turn"}
    for row in sent:
        assert "あなた" in row.text_body, row.kind
        for line in row.text_body.splitlines():
            assert display_width(line) <= 78 or line.strip().startswith("http"), (row.kind, line)


def test_no_email_template_wraps_by_characters() -> None:
    """Jinja's ``wordwrap`` counts characters and breaks only at spaces: a Japanese sentence
    with a name of two words in it left "Alexandrina" alone on a line. Lines are fitted once,
    by columns, after rendering (``fit_lines``)."""
    folder = Path(__file__).parents[2] / "templates" / "email"
    wrapping = [t.name for t in sorted(folder.glob("*.txt")) if "wordwrap" in t.read_text()]
    assert wrapping == []


def test_a_japanese_paragraph_breaks_only_where_its_line_is_full(
    app: Flask, client: FlaskClient
) -> None:
    names = {"a_name": "Alexandrina Victoria", "b_name": "Bartholomew Roberts"}
    with app.app_context(), session_scope() as session:
        find_or_add_player(session, "alice@example.org", names["a_name"]).language = "ja"
        find_or_add_player(session, "bob@example.org", names["b_name"]).language = "ja"
    game_id = create_confirm_accept(app, client, {**VALID_FORM, **names})
    with app.app_context():
        token = tokens.make_private_token(game_id, "A", 0)
    ply = state_of(app, game_id).ply
    assert client.post(f"/p/{token}/move", data={"ply": str(ply), "move": "resign"}).status_code
    (over,) = [row for row in rows(app) if row.kind == "game_over" and "alice" in row.recipient]
    text = over.text_body
    first = text.split("\n\n")[1]  # the result, after the greeting
    assert "さん" in first and "投了" in first
    lines = first.splitlines()
    for line, after in itertools.pairwise(lines):
        assert display_width(line) + display_width(pieces(after)[0][0]) > 78, lines


def test_a_wide_line_keeps_the_spaces_between_its_words() -> None:
    """A board row with a long Japanese note was fitted with every run of spaces made one: its
    columns fell apart. Only where a line breaks do spaces go."""
    row = "                G6 G10 G3 |    2     | O4 Y6 O5   [コンピューター (ふつう)が確保]"
    assert display_width(row) > 78
    first, second = fit_lines(row).splitlines()
    assert row.startswith(first) and first.startswith("                G6 G10 G3 |    2     | ")
    assert second.startswith(" " * 16) and second.strip() in row
    assert "".join(fit_lines(row).split()) == "".join(row.split())


def test_japanese_lines_break_between_characters_never_before_closing_marks() -> None:
    sentence = "この対局は、あなたの番です。「カードを配る」を押すと、相手にメールが届きます。"
    fitted = fit_lines("  " + sentence * 4 + " " + LINK)
    lines = fitted.splitlines()
    assert all(display_width(line) <= 78 for line in lines[:-1]) and lines[-1] == "  " + LINK
    assert all(line.startswith("  ") for line in lines[:-1])
    assert "".join(line.strip() for line in lines[:-1]) == sentence * 4  # nothing lost
    assert not any(line.strip()[0] in "、。」ー" for line in lines[1:])
    assert not any(line.rstrip().endswith("「") for line in lines)
    mixed = "Alice さんとの対局 " * 12
    assert " ".join(fit_lines(mixed).split()) == " ".join(mixed.split())
    assert all(display_width(line) <= 78 for line in fit_lines(mixed).splitlines())


def _bars(line: str) -> list[int]:
    """The display columns of a line's column bars: a wide character (kana, kanji) takes two
    columns of a monospaced font."""
    columns, at = [], 0
    for char in line:
        if char == "|":
            columns.append(at)
        at += 2 if unicodedata.east_asian_width(char) in "WF" else 1
    return columns


def test_the_text_board_keeps_its_columns_with_wide_names_and_words(bare_app: Flask) -> None:
    """The plain-text board lines its bars up in a monospaced font in every language: a
    Japanese name or word is twice as wide as it has characters."""
    state = position(
        flags={1: {"A": ["R8", "R9", "R10"], "B": ["Y1"]}, 4: {"A": ["P4"], "B": ["B8", "B9"]}},
        hands={"A": ["R1"], "B": ["G2"]},
    )
    view = engine.player_view(state, "B")
    for code in LANGUAGE_CODES:
        for name in ("Ann", "コンピューター (ふつう)", "花子"):
            with bare_app.test_request_context(), recipient_language(code):
                labels = seat_labels(view.seats, {"A": name, "B": "Bob"}, "B")
                lines = board_lines(board_of(view, "B"), labels, "B")
            assert len({tuple(_bars(line)) for line in lines}) == 1, (code, name, lines)


JAPANESE_TEXT = st.text(
    alphabet=st.sampled_from(list("あいうえおっゃカードを配る対局番手、。「」（）ー・R5>1 ab()")),
    max_size=300,
)


@given(
    text=JAPANESE_TEXT,
    width=st.integers(min_value=10, max_value=78),
    indent=st.sampled_from(["", "  "]),
)
def test_wrapped_japanese_keeps_every_character_and_breaks_only_where_allowed(
    text: str, width: int, indent: str
) -> None:
    text = text.strip()  # as fit_lines and the plain-text parts give it
    lines = wrap_line(text, width, indent)
    assert "".join("".join(line.split()) for line in lines) == "".join(text.split())
    for number, line in enumerate(lines):
        body = line[len(indent) :]
        assert line.startswith(indent) and body == body.strip() and body
        # Only an unbreakable piece overflows: a run of narrow letters, or one glued by the
        # rules of line breaking.
        unbreakable = {piece for piece, _ in pieces(text)} if has_wide(text) else set()
        assert display_width(line) <= width or " " not in body or body in unbreakable
        if number and has_wide(text):
            assert body[0] not in NO_LINE_START, lines
        if number + 1 < len(lines) and has_wide(text):
            assert body[-1] not in NO_LINE_END, lines
