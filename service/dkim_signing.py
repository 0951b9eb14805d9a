"""DKIM (RFC 6376): our domain's signature on every email, made once when its outbox row is
written, so that every attempt sends the same signed bytes.

Settings: ``DKIM_PRIVATE_KEY`` (an RSA key in PEM) or ``DKIM_PRIVATE_KEY_FILE`` (a path to one),
``DKIM_SELECTOR`` and ``DKIM_DOMAIN`` (the ``d=`` of the signature; by default the domain of
``MAIL_DEFAULT_SENDER``, which DMARC needs it to align with). Without a key nothing is signed.
The public half goes in DNS at ``SELECTOR._domainkey.DOMAIN`` (docs/deployment.md).
"""

from __future__ import annotations

import base64
import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import parseaddr
from pathlib import Path
from typing import Any, TypedDict

import dkim  # type: ignore[import-untyped]
from dkim.crypto import (  # type: ignore[import-untyped]
    UnparsableKeyError,
    parse_pem_private_key,
)

SIGNED_HEADERS = (
    b"From", b"Reply-To", b"Subject", b"Date", b"To", b"Cc", b"Message-ID", b"In-Reply-To",
    b"References", b"List-Id", b"List-Unsubscribe", b"List-Unsubscribe-Post", b"Auto-Submitted",
    b"MIME-Version", b"Content-Type", b"Content-Transfer-Encoding",
)  # fmt: skip
"""The headers the signature covers. Each is signed once more than it occurs (dkimpy signs a
missing one as empty), so a header added on the way, a second From or Subject, breaks it."""
CANONICALIZATION = (b"relaxed", b"relaxed")
"""Relaxed for both: a relay that refolds a header or trims trailing spaces keeps it valid."""
_INTEGER, _BIT_STRING, _NULL, _OID, _SEQUENCE = 0x02, 0x03, 0x05, 0x06, 0x30
_RSA_ENCRYPTION_OID = bytes.fromhex("2a864886f70d010101")  # 1.2.840.113549.1.1.1
_SELECTOR_RE = re.compile(r"[a-z0-9](?:[a-z0-9._-]{0,61}[a-z0-9])?", re.IGNORECASE)


class SigningKeyError(ValueError):
    """The DKIM settings cannot sign: the message says which setting to fix."""


@dataclass(frozen=True)
class SigningKey:
    """What signs our email: the key (PEM), and where its public half is published."""

    pem: bytes
    selector: str
    domain: str

    @property
    def record_name(self) -> str:
        """The DNS name of the public key's TXT record."""
        return f"{self.selector}._domainkey.{self.domain}"

    def public_numbers(self) -> tuple[int, int]:
        """The public key's (modulus, exponent)."""
        private = parse_pem_private_key(self.pem)
        return int(private["modulus"]), int(private["publicExponent"])

    def public_record(self) -> str:
        """The TXT record to publish at ``record_name``."""
        modulus, exponent = self.public_numbers()
        rsa_key = _der(_SEQUENCE, _der_integer(modulus) + _der_integer(exponent))
        algorithm = _der(_SEQUENCE, _der(_OID, _RSA_ENCRYPTION_OID) + _der(_NULL, b""))
        spki = _der(_SEQUENCE, algorithm + _der(_BIT_STRING, b"\x00" + rsa_key))
        return f"v=DKIM1; k=rsa; p={base64.b64encode(spki).decode('ascii')}"


def _der(tag: int, content: bytes) -> bytes:
    size = len(content)
    if size < 0x80:
        return bytes([tag, size]) + content
    length = size.to_bytes((size.bit_length() + 7) // 8, "big")
    return bytes([tag, 0x80 | len(length)]) + length + content


def _der_integer(value: int) -> bytes:
    # Big-endian with a leading zero byte when the top bit is set: DER integers are signed.
    return _der(_INTEGER, value.to_bytes(value.bit_length() // 8 + 1, "big"))


class DkimSettings(TypedDict):
    """The DKIM settings: a key (text or file), its selector and domain; None when unset."""

    DKIM_PRIVATE_KEY: str | None
    DKIM_PRIVATE_KEY_FILE: str | None
    DKIM_SELECTOR: str | None
    DKIM_DOMAIN: str | None


def dkim_config_from_env(env: Mapping[str, str]) -> DkimSettings:
    """The DKIM settings (module docstring)."""
    return {
        "DKIM_PRIVATE_KEY": env.get("DKIM_PRIVATE_KEY") or None,
        "DKIM_PRIVATE_KEY_FILE": env.get("DKIM_PRIVATE_KEY_FILE") or None,
        "DKIM_SELECTOR": (env.get("DKIM_SELECTOR") or "").strip().lower() or None,
        "DKIM_DOMAIN": (env.get("DKIM_DOMAIN") or "").strip().lower() or None,
    }


def signing_key(config: Mapping[str, Any]) -> SigningKey | None:
    """The key of the settings, or None when none is given. Raises SigningKeyError for a key
    that does not parse, an unreadable key file, or a missing selector or domain."""
    pem = config.get("DKIM_PRIVATE_KEY")
    path = config.get("DKIM_PRIVATE_KEY_FILE")
    if not pem and not path:
        return None
    if pem and path:
        raise SigningKeyError("set DKIM_PRIVATE_KEY or DKIM_PRIVATE_KEY_FILE, not both")
    if path:
        try:
            pem = Path(str(path)).read_text(encoding="ascii")
        except (OSError, UnicodeError) as error:
            message = f"DKIM_PRIVATE_KEY_FILE={path!r} cannot be read: {error}"
            raise SigningKeyError(message) from None
    selector = config.get("DKIM_SELECTOR")
    if not selector or not _SELECTOR_RE.fullmatch(str(selector)):
        raise SigningKeyError(
            f"DKIM_SELECTOR={selector!r} must name the key's DNS record (e.g. bl2026: the "
            "record is bl2026._domainkey.DOMAIN)"
        )
    domain = config.get("DKIM_DOMAIN") or _sender_domain(config)
    if not domain:
        raise SigningKeyError("DKIM_DOMAIN is not set and MAIL_DEFAULT_SENDER has no domain")
    return _parsed(str(pem), str(selector), str(domain))


def _sender_domain(config: Mapping[str, Any]) -> str:
    _, address = parseaddr(str(config.get("MAIL_DEFAULT_SENDER") or ""))
    return address.rpartition("@")[2].lower()


@functools.lru_cache(maxsize=4)
def _parsed(pem: str, selector: str, domain: str) -> SigningKey:
    # A key pasted into an environment variable often has "\n" for its line breaks.
    data = pem.replace("\\n", "\n").strip().encode("ascii", errors="replace") + b"\n"
    try:
        parse_pem_private_key(data)
    except (UnparsableKeyError, ValueError, IndexError) as error:
        raise SigningKeyError(
            f"the DKIM private key does not parse as an RSA key in PEM ({error}); generate one "
            "with: openssl genrsa -out dkim.pem 2048"
        ) from None
    return SigningKey(pem=data, selector=selector, domain=domain)


def sign(message: bytes, key: SigningKey) -> bytes:
    """``message`` with its DKIM-Signature header first."""
    present = {
        line.split(b":", 1)[0].strip().lower()
        for line in message.split(b"\r\n\r\n", 1)[0].split(b"\r\n")
        if line[:1] not in (b" ", b"\t")
    }
    # Each header once more than it occurs: the extra one signs its absence (oversigning).
    headers = [name for name in SIGNED_HEADERS if name.lower() in present] + list(SIGNED_HEADERS)
    signature: bytes = dkim.sign(
        message,
        key.selector.encode("ascii"),
        key.domain.encode("ascii"),
        key.pem,
        canonicalize=CANONICALIZATION,
        include_headers=headers,
    )
    return signature + message
