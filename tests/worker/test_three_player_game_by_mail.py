"""A whole game for three (``battleline-3p``, advanced claims, a fixed deal) played from the emails
alone, with every real part: PostgreSQL, Redis, a ``celery worker`` process (with its beat),
aiosmtpd as the SMTP server, and the service (the Flask test client, one per person, for the HTTP
side).

Alice, signed in, creates the game: the invitations go at once. Bob and Carol accept from the
links of their invitation emails (the accept page, then its button). Then each seat acts only
on the "your turn" emails it receives: a move link chosen with a seeded RNG among those the email
offers, its confirm page, the button (with a draw the page offers, now and then "decide after
playing"). When the turn goes on after that press (a Mud discard, a draw left for later), or the
email names only moves that need the private page (a Scout, a Redeploy, ...), or now and then
when it names such moves among its links, the seat opens the private page whose link the email
brings and presses the page's buttons until its turn ends. Claims are made by the server at the
start of each turn (the advanced rule with automatic claims, the default).

At every email that arrives: a "your turn" email goes to the seat to move, once per turn, and no
email to a seat names a card of another seat's hand (the engine's state read then, as
tests/service/test_leaks.py does). At the end: every seat got the game-over email with the
result, every email queued arrived once, and the public record replays to the same end.
"""

from __future__ import annotations

import email.message
import random
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from unittest import mock

from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import select

import engine
from service.db import session_scope
from service.games.loaded import load_game
from service.games.rows import get_game
from service.games.seats import read_seats
from service.games.state import load_state
from service.outbox import MailKind
from service.outbox.models import OutboxMessage
from service.present.game_over_email import result_words
from tests.service.conftest import sign_in_as
from tests.service.play_driver import Submission, forms_of, move_submissions
from tests.service.test_leaks import THREE_PLAYERS, assert_no_card, put_back_by, scrub_email
from tests.worker.conftest import SMTPServer, WorkerProcess, wait_for
from tests.worker.outbox_rows import link_to, links, path_of, rows
from tests.worker.test_delivery import bodies
from tests.worker.test_game_by_mail import Inbox
from tests.worker.turn_games import move_links

RULESET = "battleline-3p"
SEED = "mail-3p-1"
"""The game's secret seed: the deal."""
RNG_SEED = 2
"""The choices of the three players."""
MAX_PLIES = 400
PAGE_ONLY_CHANCE = 0.5
"""How often a seat whose email offers tactics cards that act on the board goes to the private
page to play one (else it may follow their links like any other)."""
DECIDE_LATER_CHANCE = 0.1
"""How often a confirm page's "Then" is left at "decide after playing"."""
PAGE_ONLY_MOVES = ("scout", "redeploy", "deserter", "traitor")
PAGE_ONLY_NOTE = "Play a tactics card:"
FORM = {**THREE_PLAYERS, "ruleset": RULESET, "claims": "advanced"}
PRIVATE_LINK = re.compile(r"/p/[A-Za-z0-9_.\-]+")
SEAT_OF = {THREE_PLAYERS[f"{s}_email"]: s.upper() for s in "abc"}


@dataclass(frozen=True)
class Arrival:
    """An email that arrived, with what its outbox row says about it."""

    kind: str
    seat: str
    game_id: int | None
    text: str
    html: str


def arrival(web: Flask, message: email.message.EmailMessage) -> Arrival:
    with web.app_context(), session_scope() as session:
        row = session.exec(
            select(OutboxMessage).where(OutboxMessage.message_id == message["Message-ID"])
        ).one()
        kind, game_id, addressee = row.kind, row.game_id, row.recipient
    recipient = message["To"].addresses[0].addr_spec
    assert recipient == addressee
    text, html = bodies(message)
    return Arrival(kind, SEAT_OF[recipient], game_id, text, html)


def state_of(web: Flask, game_id: int) -> engine.GameState:
    with web.app_context(), session_scope() as session:
        return load_state(session, load_game(session, game_id))


def assert_no_other_hand(web: Flask, game_id: int, mail: Arrival) -> None:
    """No card of another seat's hand (now) in the email, but for the cards this reader put back
    after a Scout (it knows them), the cut and the claim explanations (see test_leaks)."""
    state = state_of(web, game_id)
    known = put_back_by(web, game_id)[mail.seat]
    hands = {s: list(engine.player_view(state, s).hand) for s in state.ruleset.seats}
    secret = [c for s, hand in hands.items() if s != mail.seat for c in hand if c not in known]
    for body in (mail.text, mail.html):
        assert_no_card(scrub_email(body), secret, f"the {mail.kind} email to {mail.seat}")


def private_link(text: str) -> str:
    """The one private-page link of an email."""
    (found,) = {url for url in links(text) if PRIVATE_LINK.fullmatch(path_of(url))}
    return found


def press(client: FlaskClient, page_url: str) -> str:
    """GET one of our pages (changes nothing), then POST its one form that posts back to it (the
    page's button). Returns where the POST sent us."""
    path = path_of(page_url)
    page = client.get(path)
    assert page.status_code == 200, (path, page.get_data(as_text=True)[-2000:])
    (form,) = [f for f in forms_of(page.get_data(as_text=True)) if f.action == path]
    response = client.post(form.action, data=dict(form.hidden))
    assert response.status_code == 303, response.get_data(as_text=True)[-2000:]
    return response.location


def follow_move_link(client: FlaskClient, url: str, rng: random.Random) -> None:
    """Open a move link (the confirm page), choose the draw that ends the turn (now and then:
    decide later), press the button."""
    path = path_of(url)
    page = client.get(path)
    assert page.status_code == 200, (url, page.get_data(as_text=True)[-2000:])
    (form,) = [f for f in forms_of(page.get_data(as_text=True)) if f.action == path]
    data = dict(form.hidden)
    if "then" in form.selects:
        options = form.selects["then"]
        draws = [o for o in options if o]
        later = "" in options and rng.random() < DECIDE_LATER_CHANCE
        data["then"] = "" if later or not draws else rng.choice(draws)
    response = client.post(form.action, data=data)
    assert response.status_code == 303, response.get_data(as_text=True)[-2000:]


def choose(submissions: list[Submission], rng: random.Random, *, page_only: bool) -> Submission:
    """A button of the private page: a tactics card that needs the page when that is why we came,
    else any."""
    wanted = [s for s in submissions if s.move.lower().startswith(PAGE_ONLY_MOVES)]
    return rng.choice(wanted if page_only and wanted else submissions)


def on_private_page(
    web: Flask,
    client: FlaskClient,
    private_url: str,
    game_id: int,
    seat: str,
    turn: int,
    rng: random.Random,
    *,
    page_only: bool,
) -> list[str]:
    """Press the private page's buttons until the seat's turn ends: the moves pressed."""
    pressed: list[str] = []
    for _ in range(20):
        state = state_of(web, game_id)
        if state.result is not None or state.turn != turn:
            return pressed
        assert state.to_move == seat
        html = client.get(path_of(private_url)).get_data(as_text=True)
        submissions = move_submissions(html, rng)
        assert submissions, f"{seat}'s private page offers no move at ply {state.ply}"
        submission = choose(submissions, rng, page_only=page_only and not pressed)
        response = client.post(submission.action, data=submission.data)
        assert response.status_code == 303, response.get_data(as_text=True)[-2000:]
        pressed.append(submission.move)
    raise AssertionError(f"{seat}'s turn {turn} does not end on the private page")


def test_a_whole_game_for_three_played_by_email(
    web: Flask, smtp: SMTPServer, start_worker: Callable[..., WorkerProcess]
) -> None:
    worker = start_worker(beat=True)
    clients = {seat: web.test_client() for seat in "ABC"}
    inbox = Inbox(smtp, worker)
    rng = random.Random(RNG_SEED)
    started = time.monotonic()

    # Alice, signed in on her browser, creates the game: both invitations go at once.
    sign_in_as(web, clients["A"], FORM["a_email"])
    with mock.patch("service.lobby.lifecycle.secrets.token_hex", lambda _n: SEED):
        created = clients["A"].post("/games/new", data=FORM)
    assert created.status_code == 303 and "/p/" in created.location, created.location

    # Bob and Carol accept from their invitation emails: the deal follows the second.
    invited: list[Arrival] = []
    while len(invited) < 2:
        mail = arrival(web, inbox.next())
        assert mail.kind == MailKind.INVITATION, (mail.kind, mail.seat)
        invited.append(mail)
    assert sorted(m.seat for m in invited) == ["B", "C"]
    for mail in invited:
        accept = link_to(mail.text, "/accept")
        assert accept in mail.html
        assert press(clients[mail.seat], accept) == path_of(accept).removesuffix("/accept")
    game_id = invited[0].game_id
    assert game_id is not None

    kinds: Counter[str] = Counter()
    mailed_turns: list[tuple[int, str]] = []
    over: list[Arrival] = []
    paths: Counter[str] = Counter()
    while len(over) < 3:
        mail = arrival(web, inbox.next())
        assert mail.game_id == game_id
        kinds[mail.kind] += 1
        assert_no_other_hand(web, game_id, mail)
        if mail.kind == MailKind.GAME_OVER:
            over.append(mail)
            continue
        if mail.kind != MailKind.YOUR_TURN:
            continue
        state = state_of(web, game_id)
        assert state.result is None, "a your-turn email after the end"
        assert mail.seat == state.to_move, f"{mail.seat} got the email of {state.to_move}'s turn"
        assert (state.turn, mail.seat) not in mailed_turns, f"turn {state.turn} mailed twice"
        mailed_turns.append((state.turn, mail.seat))
        assert state.ply <= MAX_PLIES, f"the game does not end: {state.ply} moves, seed {SEED}"

        client = clients[mail.seat]
        private_url = private_link(mail.text)
        # The move links are in the HTML part; the text part lists the codes to reply with.
        links = move_links(mail.html)
        page_only = PAGE_ONLY_NOTE in mail.html
        assert links or page_only, f"the email to {mail.seat} offers no move:\n{mail.text}"
        if links and not (page_only and rng.random() < PAGE_ONLY_CHANCE):
            follow_move_link(client, rng.choice(links), rng)
            paths["link"] += 1
        else:
            paths["page-only"] += 1
        pressed = on_private_page(
            web, client, private_url, game_id, mail.seat, state.turn, rng, page_only=page_only
        )
        if pressed:
            paths["page presses"] += len(pressed)
            paths.update(m.split()[0].lower() for m in pressed)
    elapsed = time.monotonic() - started

    # The end: every seat told, with the result; the seed revealed.
    with web.app_context(), session_scope() as session:
        game = get_game(session, game_id)
        assert game.status == "finished" and game.result is not None
        names = {s: p.display_name for s, (_, p) in read_seats(session, game_id).items()}
        public_id, seed = game.public_id, game.seed
    assert seed == SEED
    final = state_of(web, game_id)
    assert final.result is not None
    assert sorted(m.seat for m in over) == ["A", "B", "C"]
    said = result_words(final, names)
    for mail in over:
        assert said in " ".join(mail.text.split()), (said, mail.text)  # however lines wrap
        assert seed in mail.text
        if final.result.winner is not None:
            verdict = (
                "Congratulations: you won."
                if final.result.winner == mail.seat
                else "You lost this one."
            )
            assert verdict in " ".join(mail.text.split())

    # One "your turn" email per turn mailed, to the seat to move; every email arrived once.
    assert kinds[MailKind.GAME_STARTED] == 3
    assert kinds[MailKind.YOUR_TURN] == len(mailed_turns)
    # Every turn was mailed, in order (but a last one that the server's claims ended at once).
    turns = [t for t, _ in mailed_turns]
    assert turns == list(range(1, len(turns) + 1)), turns
    assert len(turns) in (final.turn, final.turn - 1), (len(turns), final.turn)
    assert {s for _, s in mailed_turns} == {"A", "B", "C"}
    wait_for(
        lambda: all(r.status == "sent" for r in rows(web)), 30, "every queued email to be sent"
    )
    ids = smtp.mailbox.message_ids()
    assert len(ids) == len(set(ids)) == len(rows(web))

    # The public record replays to the same end.
    exported = clients["C"].get(f"/games/{public_id}/record.json")
    assert exported.status_code == 200
    data = exported.get_json()
    assert data["seed"] == SEED and data["ruleset"] == RULESET
    replayed = engine.replay(engine.GameRecord.from_json(data))
    assert replayed.result == final.result
    assert engine.state_to_json(replayed) == engine.state_to_json(final)
    ruleset = engine.get_ruleset(RULESET)
    actions = Counter(engine.parse_move(m, ruleset).action.value for m in data["moves"])
    print(
        f"\n{len(mailed_turns)} turns mailed, {final.ply} moves, {len(ids)} emails, "
        f"{final.result.describe()} in {elapsed:.1f}s; moves {dict(actions)}; "
        f"turns by {dict(paths)}"
    )
