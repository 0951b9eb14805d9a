"""Playing games through the pages, as a person with a browser would: read the forms out of the
HTML of a private page, pick one, submit it. Used by the test_play* and test_leaks tests."""

from __future__ import annotations

import random
import re
from contextlib import nullcontext
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any
from unittest import mock

from flask import Flask
from flask.testing import FlaskClient

from service import tokens
from service.db import session_scope
from service.games.rows import get_game
from tests.service.conftest import sign_in_as


@dataclass
class Form:
    """A form as a browser sees it."""

    action: str
    method: str
    hidden: dict[str, str] = field(default_factory=dict)
    buttons: list[tuple[str, str]] = field(default_factory=list)
    """(name, value) of each submit button."""
    selects: dict[str, list[str]] = field(default_factory=dict)
    selected: dict[str, str] = field(default_factory=dict)
    radios: dict[str, list[str]] = field(default_factory=dict)


class FormParser(HTMLParser):
    """Every form of a page, with its hidden fields, buttons, selects and radio groups."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[Form] = []
        self._form: Form | None = None
        self._select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self._form = Form(action=a.get("action", ""), method=a.get("method", "get").lower())
            self.forms.append(self._form)
        if self._form is None:
            return
        if tag == "input":
            kind = a.get("type", "text")
            if kind == "hidden":
                self._form.hidden[a["name"]] = a.get("value", "")
            elif kind == "radio":
                self._form.radios.setdefault(a["name"], []).append(a["value"])
            elif kind == "submit":
                self._form.buttons.append((a.get("name", ""), a.get("value", "")))
        elif tag == "button" and a.get("type", "submit") == "submit":
            self._form.buttons.append((a.get("name", ""), a.get("value", "")))
        elif tag == "select":
            self._select = a["name"]
            self._form.selects[self._select] = []
        elif tag == "option" and self._select is not None:
            self._form.selects[self._select].append(a.get("value", ""))
            if "selected" in a:
                self._form.selected[self._select] = a.get("value", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None
        elif tag == "select":
            self._select = None


LANGUAGE_SWITCH = "/language"
"""The action of the language switch every page carries (service.i18n): not a form of the page."""


def forms_of(html: str) -> list[Form]:
    """The page's own forms, without the language switch."""
    parser = FormParser()
    parser.feed(html)
    return [form for form in parser.forms if form.action != LANGUAGE_SWITCH]


@dataclass(frozen=True)
class Submission:
    """One press of one button: where it posts and what it sends."""

    action: str
    data: dict[str, str]

    @property
    def move(self) -> str:
        return self.data.get("move", "")


def move_submissions(html: str, rng: random.Random) -> list[Submission]:
    """Every move button of a private page, each with the form's other fields filled the way a
    person might (a random follow-up draw, distinct cards to put back)."""
    found = []
    for form in forms_of(html):
        if form.method != "post" or not form.action.endswith("/move"):
            continue
        for name, value in form.buttons:
            if name != "move":
                continue
            data = dict(form.hidden)
            data["move"] = value
            for select, options in form.selects.items():
                data[select] = rng.choice(options)
            if form.radios:
                names = sorted(form.radios)
                choices = rng.sample(form.radios[names[0]], len(names))
                data.update(zip(names, choices, strict=True))
            found.append(Submission(form.action, data))
    return found


def pick(submissions: list[Submission], rng: random.Random) -> Submission:
    """Claims first (so games end), rarely a pass-like stop; otherwise any move."""
    claims = [s for s in submissions if s.move.startswith("claim")]
    if claims:
        return claims[0]
    return rng.choice(submissions)


TOKEN_RE = re.compile(r"/p/([A-Za-z0-9_.\-]+)$")


def create_and_accept(
    app: Flask,
    client: FlaskClient,
    *,
    ruleset: str = "battleline",
    claims: str = "advanced",
    visibility: str = "unlisted",
    seed: str | None = None,
) -> dict[str, Any]:
    """A game created with the new-game form and accepted by B through their link: the private
    tokens of both seats, the game id and its public id. ``seed`` fixes the deal (the game's
    secret seed), so that a failing game can be played again."""
    form = {
        "a_name": "Alice",
        "a_email": "alice@example.org",
        "b_name": "Bob",
        "b_email": "bob@example.org",
        "ruleset": ruleset,
        "claims": claims,
        "days_per_move": "3",
        "visibility": visibility,
    }
    # Alice starts the game from her own signed-in browser: the invitation goes at once.
    sign_in_as(app, client, "alice@example.org")
    with (
        mock.patch("service.lobby.lifecycle.secrets.token_hex", lambda _n: seed)
        if seed
        else (nullcontext())
    ):
        created = client.post("/games/new", data=form)
    assert created.status_code == 303, created.get_data(as_text=True)
    match = TOKEN_RE.search(created.location)
    assert match, created.location
    token_a = match.group(1)
    with app.app_context():
        seat_token = tokens.read_private_token(token_a)
        token_b = tokens.make_private_token(seat_token.game_id, "B", 0)
    accepted = client.post(f"/p/{token_b}/accept")
    assert accepted.status_code == 303
    with app.app_context(), session_scope() as session:
        public_id = get_game(session, seat_token.game_id).public_id
    page = client.get(f"/p/{token_a}").get_data(as_text=True)
    assert f'href="/games/{public_id}"' in page, "the private page links to the public page"
    return {
        "id": seat_token.game_id,
        "public_id": public_id,
        "token": {"A": token_a, "B": token_b},
    }


def seat_to_move(client: FlaskClient, game: dict[str, Any]) -> tuple[str, str] | None:
    """(seat, private page HTML) of the seat that has move forms, or None when neither has."""
    for seat in ("A", "B"):
        html = client.get(f"/p/{game['token'][seat]}").get_data(as_text=True)
        if 'name="move"' in html and "Your move" in html:
            return seat, html
    return None
