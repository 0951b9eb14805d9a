"""No private card leaks: random games played through the service, and at every step every page
that the other seat or the public can fetch is scanned for each card in a hand, by code (on word
boundaries: R1 must not match R10) and by its spoken form from the card macro ("red 4").

What is scanned for the hand of seat S, while the game goes on: the private page of the other
seat, that seat's move-link confirm pages when it is to move, the public page now and at an
earlier position, and the JSON export (refused until the end).

With three seats (``test_no_hand_card_reaches_another_seat_or_the_public_with_three``), the
same for each seat against both others, and every email each seat receives too.

The claim explanations on a private page (and in a "your turn" email) are left out of the scan,
on purpose: the prover names
the opponent's best reachable formation with concrete cards from the *unseen pool* (the decks
and both hands, R13), which may happen to be in a hand without revealing anything. A separate
test shows those explanations depend on open information only. So is the cut (R2): two troop
cards shown before the shuffle, which may later be dealt to anyone. And a seat's own pages may
name the cards that seat put back after a Scout, even once the other seat has drawn them: it
knows them (that is what a Scout is for); the public never sees them.
"""

from __future__ import annotations

import random
import re
from contextlib import nullcontext
from typing import Any
from unittest import mock

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import col, func, select

import engine
from service import tokens
from service.db import session_scope
from service.games.loaded import load_game
from service.games.move_log import move_log
from service.games.rows import get_game
from service.games.seats import read_seats
from service.games.state import load_state
from service.outbox.models import OutboxMessage
from service.present.move_links import move_link_url
from service.templating import card_face
from tests.service.conftest import sign_in_as
from tests.service.play_driver import (
    TOKEN_RE,
    create_and_accept,
    move_submissions,
    pick,
    seat_to_move,
)

PROOFS_RE = re.compile(r'<ul class="proofs">.*?</ul>', re.S)
# The cut (R2) shows two troop cards drawn before the shuffle: public, and independent of the deal.
CUT_RE = re.compile(r"<dt>The cut</dt><dd>.*?</dd>", re.S)
# Signed tokens and random ids are arbitrary text: a code could turn up inside one by chance
# (the mute and unsubscribe links of every email carry one too).
ADDRESS_RE = re.compile(r"/(p|m|me|games|mail/[a-z-]+)/[A-Za-z0-9_.\-]+")
MAX_STEPS = 1500


def card_patterns(card: str) -> list[re.Pattern[str]]:
    """The code and the spoken form of a card, each on word boundaries, case as printed."""
    spoken = card_face(card).label
    return [
        re.compile(rf"(?<![A-Za-z0-9]){re.escape(card)}(?![A-Za-z0-9])"),
        re.compile(rf"(?<![A-Za-z0-9]){re.escape(spoken)}(?![A-Za-z0-9])"),
    ]


def scrub(html: str) -> str:
    return ADDRESS_RE.sub("/ADDRESS", CUT_RE.sub("", PROOFS_RE.sub("", html)))


def assert_no_card(html: str, hand: list[str], where: str) -> None:
    text = scrub(html)
    for card in hand:
        for pattern in card_patterns(card):
            match = pattern.search(text)
            assert match is None, (
                f"{card} ({pattern.pattern}) leaks into {where}: "
                f"...{text[max(0, match.start() - 120) : match.end() + 120]}..."
            )


def test_patterns_respect_word_boundaries() -> None:
    [code, spoken] = card_patterns("R1")
    assert code.search("R1>3") and code.search("(R1)")
    assert not code.search("R10") and not code.search("AR1")
    assert spoken.search("red 1 to flag") and not spoken.search("red 10")


def hands_and_state(app: Flask, game_id: int) -> tuple[dict[str, list[str]], engine.GameState]:
    with app.app_context(), session_scope() as session:
        state = load_state(session, load_game(session, game_id))
    return {s: list(engine.player_view(state, s).hand) for s in state.ruleset.seats}, state


def put_back_by(app: Flask, game_id: int) -> dict[str, set[str]]:
    """The cards each seat put back on a deck after a Scout: that seat knows them (and may see
    another draw them), so its own pages may name them wherever they went."""
    with app.app_context(), session_scope() as session:
        ruleset = engine.get_ruleset(get_game(session, game_id).ruleset)
        known: dict[str, set[str]] = {seat: set() for seat in ruleset.seats}
        for entry in move_log(session, game_id):
            move = engine.parse_move(entry.notation, ruleset)
            known[entry.seat].update(move.cards)
    return known


def confirm_pages(
    app: Flask, client: FlaskClient, game: dict[str, Any], state: engine.GameState, k: int
) -> list[str]:
    """Up to ``k`` move-link confirm pages of the seat to move."""
    moves = engine.legal_moves(state)
    indices = random.Random(state.ply).sample(range(len(moves)), min(k, len(moves)))
    pages = []
    with app.app_context(), session_scope() as session:
        row = read_seats(session, game["id"])[state.to_move][0]
        urls = [move_link_url(row, state.ply, i).removeprefix("http://bl.test") for i in indices]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200
        pages.append(response.get_data(as_text=True))
    return pages


@pytest.mark.parametrize(
    ("ruleset", "claims", "seed"),
    [
        ("battleline", "advanced", 11),
        ("battleline", "standard", 12),
        ("playing-cards", "advanced", 13),
    ],
)
def test_no_hand_card_reaches_the_other_seat_or_the_public(
    app: Flask, client: FlaskClient, ruleset: str, claims: str, seed: int
) -> None:
    rng = random.Random(seed)
    game = create_and_accept(app, client, ruleset=ruleset, claims=claims, seed=f"leaks-{seed}")
    public = f"/games/{game['public_id']}"
    scouted = False
    for _ in range(MAX_STEPS):
        hands, state = hands_and_state(app, game["id"])
        if state.result is not None:
            break
        mover = state.to_move
        waiting = "B" if mover == "A" else "A"
        known = put_back_by(app, game["id"])
        secret = {
            s: [c for c in hands[s] if c not in known["B" if s == "A" else "A"]] for s in hands
        }
        mover_page = client.get(f"/p/{game['token'][mover]}").get_data(as_text=True)
        assert_no_card(mover_page, secret[waiting], f"{mover}'s private page")
        waiting_page = client.get(f"/p/{game['token'][waiting]}").get_data(as_text=True)
        assert_no_card(waiting_page, secret[mover], f"{waiting}'s private page")
        for confirm in confirm_pages(app, client, game, state, k=2):
            assert_no_card(confirm, secret[waiting], f"{mover}'s move-link page")
        for url in (public, f"{public}?ply={rng.randrange(state.ply + 1)}"):
            page = client.get(url).get_data(as_text=True)
            assert_no_card(page, hands["A"] + hands["B"], url)
        export = client.get(f"{public}/record.json")
        assert export.status_code == 403
        assert set(export.get_json()) == {"error", "title", "message"}
        submission = pick(move_submissions(mover_page, rng), rng)
        scouted = scouted or submission.move == "return"
        response = client.post(submission.action, data=submission.data)
        assert response.status_code == 303, response.get_data(as_text=True)
    else:
        raise AssertionError("the game did not end")
    if ruleset == "battleline":
        # The face-down returns of a Scout were part of the walk (or this seed never scouted).
        assert scouted or "SCOUT" not in str(state.discards)


def test_claim_explanations_use_open_information_only(app: Flask, client: FlaskClient) -> None:
    """Shuffling every unseen card (the other hand and the decks) among themselves does not change
    what a seat's page says about its claims."""
    rng = random.Random(5)
    game = create_and_accept(app, client, ruleset="no-tactics")
    checked = 0
    for _ in range(200):
        _, state = hands_and_state(app, game["id"])
        if state.result is not None:
            break
        me = state.to_move
        them = 1 - engine.SEATS.index(me)
        hidden = [*state.hands[them], *state.troop_deck]
        rng.shuffle(hidden)
        n = len(state.hands[them])
        hands = list(state.hands)
        hands[them] = tuple(hidden[:n])
        shuffled = state.evolve(hands=tuple(hands), troop_deck=tuple(hidden[n:]))
        assert engine.claim_proofs(shuffled, me) == engine.claim_proofs(state, me)
        checked += 1
        found = seat_to_move(client, game)
        assert found is not None
        submission = pick(move_submissions(found[1], rng), rng)
        client.post(submission.action, data=submission.data)
    assert checked > 20


# --- three seats ------------------------------------------------------------------------------

THREE_PLAYERS = {
    "a_name": "Alice",
    "a_email": "alice@example.org",
    "b_name": "Bob",
    "b_email": "bob@example.org",
    "c_name": "Carol",
    "c_email": "carol@example.org",
    "days_per_move": "3",
    "visibility": "unlisted",
}
URL_RE = re.compile(r"https?://[^\s\"'<>]+")
# In an email: the cut (R2, public and drawn before the shuffle) and the explanations of claims
# (the prover may name cards of the unseen pool), as the proofs on a page.
EMAIL_CUT_RE = re.compile(r"The cut:(?:</strong>)?[^<]*?(?:plays first|previous game\))")
EMAIL_CLAIM_REASON_RE = re.compile(r"<li>Flag \d+:.*?</li>|^\s*- Flag \d+: .*$", re.S | re.M)


def create_and_accept_three(
    app: Flask,
    client: FlaskClient,
    *,
    ruleset: str = "battleline-3p",
    claims: str = "advanced",
    seed: str | None = None,
) -> dict[str, Any]:
    """A game for three created with the new-game form by Alice, signed in (the invitations go
    at once), then accepted by Bob and by Carol through their links: every seat's private
    token, the game id and its public id. ``seed`` fixes the deal."""
    sign_in_as(app, client, THREE_PLAYERS["a_email"])
    form = {**THREE_PLAYERS, "ruleset": ruleset, "claims": claims}
    with (
        mock.patch("service.lobby.lifecycle.secrets.token_hex", lambda _n: seed)
        if seed
        else nullcontext()
    ):
        created = client.post("/games/new", data=form)
    assert created.status_code == 303, created.get_data(as_text=True)
    match = TOKEN_RE.search(created.location)
    assert match, created.location
    token = {"A": match.group(1)}
    with app.app_context():
        game_id = tokens.read_private_token(token["A"]).game_id
        for seat in ("B", "C"):
            token[seat] = tokens.make_private_token(game_id, seat, 0)
    for seat in ("B", "C"):
        assert client.post(f"/p/{token[seat]}/accept").status_code == 303
    with app.app_context(), session_scope() as session:
        game = get_game(session, game_id)
        assert game.status == "active", game.status
        public_id = game.public_id
    return {"id": game_id, "public_id": public_id, "token": token}


def scrub_email(body: str) -> str:
    return URL_RE.sub("URL", EMAIL_CUT_RE.sub("", EMAIL_CLAIM_REASON_RE.sub("", body)))


def new_emails(app: Flask, after_id: int) -> list[OutboxMessage]:
    """The outbox rows queued after the row ``after_id``."""
    with app.app_context(), session_scope() as session:
        return list(
            session.exec(select(OutboxMessage).where(col(OutboxMessage.id) > after_id)).all()
        )


def last_email_id(app: Flask) -> int:
    with app.app_context(), session_scope() as session:
        return session.exec(select(func.max(OutboxMessage.id))).one() or 0


@pytest.mark.parametrize(
    ("ruleset", "claims", "seed"),
    [("battleline-3p", "advanced", 31), ("no-tactics-3p", "standard", 32)],
)
def test_no_hand_card_reaches_another_seat_or_the_public_with_three(
    app: Flask, client: FlaskClient, ruleset: str, claims: str, seed: int
) -> None:
    """For each of the three seats: no card of another seat's hand in its private page, its
    move-link pages, the emails it receives; none of any hand on the public page."""
    rng = random.Random(seed)
    game = create_and_accept_three(app, client, ruleset=ruleset, claims=claims, seed=f"3p-{seed}")
    seats = engine.get_ruleset(ruleset).seats
    seat_of = {THREE_PLAYERS[f"{s.lower()}_email"]: s for s in seats}
    public = f"/games/{game['public_id']}"
    mailed = 0
    # The deal's emails (the game started, the first "your turn") against the hands as dealt.
    pending_mail = new_emails(app, 0)
    for _ in range(MAX_STEPS):
        hands, state = hands_and_state(app, game["id"])
        known = put_back_by(app, game["id"])

        # The cards of the other seats' hands that each reader may not know.
        secret = {
            reader: [c for s in seats if s != reader for c in hands[s] if c not in known[reader]]
            for reader in seats
        }
        for row in pending_mail:
            reader = seat_of[row.recipient]
            for body in (row.text_body, row.html_body):
                assert_no_card(scrub_email(body), secret[reader], f"{row.kind} email to {reader}")
            mailed += 1
        if state.result is not None:
            break
        mover = state.to_move
        pages = {s: client.get(f"/p/{game['token'][s]}").get_data(as_text=True) for s in seats}
        for reader, page in pages.items():
            assert_no_card(page, secret[reader], f"{reader}'s private page")
        for confirm in confirm_pages(app, client, game, state, k=2):
            assert_no_card(confirm, secret[mover], f"{mover}'s move-link page")
        for url in (public, f"{public}?ply={rng.randrange(state.ply + 1)}"):
            page = client.get(url).get_data(as_text=True)
            assert_no_card(page, [c for s in seats for c in hands[s]], url)
        assert client.get(f"{public}/record.json").status_code == 403
        last_id = last_email_id(app)
        submission = pick(move_submissions(pages[mover], rng), rng)
        response = client.post(submission.action, data=submission.data)
        assert response.status_code == 303, response.get_data(as_text=True)
        pending_mail = new_emails(app, last_id)
    else:
        raise AssertionError("the game did not end")
    assert mailed > 3, "emails were scanned"


def test_no_private_message_reaches_the_public_another_game_or_another_email(
    app: Flask, client: FlaskClient
) -> None:
    """Messages said with every move of a game (from the page, each unique) appear on no public
    page at any ply, in no JSON record, on no page of another game, and in no email but the
    other seat's of that game."""
    rng = random.Random(24)
    game = create_and_accept(app, client, seed="messages-1", visibility="public")
    other = create_and_accept(app, client, seed="messages-2", visibility="public")
    said: list[str] = []
    for step in range(30):
        _hands, state = hands_and_state(app, game["id"])
        mover = state.to_move
        page = client.get(f"/p/{game['token'][mover]}").get_data(as_text=True)
        submission = pick(move_submissions(page, rng), rng)
        words = f"whisper{step}x{mover} <i>see https://example.org/{step}</i>"
        said.append(f"whisper{step}x{mover}")
        data = {**submission.data, "message": words}
        assert client.post(submission.action, data=data).status_code == 303
    state = hands_and_state(app, game["id"])[1]
    resign = {"ply": str(state.ply), "move": "resign", "message": "whisperlast"}
    assert client.post(f"/p/{game['token'][state.to_move]}/move", data=resign).status_code == 303
    said.append("whisperlast")
    public = f"/games/{game['public_id']}"
    record = client.get(f"{public}/record.json")
    assert record.status_code == 200
    scanned = {f"{public}/record.json": record.get_data(as_text=True)}
    for url in (
        public, f"{public}?ply=0", f"{public}?ply=10", f"{public}?ply=25", "/games",
        f"/games/{other['public_id']}",
        f"/p/{other['token']['A']}", f"/p/{other['token']['B']}",
    ):  # fmt: skip
        scanned[url] = client.get(url).get_data(as_text=True)
    for url, body in scanned.items():
        assert "whisper" not in body, url
    # Both seats' own pages hold the conversation (each seat reads the other's messages).
    for seat in ("A", "B"):
        assert "whisper" in client.get(f"/p/{game['token'][seat]}").get_data(as_text=True)
    with app.app_context(), session_scope() as session:
        seats = {s: p.email for s, (_, p) in read_seats(session, game["id"]).items()}
        emails = session.exec(select(OutboxMessage)).all()
    carried = 0
    for email in emails:
        body = (email.text_body or "") + (email.mime or "")
        carried += "whisper" in body
        for words in said:
            if words not in body:
                continue
            speaker = words.removeprefix("whisper").split("x")[-1]
            assert email.game_id == game["id"], (words, email.kind)
            assert email.recipient != seats.get(speaker), (words, email.kind, email.recipient)
    assert carried, "the other seat's emails carry the messages"
