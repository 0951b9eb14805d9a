"""A page is drawn in its reader's language whatever the pages drawn before it were in: what the
service keeps between requests to draw pages faster (cards, move buttons, the moves in words)
is kept apart per language. Otherwise the first reader of a card decides its words for every
later reader, and an English page names a card 赤3."""

from __future__ import annotations

import sys
from datetime import UTC, datetime

from flask import Flask
from flask.testing import FlaskClient

from service.db import session_scope
from service.games.state import apply_moves
from tests.language_check import visible_text
from tests.service.play_driver import create_and_accept
from tests.worker.turn_games import plain_turn, state_of


def forget_what_the_service_keeps() -> None:
    """Empty every cache of the service's modules (``functools`` caches), as in a new process."""
    for name, module in list(sys.modules.items()):
        if name == "service" or name.startswith("service."):
            for value in list(vars(module).values()):
                # Only functools' own wrappers: a module's proxies (``current_app``) answer any
                # attribute, outside a request with an error.
                if type(value).__name__ == "_lru_cache_wrapper":
                    value.cache_clear()


def test_each_page_is_in_its_readers_language_whatever_was_drawn_before(
    app: Flask, client: FlaskClient
) -> None:
    game = create_and_accept(app, client)
    # One whole turn, so that both pages tell a move in words; the other seat is then to move,
    # and its page has a button for each card and flag.
    state = state_of(app, game["id"])
    with app.app_context(), session_scope() as session:
        apply_moves(session, game["id"], state.to_move, state.ply, plain_turn(state))
    app.config["CLOCK_NOW"] = datetime(2026, 1, 5, 10, 0, tzinfo=UTC)
    reader = app.test_client()  # no cookie: Accept-Language decides

    def page(seat: str, language: str) -> str:
        html = reader.get(f"/p/{game['token'][seat]}", headers={"Accept-Language": language})
        assert html.status_code == 200
        return visible_text(html.get_data(as_text=True), language)

    for seat in ("A", "B"):
        drawn_first = {}
        for language in ("en", "ja"):
            forget_what_the_service_keeps()
            drawn_first[language] = page(seat, language)
        for first, then in (("ja", "en"), ("en", "ja")):
            forget_what_the_service_keeps()
            page(seat, first)
            assert page(seat, then) == drawn_first[then], (
                f"seat {seat}'s page in {then!r} after one in {first!r} is not as when drawn first"
            )
