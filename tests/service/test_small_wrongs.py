"""Small wrongs a correspondence player tripped over (issue 20, item 10), each a test: words that
belong to another case (series points in a single game, an invitation to the computer), words
nobody explained, and pages that cannot be told apart or left a person stuck."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import col, select

import engine
from service import tokens
from service.db import session_scope
from service.games.loaded import load_game
from service.games.players import find_player
from service.games.state import apply_moves, load_state
from service.lobby.forms import parse_new_game
from service.lobby.lifecycle import create_game, decline_invitation
from service.models import Game
from service.outbox.models import OutboxMessage
from service.outbox.signed import MailPurpose, mail_link
from tests.service.conftest import VALID_FORM, sign_in_as
from tests.service.test_reading_a_game import emails, play_a_turn, started_game


def new_game(app: Flask, **fields: str) -> tuple[int, dict[str, str]]:
    with app.app_context(), session_scope() as session:
        game, _ = create_game(
            session, parse_new_game({**VALID_FORM, **fields}), creator_present=True
        )
        assert game.id is not None
        pages = {s: f"/p/{tokens.make_private_token(game.id, s, 0)}" for s in ("A", "B")}
        return game.id, pages


def resign(app: Flask, game_id: int) -> None:
    with app.app_context(), session_scope() as session:
        state = load_state(session, load_game(session, game_id))
        seat = state.to_move
        assert seat is not None
        apply_moves(
            session, game_id, seat, state.ply, [engine.parse_move(f"{seat}: resign", state.ruleset)]
        )


def test_a_single_game_says_nothing_of_series_points(app: Flask, client: FlaskClient) -> None:
    game = started_game(app)
    play_a_turn(app, game["id"])
    resign(app, game["id"])
    page = client.get(f"/games/{game['public_id']}").get_data(as_text=True)
    assert "series points" not in page.lower()
    for row in emails(app, game["id"]):
        if row.kind == "game_over":
            assert "Points (R23)" not in row.text_body and ">Points<" not in row.html_body


def test_a_rematch_against_the_computer_invites_nobody(app: Flask, client: FlaskClient) -> None:
    game_id, pages = new_game(app, b_computer="random", b_name="", b_email="")
    resign(app, game_id)
    html = client.get(f"{pages['A']}/rematch").get_data(as_text=True)
    assert "invitation" not in html
    assert "dealt at once" in html


def test_the_rematch_invitation_says_it_is_a_rematch(app: Flask, client: FlaskClient) -> None:
    game = started_game(app)
    resign(app, game["id"])
    sign_in_as(app, client, "bob@example.org", "Bob")  # a seat link alone asks by email
    assert client.post(f"{game['page']['B']}/rematch").status_code == 303
    with app.app_context(), session_scope() as session:
        rematch = session.exec(select(Game).where(col(Game.id) != game["id"])).one()
        invitation = session.exec(
            select(OutboxMessage).where(
                OutboxMessage.game_id == rematch.id, OutboxMessage.kind == "invitation"
            )
        ).one()
    for body in (invitation.text_body, invitation.html_body):
        assert f"rematch of game {game['id']}" in body


def test_who_declined_reads_about_themselves_as_you(app: Flask, client: FlaskClient) -> None:
    game_id, pages = new_game(app)
    with app.app_context(), session_scope() as session:
        decline_invitation(session, tokens.SeatToken(game_id=game_id, seat="B", generation=0))
    bob = client.get(pages["B"]).get_data(as_text=True)
    assert "You declined the invitation" in bob and "Bob declined" not in bob
    alice = client.get(pages["A"]).get_data(as_text=True)
    assert "Bob declined the invitation" in alice


def test_one_message_says_turn_not_move_and_turn(app: Flask, client: FlaskClient) -> None:
    game = started_game(app)
    play_a_turn(app, game["id"])
    for page in game["page"].values():
        html = client.get(page).get_data(as_text=True)
        assert "Time per move" not in html and "to move (deadline" not in html
    invitation = next(r for r in emails(app, game["id"]) if r.kind == "invitation")
    assert "per move" not in invitation.text_body and "move at a time" not in invitation.text_body


def test_a_stale_link_says_what_happened_and_links_to_the_page(
    app: Flask, client: FlaskClient
) -> None:
    game_id, pages = new_game(app)
    with app.app_context(), session_scope() as session:
        decline_invitation(session, tokens.SeatToken(game_id=game_id, seat="B", generation=0))
    response = client.post(f"{pages['B']}/accept")
    html = response.get_data(as_text=True)
    assert response.status_code == 409
    assert "Error 409" not in html
    assert "already answered" in html
    assert f'href="{pages["B"]}"' in html


def test_the_game_facts_say_what_the_seed_and_the_rules_version_are(
    app: Flask, client: FlaskClient
) -> None:
    game = started_game(app)
    play_a_turn(app, game["id"])
    html = client.get(game["page"]["B"]).get_data(as_text=True)
    assert "(R13)" not in html
    assert "SHA-256 of the secret seed" in html
    assert "version of the rules" in html


def test_the_computer_has_no_vacation_days(app: Flask, client: FlaskClient) -> None:
    _, pages = new_game(app, b_computer="random", b_name="", b_email="")
    html = client.get(pages["A"]).get_data(as_text=True)
    facts = html[html.index("Vacation days left") :]
    facts = facts[: facts.index("</dd>")]
    assert "Alice" in facts and "Computer" not in facts


def test_my_games_tells_games_apart(app: Flask, client: FlaskClient) -> None:
    first = started_game(app)
    second = started_game(app, days_per_move="4")
    sign_in_as(app, client, "alice@example.org")
    html = client.get("/me").get_data(as_text=True)
    for game in (first, second):
        assert f"Game {game['id']}" in html
    assert "started" in html


def test_the_series_table_is_styled(app: Flask, client: FlaskClient) -> None:
    from pathlib import Path

    css = Path(app.static_folder or "", "site.css").read_text()
    assert "table.series" in css


def test_the_mute_page_says_the_deadlines_still_count(app: Flask, client: FlaskClient) -> None:
    game = started_game(app)
    with app.app_context(), session_scope() as session:
        bob = find_player(session, "bob@example.org")
        assert bob is not None and bob.id is not None
        url = mail_link(MailPurpose.MUTE_GAME, bob.id, game["id"])
    html = client.get(url.replace("http://bl.test", "")).get_data(as_text=True)
    assert "deadlines still count" in html


def test_the_claims_box_says_why_cards_of_your_own_hand_may_beat_you() -> None:
    from service.play.pages import OWN_CARDS_UNSEEN, proof_rows
    from tests.engine.builders import position

    # Alice holds blue 9 and 10, yet the Wedge blue 8 9 10 may still come for Bob (R13).
    state = position(
        claims="advanced",
        flags={1: {"A": ["R4", "R5", "R3"], "B": ["B8"]}},
        hands={"A": ["B9", "B10", "G1"]},
        discards={"B": ["B7"]},
    )
    (flag_1,) = [
        row for row in proof_rows(state, engine.player_view(state, "A")) if row.flags == (1,)
    ]
    assert not flag_1.provable
    assert {"B9", "B10"} <= {p.value for p in flag_1.reason if p.kind == "card"}
    assert flag_1.reason[-1].value == OWN_CARDS_UNSEEN
