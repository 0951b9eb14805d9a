"""Creating and starting a game for three (V6): the form and the command line take a third
player, both invited players get their own invitation, the deal waits for both acceptances, and
one decline cancels the game for everyone."""

from __future__ import annotations

import re
import threading
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient, FlaskCliRunner
from sqlmodel import select

import engine
from service import tokens
from service.db import session_scope
from service.games.players import find_or_add_player
from service.games.rows import get_game
from service.games.seats import read_seats
from service.games.snapshots import latest_snapshot
from service.lobby.forms import FormError, parse_new_game
from service.models import Game, Player, Seat, Snapshot
from service.outbox import MailKind
from service.outbox.addresses import confirm, mark_bouncing
from service.outbox.models import OutboxMessage
from tests.service.conftest import VALID_FORM, sign_in_as
from tests.service.test_leaks import (
    THREE_PLAYERS,
    assert_no_card,
    card_patterns,
    create_and_accept_three,
)
from tests.worker.outbox_rows import link_to, path_of, rows

FORM = {**THREE_PLAYERS, "ruleset": "battleline-3p", "claims": "advanced"}
TOKEN_URL = re.compile(r"http://bl\.test/p/([A-Za-z0-9_.\-]+)")


def _games(app: Flask) -> list[Game]:
    with app.app_context(), session_scope() as session:
        return list(session.exec(select(Game)).all())


def _game(app: Flask, game_id: int) -> Game:
    with app.app_context(), session_scope() as session:
        return get_game(session, game_id)


def _seats(app: Flask, game_id: int) -> dict[str, tuple[bool, str]]:
    """(accepted, email) by seat."""
    with app.app_context(), session_scope() as session:
        return {
            letter: (seat.accepted, player.email)
            for letter, (seat, player) in read_seats(session, game_id).items()
        }


def _seat_of_link(app: Flask, url: str) -> tokens.SeatToken:
    with app.app_context():
        return tokens.read_private_token(path_of(url).split("/")[2])


def _created(app: Flask, client: FlaskClient, **changes: str) -> dict[str, Any]:
    """Alice, signed in, creates a game for three: its id and every seat's private token."""
    sign_in_as(app, client, FORM["a_email"])
    response = client.post("/games/new", data={**FORM, **changes})
    assert response.status_code == 303, response.get_data(as_text=True)
    token_a = response.location.rsplit("/", 1)[1]
    with app.app_context():
        game_id = tokens.read_private_token(token_a).game_id
        token = {s: tokens.make_private_token(game_id, s, 0) for s in ("B", "C")}
    return {"id": game_id, "token": {"A": token_a, **token}}


# --- the form ------------------------------------------------------------------------------------


def test_the_form_offers_games_for_three_and_a_third_player(client: FlaskClient) -> None:
    html = client.get("/games/new").get_data(as_text=True)
    for name in ("battleline-3p", "no-tactics-3p"):
        assert f'value="{name}"' in html
    for field in ("c_name", "c_email"):
        tag = re.search(rf'<input id="{field}"[^>]*>', html)
        assert tag is not None, field
        # Optional in the browser (a game for two has no third player); no script needed.
        assert "required" not in tag.group(0)
    assert "<script" not in html
    # "Play again" links may fill the third player in.
    prefilled = client.get("/games/new?c_name=Carol&c_email=carol@example.org")
    assert 'value="Carol"' in prefilled.get_data(as_text=True)


def test_form_errors_for_a_missing_or_unwanted_third_player(
    app: Flask, client: FlaskClient
) -> None:
    missing = client.post("/games/new", data={**FORM, "c_name": "", "c_email": ""})
    assert missing.status_code == 422
    html = missing.get_data(as_text=True)
    assert "Third player&#39;s name is required" in html
    assert "Third player&#39;s email is required" in html
    unwanted = client.post("/games/new", data={**FORM, "ruleset": "battleline"})
    assert unwanted.status_code == 422
    html = unwanted.get_data(as_text=True)
    assert "Third player&#39;s name is only for a game for three" in html
    assert "Third player&#39;s email is only for a game for three" in html
    # What was typed comes back.
    assert 'value="carol@example.org"' in html
    same = client.post("/games/new", data={**FORM, "c_email": "BOB@example.org"})
    assert same.status_code == 422
    assert "must be another address than your opponent" in same.get_data(as_text=True)
    assert _games(app) == []


@pytest.mark.parametrize(
    ("changes", "errors"),
    [
        ({"c_name": "", "c_email": ""}, {"c_name", "c_email"}),
        ({"c_email": "carol@example"}, {"c_email"}),
        ({"c_name": "Carol\r\nBcc: x@example.org"}, {"c_name"}),
        ({"c_name": "\u200b\u2063"}, {"c_name"}),
        ({"c_email": "carol@example.org\nBcc: x@example.org"}, {"c_email"}),
        ({"c_email": "alice@example.org"}, {"c_email"}),
        ({"c_email": "bob@example.org"}, {"c_email"}),
        ({"ruleset": "battleline"}, {"c_name", "c_email"}),
        ({"ruleset": "no-tactics", "c_name": ""}, {"c_email"}),
        ({"ruleset": "chess"}, {"ruleset"}),
    ],
)
def test_third_player_validation(changes: dict[str, str], errors: set[str]) -> None:
    with pytest.raises(FormError) as caught:
        parse_new_game({**FORM, **changes})
    assert set(caught.value.errors) == errors


def test_third_player_is_parsed_strictly_and_absent_for_two() -> None:
    new = parse_new_game({**FORM, "c_name": "  Carol ", "c_email": " Carol@Example.ORG "})
    assert (new.c_name, new.c_email) == ("Carol", "carol@example.org")
    assert [seat for seat, _, _ in new.players] == list(engine.get_ruleset("battleline-3p").seats)
    assert new.invited_emails == ("bob@example.org", "carol@example.org")
    # A game for two: empty third-player fields are no third player.
    two = parse_new_game({**VALID_FORM, "c_name": "", "c_email": " "})
    assert (two.c_name, two.c_email, two.invited_emails) == (None, None, ("bob@example.org",))


# --- creating ------------------------------------------------------------------------------------


def test_signed_in_creator_invites_both_at_once(app: Flask, client: FlaskClient) -> None:
    game = _created(app, client)
    (stored,) = _games(app)
    assert (stored.ruleset, stored.status, stored.deal) == ("battleline-3p", "invited", None)
    assert _seats(app, game["id"]) == {
        "A": (True, "alice@example.org"),
        "B": (False, "bob@example.org"),
        "C": (False, "carol@example.org"),
    }
    assert rows(app, kind=MailKind.CONFIRM_ADDRESS) == []
    invitations = rows(app, kind=MailKind.INVITATION)
    assert [row.recipient for row in invitations] == ["bob@example.org", "carol@example.org"]
    for row, seat, other in zip(invitations, "BC", ("Carol", "Bob"), strict=True):
        assert row.game_id == game["id"]
        assert "Alice invites you and " + other in row.text_body
        # Each invitation carries its own seat's links.
        for fragment in ("/accept", "/decline"):
            link = link_to(row.text_body, fragment)
            assert _seat_of_link(app, link).seat == seat
    page = client.get(f"/p/{game['token']['A']}").get_data(as_text=True)
    assert "Waiting for Bob and Carol to accept" in page
    assert stored.seed not in page


def test_a_stranger_gets_the_invitations_held(app: Flask, client: FlaskClient) -> None:
    with app.app_context(), session_scope() as session:
        alice = find_or_add_player(session, "alice@example.org", "Alice")
        assert alice.id is not None
        confirm(session, alice.id)
    response = client.post("/games/new", data=FORM)
    assert response.status_code == 303 and response.location.endswith("/games/new/sent")
    assert rows(app, kind=MailKind.INVITATION) == []
    (confirmation,) = rows(app, kind=MailKind.CONFIRM_ADDRESS)
    assert confirmation.recipient == "alice@example.org"
    assert "against Bob and Carol" in confirmation.text_body
    assert 'press "Send the invitations"' in confirmation.text_body
    private = path_of(link_to(confirmation.text_body, "/p/"))
    page = client.get(private).get_data(as_text=True)
    assert "Nothing has been sent to Bob and Carol" in page and "Send the invitations" in page
    assert rows(app, kind=MailKind.INVITATION) == [], "opening the page sends nothing"
    # Only seat A may send them.
    game_id = _seat_of_link(app, link_to(confirmation.text_body, "/p/")).game_id
    with app.app_context():
        token_c = tokens.make_private_token(game_id, "C", 0)
    assert client.post(f"/p/{token_c}/invite").status_code == 403
    assert client.post(f"{private}/invite").status_code == 303
    assert [r.recipient for r in rows(app, kind=MailKind.INVITATION)] == [
        "bob@example.org",
        "carol@example.org",
    ]
    # Pressing again sends nothing more.
    assert client.post(f"{private}/invite").status_code == 303
    assert len(rows(app, kind=MailKind.INVITATION)) == 2
    assert "Waiting for Bob and Carol" in client.get(private).get_data(as_text=True)


def test_the_creation_key_covers_the_third_player(app: Flask, client: FlaskClient) -> None:
    first = client.post("/games/new", data=FORM)
    again = client.post("/games/new", data=FORM)
    assert first.status_code == again.status_code == 303
    assert len(_games(app)) == 1
    assert len(rows(app, kind=MailKind.CONFIRM_ADDRESS)) == 1
    # Another third player is another request; so is the same two without a third.
    client.post("/games/new", data={**FORM, "c_email": "dan@example.org"})
    two = {k: v for k, v in FORM.items() if not k.startswith("c_")}
    client.post("/games/new", data={**two, "ruleset": "battleline"})
    assert len(_games(app)) == 3
    # Signed in, the same request finds the first game and sends its invitations, once.
    sign_in_as(app, client, "alice@example.org")
    third = client.post("/games/new", data=FORM)
    fourth = client.post("/games/new", data=FORM)
    # The same seat's link (a token also signs its moment: compare the payload).
    assert "/p/" in third.location
    assert third.location.split(".")[0] == fourth.location.split(".")[0]
    assert len(_games(app)) == 3
    assert [r.recipient for r in rows(app, kind=MailKind.INVITATION)] == [
        "bob@example.org",
        "carol@example.org",
    ]


def test_invitation_limits_count_each_invitation(app: Flask, client: FlaskClient) -> None:
    sign_in_as(app, client, "alice@example.org")
    two = {**{k: v for k, v in FORM.items() if not k.startswith("c_")}, "ruleset": "battleline"}
    # Carol has had her invitations for the day: the game for three is refused, for both.
    app.config["INVITATIONS_PER_RECIPIENT_PER_DAY"] = 1
    assert (
        client.post(
            "/games/new", data={**two, "b_name": "Carol", "b_email": "carol@example.org"}
        ).status_code
        == 303
    )
    refused = client.post("/games/new", data=FORM)
    assert refused.status_code == 429
    assert b"Carol has received 1 invitation in" in refused.data
    assert len(_games(app)) == 1
    assert [r.recipient for r in rows(app, kind=MailKind.INVITATION)] == ["carol@example.org"]
    # The sender: a game for three needs two more invitations.
    app.config["INVITATIONS_PER_RECIPIENT_PER_DAY"] = 3
    app.config["INVITATIONS_PER_SENDER_PER_DAY"] = 2
    refused = client.post("/games/new", data=FORM)
    assert refused.status_code == 429
    assert b"This game needs 2 invitations, and you may send 1 more today" in refused.data
    assert len(_games(app)) == 1
    app.config["INVITATIONS_PER_SENDER_PER_DAY"] = 3
    assert client.post("/games/new", data=FORM).status_code == 303
    assert len(rows(app, kind=MailKind.INVITATION)) == 3
    refused = client.post("/games/new", data={**FORM, "days_per_move": "4"})
    assert refused.status_code == 429
    assert b"You have sent 3 invitations" in refused.data


def test_an_invited_address_that_refuses_invitations(app: Flask, client: FlaskClient) -> None:
    _created(app, client)
    invitation = rows(app, kind=MailKind.INVITATION, recipient="carol@example.org")[0]
    refuse = link_to(invitation.text_body, "/mail/refuse-invitations/")
    assert client.post(path_of(refuse)).status_code == 200
    # Created as any other game (a refusal would tell who refuses): Bob is invited, Carol not.
    response = client.post("/games/new", data={**FORM, "days_per_move": "5"})
    assert response.status_code == 303
    assert len(_games(app)) == 2
    carols = rows(app, kind=MailKind.INVITATION, recipient="carol@example.org")
    assert len(carols) == 1
    assert len(rows(app, kind=MailKind.INVITATION, recipient="bob@example.org")) == 2


# --- answering -----------------------------------------------------------------------------------


def test_b_then_c_accept_and_the_game_is_dealt(app: Flask, client: FlaskClient) -> None:
    game = _created(app, client)
    token = game["token"]
    accepted = client.post(f"/p/{token['B']}/accept")
    assert accepted.status_code == 303 and accepted.location == f"/p/{token['B']}"
    stored = _game(app, game["id"])
    assert (stored.status, stored.deal, stored.deadline) == ("invited", None, None)
    assert _seats(app, game["id"])["B"][0] is True
    assert rows(app, kind=MailKind.GAME_STARTED) == []
    assert "Waiting for Carol to accept" in client.get(accepted.location).get_data(as_text=True)
    assert "Waiting for Carol" in client.get(f"/p/{token['A']}").get_data(as_text=True)
    assert "You have accepted. Waiting for Carol" in client.get(f"/p/{token['B']}/accept").get_data(
        as_text=True
    )
    # Answering twice, or for the creator's seat: refused, nothing changed.
    again = client.post(f"/p/{token['B']}/accept")
    assert again.status_code == 409 and b"already accepted" in again.data
    assert client.post(f"/p/{token['B']}/decline").status_code == 409
    by_a = client.post(f"/p/{token['A']}/accept")
    assert by_a.status_code == 403 and b"Only the invited players" in by_a.data
    assert _game(app, game["id"]).status == "invited"
    # C's page still offers the answer.
    assert "Accept and deal" in client.get(f"/p/{token['C']}").get_data(as_text=True)

    assert client.post(f"/p/{token['C']}/accept").status_code == 303
    stored = _game(app, game["id"])
    assert stored.status == "active" and stored.deal is not None
    assert stored.deadline is not None and stored.creation_key is None
    dealt = stored.deal["deal"]
    assert len(dealt["A"]) == len(dealt["B"]) == len(dealt["C"]) == 7
    started = rows(app, kind=MailKind.GAME_STARTED)
    assert sorted(r.recipient for r in started) == [
        "alice@example.org",
        "bob@example.org",
        "carol@example.org",
    ]
    assert all("Bob and Carol accepted" in r.text_body for r in started)
    # C's hand is on C's private page only.
    with app.app_context(), session_scope() as session:
        snapshot = latest_snapshot(session, game["id"])
        assert snapshot is not None and snapshot.ply == 0
        state = engine.state_from_json(snapshot.state)
    hands = {s: list(engine.player_view(state, s).hand) for s in ("A", "B", "C")}
    page_c = client.get(f"/p/{token['C']}").get_data(as_text=True)
    for card in hands["C"]:
        assert any(pattern.search(page_c) for pattern in card_patterns(card)), card
    for seat in ("A", "B"):
        page = client.get(f"/p/{token[seat]}").get_data(as_text=True)
        assert_no_card(page, hands["C"], f"{seat}'s private page")
    public = client.get(f"/games/{stored.public_id}").get_data(as_text=True)
    assert_no_card(public, [c for hand in hands.values() for c in hand], "the public page")
    # Answering a dealt game: refused.
    assert client.post(f"/p/{token['C']}/accept").status_code == 409
    assert client.post(f"/p/{token['C']}/decline").status_code == 409


def test_simultaneous_acceptances_deal_once(app: Flask, client: FlaskClient) -> None:
    game = _created(app, client)
    barrier = threading.Barrier(2)
    statuses: list[int] = []

    def press(seat: str) -> None:
        other = app.test_client()
        barrier.wait(5)
        statuses.append(other.post(f"/p/{game['token'][seat]}/accept").status_code)

    threads = [threading.Thread(target=press, args=(seat,)) for seat in ("B", "C")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    assert statuses == [303, 303]
    assert _game(app, game["id"]).status == "active"
    with app.app_context(), session_scope() as session:
        snapshots = session.exec(select(Snapshot).where(Snapshot.game_id == game["id"])).all()
        assert [s.ply for s in snapshots] == [0]
    assert len(rows(app, kind=MailKind.GAME_STARTED)) == 3


def test_a_decline_after_an_acceptance_cancels_for_everyone(
    app: Flask, client: FlaskClient
) -> None:
    game = _created(app, client)
    token = game["token"]
    assert client.post(f"/p/{token['B']}/accept").status_code == 303
    declined = client.post(f"/p/{token['C']}/decline")
    assert declined.status_code == 303
    stored = _game(app, game["id"])
    assert (stored.status, stored.deal, stored.deadline) == ("declined", None, None)
    assert stored.creation_key is None
    with app.app_context(), session_scope() as session:
        assert session.exec(select(Snapshot).where(Snapshot.game_id == game["id"])).all() == []
    assert rows(app, kind=MailKind.GAME_STARTED) == []
    notices = rows(app, kind=MailKind.GAME_CANCELLED)
    assert [r.recipient for r in notices] == ["alice@example.org", "bob@example.org"]
    (invitation_b,) = rows(app, kind=MailKind.INVITATION, recipient="bob@example.org")
    for notice in notices:
        assert notice.game_id == game["id"]
        # The same game in the subject as every email of it.
        assert notice.subject == f"Cancelled: Battle Line for three, game {game['id']}"
        assert invitation_b.subject.endswith(f": Battle Line for three, game {game['id']}")
        for body in (notice.text_body, notice.html_body):
            said = " ".join(body.split())  # the text part's lines wrap at 78 columns
            assert "Carol" in said and "declined the invitation" in said
            assert "nothing was dealt" in said
        assert stored.seed not in notice.text_body
        # Like every email: automatic, one-click unsubscribe, inline styles, plain text.
        assert notice.headers["Auto-Submitted"] == "auto-generated"
        assert notice.headers["List-Unsubscribe"].startswith("<http://bl.test/mail/unsubscribe/")
        assert "class=" not in notice.html_body and "<style" not in notice.html_body
        assert "<" not in notice.text_body.replace("<http", "")
        assert "/mail/mute/" in notice.text_body, "a game-thread email"
    # In the game's thread: Bob's notice answers his invitation.
    bob_notice = notices[1]
    assert bob_notice.headers["In-Reply-To"] == invitation_b.message_id
    assert "although you had accepted" in bob_notice.text_body
    # The pages say so.
    for seat in ("A", "B", "C"):
        page = client.get(f"/p/{token[seat]}").get_data(as_text=True)
        who = "You" if seat == "C" else "Carol"
        assert f"{who} declined the invitation: the game is cancelled for everyone" in page
    # Answering a cancelled game, or twice: refused, nothing changed, nothing more sent.
    before = len(rows(app))
    for seat, answer in (("B", "accept"), ("C", "accept"), ("C", "decline"), ("B", "decline")):
        response = client.post(f"/p/{token[seat]}/{answer}")
        assert response.status_code == 409, (seat, answer)
        assert b"the game is declined" in response.data
    assert client.post(f"/p/{token['A']}/decline").status_code == 403
    assert client.post(f"/p/{token['A']}/invite").status_code == 409
    assert len(rows(app)) == before
    assert _game(app, game["id"]).status == "declined"


def test_a_decline_before_the_other_answers(app: Flask, client: FlaskClient) -> None:
    game = _created(app, client)
    token = game["token"]
    assert client.post(f"/p/{token['B']}/decline").status_code == 303
    assert _game(app, game["id"]).status == "declined"
    notices = rows(app, kind=MailKind.GAME_CANCELLED)
    assert [r.recipient for r in notices] == ["alice@example.org", "carol@example.org"]
    assert all("Bob declined the invitation" in r.text_body for r in notices)
    assert "although you had accepted" not in notices[1].text_body
    refused = client.post(f"/p/{token['C']}/accept")
    assert refused.status_code == 409
    assert b"already answered: the game is declined" in refused.data
    page = client.get(f"/p/{token['C']}/accept").get_data(as_text=True)
    assert "already answered" in page and 'action="/p/' not in page
    assert "the game is cancelled for everyone" in client.get(f"/p/{token['A']}").get_data(
        as_text=True
    )


def test_two_players_decline_tells_the_inviter(app: Flask, client: FlaskClient) -> None:
    sign_in_as(app, client, "alice@example.org")
    token_a = client.post("/games/new", data=VALID_FORM).location.rsplit("/", 1)[1]
    with app.app_context():
        token_b = tokens.make_private_token(tokens.read_private_token(token_a).game_id, "B", 0)
    assert client.post(f"/p/{token_b}/decline").status_code == 303
    (notice,) = rows(app, kind=MailKind.GAME_CANCELLED)
    assert notice.recipient == "alice@example.org"
    assert "Bob declined the invitation. Nothing was dealt." in client.get(
        f"/p/{token_a}"
    ).get_data(as_text=True)


# --- the command line ----------------------------------------------------------------------------

CLI = ["games", "create", "--a-name", "Alice", "--a-email", "alice@example.org"]
CLI += ["--b-name", "Bob", "--b-email", "bob@example.org"]


def test_cli_creates_a_game_for_three(
    app: Flask, runner: FlaskCliRunner, client: FlaskClient
) -> None:
    result = runner.invoke(
        args=[
            *CLI,
            "--ruleset",
            "no-tactics-3p",
            "--c-name",
            "Carol",
            "--c-email",
            "carol@example.org",
        ]
    )
    assert result.exit_code == 0, result.output
    links = TOKEN_URL.findall(result.output)
    assert len(links) == 3
    for seat in "ABC":
        assert f"private link {seat}: http://bl.test/p/" in result.output
    (game,) = _games(app)
    assert game.ruleset == "no-tactics-3p" and game.seed not in result.output
    assert _seats(app, game.id or 0)["C"] == (False, "carol@example.org")
    # The operator stands for the creator: both invitations went.
    assert [r.recipient for r in rows(app, kind=MailKind.INVITATION)] == [
        "bob@example.org",
        "carol@example.org",
    ]
    assert b"Accept and deal" in client.get(f"/p/{links[2]}").data
    # The links and revoking seat C.
    listed = runner.invoke(args=["games", "links", str(game.id)])
    assert listed.exit_code == 0 and "private link C:" in listed.output
    revoked = runner.invoke(args=["games", "revoke", str(game.id), "C"])
    assert revoked.exit_code == 0, revoked.output
    (new_c,) = TOKEN_URL.findall(revoked.output)
    assert client.get(f"/p/{links[2]}").status_code == 403
    assert client.get(f"/p/{new_c}").status_code == 200


def test_cli_refuses_a_missing_or_unwanted_third_player(app: Flask, runner: FlaskCliRunner) -> None:
    missing = runner.invoke(args=[*CLI, "--ruleset", "battleline-3p"])
    assert missing.exit_code == 2
    assert "c-name: is required" in missing.output and "c-email: is required" in missing.output
    unwanted = runner.invoke(args=[*CLI, "--c-name", "Carol", "--c-email", "carol@example.org"])
    assert unwanted.exit_code == 2
    assert "c-name: is only for a game for three" in unwanted.output
    bad = runner.invoke(
        args=[*CLI, "--ruleset", "battleline-3p", "--c-name", "Carol\nBcc", "--c-email", "x@y"]
    )
    assert bad.exit_code == 2
    assert "c-name: must be on one line" in bad.output
    assert "c-email: is not an email address" in bad.output
    assert _games(app) == []
    # A game for two has no seat C to revoke.
    assert runner.invoke(args=CLI).exit_code == 0
    (game,) = _games(app)
    revoked = runner.invoke(args=["games", "revoke", str(game.id), "C"])
    assert revoked.exit_code == 1 and "has no seat C" in revoked.output


def test_the_whole_walk_for_three(app: Flask, client: FlaskClient) -> None:
    """The helper the leak scan uses: created, both accept, dealt and playable."""
    game = create_and_accept_three(app, client, ruleset="no-tactics-3p")
    stored = _game(app, game["id"])
    assert stored.status == "active" and stored.to_move in ("A", "B", "C")
    page = client.get(f"/p/{game['token'][stored.to_move]}").get_data(as_text=True)
    assert 'name="move"' in page
    with app.app_context(), session_scope() as session:
        assert len(session.exec(select(Player)).all()) == 3
        assert len(session.exec(select(Seat)).all()) == 3
        assert session.exec(select(OutboxMessage)).first() is not None


def test_the_two_others_hear_of_another_player_whose_address_bounces(
    app: Flask, client: FlaskClient
) -> None:
    """With three players the one whose email bounces is "another player", not "your opponent",
    in the subject that each of the two others gets (the body names them)."""
    game = create_and_accept_three(app, client)
    alice = rows(app, recipient="alice@example.org")[0].player_id
    assert alice is not None
    with app.app_context(), session_scope() as session:
        mark_bouncing(session, alice, "550 5.1.1 no such user")
    notices = rows(app, kind=MailKind.SEAT_UNREACHABLE)
    assert sorted(n.recipient for n in notices) == ["bob@example.org", "carol@example.org"]
    for notice in notices:
        assert notice.game_id == game["id"]
        assert notice.subject == (
            f"Another player no longer gets our email: Battle Line for three, game {game['id']}"
        )
