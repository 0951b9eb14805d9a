"""Deadlines across days with the service's clock moved forward (``CLOCK_NOW``), never sleeping:
reminders, the running-late note, vacation days, the loss on time, the scan finding lost turn
starts, the daily digest and ``flask mail sweep``; on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from unittest import mock

from flask import Flask
from flask.testing import FlaskClient

import engine
from service.db import session_scope
from service.games.state import apply_moves
from service.models import Game
from service.outbox import MailKind
from service.turns.digest import send_digests
from service.turns.scan import CHECK_LEASE, CHECK_TASK, Checked, check_game, scan_deadlines
from service.turns.start import start_turn
from tests.service.conftest import VALID_FORM
from tests.service.test_leaks import create_and_accept_three
from tests.worker.outbox_rows import get_ok, link_to, rows
from tests.worker.turn_games import (
    at,
    claims_made,
    confirm_and_draw,
    create_confirm_accept,
    email_kinds,
    game_row,
    move_links,
    plain_turn,
    set_preferences,
    state_of,
)

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
H = timedelta(hours=1)
EMAILS = {"A": "alice@example.org", "B": "bob@example.org"}


def other(seat: str) -> str:
    return "B" if seat == "A" else "A"


def new_kinds(app: Flask, before: int) -> list[tuple[str, str]]:
    return email_kinds(app)[before:]


def scan_at(app: Flask, moment: datetime) -> list[tuple[str, str]]:
    """Move the clock to ``moment``, run the scan; the emails it queued as (kind, recipient)."""
    before = len(email_kinds(app))
    at(app, moment)
    with app.app_context():
        scan_deadlines()
    return new_kinds(app, before)


def test_reminders_running_late_vacation_days_and_the_loss_on_time(
    app: Flask, client: FlaskClient
) -> None:
    at(app, T0)
    game_id = create_confirm_accept(app, client, {**VALID_FORM, "vacation_days": "2"})
    mover = state_of(app, game_id).to_move
    late, waiting = EMAILS[mover], EMAILS[other(mover)]
    game = game_row(app, game_id)
    assert game.deadline == T0 + 72 * H and game.turn_started_at == T0
    assert game.next_check_at == T0 + 36 * H

    assert scan_at(app, T0 + 35 * H) == []
    assert scan_at(app, T0 + 36 * H) == [("reminder", late)]  # half the time
    assert scan_at(app, T0 + 36 * H) == [], "the same moment again: nothing twice"
    # A day before the deadline: the opponent hears that the player runs late; the reminder
    # that fell due then waits (one a day) and goes out at 80% of the time.
    assert scan_at(app, T0 + 48 * H) == [("running_late", waiting)]
    assert scan_at(app, T0 + 59 * H) == []
    assert scan_at(app, T0 + 60 * H) == [("reminder", late)]
    assert scan_at(app, T0 + 71 * H) == []
    # The deadline passes: a vacation day, both told, a day more.
    notices = scan_at(app, T0 + 72 * H)
    assert sorted(notices) == sorted([("timeout_notice", late), ("timeout_notice", waiting)])
    game = game_row(app, game_id)
    assert game.deadline == T0 + 96 * H
    left = {"A": 1 if mover == "A" else 2, "B": 1 if mover == "B" else 2}
    page = client.get(f"/games/{game.public_id}").get_data(as_text=True)
    assert f"Vacation days left</dt><dd>Alice {left['A']}, Bob {left['B']}</dd>" in page
    notice = rows(app, kind=MailKind.TIMEOUT_NOTICE, recipient=late)[-1]
    assert "1 vacation day was used: 1 left" in notice.text_body
    assert "It is still your turn" in notice.text_body
    assert scan_at(app, T0 + 95 * H) == []
    assert len(scan_at(app, T0 + 96 * H)) == 2
    assert "0 left" in rows(app, kind=MailKind.TIMEOUT_NOTICE, recipient=waiting)[-1].text_body
    # No vacation day left: the player loses on time, and each player gets one email of it,
    # the game-over email, its subject saying why.
    final = scan_at(app, T0 + 120 * H)
    assert sorted(final) == sorted([("game_over", late), ("game_over", waiting)])
    state = state_of(app, game_id)
    assert state.result is not None
    (lost,) = rows(app, kind=MailKind.GAME_OVER, recipient=late)
    (won,) = rows(app, kind=MailKind.GAME_OVER, recipient=waiting)
    assert lost.subject.startswith("Game over, you lost on time: ")
    assert won.subject.startswith("Game over, you won on time: ")
    for body in (lost.text_body, lost.html_body):
        sentence = "You did not play before the deadline and had no vacation day left."
        assert sentence in " ".join((body or "").split())
    told = " ".join(won.text_body.split())
    assert "Bob won, as Alice ran out of time." in told or "Alice won, as Bob ran out" in told
    assert "no vacation day left" not in told
    assert state.result.termination is engine.Termination.TIME
    assert state.result.winner == other(mover)
    game = game_row(app, game_id)
    assert game.status == "finished" and game.deadline is None and game.next_check_at is None
    over = rows(app, kind=MailKind.GAME_OVER, recipient=waiting)[0].text_body
    assert "ran out of time" in " ".join(over.split()), "the words, however the lines wrap"
    assert scan_at(app, T0 + 500 * H) == []


def test_a_move_starts_the_other_players_clock(app: Flask, client: FlaskClient) -> None:
    at(app, T0)
    game_id = create_confirm_accept(app, client, VALID_FORM)
    mover = state_of(app, game_id).to_move
    assert scan_at(app, T0 + 36 * H) == [("reminder", EMAILS[mover])]
    at(app, T0 + 40 * H)
    url = move_links(rows(app, kind=MailKind.YOUR_TURN)[-1].html_body)[0]
    assert confirm_and_draw(client, url) == 303
    game = game_row(app, game_id)
    assert game.turn_started_at == T0 + 40 * H and game.deadline == T0 + 112 * H
    assert game.reminders_sent == [] and game.late_notice_sent is False
    assert game.current_turn == game.turn_notified == 2
    assert scan_at(app, T0 + 75 * H) == []
    assert scan_at(app, T0 + 76 * H) == [("reminder", EMAILS[other(mover)])]


def test_the_scan_starts_a_turn_whose_task_was_lost(app: Flask, client: FlaskClient) -> None:
    at(app, T0)
    game_id = create_confirm_accept(app, client, VALID_FORM)
    state = state_of(app, game_id)
    url = move_links(rows(app, kind=MailKind.YOUR_TURN)[-1].html_body)[0]
    with mock.patch("service.turns.start.dispatch"):  # the task never reaches a worker
        assert confirm_and_draw(client, url) == 303
    game = game_row(app, game_id)
    assert (game.current_turn, game.turn_notified) == (2, 1)
    assert len(rows(app, kind=MailKind.YOUR_TURN)) == 1
    app.config["TURN_START_GRACE_S"] = 30
    assert scan_at(app, T0 + timedelta(seconds=10)) == []
    assert scan_at(app, T0 + timedelta(seconds=31)) == [("your_turn", EMAILS[other(state.to_move)])]
    assert game_row(app, game_id).turn_notified == 2
    assert scan_at(app, T0 + timedelta(seconds=90)) == []


def test_the_daily_digest_instead_of_an_email_per_turn(app: Flask, client: FlaskClient) -> None:
    at(app, T0)  # 09:00 UTC; the digest goes at 07:00
    game_id = create_confirm_accept(app, client, VALID_FORM)
    first = state_of(app, game_id).to_move
    second = other(first)
    set_preferences(app, EMAILS[second], automatic_claims=True, digest=True)
    url = move_links(rows(app, kind=MailKind.YOUR_TURN)[-1].html_body)[0]
    assert confirm_and_draw(client, url) == 303
    assert [r.recipient for r in rows(app, kind=MailKind.YOUR_TURN)] == [EMAILS[first]]
    with app.app_context():
        assert len(send_digests()) == 1
        assert send_digests() == [], "once a day"
    digest = rows(app, kind=MailKind.DIGEST)
    assert [r.recipient for r in digest] == [EMAILS[second]]
    assert digest[0].subject == "Your turn in 1 game: Battle Line by mail"
    assert "Battle Line against" in digest[0].text_body
    get_ok(client, link_to(digest[0].text_body, "/p/"))
    at(app, T0 + 21 * H)  # 06:00 the next day: not yet
    with app.app_context():
        assert send_digests() == []
    at(app, T0 + 22 * H)  # 07:00: the next digest
    with app.app_context():
        assert len(send_digests()) == 1
    # The first player (no digest) never gets one.
    assert {r.recipient for r in rows(app, kind=MailKind.DIGEST)} == {EMAILS[second]}


def test_flask_mail_sweep_runs_the_scan_once(app: Flask, client: FlaskClient) -> None:
    at(app, T0)
    game_id = create_confirm_accept(app, client, VALID_FORM)
    mover = state_of(app, game_id).to_move
    at(app, T0 + 36 * H)
    result = app.test_cli_runner().invoke(args=["mail", "sweep"])
    assert result.exit_code == 0, result.output
    assert "games checked for deadlines 1" in result.output and "emails sent" in result.output
    assert rows(app, kind=MailKind.REMINDER)[0].recipient == EMAILS[mover]
    assert "scripts/flask mail sweep" in client.get("/dev/outbox").get_data(as_text=True)


def test_automatic_claims_stop_at_the_one_that_wins(app: Flask, client: FlaskClient) -> None:
    """Four flags provable at the start of a turn, and the third makes a breakthrough: the game
    ends there (R21) and the fourth is not asked for (it used to refuse the whole start of the
    turn: no claims made, no email, and a game that could not end by automatic claims)."""
    at(app, T0)
    # A deal where that comes up at ply 48 when each turn plays its first legal card.
    game_id = create_confirm_accept(app, client, VALID_FORM, seed="0" * 64)
    with mock.patch("service.turns.start.dispatch"):
        for _ in range(400):
            state = state_of(app, game_id)
            assert state.result is None
            claims = engine.automatic_claims(state)
            if state.phase is engine.Phase.START and len(claims) > 1:
                made, won = claims_made(state)
                used = len(made)
                if won.result is not None and used < len(claims):
                    break
            with app.app_context(), session_scope() as session:
                apply_moves(session, game_id, state.to_move, state.ply, plain_turn(state))
        else:
            raise AssertionError("no win before the last provable claim came up")
    with app.app_context():
        start_turn(game_id, state.turn)
    final = state_of(app, game_id)
    assert final.result is not None and final.result.winner == state.to_move
    assert final.ply == state.ply + used
    assert len(rows(app, kind=MailKind.GAME_OVER)) == 2


def test_a_claim_at_the_start_of_a_turn_can_end_the_game(app: Flask, client: FlaskClient) -> None:
    """Automatic claims end the game when they make a breakthrough: game over, no "your turn"."""
    at(app, T0)
    game_id = create_confirm_accept(app, client, VALID_FORM)
    # Play until a turn starts where the automatic claims win the game.
    with mock.patch("service.turns.start.dispatch"):
        for _ in range(400):
            state = state_of(app, game_id)
            assert state.result is None
            if state.phase is engine.Phase.START and claims_made(state)[1].result is not None:
                break
            with app.app_context(), session_scope() as session:
                apply_moves(session, game_id, state.to_move, state.ply, plain_turn(state))
        else:
            raise AssertionError("no winning claim came up")
    before = len(rows(app, kind=MailKind.YOUR_TURN))
    with app.app_context():
        start_turn(game_id, state.turn)
    final = state_of(app, game_id)
    assert final.result is not None and final.result.winner == state.to_move
    assert len(rows(app, kind=MailKind.YOUR_TURN)) == before
    assert len(rows(app, kind=MailKind.GAME_OVER)) == 2


def test_a_claimed_game_is_left_by_the_next_scan_and_a_lost_check_comes_back(
    app: Flask, client: FlaskClient
) -> None:
    """The scan claims a due game for CHECK_LEASE and queues its check; a second scan meanwhile
    queues nothing; if the check never runs, the game is due again when the lease ends."""
    at(app, T0)
    game_id = create_confirm_accept(app, client, VALID_FORM)
    moment = T0 + 36 * H
    with app.app_context(), mock.patch("service.turns.scan.publish_after_commit") as publish:
        assert scan_deadlines(moment).checked == [game_id]
        assert scan_deadlines(moment + H / 60).checked == []
        (sends,) = [call.args[1] for call in publish.call_args_list if call.args[1]]
        assert sends == [(CHECK_TASK, (moment.isoformat(), game_id))]
        # The check was lost: nothing was sent, and the lease brings the game back.
        assert rows(app, kind=MailKind.REMINDER) == []
        assert scan_deadlines(moment + CHECK_LEASE).checked == [game_id]


def test_a_check_run_twice_does_each_thing_once(app: Flask, client: FlaskClient) -> None:
    at(app, T0)
    game_id = create_confirm_accept(app, client, VALID_FORM)
    moment = T0 + 36 * H
    with app.app_context():
        assert check_game(game_id, moment) is Checked.REMINDED
        assert check_game(game_id, moment) is Checked.NOTHING
    assert len(rows(app, kind=MailKind.REMINDER)) == 1


def test_three_players_reminders_running_late_and_the_loss_on_time(
    app: Flask, client: FlaskClient
) -> None:
    """V6.7 across days: the seat to move is reminded, the two others hear it runs late, every
    seat is told of the vacation day and the loss on time, and the game ends for all three."""
    at(app, T0)
    game = create_and_accept_three(app, client)
    emails = {"A": "alice@example.org", "B": "bob@example.org", "C": "carol@example.org"}
    mover = state_of(app, game["id"]).to_move
    late = emails[mover]
    waiting = sorted(address for address in emails.values() if address != late)
    with app.app_context(), session_scope() as session:
        row = session.get(Game, game["id"])
        assert row is not None
        row.vacation_days = 0
        session.add(row)
    assert scan_at(app, T0 + 36 * H) == [("reminder", late)]
    assert sorted(scan_at(app, T0 + 48 * H)) == [("running_late", w) for w in waiting]
    final = scan_at(app, T0 + 72 * H)
    assert sorted(final) == sorted(("game_over", address) for address in emails.values())
    state = state_of(app, game["id"])
    assert state.result is not None and state.result.termination is engine.Termination.TIME
    # No flag held by anyone: the two who remain share the draw (docs/rules.md, decision 25).
    assert state.result.draw_between == tuple(sorted(set(emails) - {mover}))
    over = rows(app, kind=MailKind.GAME_OVER, recipient=waiting[0])[0].text_body
    assert "ran out of time" in over and "draw between" in over
    # Each of the two others is told of "another player", not of "your opponent".
    for address in waiting:
        (late_row,) = rows(app, kind=MailKind.RUNNING_LATE, recipient=address)
        (over_row,) = rows(app, kind=MailKind.GAME_OVER, recipient=address)
        assert late_row.subject.startswith("Another player runs late: Battle Line for three")
        assert over_row.subject.startswith("Game over, a draw: ")
    (own,) = rows(app, kind=MailKind.GAME_OVER, recipient=late)
    assert own.subject.startswith("Game over, you lost on time: ")
    assert rows(app, kind=MailKind.TIMEOUT_NOTICE) == []
