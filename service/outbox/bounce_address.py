"""The envelope sender of each email (VERP): ``bounces+<token>@INBOUND_DOMAIN``, where the token
names the outbox row and is signed by us. A bounce comes back to that address, so a bounce to it
tells which email failed without trusting a word of the bounce itself (``service.inbound.bounces``).

The token is the row id and an HMAC (itsdangerous, its own salt, the app's keys with rotation),
written in lower-case base32: mail systems may lower-case a local part, and the whole address
stays within the 64 characters of a local part.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from typing import Any

from itsdangerous import Signer
from itsdangerous.encoding import base64_decode, base64_encode

BOUNCE_LOCAL_PART = "bounces"
SALT = "battleline.bounce-address"
_TOKEN_RE = re.compile(r"([0-9]{1,10})-([a-z2-7]{32})")


def _signer(config: Mapping[str, Any]) -> Signer:
    # itsdangerous signs with the last key and accepts every key of the list (rotation).
    keys = [*config["SECRET_KEY_FALLBACKS"], config["SECRET_KEY"]]
    return Signer(keys, salt=SALT)


def bounce_token(config: Mapping[str, Any], outbox_id: int) -> str:
    """The signed token of one outbox row: ``<id>-<signature in base32>``."""
    signature = base64_decode(_signer(config).get_signature(str(outbox_id)))
    return f"{outbox_id}-{base64.b32encode(signature).decode('ascii').lower()}"


def bounce_address(config: Mapping[str, Any], outbox_id: int) -> str | None:
    """The envelope sender of the row's email, or None when there is no ``INBOUND_DOMAIN`` to
    receive bounces at (then ``MAIL_DEFAULT_SENDER``'s address is the envelope sender)."""
    domain = config.get("INBOUND_DOMAIN")
    if not domain:
        return None
    return f"{BOUNCE_LOCAL_PART}+{bounce_token(config, outbox_id)}@{domain}"


def is_bounce_address(address: str, domain: str) -> bool:
    """Whether ``address`` has the form of a bounce address of ours (signature not checked)."""
    local, _, at = address.strip().lower().rpartition("@")
    prefix, plus, token = local.partition("+")
    return at == domain and prefix == BOUNCE_LOCAL_PART and bool(plus) and bool(token)


def outbox_id_of(config: Mapping[str, Any], address: str) -> int | None:
    """The outbox row a bounce address names, if it is one of ours with a signature we made;
    None otherwise (any other address, a changed id, a forged or cut signature)."""
    domain = config.get("INBOUND_DOMAIN")
    if not domain or not is_bounce_address(address, str(domain)):
        return None
    token = address.strip().lower().rpartition("@")[0].partition("+")[2]
    found = _TOKEN_RE.fullmatch(token)
    if found is None:
        return None
    outbox_id, written = found.groups()
    try:
        signature = base64.b32decode(written.upper())
    except binascii.Error:
        return None
    if not _signer(config).verify_signature(outbox_id.encode(), base64_encode(signature)):
        return None
    return int(outbox_id)
