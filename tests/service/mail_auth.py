"""Mail authentication for the reply tests: real DKIM signatures made with dkimpy and a test DNS
resolver that publishes the test key (tests/fixtures/dkim) for the domains of the tests."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import dkim  # type: ignore[import-untyped]

KEYS = Path(__file__).resolve().parents[1] / "fixtures" / "dkim"
PRIVATE_KEY = (KEYS / "test-key.pem").read_bytes()
PUBLIC_KEY = (KEYS / "test-key.pub.b64").read_bytes().strip()
SELECTOR = b"test"
AUTHSERV_ID = "mx.bl.test"
SIGNED_HEADERS = [b"from", b"to", b"subject", b"date", b"message-id", b"in-reply-to"]


class TestResolver:
    """dkimpy's ``dnsfunc``: the test key's TXT record at ``test._domainkey.<domain>`` for the
    ``signers``, a DMARC record (``p=reject``) at ``_dmarc.<domain>`` for ``dmarc``, nothing
    elsewhere; it remembers what was looked up."""

    __test__ = False

    def __init__(self, signers: Iterable[str], dmarc: Iterable[str] = ()) -> None:
        key = b"v=DKIM1; k=rsa; p=" + PUBLIC_KEY
        self.records = {f"{SELECTOR.decode()}._domainkey.{d}.".encode(): key for d in signers}
        for domain in dmarc:
            self.records[f"_dmarc.{domain}.".encode()] = b"v=DMARC1; p=reject"
        self.looked_up: list[bytes] = []

    def __call__(self, name: bytes, timeout: int = 5) -> bytes | None:
        self.looked_up.append(name)
        return self.records.get(name)


def signed(raw: bytes, domain: str) -> bytes:
    """``raw`` with a DKIM signature of ``domain`` (the test key) on top."""
    signature = dkim.sign(
        raw, SELECTOR, domain.encode(), PRIVATE_KEY, include_headers=SIGNED_HEADERS
    )
    assert isinstance(signature, bytes)
    return signature + raw


def with_results(raw: bytes, *values: str) -> bytes:
    """``raw`` with ``Authentication-Results`` fields on top, in the order given."""
    top = b"".join(f"Authentication-Results: {value}\r\n".encode() for value in values)
    return top + raw
