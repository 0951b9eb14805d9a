"""A player's own data: the JSON export of everything we hold about them, and closing their
account (issue 24). Runs on SQLite and PostgreSQL.

The export holds the player's profile, games, preferences, blocks and emails, never another
player's address or a card of another player's hand. Closing erases the address and the name
from every table (the scan reads every text and JSON column of every table), ends the running
games as a resignation told to the opponents, kills every link and sign-in, and stops all mail.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import SQLModel, col, select

from service import tokens
from service.db import get_engine, session_scope
from service.games.players import find_or_add_player, find_player
from service.games.rows import get_game
from service.games.seats import read_seats
from service.inbound_models import InboundMessage
from service.models import GameStatus, MoveEntry, Player, utcnow
from service.outbox.kinds import MailKind
from service.outbox.models import OutboxMessage, OutboxStatus
from service.outbox.queue import blocked_reason
from service.players.blocks import block
from service.players.challenge_models import Challenge, ChallengeStatus
from tests.service.conftest import sign_in_as
from tests.service.play_driver import create_and_accept, move_submissions, pick
from tests.service.test_leaks import assert_no_card, hands_and_state, put_back_by

ALICE = "alice@example.org"
BOB = "bob@example.org"
EXPORT = "/me/data.json"
CUT_LINE = re.compile(r"The cut: .*?(?:\\n|$)")
CLOSE = "/me/close"


def _check_types(value: Any, schema: Any, where: str) -> None:
    """``value`` has exactly the keys of ``schema`` (a dict), each of the type given (a type, a
    tuple of types, a nested dict, or a one-item list: a list of that)."""
    if isinstance(schema, dict):
        assert isinstance(value, dict), where
        assert set(value) == set(schema), (where, sorted(value), sorted(schema))
        for key, kind in schema.items():
            _check_types(value[key], kind, f"{where}.{key}")
    elif isinstance(schema, list):
        assert isinstance(value, list), where
        for i, item in enumerate(value):
            _check_types(item, schema[0], f"{where}[{i}]")
    else:
        assert isinstance(value, schema), (where, value)


OPTIONAL_STR = (str, type(None))
SCHEMA = {
    "format": str,
    "exported_at": str,
    "profile": {
        "email": str,
        "display_name": str,
        "language": OPTIONAL_STR,
        "time_zone": OPTIONAL_STR,
        "created_at": str,
    },
    "preferences": {"automatic_claims": bool, "digest": bool},
    "games": [
        {
            "id": int,
            "public_url": str,
            "variant": str,
            "claims": str,
            "status": str,
            "created_at": str,
            "seat": str,
            "seats": [{"seat": str, "name": str}],
            "result": (dict, type(None)),
            "moves": [{"ply": int, "move": str, "at": str}],
        }
    ],
    "ratings": [
        {
            "pool": str,
            "rating": float,
            "deviation": float,
            "volatility": float,
            "games": int,
            "rated_at": str,
        }
    ],
    "rating_changes": [
        {"game_id": int, "pool": str, "verdict": str, "before": float, "after": float, "at": str}
    ],
    "blocks": [{"name": str, "since": str}],
    "emails": [
        {
            "kind": str,
            "subject": str,
            "queued_at": str,
            "sent_at": OPTIONAL_STR,
            "text": OPTIONAL_STR,
        }
    ],
}


def _export(client: FlaskClient) -> dict[str, Any]:
    response = client.get(EXPORT)
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    assert response.mimetype == "application/json"
    assert "attachment" in response.headers["Content-Disposition"]
    data = response.get_json()
    assert isinstance(data, dict)
    return data


def _play(app: Flask, client: FlaskClient, game: dict[str, Any], steps: int, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(steps):
        _, state = hands_and_state(app, game["id"])
        if state.result is not None:
            return
        page = client.get(f"/p/{game['token'][state.to_move]}").get_data(as_text=True)
        submission = pick(move_submissions(page, rng), rng)
        assert client.post(submission.action, data=submission.data).status_code == 303


def test_export_follows_its_schema(app: Flask, client: FlaskClient) -> None:
    game = create_and_accept(app, client)
    _play(app, client, game, 6, seed=1)
    with app.app_context(), session_scope() as session:
        alice = find_player(session, ALICE)
        bob = find_player(session, BOB)
        assert alice is not None and bob is not None and alice.id and bob.id
        block(session, alice.id, bob.id)
    data = _export(client)
    _check_types(data, SCHEMA, "export")
    assert data["profile"]["email"] == ALICE
    assert data["profile"]["display_name"] == "Alice"
    [played] = data["games"]
    assert played["id"] == game["id"] and played["seat"] == "A"
    assert played["public_url"].endswith(f"/games/{game['public_id']}")
    assert {s["name"] for s in played["seats"]} == {"Alice", "Bob"}
    with app.app_context(), session_scope() as session:
        mine = session.exec(
            select(MoveEntry.notation)
            .where(MoveEntry.game_id == game["id"], MoveEntry.seat == "A")
            .order_by(col(MoveEntry.ply))
        ).all()
    assert [m["move"] for m in played["moves"]] == mine
    assert data["blocks"][0]["name"] == "Bob"
    assert data["emails"], "the emails we sent her"
    assert {e["kind"] for e in data["emails"]} >= {MailKind.GAME_STARTED.value}


def test_export_holds_no_other_address_or_hand_card(app: Flask, client: FlaskClient) -> None:
    game = create_and_accept(app, client, seed="own-data-leaks")
    rng = random.Random(5)
    for _ in range(60):
        hands, state = hands_and_state(app, game["id"])
        text = json.dumps(_export(client), ensure_ascii=False)
        assert BOB not in text
        if state.result is not None:
            break
        known = put_back_by(app, game["id"])
        secret = [c for c in hands["B"] if c not in known["A"]]
        # The cut (R2) is two cards drawn before the shuffle: public, and no card of a hand.
        assert_no_card(CUT_LINE.sub("", text), secret, "Alice's export")
        page = client.get(f"/p/{game['token'][state.to_move]}").get_data(as_text=True)
        submission = pick(move_submissions(page, rng), rng)
        assert client.post(submission.action, data=submission.data).status_code == 303


def test_the_invited_players_export_holds_no_address_of_the_inviter(
    app: Flask, client: FlaskClient
) -> None:
    # The invitation names its inviter by name only; any other address an email of theirs held
    # would be withheld in the export (``own_data``).
    create_and_accept(app, client)
    sign_in_as(app, client, BOB, "Bob")
    data = _export(client)
    assert data["profile"]["email"] == BOB
    assert any(e["kind"] == MailKind.INVITATION.value for e in data["emails"])
    text = json.dumps(data, ensure_ascii=False)
    assert ALICE not in text


def test_export_needs_a_signed_in_browser(app: Flask, client: FlaskClient) -> None:
    response = client.get(EXPORT)
    assert response.status_code == 401
    assert set(response.get_json()) == {"error", "title", "message"}


# --- closing --------------------------------------------------------------------------------


def _text_columns() -> list[tuple[sa.Table, sa.Column[Any]]]:
    textual = (sa.String, sa.Text, sa.JSON)
    return [
        (table, column)
        for table in SQLModel.metadata.sorted_tables
        for column in table.columns
        if isinstance(column.type, textual)
        or isinstance(getattr(column.type, "impl", None), textual)
    ]


def _every_mention(app: Flask, words: list[str]) -> list[str]:
    """Every (table.column, row) where any of ``words`` appears, in any text or JSON column."""
    found = []
    with get_engine(app).connect() as connection:
        for table, column in _text_columns():
            for (value,) in connection.execute(sa.select(column)):
                text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
                for word in words:
                    if word.lower() in text.lower():
                        found.append(f"{table.name}.{column.name}: {text[:120]}")
    return found


def test_the_scan_sees_every_table(app: Flask, client: FlaskClient) -> None:
    create_and_accept(app, client)
    assert _every_mention(app, [ALICE]), "the scan must find the address before closing"
    names = {table.name for table, _ in _text_columns()}
    assert {"players", "outbox", "inbound_messages", "seats"} <= names


def _close(client: FlaskClient) -> Any:
    return client.post(CLOSE, data={"confirm": "close"})


def test_closing_erases_the_address_and_name_everywhere(app: Flask, client: FlaskClient) -> None:
    """Alice (with a distinctive name) has a running game, a finished one, a queued email, a
    block, an inbound reply and an address status; after closing, no column of any table holds
    her address or her name."""
    name = "Zephyrine"
    with app.app_context(), session_scope() as session:
        find_or_add_player(session, ALICE, name)
    running = create_and_accept(app, client)
    finished = create_and_accept(app, client)
    with app.app_context(), session_scope() as session:
        alice = find_player(session, ALICE)
        assert alice is not None and alice.id is not None
        alice.display_name = name
        alice.name_confirmed = True
        session.add(alice)
        bob = find_player(session, BOB)
        assert bob is not None and bob.id is not None
        block(session, alice.id, bob.id)
        session.add(
            InboundMessage(
                message_id="<reply-1@example.org>",
                sender=ALICE,
                received_at=utcnow(),
                outcome="applied",
                detail=f"from {name} <{ALICE}>",
                rate_key=ALICE,
            )
        )
    sign_in_as(app, client, ALICE, name)
    resigned = client.post(
        f"/p/{finished['token']['A']}/move", data={"ply": _ply(app, finished), "move": "resign"}
    )
    assert resigned.status_code == 303
    before = _outbox_ids(app)
    assert _every_mention(app, [ALICE, name])

    response = _close(client)
    assert response.status_code == 303, response.get_data(as_text=True)[:800]

    assert _every_mention(app, [ALICE, name]) == []
    with app.app_context(), session_scope() as session:
        game = get_game(session, running["id"])
        assert game.status == GameStatus.FINISHED
        assert game.result is not None and game.result["termination"] == "resignation"
        assert game.result["winner"] == "B"
        seats = read_seats(session, running["id"])
        closed = seats["A"][1]
        assert closed.closed_at is not None
        # Bob is told of the resignation, as for any resignation; Alice gets nothing.
        new = session.exec(select(OutboxMessage).where(col(OutboxMessage.id) > before)).all()
        assert [(m.player_id, m.kind) for m in new] == [(seats["B"][1].id, "game_over")]
        assert "a former player" in (new[0].text_body or "")
        assert blocked_reason(session, MailKind.MY_GAMES, closed, None) is not None
        assert blocked_reason(session, MailKind.GAME_OVER, closed, running["id"]) is not None
    # Her pages: the finished game names "a former player".
    page = client.get(f"/games/{finished['public_id']}").get_data(as_text=True)
    assert "a former player" in page
    assert name not in page


def _ply(app: Flask, game: dict[str, Any]) -> str:
    with app.app_context(), session_scope() as session:
        return str(get_game(session, game["id"]).ply)


def _outbox_ids(app: Flask) -> int:
    with app.app_context(), session_scope() as session:
        return max(session.exec(select(OutboxMessage.id)).all(), default=0) or 0


def test_closing_kills_every_link_and_sign_in(app: Flask, client: FlaskClient) -> None:
    game = create_and_accept(app, client)
    with app.app_context(), session_scope() as session:
        alice = find_player(session, ALICE)
        assert alice is not None and alice.id is not None
        my_games = tokens.make_games_token(alice.id, alice.token_generation)
        seat_a = read_seats(session, game["id"])["A"][0]
        from service.games.reply_keys import reply_key, seat_for_key

        key = reply_key(session, seat_a)
    other = FlaskClient(app, use_cookies=True)
    sign_in_as(app, other, ALICE)
    assert _close(client).status_code == 303
    assert client.get(f"/p/{game['token']['A']}").status_code == 403
    assert client.get(f"/me/{my_games}").status_code in (400, 403)
    assert other.get(EXPORT).status_code == 401, "the other browser's sign-in died too"
    assert client.get(EXPORT).status_code == 401
    with app.app_context(), session_scope() as session:
        assert seat_for_key(session, key) is None
        closed = session.get(Player, alice.id)
        assert closed is not None
        placeholder = closed.email
        fresh = tokens.make_games_token(alice.id, closed.token_generation)
    # No new link either: not by the placeholder address, not by a token of the new generation.
    asked = client.post("/me", data={"email": placeholder}).get_data(as_text=True)
    assert "/me/" + fresh not in asked and "Development only" not in asked
    assert client.get(f"/me/{fresh}").status_code == 403
    assert client.post(f"/me/{fresh}/sign-in").status_code == 403


def test_queued_emails_to_the_closed_player_are_cancelled(app: Flask, client: FlaskClient) -> None:
    create_and_accept(app, client)
    with app.app_context(), session_scope() as session:
        alice = find_player(session, ALICE)
        assert alice is not None
        queued = session.exec(
            select(OutboxMessage).where(OutboxMessage.player_id == alice.id)
        ).all()
        for row in queued:
            row.status = OutboxStatus.QUEUED
            session.add(row)
        alice_id = alice.id
    assert _close(client).status_code == 303
    with app.app_context(), session_scope() as session:
        left = session.exec(
            select(OutboxMessage).where(
                OutboxMessage.player_id == alice_id,
                col(OutboxMessage.status).in_([OutboxStatus.QUEUED, OutboxStatus.SENDING]),
            )
        ).all()
        assert left == []


def _table_dump(app: Flask) -> dict[str, list[str]]:
    with get_engine(app).connect() as connection:
        return {
            table.name: sorted(repr(tuple(row)) for row in connection.execute(table.select()))
            for table in SQLModel.metadata.sorted_tables
        }


def test_closing_twice_or_unconfirmed_changes_nothing(app: Flask, client: FlaskClient) -> None:
    create_and_accept(app, client)
    before = _table_dump(app)
    unconfirmed = client.post(CLOSE, data={})
    assert unconfirmed.status_code == 422
    assert "Nothing was changed" in unconfirmed.get_data(as_text=True)
    assert _table_dump(app) == before
    stale = client.get_cookie(app.config.get("SESSION_COOKIE_NAME", "session"))
    assert stale is not None
    assert _close(client).status_code == 303
    after = _table_dump(app)
    client.set_cookie(stale.key, stale.value)
    again = _close(client)
    assert again.status_code == 401
    assert _table_dump(app) == after


def test_the_closing_page_asks_first(app: Flask, client: FlaskClient) -> None:
    sign_in_as(app, client, ALICE)
    my_games = client.get("/me").get_data(as_text=True)
    assert f'href="{EXPORT}"' in my_games and f'href="{CLOSE}"' in my_games
    page = client.get(CLOSE)
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert 'name="confirm"' in html and 'method="post"' in html
    with app.app_context(), session_scope() as session:
        assert isinstance(find_player(session, ALICE), Player)


def test_closing_in_japanese_names_a_former_player_in_japanese(
    app: Flask, client: FlaskClient
) -> None:
    game = create_and_accept(app, client)
    with app.app_context(), session_scope() as session:
        bob = find_player(session, BOB)
        assert bob is not None
        bob.language = "ja"
        session.add(bob)
    before = _outbox_ids(app)
    assert _close(client).status_code == 303
    with app.app_context(), session_scope() as session:
        [told] = session.exec(select(OutboxMessage).where(col(OutboxMessage.id) > before)).all()
        assert told.game_id == game["id"]
        assert "元プレイヤー" in (told.text_body or ""), told.text_body


def test_a_name_is_unnamed_as_a_word_never_inside_a_link() -> None:
    from service.outbox.erasure import _without

    text = "Bl moved. See http://bl.test/p/x and bl@example.org; Blake and bl-2 stay."
    assert _without(text, ["Bl"], "a former player") == (
        "a former player moved. See http://bl.test/p/x and bl@example.org; Blake and bl-2 stay."
    )
    assert _without("Zoë played", ["Zoë"], "X") == "X played"
    assert _without("Zo&#235; played", ["Zoë"], "X") == "X played"


def test_closing_in_a_game_for_three_ends_it_and_tells_both_others(
    app: Flask, client: FlaskClient
) -> None:
    from tests.service.test_leaks import create_and_accept_three

    game = create_and_accept_three(app, client)
    before = _outbox_ids(app)
    assert _close(client).status_code == 303
    with app.app_context(), session_scope() as session:
        assert get_game(session, game["id"]).status == GameStatus.FINISHED
        seats = read_seats(session, game["id"])
        told = session.exec(select(OutboxMessage).where(col(OutboxMessage.id) > before)).all()
        assert sorted((m.player_id, m.kind) for m in told) == sorted(
            (seats[s][1].id, "game_over") for s in ("B", "C")
        )


def test_closing_in_a_series_deals_no_next_game(app: Flask, client: FlaskClient) -> None:
    from service.models import Game, Series, SeriesStatus
    from tests.service.conftest import VALID_FORM

    sign_in_as(app, client, ALICE)
    created = client.post("/games/new", data={**VALID_FORM, "series": "games", "series_games": "3"})
    assert created.status_code == 303, created.get_data(as_text=True)[:500]
    with app.app_context():
        game_id = tokens.read_private_token(created.location.rsplit("/", 1)[1]).game_id
        token_b = tokens.make_private_token(game_id, "B", 0)
    assert client.post(f"/p/{token_b}/accept").status_code == 303
    assert _close(client).status_code == 303
    with app.app_context(), session_scope() as session:
        game = get_game(session, game_id)
        assert game.status == GameStatus.FINISHED and game.series_id is not None
        series = session.get(Series, game.series_id)
        assert series is not None and series.status == SeriesStatus.LEFT
        games = session.exec(select(Game).where(Game.series_id == series.id)).all()
        assert [g.id for g in games] == [game_id], "no next game dealt to a closed account"


def test_closing_withdraws_open_challenges_and_erases_their_messages(
    app: Flask, client: FlaskClient
) -> None:
    sign_in_as(app, client, ALICE, "Zephyrine")
    form = {"ruleset": "battleline", "claims": "advanced", "days_per_move": "3"}
    message = "Anyone for a game, says Zephyrine?"
    assert client.post("/lobby/challenges", data={**form, "message": message}).status_code == 303
    keep_going = {**form, "keep_going": "on"}
    assert client.post("/lobby/automatch", data=keep_going).status_code == 303
    assert "Zephyrine" in app.test_client().get("/lobby").get_data(as_text=True)
    with app.app_context(), session_scope() as session:
        assert any(row.keep_going for row in session.exec(select(Challenge)))
    assert _close(client).status_code == 303
    assert "Zephyrine" not in app.test_client().get("/lobby").get_data(as_text=True)
    with app.app_context(), session_scope() as session:
        rows = session.exec(select(Challenge)).all()
        assert len(rows) == 2
        assert {row.status for row in rows} == {ChallengeStatus.WITHDRAWN}
        assert all(r.message is None and not r.keep_going and r.renew_at is None for r in rows)
