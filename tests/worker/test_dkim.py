"""Our DKIM signature (service.dkim_signing): made when the outbox row is written, it arrives
through a real SMTP server (aiosmtpd) and dkimpy verifies it against the public key in a test DNS;
a resend is the same bytes; a changed header breaks it; a key that does not parse stops the start.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path

import dkim  # type: ignore[import-untyped]
import pytest
from flask import Flask

from service.config import ConfigError, config_from_env
from service.config_checks import check_config
from service.db import session_scope
from service.dkim_signing import SIGNED_HEADERS, signing_key
from service.mail import delivery
from service.models import utcnow
from service.outbox.models import OutboxMessage, OutboxStatus
from tests.service.conftest import VALID_FORM, empty_and_close, make_test_app
from tests.worker.conftest import SMTPServer, wait_for
from tests.worker.outbox_rows import rows
from tests.worker.turn_games import create_confirm_accept

SELECTOR = "bl2026"
DOMAIN = "bl.test"


@pytest.fixture(scope="session")
def dkim_pem(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A fresh 2048-bit RSA key in PEM (openssl, as docs/deployment.md tells an operator)."""
    path = tmp_path_factory.mktemp("dkim") / "dkim.pem"
    command = ["openssl", "genrsa", "-out", str(path), "2048"]
    subprocess.run(command, check=True, capture_output=True)
    return path.read_text()


def dkim_settings(pem: str) -> dict[str, str]:
    return {"DKIM_PRIVATE_KEY": pem, "DKIM_SELECTOR": SELECTOR, "DKIM_DOMAIN": DOMAIN}


@pytest.fixture
def signing_app(database_url: str, smtp: SMTPServer, dkim_pem: str) -> Iterator[Flask]:
    app = make_test_app(
        database_url,
        MAIL_SERVER="127.0.0.1",
        MAIL_PORT=smtp.port,
        MAIL_SUPPRESS_SEND=False,
        MAIL_DEFAULT_SENDER=f"Battle Line by mail <battleline@{DOMAIN}>",
        **dkim_settings(dkim_pem),
    )
    yield app
    empty_and_close(app)


def verifier_dns(app: Flask) -> Callable[..., bytes | None]:
    """dkimpy's ``dnsfunc``: the TXT record of our selector, nothing anywhere else."""
    with app.app_context():
        key = signing_key(app.config)
    assert key is not None
    record = key.public_record().encode()

    def txt(name: bytes, timeout: int = 5) -> bytes | None:
        return record if name == f"{SELECTOR}._domainkey.{DOMAIN}.".encode() else None

    return txt


def test_every_email_arrives_signed_and_verifies(signing_app: Flask, smtp: SMTPServer) -> None:
    create_confirm_accept(signing_app, signing_app.test_client(), VALID_FORM, seed="seed0")
    queued = rows(signing_app)
    wait_for(lambda: len(smtp.mailbox.arrived) >= len(queued), 20, "every email at the server")
    dns = verifier_dns(signing_app)
    by_id = {row.message_id: row for row in queued}
    kinds = set()
    for arrived in smtp.mailbox.arrived:
        row = by_id[str(arrived.message["Message-ID"])]
        kinds.add(row.kind)
        # The bytes the server got are the row's, signature first: signed once, when written.
        assert arrived.raw.replace(b"\r\n", b"\n") == row.mime.encode().replace(b"\r\n", b"\n")
        assert row.mime.startswith("DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed;")
        assert dkim.verify(arrived.raw, dnsfunc=dns), row.kind
    assert {"confirm_address", "invitation", "game_started"} <= kinds
    # A game's email: every header a receiver or a mail program acts on is covered.
    game_email = next(a.raw for a in smtp.mailbox.arrived if b"\r\nIn-Reply-To:" in a.raw)
    header = dkim.util.parse_tag_value(
        game_email.split(b"\r\nFrom:")[0].split(b"DKIM-Signature:", 1)[1].replace(b"\r\n", b"")
    )
    covered = {name.strip() for name in header[b"h"].split(b":")}
    for name in (
        b"from", b"reply-to", b"list-unsubscribe", b"list-id", b"message-id", b"in-reply-to",
        b"references", b"subject", b"to", b"date", b"mime-version", b"content-type",
    ):  # fmt: skip
        assert name in covered, name
    assert {name.lower() for name in SIGNED_HEADERS} <= covered
    for name in (b"Reply-To", b"List-Id", b"In-Reply-To", b"References"):
        assert b"\r\n" + name + b":" in game_email, name


def test_a_changed_or_added_header_breaks_the_signature(
    signing_app: Flask, smtp: SMTPServer
) -> None:
    create_confirm_accept(signing_app, signing_app.test_client(), VALID_FORM, seed="seed0")
    wait_for(lambda: smtp.mailbox.arrived, 20, "an email at the server")
    raw = next(a.raw for a in smtp.mailbox.arrived if b"\r\nReply-To:" in a.raw)
    dns = verifier_dns(signing_app)
    assert dkim.verify(raw, dnsfunc=dns)
    forged_reply_to = raw.replace(b"\r\nReply-To: play+", b"\r\nReply-To: evil+", 1)
    second_from = raw.replace(b"\r\nTo:", b"\r\nFrom: mallory@evil.example\r\nTo:", 1)
    added_cc = raw.replace(b"\r\nTo:", b"\r\nCc: mallory@evil.example\r\nTo:", 1)
    for forged in (forged_reply_to, second_from, added_cc):
        assert forged != raw
        assert not dkim.verify(forged, dnsfunc=dns)


def test_a_resend_is_the_same_signed_bytes(signing_app: Flask, smtp: SMTPServer) -> None:
    create_confirm_accept(signing_app, signing_app.test_client(), VALID_FORM, seed="seed0")
    first = rows(signing_app)[0]
    wait_for(lambda: rows(signing_app, id=first.id)[0].status == "sent", 20, "the first sent")
    with signing_app.app_context():
        with session_scope() as session:
            row = session.get(OutboxMessage, first.id)
            assert row is not None
            row.status = OutboxStatus.QUEUED
            row.next_attempt_at = utcnow() - timedelta(seconds=1)
            session.add(row)
        delivery.deliver_one(first.id)
    copies = [a.raw for a in smtp.mailbox.arrived if a.message["Message-ID"] == first.message_id]
    assert len(copies) == 2 and copies[0] == copies[1]
    assert dkim.verify(copies[1], dnsfunc=verifier_dns(signing_app))


def test_a_key_that_does_not_parse_stops_the_start(database_url: str, dkim_pem: str) -> None:
    for broken in ("not a key", dkim_pem.replace("MII", "MIX", 1), dkim_pem[: len(dkim_pem) // 2]):
        with pytest.raises(ConfigError, match="DKIM private key does not parse"):
            make_test_app(database_url, **{**dkim_settings(dkim_pem), "DKIM_PRIVATE_KEY": broken})
    with pytest.raises(ConfigError, match="DKIM_SELECTOR"):
        make_test_app(database_url, **{**dkim_settings(dkim_pem), "DKIM_SELECTOR": ""})


def test_a_key_file_is_read(database_url: str, dkim_pem: str, tmp_path: Path) -> None:
    path = tmp_path / "dkim.pem"
    path.write_text(dkim_pem)
    settings = {**dkim_settings(dkim_pem), "DKIM_PRIVATE_KEY": None}
    app = make_test_app(database_url, **settings, DKIM_PRIVATE_KEY_FILE=str(path))
    with app.app_context():
        key = signing_key(app.config)
    assert key is not None and key.record_name == f"{SELECTOR}._domainkey.{DOMAIN}"
    empty_and_close(app)
    with pytest.raises(ConfigError, match="cannot be read"):
        make_test_app(database_url, **settings, DKIM_PRIVATE_KEY_FILE=str(tmp_path / "missing"))


def test_production_refuses_a_key_that_does_not_parse(tmp_path: Path, dkim_pem: str) -> None:
    env = {
        "SECRET_KEY": "Zq8v" * 12,
        "BASE_URL": "https://bl.example.org",
        "DATABASE_URL": "postgresql://db.example.org/bl",
        "DKIM_SELECTOR": SELECTOR,
        "DKIM_PRIVATE_KEY": dkim_pem.replace("\n", "").replace("-----", "", 2),
    }
    config = config_from_env(str(tmp_path), env)
    assert config["APP_ENV"] == "production"
    with pytest.raises(ConfigError, match="DKIM private key does not parse"):
        check_config(config)
