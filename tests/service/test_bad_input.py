"""A catalogue of bad input over every route: each gets a clear 4xx, changes nothing and sends
nothing (issue: 500s on odd input). Runs on SQLite and PostgreSQL.

Each case is (method, path, form data, headers). Paths name the links of one dealt game:
``{A}``/``{B}`` its seats' private tokens, ``{M}`` a move token of the seat to move, ``{W}`` a
move token of the seat that waits, ``{pub}`` its public id, ``{me}`` Alice's "my games" token,
``{unsub}``/``{mute}``/``{refuse}``/``{confirm}`` Alice's mail links, ``{ply}`` the current ply.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import SQLModel

import engine
from service import tokens
from service.db import get_engine, session_scope
from service.games.loaded import load_game
from service.games.players import find_or_add_player
from service.games.seats import read_seats
from service.games.state import load_state
from service.outbox.signed import MailPurpose, make_token
from tests.service.conftest import VALID_FORM, make_test_app, sign_in_as
from tests.service.play_driver import create_and_accept


@dataclass(frozen=True)
class Case:
    method: str
    path: str
    data: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None
    signed_in: str | None = None
    """Whose signed-in browser sends it (a name of ``SIGNED_IN``), or nobody's."""
    status: int | None = None
    """The status it must get, when the catalogue says (else any 4xx)."""


def _sign(purpose: tokens.Purpose, payload: Any) -> str:
    token = tokens.signed_serializer(f"battleline.{purpose.value}").dumps(payload)
    assert isinstance(token, str)
    return token


def _tamper(token: str) -> str:
    """Change one character in the middle of the signature (not its padding bits)."""
    body, _, signature = token.rpartition(".")
    middle = len(signature) // 2
    swapped = "A" if signature[middle] != "A" else "B"
    return f"{body}.{signature[:middle]}{swapped}{signature[middle + 1 :]}"


def _token_variants(name: str) -> dict[str, Callable[[dict[str, str]], str]]:
    """Bad versions of the token ``name`` of ``links``."""
    return {
        "tampered": lambda links: _tamper(links[name]),
        "truncated": lambda links: links[name][: len(links[name]) // 2],
        "garbage": lambda links: "not-a-token",
        "unicode": lambda links: "ÿ€𝄞" + links[name],
        "long": lambda links: links[name] + "x" * 3000,
        "dot-only": lambda links: ".",
    }


PRIVATE = tokens.Purpose.PRIVATE_PAGE
MOVE = tokens.Purpose.MOVE_LINK
SIGNED_PRIVATE: dict[str, Callable[[dict[str, str]], str]] = {
    "huge-game-id": lambda links: _sign(PRIVATE, {"g": 2**62, "s": "A", "n": 0}),
    "negative-game-id": lambda links: _sign(PRIVATE, {"g": -1, "s": "A", "n": 0}),
    "no-such-game": lambda links: _sign(PRIVATE, {"g": 999_999, "s": "A", "n": 0}),
    "seat-C": lambda links: _sign(PRIVATE, {"g": int(links["game"]), "s": "C", "n": 0}),
    "old-generation": lambda links: _sign(PRIVATE, {"g": int(links["game"]), "s": "A", "n": 7}),
    "extra-field": lambda links: _sign(
        PRIVATE, {"g": int(links["game"]), "s": "A", "n": 0, "x": 1}
    ),
    "float-id": lambda links: _sign(PRIVATE, {"g": 1.5, "s": "A", "n": 0}),
    "string-id": lambda links: _sign(PRIVATE, {"g": "1", "s": "A", "n": 0}),
    "list-payload": lambda links: _sign(PRIVATE, [1, "A", 0]),
    "move-token-as-private": lambda links: links["M"],
    "games-token-as-private": lambda links: links["me"],
}


def _cases() -> dict[str, Case | tuple[Callable[[dict[str, str]], str], str, str, dict[str, Any]]]:
    cases: dict[str, Any] = {}
    # Every route that takes a private token, with every bad token.
    private_routes = [
        ("GET", "/p/{t}", None),
        ("GET", "/p/{t}/accept", None),
        ("GET", "/p/{t}/decline", None),
        ("GET", "/p/{t}/resign", None),
        ("POST", "/p/{t}/move", {"ply": "{ply}", "move": "resign"}),
        ("POST", "/p/{t}/preferences", {"digest": "on"}),
        ("POST", "/p/{t}/invite", {}),
        ("POST", "/p/{t}/accept", {}),
        ("POST", "/p/{t}/decline", {}),
    ]
    for method, path, data in private_routes:
        for variant, make in {**_token_variants("A"), **SIGNED_PRIVATE}.items():
            # The routes share one token reader: every variant on the move form, a few on each
            # of the others.
            if path != "/p/{t}/move" and variant not in ("tampered", "huge-game-id", "seat-C"):
                continue
            cases[f"{method} {path} {variant}"] = (make, method, path, data or {})
    # Move links.
    for variant, make in {
        **_token_variants("M"),
        "private-token-as-move": lambda links: links["A"],
        "huge-ply": lambda links: _sign(
            MOVE, {"g": int(links["game"]), "s": links["to_move"], "n": 0, "p": 2**40}
        ),
        "huge-game": lambda links: _sign(MOVE, {"g": 2**40, "s": "A", "n": 0, "p": 0}),
        "future-ply": lambda links: _sign(
            MOVE, {"g": int(links["game"]), "s": links["to_move"], "n": 0, "p": 500}
        ),
        "waiting-seat": lambda links: links["W"],
    }.items():
        cases[f"GET /m {variant}"] = (make, "GET", "/m/{t}/0", {})
        cases[f"POST /m {variant}"] = (make, "POST", "/m/{t}/0", {})
    for index in ("999999", "99999999999999999999", "-1", "²", "1.5", "0x1"):
        cases[f"POST /m index {index}"] = (
            lambda links: links["M"],
            "POST",
            f"/m/{{t}}/{index}",
            {},
        )
    for then in ("draw nothing", "draw troops\r\nBcc: x", "x" * 200, "end end"):
        cases[f"POST /m then {then[:12]!r}"] = (
            lambda links: links["M"],
            "POST",
            "/m/{t}/0",
            {"then": then},
        )
    # Move forms with bad fields.
    for label, data in {
        "ply-superscript": {"ply": "²", "move": "resign"},
        "ply-arabic-digit": {"ply": "٣", "move": "resign"},
        "ply-negative": {"ply": "-1", "move": "resign"},
        "ply-huge": {"ply": "9" * 40, "move": "resign"},
        "ply-missing": {"move": "resign"},
        "ply-stale": {"ply": "0", "move": "draw troops"},
        "ply-twice": {"ply": ["{ply}", "{ply}"], "move": "resign"},
        "move-missing": {"ply": "{ply}"},
        "move-empty": {"ply": "{ply}", "move": "  "},
        "move-garbage": {"ply": "{ply}", "move": "R11>4"},
        "move-unicode": {"ply": "{ply}", "move": "R７>1"},
        "move-long": {"ply": "{ply}", "move": "R7>1 " * 100},
        "move-crlf": {"ply": "{ply}", "move": "resign\r\nX: y"},
        "move-other-seat": {"ply": "{ply}", "move": "{W}: resign"},
        "move-timeout": {"ply": "{ply}", "move": "timeout"},
        "then-bad": {"ply": "{ply}", "move": "pass", "then": "draw gold"},
        "return-garbage": {"ply": "{ply}", "move": "return", "return_1": "ZZ"},
    }.items():
        cases[f"POST /p/move {label}"] = (
            lambda links: links["to_move_token"],
            "POST",
            "/p/{t}/move",
            data,
        )
    # Messages with moves: too long, twice, and the conversation's own forms.
    play = {"ply": "{ply}", "move": "{play}", "then": "draw troops"}
    for label, message in {
        "10000": "x" * 10_000,
        "501": "x" * 501,
        "501-japanese": "よ" * 501,
        "501-emoji": "\U0001f600" * 501,
        "html-10000": "<b>bold</b>" * 1000,
        "links-600": "https://evil.example/ " * 30,
        "bidi-padded-501": "\u202e" * 600 + "x" * 501,
        "twice": ["Hi", "there"],
    }.items():
        cases[f"POST /p/move message {label}"] = (
            lambda links: links["to_move_token"],
            "POST",
            "/p/{t}/move",
            {**play, "message": message},
        )
    for label, message in {"10000": "x" * 10_000, "twice": ["Hi", "there"]}.items():
        cases[f"POST move link message {label}"] = Case(
            "POST", "/m/{M}/{play_index}", {"then": "draw troops", "message": message}
        )
    for label, data in {
        "maybe": {"messages": "maybe"},
        "missing": {},
        "upper": {"messages": "OFF"},
    }.items():
        cases[f"POST messages choice {label}"] = Case("POST", "/p/{A}/messages", data)
    for label, data in {"yes": {"mute": "yes"}, "missing": {}}.items():
        cases[f"POST mute choice {label}"] = Case("POST", "/p/{A}/mute", data)
    for label, data in {
        "yes": {"block": "yes"},
        "missing": {},
        "maybe": {"block": "maybe"},
    }.items():
        cases[f"POST block choice {label}"] = Case("POST", "/p/{A}/block", data)
    for label, number in {"none": "999999", "huge": str(2**40), "zero": "0"}.items():
        cases[f"POST report {label}"] = Case("POST", f"/p/{{A}}/messages/{number}/report")
    cases["POST report tampered token"] = (
        _token_variants("A")["tampered"], "POST", "/p/{t}/messages/1/report", {},
    )  # fmt: skip
    # The waiting seat may not move.
    cases["POST /p/move not-your-turn"] = (
        lambda links: links["waiting_token"],
        "POST",
        "/p/{t}/move",
        {"ply": "{ply}", "move": "pass"},
    )
    # Preferences.
    for label, data in {
        "digest-yes": {"digest": "yes"},
        "digest-off": {"digest": "off"},
        "claims-1": {"automatic_claims": "1"},
        "digest-twice": {"digest": ["on", "on"]},
        "unknown-field": {"colour": "red"},
        "unicode-value": {"digest": "ｏｎ"},
    }.items():
        cases[f"POST preferences {label}"] = (
            lambda links: links["A"],
            "POST",
            "/p/{t}/preferences",
            data,
        )
    # Invitation answers that cannot be given.
    cases["POST accept answered"] = (lambda links: links["B"], "POST", "/p/{t}/accept", {})
    cases["POST decline answered"] = (lambda links: links["B"], "POST", "/p/{t}/decline", {})
    cases["POST accept by A"] = (lambda links: links["A"], "POST", "/p/{t}/accept", {})
    cases["POST invite by B"] = (lambda links: links["B"], "POST", "/p/{t}/invite", {})
    cases["POST invite after deal"] = (lambda links: links["A"], "POST", "/p/{t}/invite", {})
    # The new-game form.
    for label, changes in {
        "no-fields": None,
        "a-email-bad": {"a_email": "not an address"},
        "a-email-crlf": {"a_email": "a@example.org\r\nBcc: v@example.org"},
        "b-email-unicode": {"b_email": "bób@exämple.org"},
        "same-emails": {"b_email": VALID_FORM["a_email"]},
        "name-invisible": {"a_name": "\u200b\u200b\u2063"},
        "name-bidi": {"b_name": "Eve\u202eevil"},
        "name-long": {"a_name": "x" * 41},
        "name-crlf": {"b_name": "Bob\r\nBcc: v@example.org"},
        "name-nul": {"a_name": "Al\x00ice"},
        "ruleset-unknown": {"ruleset": "chess"},
        "claims-bad": {"claims": "sometimes"},
        "days-zero": {"days_per_move": "0"},
        "days-15": {"days_per_move": "15"},
        "days-superscript": {"days_per_move": "³"},
        "days-float": {"days_per_move": "2.5"},
        "vacation-bad": {"vacation_days": "-1"},
        "visibility-bad": {"visibility": "secret"},
        "email-too-long": {"a_email": "a" * 250 + "@example.org"},
    }.items():
        data = {**VALID_FORM, **changes} if changes is not None else {}
        cases[f"POST /games/new {label}"] = Case("POST", "/games/new", data)
    cases["POST /games/new oversized body"] = Case(
        "POST", "/games/new", {**VALID_FORM, "filler": "x" * 70_000}
    )
    cases["POST /games/new json body"] = Case(
        "POST", "/games/new", None, {"Content-Type": "application/json"}, raw=b'{"a_name": "x"}'
    )
    # "My games" and signing in.
    for label, email in {
        "not-an-address": "nobody",
        "crlf": "a@example.org\r\nBcc: v@example.org",
        "too-long": "a" * 400 + "@example.org",
        "unicode": "ä@ö.example",
    }.items():
        cases[f"POST /me {label}"] = Case("POST", "/me", {"email": email})
    for variant, make in {
        **_token_variants("me"),
        "private-as-games": lambda links: links["A"],
        "huge-player": lambda links: _sign(tokens.Purpose.MY_GAMES, {"u": 2**50, "n": 0}),
        "old-generation": lambda links: _sign(
            tokens.Purpose.MY_GAMES, {"u": int(links["alice"]), "n": 9}
        ),
    }.items():
        cases[f"GET /me/token {variant}"] = (make, "GET", "/me/{t}", {})
        cases[f"POST /me/token/sign-in {variant}"] = (make, "POST", "/me/{t}/sign-in", {})
    cases["POST /me/defaults not signed in"] = Case("POST", "/me/defaults", {"digest": "on"})
    # Mail links.
    for name, route in (
        ("unsub", "/mail/unsubscribe/{t}"),
        ("mute", "/mail/mute/{t}"),
        ("refuse", "/mail/refuse-invitations/{t}"),
        ("confirm", "/mail/confirm/{t}"),
    ):
        for variant in ("tampered", "truncated", "long"):
            make = _token_variants(name)[variant]
            cases[f"POST {route} {variant}"] = (make, "POST", route, {})
    cases["POST mute huge game"] = (
        lambda links: make_token(MailPurpose.MUTE_GAME, int(links["alice"]), 2**40),
        "POST", "/mail/mute/{t}", {},
    )  # fmt: skip
    cases["POST unsubscribe huge player"] = (
        lambda links: make_token(MailPurpose.UNSUBSCRIBE, 2**40),
        "POST",
        "/mail/unsubscribe/{t}",
        {},
    )
    cases["POST unsubscribe with mute token"] = (
        lambda links: links["mute"],
        "POST",
        "/mail/unsubscribe/{t}",
        {},
    )
    # Public pages.
    for ply in ("²", "-1", "99999", "1e3", "٣", "9" * 50, "%00"):
        cases[f"GET public ply {ply!r}"] = Case("GET", f"/games/{{pub}}?ply={ply}")
    cases["GET public unknown game"] = Case("GET", "/games/no-such-game")
    cases["GET public long id"] = Case("GET", "/games/" + "x" * 5000)
    cases["GET record before the end"] = Case("GET", "/games/{pub}/record.json")
    cases["GET outbox no such email"] = Case("GET", "/dev/outbox/99999")
    cases["GET outbox huge id"] = Case("GET", "/dev/outbox/99999999999999999999")
    # A player's own data: the export and the closing of the account (signed in only; the
    # closing asks for its box ticked; a closed account's cookie is dead).
    alice = {"Cookie": "{alice_cookie}"}
    closed = {"Cookie": "{closed_cookie}"}
    closing = {"confirm": "close"}
    cases["GET /me/data.json not signed in"] = Case("GET", "/me/data.json")
    cases["GET /me/data.json stale session after close"] = Case(
        "GET", "/me/data.json", headers=closed
    )
    cases["GET /me/data.json tampered cookie"] = Case(
        "GET", "/me/data.json", headers={"Cookie": "{tampered_cookie}"}
    )
    cases["GET /me/close not signed in"] = Case("GET", "/me/close")
    cases["GET /me/close stale session after close"] = Case("GET", "/me/close", headers=closed)
    cases["POST /me/close not signed in"] = Case("POST", "/me/close", closing)
    cases["POST /me/close not signed in, unconfirmed"] = Case("POST", "/me/close", {})
    cases["POST /me/close without confirmation"] = Case("POST", "/me/close", {}, alice)
    cases["POST /me/close confirmation 'yes'"] = Case(
        "POST", "/me/close", {"confirm": "yes"}, alice
    )
    cases["POST /me/close confirmation twice"] = Case(
        "POST", "/me/close", {"confirm": ["close", "close"]}, alice
    )
    cases["POST /me/close confirmation 5000 characters"] = Case(
        "POST", "/me/close", {"confirm": "close" * 1000}, alice
    )
    cases["POST /me/close stale session after close"] = Case("POST", "/me/close", closing, closed)
    cases["POST /me/close tampered cookie"] = Case(
        "POST", "/me/close", closing, {"Cookie": "{tampered_cookie}"}
    )
    cases["POST /me/close cross-site"] = Case(
        "POST", "/me/close", closing, {**alice, "Sec-Fetch-Site": "cross-site"}
    )
    cases["POST /me/close from another origin"] = Case(
        "POST", "/me/close", closing, {**alice, "Origin": "https://evil.example"}
    )
    # Methods a route does not take.
    for method, path in (
        ("PUT", "/games/new"), ("DELETE", "/p/{A}"), ("PATCH", "/p/{A}/move"),
        ("GET", "/p/{A}/move"),
        ("GET", "/p/{A}/preferences"), ("GET", "/p/{A}/invite"), ("PUT", "/m/{M}/0"),
        ("GET", "/me/defaults"), ("GET", "/me/sign-out"), ("DELETE", "/games/{pub}"),
        ("GET", "/p/{A}/messages"), ("GET", "/p/{A}/mute"), ("GET", "/p/{A}/block"),
        ("GET", "/p/{A}/messages/1/report"),
        ("POST", "/games/{pub}"), ("POST", "/healthz"),
        ("POST", "/me/data.json"), ("PUT", "/me/data.json"), ("DELETE", "/me/close"),
        ("PUT", "/me/close"), ("POST", "/me/closed"),
    ):  # fmt: skip
        cases[f"{method} {path} method"] = Case(method, path)
    return cases


def _people_cases() -> dict[str, Case]:
    """Public names and player pages (issue 24). Alice chose "Alice" once; Bob chose "Bob";
    Mallory changed her name today."""
    cases: dict[str, Case] = {}
    bad_names = {
        "bell": "Al\x07ice", "nul": "Al\x00ice", "line break": "Al\nice",
        "right-to-left override": "\u202eecilA", "right-to-left mark": "\u200fBobby",
        "left-to-right mark": "Bobby\u200e", "zero-width space": "Bo\u200bbby",
        "zero-width joiner": "Bo\u200dbby", "byte order mark": "\ufeffBobby",
        "200 characters": "x" * 200, "5000 characters": "y" * 5000, "empty": "",
        "spaces only": "   ", "reserved admin": "Admin", "reserved computer": "Computer (expert)",
        "reserved moderator": "MODERATOR", "reserved level": "Expert",
        "look-alike digit": "B0b", "look-alike capitals": "BOB",
        "look-alike cyrillic o": "B\u043eb", "look-alike cyrillic capitals": "\u0412\u041e\u0412",
        "look-alike spaced": "B o b", "an address": "bobby@example.org", "markup": "<b>Bobby</b>",
        "encoded word": "=?utf-8?q?Bobby?=",
    }  # fmt: skip
    for what, name in bad_names.items():
        status = 409 if what.startswith("look-alike") else 400
        cases[f"POST /me/name {what}"] = Case(
            "POST", "/me/name", {"name": name}, signed_in="alice", status=status
        )
    cases["POST /me/name too soon"] = Case(
        "POST", "/me/name", {"name": "Mallory Three"}, signed_in="mallory", status=429
    )
    cases["POST /me/name signed out"] = Case("POST", "/me/name", {"name": "Alicia"}, status=401)
    cases["POST /me/name no field"] = Case("POST", "/me/name", {}, signed_in="alice", status=400)
    cases["GET unknown player"] = Case("GET", "/players/Nobody-Here", status=404)
    cases["GET player long name"] = Case("GET", "/players/" + "x" * 5000, status=404)
    cases["GET player NUL"] = Case("GET", "/players/%00", status=404)
    cases["GET player label only"] = Case("GET", "/players/Carol", status=404)
    cases["POST block signed out"] = Case("POST", "/players/Bob/block", status=401)
    cases["POST unblock signed out"] = Case("POST", "/players/Bob/unblock", status=401)
    cases["POST block self"] = Case("POST", "/players/Alice/block", signed_in="alice", status=400)
    cases["POST block self look-alike"] = Case(
        "POST", "/players/AIice/block", signed_in="alice", status=400
    )
    cases["POST block unknown"] = Case(
        "POST", "/players/Nobody-Here/block", signed_in="alice", status=404
    )
    cases["GET block"] = Case("GET", "/players/Bob/block", signed_in="alice", status=405)
    cases["DELETE player"] = Case("DELETE", "/players/Bob", signed_in="alice", status=405)
    return cases


CASES = {**_cases(), **_people_cases()}
SIGNED_IN = ("alice", "bob", "mallory")


def _dump(app: Flask) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, to compare before and after."""
    with get_engine(app).connect() as connection:
        return {
            table.name: sorted(
                (tuple(map(repr, row)) for row in connection.execute(table.select())), key=str
            )
            for table in SQLModel.metadata.sorted_tables
        }


def _name_themselves(app: Flask, email: str, *names: str) -> str:
    """A signed-in browser of ``email`` chooses ``names`` one after the other; its "my games"
    token."""
    with app.app_context(), session_scope() as session:
        player = find_or_add_player(session, email, "label")
        assert player.id is not None
        token = tokens.make_games_token(player.id, player.token_generation)
    browser = app.test_client()
    assert browser.post(f"/me/{token}/sign-in").status_code == 303
    for name in names:
        assert browser.post("/me/name", data={"name": name}).status_code == 303
    return token


def _links(app: Flask, client: FlaskClient) -> dict[str, str]:
    game = create_and_accept(app, client)
    cookie_name = app.config["SESSION_COOKIE_NAME"]
    alice_cookie = client.get_cookie(cookie_name)
    assert alice_cookie is not None
    client.post("/me/sign-out")
    # Carol closed her account; her browser kept its cookie.
    carol = app.test_client()
    sign_in_as(app, carol, "carol@example.org", "Carol")
    closed_cookie = carol.get_cookie(cookie_name)
    assert closed_cookie is not None
    assert carol.post("/me/close", data={"confirm": "close"}).status_code == 303
    signed_in = {
        "bob": _name_themselves(app, "bob@example.org", "Bob"),
        "mallory": _name_themselves(app, "mallory@example.org", "Mal", "Mallory"),
    }
    with app.app_context(), session_scope() as session:
        find_or_add_player(session, "carol@example.org", "Carol")  # a label, never chosen
    with app.app_context(), session_scope() as session:
        state = load_state(session, load_game(session, game["id"]))
        seats = read_seats(session, game["id"])
        alice = seats["A"][1]
        assert alice.id is not None
        to_move, waiting = state.to_move, "B" if state.to_move == "A" else "A"
        play = next(m for m in engine.legal_moves(state) if m.action is engine.Action.PLAY)
        return {
            "game": str(game["id"]),
            "A": game["token"]["A"],
            "B": game["token"]["B"],
            "pub": game["public_id"],
            "ply": str(state.ply),
            "to_move": to_move,
            "W": waiting,
            "to_move_token": game["token"][to_move],
            "waiting_token": game["token"][waiting],
            "M": tokens.make_move_token(game["id"], to_move, 0, state.ply),
            "play": play.action_text(),
            "play_index": str(engine.legal_moves(state).index(play)),
            "alice": str(alice.id),
            "me": tokens.make_games_token(alice.id, alice.token_generation),
            "unsub": make_token(MailPurpose.UNSUBSCRIBE, alice.id),
            "mute": make_token(MailPurpose.MUTE_GAME, alice.id, game["id"]),
            "refuse": make_token(MailPurpose.REFUSE_INVITATIONS, alice.id),
            "confirm": make_token(MailPurpose.CONFIRM_ADDRESS, alice.id),
            "alice_cookie": f"{cookie_name}={alice_cookie.value}",
            "closed_cookie": f"{cookie_name}={closed_cookie.value}",
            "tampered_cookie": f"{cookie_name}={_tamper(alice_cookie.value)}",
            **{f"signed_in_{name}": token for name, token in signed_in.items()},
        }


def _fill(value: Any, links: dict[str, str]) -> Any:
    if isinstance(value, list):
        return [_fill(v, links) for v in value]
    if isinstance(value, str):
        for name, link in links.items():
            value = value.replace("{" + name + "}", link)
    return value


def test_the_catalogue_has_at_least_100_cases() -> None:
    assert len(CASES) >= 100, len(CASES)
    assert len(_people_cases()) >= 20


@pytest.fixture(scope="module")
def dealt(database_url: str) -> Iterator[tuple[Flask, dict[str, str]]]:
    """One dealt game for the whole catalogue: since no case may change anything, every case
    finds it as it was (and a case that changes something fails, saying so)."""
    app = make_test_app(database_url)
    links = _links(app, app.test_client())
    yield app, links
    with get_engine(app).begin() as connection:
        for table in reversed(SQLModel.metadata.sorted_tables):
            connection.execute(table.delete())
    get_engine(app).dispose()


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_is_refused_and_changes_nothing(
    dealt: tuple[Flask, dict[str, str]], name: str
) -> None:
    app, links = dealt
    client = app.test_client()
    case = CASES[name]
    if not isinstance(case, Case):
        make, method, path, data = case
        with app.app_context():
            token = make(links)
        case = Case(method, path.replace("{t}", token), data)
    path = _fill(case.path, links)
    data = None if case.data is None else {k: _fill(v, links) for k, v in case.data.items()}
    if case.signed_in is not None:
        token = links.get(f"signed_in_{case.signed_in}", links["me"])
        assert client.post(f"/me/{token}/sign-in").status_code == 303
    before = _dump(app)
    response = client.open(
        path, method=case.method, data=case.raw if case.raw is not None else data,
        headers={k: _fill(v, links) for k, v in case.headers.items()},
    )  # fmt: skip
    body = response.get_data(as_text=True)
    assert 400 <= response.status_code < 500, (name, response.status_code, body[:500])
    if case.status is not None:
        assert response.status_code == case.status, (name, response.status_code, body[:500])
    assert "Traceback" not in body
    if response.mimetype == "text/html":
        assert "<title>" in body, "a page a person can read"
    assert _dump(app) == before, f"{name} changed something"
