"""``flask mail check-dns DOMAIN`` (service.mail.dns_check): it reads SPF, DKIM and DMARC from a
test DNS and says what is missing, what is wrong (another key, a lax SPF) and what to publish."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import dns.name
import dns.resolver
import pytest
from flask import Flask

from service.dkim_signing import signing_key
from service.mail.dns_check import LOOKUP_KEY, dns_txt
from tests.service.conftest import empty_and_close, make_test_app

DOMAIN = "bl.example.org"
SELECTOR = "bl2026"


def openssl_key(folder: Path) -> str:
    path = folder / "dkim.pem"
    command = ["openssl", "genrsa", "-out", str(path), "2048"]
    subprocess.run(command, check=True, capture_output=True)
    return path.read_text()


@pytest.fixture(scope="module")
def pems(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """Two keys: the configured one and another."""
    return (
        openssl_key(tmp_path_factory.mktemp("one")),
        openssl_key(tmp_path_factory.mktemp("two")),
    )


@pytest.fixture
def dns_app(database_url: str, pems: tuple[str, str]) -> Iterator[Flask]:
    app = make_test_app(
        database_url,
        MAIL_DEFAULT_SENDER=f"Battle Line <play@{DOMAIN}>",
        INBOUND_DOMAIN=f"in.{DOMAIN}",
        DKIM_PRIVATE_KEY=pems[0],
        DKIM_SELECTOR=SELECTOR,
    )
    yield app
    empty_and_close(app)


def published(app: Flask, zone: dict[str, list[str]]) -> None:
    app.extensions[LOOKUP_KEY] = lambda name: zone.get(name, [])


def check(app: Flask) -> tuple[int, str]:
    result = app.test_cli_runner().invoke(args=["mail", "check-dns", DOMAIN])
    return result.exit_code, result.output


def dkim_record(pem: str) -> str:
    key = signing_key({"DKIM_PRIVATE_KEY": pem, "DKIM_SELECTOR": SELECTOR, "DKIM_DOMAIN": DOMAIN})
    assert key is not None
    return key.public_record()


def test_everything_published_is_ok(dns_app: Flask, pems: tuple[str, str]) -> None:
    published(
        dns_app,
        {
            DOMAIN: ["google-site-verification=x", "v=spf1 include:_spf.mail.example -all"],
            f"in.{DOMAIN}": ["v=spf1 include:_spf.mail.example ~all"],
            f"{SELECTOR}._domainkey.{DOMAIN}": [dkim_record(pems[0])],
            f"_dmarc.{DOMAIN}": ["v=DMARC1; p=quarantine"],
        },
    )
    code, output = check(dns_app)
    assert code == 0, output
    assert output.count(" ok ") == 4, output


def test_nothing_published_says_what_to_publish(dns_app: Flask, pems: tuple[str, str]) -> None:
    published(dns_app, {})
    code, output = check(dns_app)
    assert code == 1
    lines = output.splitlines()
    assert [line.split()[:2] for line in lines] == [
        ["SPF", "MISSING"], ["SPF", "MISSING"], ["DKIM", "MISSING"], ["DMARC", "MISSING"],
    ]  # fmt: skip
    assert f"at {DOMAIN}" in lines[0] and f"at in.{DOMAIN}" in lines[1]
    # The record to publish, with the configured key's public half.
    assert dkim_record(pems[0]) in lines[2] and f"{SELECTOR}._domainkey.{DOMAIN}" in lines[2]
    assert f"_dmarc.{DOMAIN}" in lines[3]


def test_another_key_and_a_lax_spf_are_wrong(dns_app: Flask, pems: tuple[str, str]) -> None:
    published(
        dns_app,
        {
            DOMAIN: ["v=spf1 +all"],
            f"in.{DOMAIN}": ["v=spf1 a -all", "v=spf1 mx -all"],
            f"{SELECTOR}._domainkey.{DOMAIN}": [dkim_record(pems[1])],
            f"_dmarc.{DOMAIN}": ["v=DMARC1; p=none"],
        },
    )
    code, output = check(dns_app)
    assert code == 1
    spf, envelope_spf, dkim, dmarc = output.splitlines()
    assert "WRONG" in spf and "anyone" in spf
    assert "WRONG" in envelope_spf and "exactly one" in envelope_spf
    assert "WRONG" in dkim and "another key" in dkim
    assert " ok " in dmarc


def test_no_dkim_key_configured(database_url: str) -> None:
    app = make_test_app(database_url, MAIL_DEFAULT_SENDER=f"play@{DOMAIN}", INBOUND_DOMAIN=DOMAIN)
    published(app, {DOMAIN: ["v=spf1 mx -all"], f"_dmarc.{DOMAIN}": ["v=DMARC1; p=reject"]})
    code, output = check(app)
    assert code == 1
    assert [line.split()[:2] for line in output.splitlines()] == [
        ["SPF", "ok"], ["DKIM", "WRONG"], ["DMARC", "ok"],
    ]  # fmt: skip
    assert "DKIM_PRIVATE_KEY" in output
    empty_and_close(app)


def test_dnspython_is_asked_for_txt_records(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default lookup: dnspython's resolver, a missing name is no record."""
    asked: list[tuple[str, str]] = []

    def resolve(name: str, kind: str) -> object:
        asked.append((name, kind))
        raise dns.resolver.NXDOMAIN(qnames=[dns.name.from_text(name)])

    monkeypatch.setattr(dns.resolver, "resolve", resolve)
    assert dns_txt(f"_dmarc.{DOMAIN}") == []
    assert asked == [(f"_dmarc.{DOMAIN}", "TXT")]
