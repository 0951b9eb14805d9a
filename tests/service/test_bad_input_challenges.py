"""The bad-input catalogue of the lobby's challenges and automatch (tests/service/test_bad_input.py
for the rest): each case gets a clear 4xx, changes nothing and sends nothing. Runs on SQLite and
PostgreSQL.

Each case is (who asks: None, "alice" or "bob", method, path, form). Paths name challenges of
one prepared lobby: ``{alice}`` one of Alice's five open challenges (a sixth is refused),
``{bob}`` Bob's own, ``{taken}`` one already accepted, ``{expired}`` one past its expiry,
``{withdrawn}`` one taken back, ``{blocker}`` one of a player who blocks Bob, ``{known}`` one for
past opponents only, ``{automatch}`` a standing request (not in the lobby).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from flask import Flask
from sqlmodel import SQLModel

from engine import ClaimTiming
from service.db import get_engine, session_scope
from service.games.players import find_or_add_player
from service.lobby.automatch import find_opponent
from service.lobby.challenge_terms import ChallengeTerms
from service.lobby.challenges import (
    MAX_OPEN_CHALLENGES,
    accept_challenge,
    post_challenge,
    withdraw_challenge,
)
from service.models import Player, utcnow
from service.players.blocks import block
from service.players.challenge_models import ChallengeKind
from tests.service.conftest import make_test_app, sign_in_as
from tests.service.test_bad_input import _dump

GOOD = {"ruleset": "battleline", "claims": "advanced", "days_per_move": "3"}
Case = tuple[str | None, str, str, dict[str, str] | None]


def _cases() -> dict[str, Case]:
    cases: dict[str, Case] = {
        # Not signed in.
        "anonymous posts a challenge": (None, "POST", "/lobby/challenges", GOOD),
        "anonymous posts a bad challenge": (None, "POST", "/lobby/challenges", {"ruleset": "x"}),
        "anonymous accepts": (None, "POST", "/lobby/challenges/{alice}/accept", None),
        "anonymous asks for an opponent": (None, "POST", "/lobby/automatch", GOOD),
        "anonymous withdraws": (None, "POST", "/lobby/challenges/{alice}/withdraw", None),
        # The game offered.
        "unknown variant": ("bob", "POST", "/lobby/challenges", {**GOOD, "ruleset": "chess"}),
        "a game for three": (
            "bob", "POST", "/lobby/challenges", {**GOOD, "ruleset": "battleline-3p"},
        ),
        "empty variant": ("bob", "POST", "/lobby/challenges", {**GOOD, "ruleset": ""}),
        "unknown claims": ("bob", "POST", "/lobby/challenges", {**GOOD, "claims": "sometimes"}),
        "zero days": ("bob", "POST", "/lobby/challenges", {**GOOD, "days_per_move": "0"}),
        "15 days": ("bob", "POST", "/lobby/challenges", {**GOOD, "days_per_move": "15"}),
        "negative days": ("bob", "POST", "/lobby/challenges", {**GOOD, "days_per_move": "-1"}),
        "fractional days": ("bob", "POST", "/lobby/challenges", {**GOOD, "days_per_move": "3.5"}),
        "days in words": ("bob", "POST", "/lobby/challenges", {**GOOD, "days_per_move": "three"}),
        "huge days": ("bob", "POST", "/lobby/challenges", {**GOOD, "days_per_move": "9" * 40}),
        "automatch unknown variant": ("bob", "POST", "/lobby/automatch", {**GOOD, "ruleset": "go"}),
        "automatch zero days": ("bob", "POST", "/lobby/automatch", {**GOOD, "days_per_move": "0"}),
        # The message.
        "message too long": ("bob", "POST", "/lobby/challenges", {**GOOD, "message": "a" * 501}),
        "message 10,000 characters": (
            "bob", "POST", "/lobby/challenges", {**GOOD, "message": "x" * 10_000},
        ),
        "message with a script": (
            "bob", "POST", "/lobby/challenges", {**GOOD, "message": "<script>alert(1)</script>"},
        ),
        "message with a tag": (
            "bob", "POST", "/lobby/challenges", {**GOOD, "message": "<b>hi</b>"},
        ),
        "message with a link tag": (
            "bob", "POST", "/lobby/challenges", {**GOOD, "message": '<a href="//x">win</a>'},
        ),
        "message with an entity": (
            "bob", "POST", "/lobby/challenges", {**GOOD, "message": "&lt;b&gt;"},
        ),
        "message with a control character": (
            "bob", "POST", "/lobby/challenges", {**GOOD, "message": "ring\x07ring"},
        ),
        "message with a right-to-left override": (
            "bob", "POST", "/lobby/challenges", {**GOOD, "message": "hi \u202egnp.exe"},
        ),
        # Limits and rules.
        "a sixth open challenge": ("alice", "POST", "/lobby/challenges", GOOD),
        "a sixth as a standing request": ("alice", "POST", "/lobby/automatch", GOOD),
        "accept own challenge": ("bob", "POST", "/lobby/challenges/{bob}/accept", None),
        "accept a taken challenge": ("bob", "POST", "/lobby/challenges/{taken}/accept", None),
        "accept an expired challenge": ("bob", "POST", "/lobby/challenges/{expired}/accept", None),
        "accept a withdrawn challenge": (
            "bob", "POST", "/lobby/challenges/{withdrawn}/accept", None,
        ),
        "accept a blocked player's challenge": (
            "bob", "POST", "/lobby/challenges/{blocker}/accept", None,
        ),
        "accept a past-opponents-only challenge": (
            "bob", "POST", "/lobby/challenges/{known}/accept", None,
        ),
        "accept a standing request": ("bob", "POST", "/lobby/challenges/{automatch}/accept", None),
        "accept no such challenge": ("bob", "POST", "/lobby/challenges/999999/accept", None),
        "accept a huge id": ("bob", "POST", "/lobby/challenges/99999999999999999999/accept", None),
        "accept a word id": ("bob", "POST", "/lobby/challenges/abc/accept", None),
        "accept a negative id": ("bob", "POST", "/lobby/challenges/-1/accept", None),
        "withdraw someone else's": ("bob", "POST", "/lobby/challenges/{alice}/withdraw", None),
        "withdraw a taken one": ("alice", "POST", "/lobby/challenges/{taken}/withdraw", None),
        "withdraw no such challenge": ("bob", "POST", "/lobby/challenges/999999/withdraw", None),
        # GET and other methods change nothing.
        "GET accept": ("bob", "GET", "/lobby/challenges/{alice}/accept", None),
        "HEAD accept": ("bob", "HEAD", "/lobby/challenges/{alice}/accept", None),
        "GET withdraw": ("bob", "GET", "/lobby/challenges/{bob}/withdraw", None),
        "GET post": ("bob", "GET", "/lobby/challenges", None),
        "GET automatch": ("bob", "GET", "/lobby/automatch", None),
        "PUT lobby": ("bob", "PUT", "/lobby", None),
        "DELETE challenge": ("bob", "DELETE", "/lobby/challenges/{bob}", None),
        "POST lobby": ("bob", "POST", "/lobby", GOOD),
    }  # fmt: skip
    return cases


CASES = _cases()


def test_the_catalogue_has_at_least_20_cases() -> None:
    assert len(CASES) >= 20, len(CASES)


TERMS = ChallengeTerms(ruleset="battleline", claims=ClaimTiming.ADVANCED, days_per_move=3)


def _player(session: Any, name: str) -> Player:
    player = find_or_add_player(session, f"{name.lower()}@example.org", name)
    session.flush()
    return player


def _prepare(app: Flask) -> dict[str, str]:
    """The lobby every case finds (see the module's docstring)."""
    ids: dict[str, str] = {}
    with app.app_context(), session_scope() as session:
        alice, bob, carol, dave, erin, gina, harry, ivy = (
            _player(session, name)
            for name in ("Alice", "Bob", "Carol", "Dave", "Erin", "Gina", "Harry", "Ivy")
        )
        for _ in range(MAX_OPEN_CHALLENGES):
            ids["alice"] = str(post_challenge(session, alice, TERMS, ChallengeKind.OPEN).id)
        ids["bob"] = str(post_challenge(session, bob, TERMS, ChallengeKind.OPEN).id)
        taken = post_challenge(session, carol, TERMS, ChallengeKind.OPEN)
        assert taken.id is not None
        accept_challenge(session, taken.id, dave)
        ids["taken"] = str(taken.id)
        expired = post_challenge(session, erin, TERMS, ChallengeKind.OPEN)
        expired.expires_at = utcnow() - timedelta(days=1)
        session.add(expired)
        ids["expired"] = str(expired.id)
        withdrawn = post_challenge(session, erin, TERMS, ChallengeKind.OPEN)
        assert withdrawn.id is not None
        withdraw_challenge(session, withdrawn.id, erin)
        ids["withdrawn"] = str(withdrawn.id)
        assert gina.id is not None and bob.id is not None
        block(session, gina.id, bob.id)
        ids["blocker"] = str(post_challenge(session, gina, TERMS, ChallengeKind.OPEN).id)
        known = ChallengeTerms(**{**TERMS.__dict__, "played_only": True})
        ids["known"] = str(post_challenge(session, harry, known, ChallengeKind.OPEN).id)
        five_days = ChallengeTerms(**{**TERMS.__dict__, "days_per_move": 5})
        ids["automatch"] = str(find_opponent(session, ivy, five_days).id)
    return ids


@pytest.fixture(scope="module")
def lobby(database_url: str) -> Iterator[tuple[Flask, dict[str, str]]]:
    app = make_test_app(database_url)
    ids = _prepare(app)
    yield app, ids
    with get_engine(app).begin() as connection:
        for table in reversed(SQLModel.metadata.sorted_tables):
            connection.execute(table.delete())
    get_engine(app).dispose()


@pytest.mark.parametrize("name", list(CASES))
def test_bad_challenge_input_is_refused_and_changes_nothing(
    lobby: tuple[Flask, dict[str, str]], name: str
) -> None:
    app, ids = lobby
    who, method, path, data = CASES[name]
    client = app.test_client()
    if who is not None:
        sign_in_as(app, client, f"{who}@example.org", who.title())
    for key, value in ids.items():
        path = path.replace("{" + key + "}", value)
    before = _dump(app)
    response = client.open(path, method=method, data=data)
    body = response.get_data(as_text=True)
    assert 400 <= response.status_code < 500, (name, response.status_code, body[:500])
    assert "Traceback" not in body
    if response.mimetype == "text/html" and method != "HEAD":
        assert "<title>" in body, "a page a person can read"
    assert _dump(app) == before, f"{name} changed something"
