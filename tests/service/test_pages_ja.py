"""Every page kind in Japanese (issue 23): requested with ``Accept-Language: ja``, each page is
``<html lang="ja">`` and its visible text (what a reader sees or hears: text, alt texts,
aria-labels, titles, placeholders) holds no English word outside the few things that are never
translated (``english_words`` says which, and why)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from html.parser import HTMLParser
from types import SimpleNamespace

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import update
from sqlmodel import col, select

import engine
from service import clock, tokens
from service.db import session_scope
from service.games.loaded import load_game
from service.games.rows import get_game, lock_game
from service.games.seats import read_seats
from service.inbound.confirm import make_token
from service.inbound_models import InboundMessage
from service.lobby.forms import parse_new_game
from service.lobby.lifecycle import accept_invitation, create_game
from service.models import Game, Series, Snapshot
from service.outbox.models import OutboxMessage
from service.outbox.signed import MailPurpose
from service.outbox.signed import make_token as make_mail_token
from service.present.choices import move_choices
from service.present.game_emails import queue_your_turn
from service.present.move_links import move_link_url
from tests.engine.builders import position
from tests.service.conftest import VALID_FORM, sign_in_as
from tests.service.play_driver import forms_of

JA = {"Accept-Language": "ja"}

NAMES = {"Alice", "Bob", "Carol"}
"""The players' names in these games: a name is never translated."""

UNSEEN_ELEMENTS = {"script", "style"}
"""Not text a reader sees."""
NOT_PROSE_ELEMENTS = {"code", "pre"}
"""Commands, notation and an email's own text shown as it was written: never translated."""
NOT_PROSE_CLASSES = {"mono", "mail-text", "mail-subject"}
"""Hashes, seeds, header values and an email's subject, shown as they are (an email is written
in its recipient's language, which these pages only display)."""
READ_ATTRIBUTES = ("alt", "aria-label", "title", "placeholder")
VOID = {"area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
"""Elements without an end tag."""

CODE_RE = re.compile(r"^[A-Z][A-Z0-9-]*$")
"""Card codes (``R7``, ``SCOUT``), rule numbers (``R12``) and acronyms (``UTC``, ``SHA``,
``JSON``, ``HTML``): written in capitals, they are notation, not English prose."""
URL_RE = re.compile(r"(https?://|/)\S+|[\w.+-]+@[\w-]+(\.[\w-]+)+")


class VisibleText(HTMLParser):
    """The words of a page a reader meets: text and the attributes read aloud, but not scripts,
    styles, code, nor text marked as written in another language (``lang="en"``: the language
    switch names English in English) or as never translated (``translate="no"``: the IANA
    names of time zones)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.words: list[str] = []
        self.html_lang: str | None = None
        self._skipping: list[bool] = []

    def _skipped(self) -> bool:
        return any(self._skipping)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "html":
            self.html_lang = found.get("lang")
        classes = set((found.get("class") or "").split())
        skip = (
            tag in UNSEEN_ELEMENTS
            or tag in NOT_PROSE_ELEMENTS
            or bool(classes & NOT_PROSE_CLASSES)
            or found.get("lang") not in (None, "ja")
            or found.get("translate") == "no"
        )
        if not skip and not self._skipped():
            self.words += [found[name] or "" for name in READ_ATTRIBUTES if found.get(name)]
        if tag not in VOID:
            self._skipping.append(skip)

    def handle_endtag(self, tag: str) -> None:
        if tag not in VOID and self._skipping:
            self._skipping.pop()

    def handle_data(self, data: str) -> None:
        if not self._skipped():
            self.words.append(data)


def english_words(html: str) -> list[str]:
    """The English words of a page's visible text: ASCII words that are not a name, a card
    code or other notation in capitals, a link or an address."""
    parser = VisibleText()
    parser.feed(html)
    text = URL_RE.sub(" ", " ".join(parser.words))
    return [
        word
        for word in re.findall(r"[A-Za-z]+(?:'[a-z]+)?", text)
        if word not in NAMES and not CODE_RE.match(word)
    ]


def assert_japanese(html: str, page: str) -> None:
    parser = VisibleText()
    parser.feed(html)
    assert parser.html_lang == "ja", f"{page}: <html lang={parser.html_lang!r}>"
    left = english_words(html)
    assert not left, f"{page}: English left: {sorted(set(left))}"
    # Japanese sets no space after a sentence (service.i18n.sentence_gap, not a literal " ").
    spaced = [chunk for chunk in parser.words if re.search(r"。\s+\S", chunk)]
    assert not spaced, f"{page}: a space after a sentence: {spaced}"


def get_ja(client: FlaskClient, url: str, status: int = 200) -> str:
    response = client.get(url, headers=JA)
    assert response.status_code == status, (url, response.status_code)
    return response.get_data(as_text=True)


def test_the_checker_finds_english_and_lets_names_codes_and_links_be() -> None:
    page = (
        '<html lang="ja"><head><title>Alice</title><style>p{}</style></head><body>'
        '<p title="Play a card">Alice の R7 を 3 に (UTC)</p><a href="/x">https://e.org/a</a>'
        '<code>R7&gt;3 troops</code><button lang="en">English</button><script>var a;</script>'
        '<span aria-label="held by Bob">x</span></body></html>'
    )
    assert english_words(page) == ["Play", "a", "card", "held", "by", "x"]


BOB_HAND = ["Y4", "Y5", "Y6", "Y7", "Y8", "Y9", "Y10"]


@pytest.fixture
def mid_game(app: Flask, client: FlaskClient) -> Iterator[SimpleNamespace]:
    """A dealt public game at a chosen position, A (Alice) to move with every kind of tactics
    card in hand, flags she can claim and others she cannot, then her claim of flag 1 made
    through her private page (the move list explains it)."""
    with app.app_context(), session_scope() as session:
        game, seats = create_game(session, parse_new_game({**VALID_FORM, "visibility": "public"}))
        assert game.id is not None
        game_id, public_id = game.id, game.public_id
    with app.app_context(), session_scope() as session:
        accept_invitation(session, tokens.SeatToken(game_id=game_id, seat="B", generation=0))
    state = position(
        claims="advanced",
        flags={
            1: {"A": ["R8", "R9", "R10"], "B": ["Y1", "Y2", "Y3"]},
            2: {"A": ["G5", "G6", "G7"], "B": ["B9"]},
            3: {"A": ["P1", "O2", "G3"], "B": []},
            4: {"A": ["P4", "P6"], "B": ["B8"]},
            5: {"A": ["O7"], "B": ["O3", "O4"], "env": ["MUD:B"]},
        },
        hands={"A": ["R1", "SCOUT", "REDEPLOY", "DESERTER", "TRAITOR", "FOG", "DARIUS"],
               "B": BOB_HAND},
        tactics_played=(1, 1),
        leader_played=(True, False),
        ply=0,
    )  # fmt: skip
    with app.app_context(), session_scope() as session:
        game = lock_game(session, game_id)
        session.execute(
            update(Snapshot)
            .where(col(Snapshot.game_id) == game_id, col(Snapshot.ply) == 0)
            .values(state=engine.state_to_json(state))
        )
        game.to_move = "A"
        game.deadline = clock.now() + timedelta(days=2, hours=5)
        session.add(game)
        queue_your_turn(session, load_game(session, game_id), state)
        token = {s: tokens.make_private_token(game_id, s, 0) for s in seats}
    page = get_ja(client, f"/p/{token['A']}")
    (claim,) = [f for f in forms_of(page) if ("move", "claim 1") in f.buttons]
    posted = client.post(claim.action, data={**claim.hidden, "move": "claim 1"}, headers=JA)
    assert posted.status_code == 303
    yield SimpleNamespace(id=game_id, public_id=public_id, token=token)


def test_a_private_page_mid_game_with_tactics_and_proofs(
    client: FlaskClient, mid_game: SimpleNamespace
) -> None:
    page = get_ja(client, f"/p/{mid_game.token['A']}")
    # What the page must hold for the check to mean something: tactics, held tactics, proofs,
    # the claim explained in the move list, the board.
    for shown in ('value="SCOUT"', "REDEPLOY ", "DESERTER ", "TRAITOR ", 'class="unplayable"',
                  'class="proof"', 'class="why"', 'class="line"', "data-deadline"):  # fmt: skip
        assert shown in page, shown
    assert_japanese(page, "private page (to move)")
    assert_japanese(get_ja(client, f"/p/{mid_game.token['B']}"), "private page (waiting)")
    assert_japanese(get_ja(client, f"/p/{mid_game.token['A']}/resign"), "resign")
    # The same page in English right after: no word drawn for the Japanese page is kept for it.
    english = client.get(f"/p/{mid_game.token['A']}").get_data(as_text=True)
    assert '<html lang="en">' in english
    for words in ('aria-label="Play red 1"', '<span class="what">your</span>', "Turn </span>"):
        assert words in english, words
    assert not re.search("[\u3040-\u30ff]", english.split("<footer>")[0]), "kana on an English page"


def test_the_confirm_page_of_a_move_link(
    app: Flask, client: FlaskClient, mid_game: SimpleNamespace
) -> None:
    with app.app_context(), session_scope() as session:
        game = get_game(session, mid_game.id)
        seat = read_seats(session, mid_game.id)["A"][0]
        state = engine.state_from_json(
            session.exec(
                select(Snapshot.state).where(Snapshot.game_id == mid_game.id).order_by(
                    col(Snapshot.ply).desc())
            ).first()
        )  # fmt: skip
        choices = move_choices(state, "A")
        urls = [move_link_url(seat, game.ply, group.choices[0].index) for group in choices.plays]
        urls += [move_link_url(seat, game.ply, d.choices[0].index) for d in choices.redeploys]
    assert urls
    for url in urls:
        assert_japanese(get_ja(client, url.split("localhost", 1)[-1]), f"move link {url}")


def test_the_public_page_the_lists_and_the_outbox(
    app: Flask, client: FlaskClient, mid_game: SimpleNamespace
) -> None:
    public = f"/games/{mid_game.public_id}"
    assert_japanese(get_ja(client, public), "public page")
    assert_japanese(get_ja(client, f"{public}?ply=0"), "public page at the deal")
    assert_japanese(get_ja(client, "/games"), "games to watch")
    with app.app_context(), session_scope() as session:
        alice = read_seats(session, mid_game.id)["A"][1]
        assert alice.id is not None
        games_token = tokens.make_games_token(alice.id, alice.token_generation)
        row = session.exec(select(OutboxMessage).order_by(col(OutboxMessage.id))).first()
        assert row is not None
        outbox_id = row.id
    assert_japanese(get_ja(client, f"/me/{games_token}"), "my games (link)")
    sign_in_as(app, client, "alice@example.org")
    # Signing in on an English page chose English for her: she switches.
    assert client.post("/language", data={"language": "ja", "next": "/me"}).status_code == 303
    assert_japanese(get_ja(client, f"/me/{games_token}"), "my games (signed in)")
    assert_japanese(get_ja(client, "/me"), "my games request")
    sent = client.post("/me", data={"email": "alice@example.org"}, headers=JA)
    assert_japanese(sent.get_data(as_text=True), "my games request sent")
    assert_japanese(get_ja(client, "/dev/outbox"), "outbox")
    assert_japanese(get_ja(client, f"/dev/outbox/{outbox_id}"), "outbox message")


def test_the_new_game_form_check_email_and_invitation(app: Flask, client: FlaskClient) -> None:
    assert_japanese(get_ja(client, "/games/new"), "new game")
    created = client.post("/games/new", data=VALID_FORM, headers=JA)
    assert created.status_code == 303
    assert_japanese(get_ja(client, created.location), "check your email")
    with app.app_context(), session_scope() as session:
        game = session.exec(select(Game).order_by(col(Game.id).desc())).first()
        assert game is not None and game.id is not None
        token_b = tokens.make_private_token(game.id, "B", 0)
        token_a = tokens.make_private_token(game.id, "A", 0)
    assert_japanese(get_ja(client, f"/p/{token_a}"), "private page before the invitation")
    assert_japanese(get_ja(client, f"/p/{token_b}/accept"), "invitation")


def test_a_game_against_the_computer_before_its_deal(app: Flask, client: FlaskClient) -> None:
    form = {**VALID_FORM, "b_computer": "normal", "b_name": "", "b_email": ""}
    created = client.post("/games/new", data=form, headers=JA)
    assert created.location.endswith("?deal=1")
    assert_japanese(get_ja(client, created.location), "check your email (the computer)")
    with app.app_context(), session_scope() as session:
        game = session.exec(select(Game).order_by(col(Game.id).desc())).first()
        assert game is not None and game.id is not None
        token_a = tokens.make_private_token(game.id, "A", 0)
    page = get_ja(client, f"/p/{token_a}")
    assert ">カードを配る</button>" in page
    assert_japanese(page, "private page before the deal")


@pytest.mark.parametrize(
    "typed",
    [
        {"a_name": "Al\nice"},
        {"a_name": "\u200b"},
        {"a_name": "A" * 41},
        {"a_name": "Al\u202eice"},
        {"a_name": "=?utf-8?q?x?="},
        {"b_email": ""},
        {"b_email": "bob@" + "b" * 250 + ".org"},
        {"b_email": "bob"},
        {"b_email": "bob@computer.invalid"},
    ],
)
def test_the_new_game_form_says_what_is_wrong_in_japanese(
    client: FlaskClient, typed: dict[str, str]
) -> None:
    refused = client.post("/games/new", data={**VALID_FORM, **typed}, headers=JA)
    assert refused.status_code == 422
    assert_japanese(refused.get_data(as_text=True), f"new game form refusing {typed}")


def test_a_series_page(app: Flask, client: FlaskClient) -> None:
    form = {**VALID_FORM, "series": "points", "series_points": "15"}
    with app.app_context(), session_scope() as session:
        game, _ = create_game(session, parse_new_game(form))
        assert game.id is not None
        game_id = game.id
    with app.app_context(), session_scope() as session:
        accept_invitation(session, tokens.SeatToken(game_id=game_id, seat="B", generation=0))
    with app.app_context(), session_scope() as session:
        series = session.exec(
            select(Series).where(Series.id == get_game(session, game_id).series_id)
        ).one()
        series_id = series.public_id
        token = tokens.make_private_token(game_id, "A", 0)
    assert_japanese(get_ja(client, f"/series/{series_id}"), "series")
    assert_japanese(get_ja(client, f"/p/{token}"), "private page of a series' game")
    assert_japanese(get_ja(client, f"/p/{token}/leave-series"), "leave the series")


def test_the_confirm_page_of_a_reply(
    app: Flask, client: FlaskClient, mid_game: SimpleNamespace
) -> None:
    with app.app_context(), session_scope() as session:
        game = get_game(session, mid_game.id)
        seat = read_seats(session, mid_game.id)["A"][0]
        row = InboundMessage(
            message_id="<reply@example.org>",
            sender="alice@example.org",
            received_at=clock.now(),
            outcome="held",
            game_id=mid_game.id,
            seat="A",
            held_moves="A: R1>3\nA: draw troops",
        )
        session.add(row)
        session.flush()
        assert row.id is not None
        token = make_token(seat, game.ply, row.id)
    assert_japanese(get_ja(client, f"/r/{token}"), "confirm a reply")


def test_an_error_page(client: FlaskClient) -> None:
    assert_japanese(get_ja(client, "/nothing-here", status=404), "404")


def test_the_pages_of_a_finished_game(
    app: Flask, client: FlaskClient, mid_game: SimpleNamespace
) -> None:
    page = get_ja(client, f"/p/{mid_game.token['A']}/resign")
    (resign,) = [f for f in forms_of(page) if ("move", "resign") in f.buttons]
    posted = client.post(resign.action, data={**resign.hidden, "move": "resign"}, headers=JA)
    assert posted.status_code == 303
    for seat in ("A", "B"):
        assert_japanese(get_ja(client, f"/p/{mid_game.token[seat]}"), f"game over ({seat})")
    assert_japanese(get_ja(client, f"/p/{mid_game.token['B']}/rematch"), "rematch")
    assert_japanese(get_ja(client, f"/games/{mid_game.public_id}"), "public page, finished")
    assert_japanese(get_ja(client, "/games"), "games to watch, finished")
    with app.app_context(), session_scope() as session:
        bob = read_seats(session, mid_game.id)["B"][1]
        assert bob.id is not None
        games_token = tokens.make_games_token(bob.id, bob.token_generation)
    assert_japanese(get_ja(client, f"/me/{games_token}"), "my games, finished")


def test_the_mail_switch_pages(app: Flask, client: FlaskClient, mid_game: SimpleNamespace) -> None:
    with app.app_context(), session_scope() as session:
        alice = read_seats(session, mid_game.id)["A"][1]
        assert alice.id is not None
        unsubscribe = make_mail_token(MailPurpose.UNSUBSCRIBE, alice.id)
        mute = make_mail_token(MailPurpose.MUTE_GAME, alice.id, mid_game.id)
        refuse = make_mail_token(MailPurpose.REFUSE_INVITATIONS, alice.id)
    for url in (f"/mail/unsubscribe/{unsubscribe}", f"/mail/mute/{mute}",
                f"/mail/refuse-invitations/{refuse}"):  # fmt: skip
        assert_japanese(get_ja(client, url), url.split("/")[2])
        done = client.post(url, headers=JA)
        assert done.status_code == 200, done.status_code
        assert_japanese(done.get_data(as_text=True), f"{url.split('/')[2]}, done")


def test_a_private_page_while_scouting(client: FlaskClient, mid_game: SimpleNamespace) -> None:
    url = f"/p/{mid_game.token['A']}"
    for step in ("SCOUT", "draw troops", "draw troops", "draw tactics"):
        page = get_ja(client, url)
        (form,) = [f for f in forms_of(page) if ("move", step) in f.buttons]
        posted = client.post(form.action, data={**form.hidden, "move": step}, headers=JA)
        assert posted.status_code == 303, step
        assert_japanese(get_ja(client, url), f"scouting, after {step}")


def test_the_pages_of_a_game_for_three(app: Flask, client: FlaskClient) -> None:
    form = {**VALID_FORM, "ruleset": "battleline-3p", "c_name": "Carol",
            "c_email": "carol@example.org", "visibility": "public"}  # fmt: skip
    with app.app_context(), session_scope() as session:
        game, _ = create_game(session, parse_new_game(form))
        assert game.id is not None
        game_id, public_id = game.id, game.public_id
        tokens_by_seat = {s: tokens.make_private_token(game_id, s, 0) for s in "ABC"}
    with app.app_context(), session_scope() as session:
        accept_invitation(session, tokens.SeatToken(game_id=game_id, seat="B", generation=0))
    # One of two invited has accepted: each seat's page says who is awaited.
    for seat in "ABC":
        assert_japanese(get_ja(client, f"/p/{tokens_by_seat[seat]}"), f"for three, invited {seat}")
    with app.app_context(), session_scope() as session:
        accept_invitation(session, tokens.SeatToken(game_id=game_id, seat="C", generation=0))
    for seat in "ABC":
        assert_japanese(get_ja(client, f"/p/{tokens_by_seat[seat]}"), f"for three, dealt {seat}")
    assert_japanese(get_ja(client, f"/games/{public_id}"), "for three, public page")
