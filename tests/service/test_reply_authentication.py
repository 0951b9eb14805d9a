"""A reply acts for its seat only when our own receiving server authenticated its sender
(docs/security.md): else nothing is played and the seat's own address gets a link to confirm
the moves. Forged mail never uses up the hourly allowance of a seat's authenticated replies.
The DMARC/DKIM cases go through the real SMTP receiver (aiosmtpd) with real DKIM signatures
(dkimpy) and a test DNS resolver. On SQLite and PostgreSQL."""

from __future__ import annotations

import email
import html
import smtplib
import socket
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from flask import Flask
from hypothesis import given
from hypothesis import strategies as st

from service.inbound.authentication import Verdict, aligned, authenticate
from service.inbound.confirm import CONFIRMATIONS_PER_HOUR
from service.inbound.outcomes import Outcome
from service.inbound.receive import receive
from service.inbound.smtp import receiver
from service.inbound.verify import stamp
from tests.service.conftest import empty_and_close, make_test_app
from tests.service.mail_auth import AUTHSERV_ID, TestResolver, signed, with_results
from tests.service.replies import (
    ReplyGame,
    inbound_rows,
    last_outbox_id,
    new_game,
    outbox_after,
    position,
    reply_bytes,
)
from tests.worker.outbox_rows import link_to, path_of

OURS = AUTHSERV_ID


@pytest.fixture
def strict(database_url: str) -> Iterator[Flask]:
    """An app as production runs it: From is not trusted, our server is ``mx.bl.test``."""
    app = make_test_app(database_url, INBOUND_AUTHSERV_ID=OURS, INBOUND_TRUST_FROM=False)
    yield app
    empty_and_close(app)


@dataclass
class Game(ReplyGame):
    def reply(self, text: str | None = None, **options: object) -> bytes:
        words = self.turn() if text is None else text
        return reply_bytes(self.row(), words, **options)  # type: ignore[arg-type]

    def receive(self, raw: bytes, **options: object) -> Outcome:
        with self.app.app_context():
            return receive(raw, **options).outcome  # type: ignore[arg-type]

    @property
    def ply(self) -> int:
        return position(self.app, self.game_id).ply


def start(app: Flask) -> Game:
    client = app.test_client()
    game_id, now = new_game(app, client)
    return Game(app, client, game_id, now.to_move)


def held_and_asked(game: Game, before: int, log: tuple[str, ...]) -> str:
    """Nothing was played, and only the seat's own address was asked to confirm: its link."""
    assert position(game.app, game.game_id).log == log
    rows = outbox_after(game.app, before)
    assert [(r.kind, r.recipient) for r in rows] == [("reply_confirm", game.mover_email)]
    assert rows[0].headers["Auto-Submitted"] == "auto-replied"
    return link_to(rows[0].text_body, "/r/")


def test_a_forged_resign_with_dmarc_fail_plays_nothing(strict: Flask) -> None:
    game = start(strict)
    before, log = last_outbox_id(strict), position(strict, game.game_id).log
    forged = game.reply("I resign", extra={"Authentication-Results": f"{OURS}; dmarc=fail "
                                           "header.from=example.org"})  # fmt: skip
    outcome = game.receive(forged)
    assert position(strict, game.game_id).status == "active"
    assert outcome is Outcome.UNAUTHENTICATED
    held_and_asked(game, before, log)
    assert "dmarc=fail" in inbound_rows(strict)[-1].detail


RESULTS = [
    # (Authentication-Results fields, top first; whether the reply acts; and where From is trusted)
    ([f"{OURS}; dmarc=pass header.from=example.org"], True, True),
    ([f"{OURS}; dkim=pass header.d=example.org"], True, True),
    ([f"{OURS}; dkim=pass header.d=mail.example.org"], True, True),
    ([f"{OURS}; spf=pass smtp.mailfrom=bounces@example.org"], True, True),
    ([f"{OURS}; dkim=none", f"{OURS}; dmarc=pass header.from=example.org"], True, True),
    ([f"{OURS.upper()} (a comment); dmarc=pass header.from=example.org"], True, True),
    ([f"{OURS}; dkim=fail header.d=list.example; dkim=pass header.d=example.org"], True, True),
    ([f"{OURS}; dkim=pass header.d=evil.example"], False, False),
    ([f"{OURS}; dkim=fail header.d=example.org"], False, False),
    ([f"{OURS}; spf=softfail smtp.mailfrom=example.org"], False, False),
    ([f"{OURS}; dkim=pass header.d=notexample.org"], False, False),
    ([f"{OURS}; spf=pass smtp.mailfrom=x@evil.example"], False, False),
    ([f"{OURS}; dmarc=pass header.from=evil.example"], False, False),
    ([f"{OURS}; dkim=pass header.d=example.org; dmarc=fail header.from=example.org"], False, False),
    ([f"{OURS}; dkim=none"], False, True),
    (["mx.other.example; dmarc=pass header.from=example.org"], False, True),
    (["mx.other.example; none", f"{OURS}; dmarc=pass header.from=example.org"], False, True),
    (["not a result at all", f"{OURS}; dmarc=pass header.from=example.org"], False, True),
    ([], False, True),
]


@pytest.mark.parametrize(("fields", "acts", "acts_trusting_from"), RESULTS)
def test_only_our_servers_topmost_aligned_pass_counts(
    fields: list[str], acts: bool, acts_trusting_from: bool
) -> None:
    raw = with_results(b"From: Alice <alice@example.org>\r\nSubject: x\r\n\r\nR1>1\r\n", *fields)
    message = email.message_from_bytes(raw)
    config = {"INBOUND_AUTHSERV_ID": OURS, "INBOUND_TRUST_FROM": False}
    verdict = authenticate(message, "alice@example.org", config)
    assert verdict.authenticated is acts, verdict
    # Trusting From stands in only where our server said nothing either way.
    trusting = authenticate(message, "alice@example.org", {**config, "INBOUND_TRUST_FROM": True})
    assert trusting.authenticated is acts_trusting_from, trusting


def test_trust_from_is_an_explicit_choice(strict: Flask, database_url: str) -> None:
    message = email.message_from_bytes(b"From: alice@example.org\r\n\r\nR1>1\r\n")
    assert authenticate(message, "alice@example.org", {"INBOUND_TRUST_FROM": True}) == Verdict(
        True, "From trusted (INBOUND_TRUST_FROM)"
    )
    assert not authenticate(message, "alice@example.org", {}).authenticated
    assert strict.config["INBOUND_TRUST_FROM"] is False
    testing = make_test_app(database_url)
    try:  # outside production (the embedded default, the reply box) it is on unless said
        assert testing.config["INBOUND_TRUST_FROM"] is True
    finally:
        empty_and_close(testing)


@given(st.from_regex(r"[a-z]{1,8}(\.[a-z]{1,8}){0,3}", fullmatch=True),
       st.from_regex(r"[a-z]{1,8}(\.[a-z]{1,8}){0,3}", fullmatch=True))  # fmt: skip
def test_alignment_is_a_parent_or_the_same_domain(a: str, b: str) -> None:
    assert aligned(a, a)
    assert aligned(a, b) == aligned(b, a)
    assert aligned(a, b) == (a == b or a.endswith("." + b) or b.endswith("." + a))
    assert not aligned("x" + a, a)  # a longer label is another domain


def test_the_confirmation_link_plays_the_moves_once(strict: Flask) -> None:
    game = start(strict)
    before, log, ply = last_outbox_id(strict), position(strict, game.game_id).log, game.ply
    words = game.turn()
    assert game.receive(game.reply(words)) is Outcome.UNAUTHENTICATED
    url = held_and_asked(game, before, log)
    client = strict.test_client()
    page = client.get(path_of(url))
    assert page.status_code == 200
    text = html.unescape(page.get_data(as_text=True))
    for code in words.split():
        assert code in text
    assert 'method="post"' in text and game.ply == ply  # opening it changed nothing
    played = client.post(path_of(url))
    assert played.status_code == 303
    assert game.ply == ply + len(words.split())
    again = client.post(path_of(url))
    assert again.status_code == 409
    assert "moved on" in again.get_data(as_text=True)
    assert client.get(path_of(url)).status_code == 409
    assert game.ply == ply + len(words.split())
    changed = path_of(url)[:-3] + ("aaa" if not path_of(url).endswith("aaa") else "bbb")
    assert client.post(changed).status_code == 400


def test_a_confirmation_link_is_stale_once_the_game_moved_on(strict: Flask) -> None:
    game = start(strict)
    before, log = last_outbox_id(strict), position(strict, game.game_id).log
    assert game.receive(game.reply()) is Outcome.UNAUTHENTICATED
    url = held_and_asked(game, before, log)
    genuine = game.reply(
        extra={"Authentication-Results": f"{OURS}; dkim=pass header.d=example.org"}
    )
    assert game.receive(genuine) is Outcome.APPLIED
    ply = game.ply
    response = strict.test_client().post(path_of(url))
    assert response.status_code == 409 and game.ply == ply


def test_forged_mail_never_uses_up_a_seats_hourly_replies(strict: Flask) -> None:
    strict.config["INBOUND_PER_ADDRESS_PER_HOUR"] = 3
    game = start(strict)
    for n in range(3):  # the victim's address, to the seat's key and to made-up keys
        assert game.receive(game.reply(f"hello {n}")) is Outcome.REFUSED
        made_up = game.reply("I resign", to=f"play+forged{n}@localhost")
        assert game.receive(made_up) is Outcome.UNKNOWN_KEY
    assert game.receive(game.reply("I resign")) is Outcome.RATE_LIMITED
    genuine = game.reply(extra={"Authentication-Results": f"{OURS}; dmarc=pass "
                                "header.from=example.org"})  # fmt: skip
    assert game.receive(genuine) is Outcome.APPLIED


# --- through the real SMTP receiver -------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def resolver() -> TestResolver:
    return TestResolver(["example.org", "evil.example"], dmarc=["example.org"])


def deliver(app: Flask, resolver: TestResolver, mail_from: str, raw: bytes, to: str) -> None:
    controller = receiver(app, host="127.0.0.1", port=_free_port(), dnsfunc=resolver)
    controller.start()
    try:
        with smtplib.SMTP(controller.hostname, controller.port, timeout=30) as client:
            assert client.sendmail(mail_from, [to], raw) == {}
    finally:
        controller.stop()


SMTP_CASES = {
    # name: (how the reply is made from its bytes, whether it is played)
    "signed_by_the_senders_domain": (lambda raw: signed(raw, "example.org"), True),
    "signed_by_another_domain": (lambda raw: signed(raw, "evil.example"), False),
    "signed_then_changed": (
        lambda raw: signed(raw, "example.org") + b"\r\n-- \r\nAlice\r\n",
        False,
    ),
    "unsigned_with_our_results_forged": (
        lambda raw: with_results(
            raw, f"{OURS}; dmarc=pass header.from=example.org; dkim=pass header.d=example.org"
        ),
        False,
    ),
    "unsigned": (lambda raw: raw, False),
}


@pytest.mark.parametrize("name", list(SMTP_CASES))
def test_the_smtp_receiver_verifies_dkim(strict: Flask, resolver: TestResolver, name: str) -> None:
    make, plays = SMTP_CASES[name]
    game = start(strict)
    before, log, ply = last_outbox_id(strict), position(strict, game.game_id).log, game.ply
    row = game.row()
    raw = make(game.reply())
    deliver(strict, resolver, game.mover_email, raw, row.headers["Reply-To"])
    (received,) = inbound_rows(strict)
    if plays:
        assert received.outcome == "applied", received.detail
        assert game.ply > ply
        assert resolver.looked_up == [b"test._domainkey.example.org.", b"_dmarc.example.org."]
    else:
        assert received.outcome == "unauthenticated", received.detail
        held_and_asked(game, before, log)
        assert "dmarc=fail" in received.detail


@pytest.mark.parametrize("publishes_dmarc", [True, False])
def test_trusting_from_never_overrides_a_dmarc_fail(
    database_url: str, publishes_dmarc: bool
) -> None:
    """Where From is trusted (no result), a domain that publishes DMARC still fails unsigned."""
    app = make_test_app(database_url, INBOUND_AUTHSERV_ID=OURS, INBOUND_TRUST_FROM=True)
    try:
        game = start(app)
        ply = game.ply
        row = game.row()
        dns = TestResolver([], dmarc=["example.org"] if publishes_dmarc else [])
        deliver(app, dns, game.mover_email, game.reply(), row.headers["Reply-To"])
        (received,) = inbound_rows(app)
        expected = "unauthenticated" if publishes_dmarc else "applied"
        assert received.outcome == expected, received.detail
        assert (game.ply == ply) is publishes_dmarc
    finally:
        empty_and_close(app)


def test_the_receivers_stamp_replaces_any_claim_of_its_id(resolver: TestResolver) -> None:
    raw = (
        f"Authentication-Results: {OURS}; dmarc=pass header.from=example.org\r\n"
        "Authentication-Results: mx.other.example; spf=pass smtp.mailfrom=example.org\r\n"
        f"From: alice@example.org\r\nAuthentication-Results:\r\n {OURS.upper()}; dkim=pass\r\n"
        "\r\nbody\r\n"
    ).encode()
    stamped = stamp(raw, OURS, resolver)
    assert stamped.count(OURS.encode()) == 1 and OURS.upper().encode() not in stamped
    assert b"dkim=none" in stamped and b"dmarc=fail header.from=example.org" in stamped
    assert stamped.startswith(f"Authentication-Results: {OURS};".encode())
    assert b"mx.other.example" in stamped and stamped.endswith(b"\r\n\r\nbody\r\n")


def test_forged_replies_ask_the_owner_a_few_times_an_hour(strict: Flask) -> None:
    game = start(strict)
    before = last_outbox_id(strict)
    outcomes = {game.receive(game.reply()) for _ in range(CONFIRMATIONS_PER_HOUR + 3)}
    assert outcomes == {Outcome.UNAUTHENTICATED}
    asked = [r for r in outbox_after(strict, before) if r.kind == "reply_confirm"]
    assert len(asked) == CONFIRMATIONS_PER_HOUR
    assert {r.recipient for r in outbox_after(strict, before)} == {game.mover_email}
    assert "not asked again" in inbound_rows(strict)[-1].detail


def test_a_held_replys_message_is_kept_with_its_moves_once_confirmed(strict: Flask) -> None:
    from sqlmodel import select

    from service.db import session_scope
    from service.players.models import GameMessage

    game = start(strict)
    before, log = last_outbox_id(strict), position(strict, game.game_id).log
    reply = game.reply(f"Good luck!\n{game.turn()}")
    assert game.receive(reply) is Outcome.UNAUTHENTICATED
    url = held_and_asked(game, before, log)
    with strict.app_context(), session_scope() as session:
        assert session.exec(select(GameMessage)).all() == []  # nothing until confirmed
    assert strict.test_client().post(path_of(url)).status_code == 303
    with strict.app_context(), session_scope() as session:
        said = [m.body for m in session.exec(select(GameMessage))]
    assert said == ["Good luck!"]
