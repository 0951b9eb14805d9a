"""The start of a turn and the game emails, in the embedded (eager) mode on SQLite and PostgreSQL:
the "your turn" email and playing by its links, automatic claims once, the preferences, the game
over email, "my games" on request, the notes on the game pages."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

import engine
from service import tokens
from service.db import session_scope
from service.games.move_log import move_log
from service.games.seats import read_seats
from service.models import Game, MoveEntry, Player
from service.outbox import MailKind
from service.outbox.addresses import mark_bouncing
from service.turns.start import Started, start_turn
from tests.service.conftest import VALID_FORM
from tests.worker.outbox_rows import get_ok, link_to, links, only_row, path_of, rows
from tests.worker.turn_games import (
    claims_made,
    confirm_and_draw,
    create_confirm_accept,
    game_row,
    move_links,
    play_until_claimable,
    set_preferences,
    state_of,
)

NAMES = {"A": "Alice", "B": "Bob"}
EMAILS = {"A": "alice@example.org", "B": "bob@example.org"}
CARD_WORDS = {"R": "red", "O": "orange", "Y": "yellow", "G": "green", "B": "blue", "P": "purple"}


def other(seat: str) -> str:
    return "B" if seat == "A" else "A"


def your_turn_rows(app: Flask, seat: str) -> list[object]:
    return list(rows(app, kind=MailKind.YOUR_TURN, recipient=EMAILS[seat]))


def test_the_first_turn_email_and_playing_by_its_links(app: Flask, client: FlaskClient) -> None:
    game_id = create_confirm_accept(app, client, VALID_FORM)
    state = state_of(app, game_id)
    first = state.to_move
    row = only_row(app, kind=MailKind.YOUR_TURN)
    assert row.recipient == EMAILS[first]
    text, html = row.text_body, row.html_body
    assert "It is your turn (turn 1)" in text and "against " + NAMES[other(first)] in text
    # The hand in codes, the board, the deadline, the private page.
    hand = list(engine.player_view(state, first).hand)
    assert f"Your hand: {' '.join(hand)}" in " ".join(text.split())
    assert re.search(r"^ +\| +9 +\|$", text, re.MULTILINE)
    assert "Play before" in " ".join(text.split())
    assert link_to(text, "/p/") in links(html)
    # An 80-column mail program shows every line whole: only a link may be longer.
    assert all(len(line) <= 78 or line.startswith("http") for line in text.splitlines())
    # The text part: the one link to the private page and every move's code (to reply with),
    # a line per card in words. The HTML part: one link per legal move that a link can carry.
    assert not move_links(text)
    urls = move_links(html)
    legal = engine.legal_moves(state)
    plays = [m for m in legal if m.action is engine.Action.PLAY]
    assert len(urls) == len(plays) + sum(m.action is engine.Action.PASS for m in legal)
    words = " ".join(text.split())
    for move in plays:
        assert f" {move.action_text()} " in f"{words} "
    for card in {m.card for m in plays}:
        label = CARD_WORDS[card[0]] + " " + card[1:]
        assert sum(1 for line in text.splitlines() if line.strip().startswith(f"{label} ")) == 1
    # The confirm page offers the draw that ends the turn; one press plays and draws.
    page = get_ok(client, urls[0])
    assert "Confirm this move" in page and "draw from the troop deck" in page
    assert confirm_and_draw(client, urls[0]) == 303
    after = state_of(app, game_id)
    assert after.to_move != first and after.turn == 2
    with app.app_context(), session_scope() as session:
        log = [e.notation for e in session.exec(select(MoveEntry).order_by(MoveEntry.ply)).all()]
    assert len(log) == 2 and log[1].endswith("draw troops")
    # The opponent's email tells them what was played, in words and notation.
    second = your_turn_rows(app, after.to_move)
    assert len(second) == 1
    reply = second[0].text_body  # type: ignore[attr-defined]
    assert f"{NAMES[first]}'s last turn:" in reply
    played = engine.parse_move(log[0], after.ruleset)
    assert played.card is not None and f"({played.card}) to flag {played.flag}" in reply
    # The notation without the seat: the words name the player.
    assert f"[{played.action_text()}]" in reply and "[draw troops]" in reply
    assert log[0] not in reply
    # The same link again is a repeat: answered, and nothing more changes.
    again = client.post(path_of(urls[0]))
    assert again.status_code == 200 and "already played" in again.get_data(as_text=True)
    assert state_of(app, game_id).ply == after.ply
    assert client.post(path_of(urls[1])).status_code == 409, "another move of that turn: stale"


def test_start_turn_twice_makes_one_set_of_claims_and_one_email(
    app: Flask, client: FlaskClient
) -> None:
    game_id = create_confirm_accept(app, client, VALID_FORM)
    state = play_until_claimable(app, game_id)
    seat, turn = state.to_move, state.turn
    expected = [str(m) for m in claims_made(state)[0]]
    before = len(your_turn_rows(app, seat))
    with app.app_context():
        assert start_turn(game_id, turn) is Started.STARTED
        assert start_turn(game_id, turn) is Started.ALREADY
    with app.app_context(), session_scope() as session:
        log = [e.notation for e in move_log(session, game_id)]
    assert log[state.ply :] == expected, "the claims, logged as the player's moves, once"
    assert state_of(app, game_id).ply == state.ply + len(expected)
    emails = your_turn_rows(app, seat)
    assert len(emails) == before + 1
    text = emails[-1].text_body  # type: ignore[attr-defined]
    if state_of(app, game_id).result is None:
        assert "Claimed for you at the start of this turn" in text
        for claim in expected:
            flag = claim.rsplit(" ", 1)[1]
            assert re.search(rf"Flag {flag}: .+", text)
    assert game_row(app, game_id).turn_notified == turn


def test_automatic_claims_off_claims_nothing_and_lists_the_provable_flags(
    app: Flask, client: FlaskClient
) -> None:
    game_id = create_confirm_accept(app, client, VALID_FORM)
    state = play_until_claimable(app, game_id)
    seat = state.to_move
    set_preferences(app, EMAILS[seat], automatic_claims=False, digest=False)
    with app.app_context():
        assert start_turn(game_id, state.turn) is Started.STARTED
    assert state_of(app, game_id).ply == state.ply, "no claim was made"
    text = your_turn_rows(app, seat)[-1].text_body  # type: ignore[attr-defined]
    html = your_turn_rows(app, seat)[-1].html_body  # type: ignore[attr-defined]
    assert "You can prove these flags now" in text
    assert "Claimed for you" not in text
    provable = engine.provable_flags(state, seat)
    for flag in provable:
        assert f"  - Flag {flag}: " in text
    # Each provable flag has its code to reply with, and its claim link, which claims it.
    claim_line = next(line for line in text.splitlines() if "Claim a flag:" in line)
    assert claim_line.split(": ", 1)[1] == ", ".join(f"c{flag}" for flag in provable)
    claim_block = html.split(">Claim flag ")[1].split("</p>")[0]
    claim_urls = move_links(claim_block)
    assert len(claim_urls) == len(provable)
    page = get_ok(client, claim_urls[0])
    assert f"Claim flag {provable[0]}" in page and 'name="then"' not in page
    assert client.post(path_of(claim_urls[0])).status_code == 303
    assert state_of(app, game_id).flags[provable[0] - 1].claimed_by is not None


def test_standard_rule_makes_no_claim_and_still_sends_the_email(
    app: Flask, client: FlaskClient
) -> None:
    game_id = create_confirm_accept(app, client, {**VALID_FORM, "claims": "standard"})
    first = state_of(app, game_id).to_move
    row = only_row(app, kind=MailKind.YOUR_TURN)
    assert "Claimed for you" not in row.text_body and "You can prove" not in row.text_body
    url = move_links(row.html_body)[0]
    # Under the standard rule the draw waits by default (claims come after the card).
    page = get_ok(client, url)
    assert re.search(r'<option value="" selected>decide after playing', page)
    assert confirm_and_draw(client, url, then="draw troops") == 303
    assert state_of(app, game_id).to_move != first
    assert len(rows(app, kind=MailKind.YOUR_TURN)) == 2


def test_preferences_on_the_private_page(app: Flask, client: FlaskClient) -> None:
    game_id = create_confirm_accept(app, client, VALID_FORM)
    token = tokens_of(app, game_id)["B"]
    page = client.get(f"/p/{token}").get_data(as_text=True)
    assert 'name="automatic_claims" value="on" checked' in page
    assert 'name="digest" value="on" >' in page or 'name="digest" value="on">' in page
    assert client.get(f"/p/{token}/preferences").status_code == 405, "GET changes nothing"
    response = client.post(f"/p/{token}/preferences", data={"digest": "on"})
    assert response.status_code == 303
    with app.app_context(), session_scope() as session:
        bob = session.exec(select(Player).where(Player.email == EMAILS["B"])).one()
        seat = read_seats(session, game_id)["B"][0]
        # This game's choice; a seat link never changes the player's defaults.
        assert seat.preferences == {"automatic_claims": False, "digest": True}
        assert bob.preferences == {}


def tokens_of(app: Flask, game_id: int) -> dict[str, str]:
    with app.app_context():
        return {seat: tokens.make_private_token(game_id, seat, 0) for seat in "AB"}


def test_game_over_email_with_the_seed_points_and_play_again(
    app: Flask, client: FlaskClient
) -> None:
    game_id = create_confirm_accept(app, client, VALID_FORM)
    state = state_of(app, game_id)
    loser = state.to_move
    winner = "B" if loser == "A" else "A"
    token = tokens_of(app, game_id)[loser]
    assert (
        client.post(f"/p/{token}/move", data={"ply": str(state.ply), "move": "resign"}).status_code
        == 303
    )
    over = rows(app, kind=MailKind.GAME_OVER)
    assert sorted(r.recipient for r in over) == sorted(EMAILS.values())
    game = game_row(app, game_id)
    for row in over:
        text, html = row.text_body, row.html_body
        assert f"{NAMES[winner]} won, as {NAMES[loser]} resigned." in " ".join(text.split())
        assert game.seed in text and game.seed in html and game.seed_commitment in text
        # A single game: no series points.
        assert "points" not in text.lower() and "points" not in html.lower()
        found = links(text)
        assert f"http://bl.test/games/{game.public_id}" in found
        for url in found:
            assert url in links(html)
            get_ok(client, url)
        me = "A" if row.recipient == EMAILS["A"] else "B"
        other = "B" if me == "A" else "A"
        # "Play again": a rematch offered from the recipient's own seat link.
        again = link_to(text, "/rematch")
        assert f"/p/{tokens_of(app, game_id)[me].split('.')[0]}." in again
        page = client.get(urlsplit(again).path).get_data(as_text=True)
        assert "Offer a rematch" in page and NAMES[other] in page
    # No "your turn" after the end.
    assert len(rows(app, kind=MailKind.YOUR_TURN)) == 1


def test_my_games_request_sends_the_email(app: Flask, client: FlaskClient) -> None:
    create_confirm_accept(app, client, VALID_FORM)
    page = client.post("/me", data={"email": "Bob@Example.org"}).get_data(as_text=True)
    assert "A link to sign in is on its way" in page
    row = only_row(app, kind=MailKind.MY_GAMES)
    assert row.recipient == EMAILS["B"]
    assert "Here is the link to the list of your games" in row.text_body
    assert "Bob's games" in get_ok(client, link_to(row.text_body, "/me/"))


def test_check_your_email_and_bouncing_addresses_on_the_game_pages(
    app: Flask, client: FlaskClient
) -> None:
    created = client.post("/games/new", data=VALID_FORM)
    page = client.get(created.location).get_data(as_text=True)
    assert "Check your email" in page
    confirmation = only_row(app, kind=MailKind.CONFIRM_ADDRESS)
    private = path_of(link_to(confirmation.text_body, "/p/"))
    assert "Send the invitation" in client.get(private).get_data(as_text=True)
    client.post(f"{private}/invite")
    page = client.get(private).get_data(as_text=True)
    assert "Send the invitation" not in page and "Waiting for Bob" in page
    invitation = only_row(app, kind=MailKind.INVITATION)
    client.post(path_of(link_to(invitation.text_body, "/accept")))
    assert invitation.game_id is not None and invitation.player_id is not None
    with app.app_context(), session_scope() as session:
        mark_bouncing(session, invitation.player_id, "550 5.1.1 no such user")
    toks = tokens_of(app, invitation.game_id)
    alice = client.get(f"/p/{toks['A']}").get_data(as_text=True)
    bob = client.get(f"/p/{toks['B']}").get_data(as_text=True)
    assert "Email to Bob does not arrive" in alice and EMAILS["B"] not in alice
    assert f"Email to you ({EMAILS['B']}) does not arrive" in bob


def test_vacation_days_on_the_form_and_the_command_line(app: Flask, client: FlaskClient) -> None:
    assert 'name="vacation_days"' in client.get("/games/new").get_data(as_text=True)
    bad = client.post("/games/new", data={**VALID_FORM, "vacation_days": "31"})
    assert bad.status_code == 422 and "Vacation days must be" in bad.get_data(as_text=True)
    assert client.post("/games/new", data={**VALID_FORM, "vacation_days": "2"}).status_code == 303
    result = app.test_cli_runner().invoke(
        args=["games", "create", "--a-name", "Carol", "--a-email", "carol@example.org",
              "--b-name", "Dan", "--b-email", "dan@example.org", "--vacation-days", "0"]
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    with app.app_context(), session_scope() as session:
        games = session.exec(select(Game).order_by(Game.id)).all()
        assert [g.vacation_days for g in games] == [2, 0]
    default = client.post("/games/new", data={**VALID_FORM, "b_email": "erin@example.org"})
    assert default.status_code == 303
    with app.app_context(), session_scope() as session:
        assert session.exec(select(Game).order_by(Game.id)).all()[-1].vacation_days == 7


def test_the_beat_schedule_runs_the_scan_and_the_digest(bare_app: Flask) -> None:
    import worker
    from service.turns import digest, scan, start

    assert (worker.SCAN_TASK, worker.DIGEST_TASK) == (scan.SCAN_TASK, digest.DIGEST_TASK)
    celery = bare_app.extensions["celery"]
    schedule = {entry["task"]: entry["schedule"] for entry in celery.conf.beat_schedule.values()}
    assert schedule[scan.SCAN_TASK] == 60 and schedule[digest.DIGEST_TASK] == 900
    for name in (start.START_TURN_TASK, scan.SCAN_TASK, digest.DIGEST_TASK):
        assert celery.tasks[name].acks_late, f"{name} is idempotent, so acks_late"
