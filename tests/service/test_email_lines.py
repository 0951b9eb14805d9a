"""Every email's text part fits an 80-column mail program: lines of at most 78 characters, but
for a link, which is never cut and keeps a line of its own."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from service.outbox.queue import fit_lines
from tests.service.conftest import VALID_FORM
from tests.worker.outbox_rows import rows
from tests.worker.turn_games import create_confirm_accept

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
