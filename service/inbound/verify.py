"""The SMTP receiver as a receiving server: what it verifies of a message and records in its own
``Authentication-Results`` (RFC 8601), which ``authentication.authenticate`` then reads.

- DKIM: every signature (at most MAX_SIGNATURES) verified with dkimpy: ``dkim=pass
  header.d=example.org``, ``fail``, ``permerror`` (malformed), ``temperror`` (the DNS failed), or
  ``dkim=none``.
- DMARC, on DKIM alone (the receiver checks no SPF: the SMTP client it sees is the relay in front
  of it): the From domain's policy record is looked up at ``_dmarc.<domain>``, then at its parents
  down to two labels (our stand-in for the organisational domain, docs/security.md). A record
  and an aligned DKIM pass: ``dmarc=pass``; a record without one: ``dmarc=fail``; no record:
  ``dmarc=none`` (the DKIM verdicts still count).
- Any field that claims our authserv-id is removed first (RFC 8601 section 5: only we write it).

``dnsfunc`` is dkimpy's DNS lookup (``name: bytes, timeout=...`` to the TXT record or None): the
DNS by default, a test's resolver in tests.
"""

from __future__ import annotations

import email.parser
import email.policy
import logging
import re
from collections.abc import Callable, Sequence

import dkim  # type: ignore[import-untyped]
from dkim.dnsplug import get_txt  # type: ignore[import-untyped]

from service.inbound import headers
from service.inbound.authentication import aligned, authserv_id_of

logger = logging.getLogger(__name__)

DnsLookup = Callable[..., bytes | None]
"""dkimpy's ``dnsfunc``: the TXT record of a name (``name: bytes, timeout=...``), or None."""
MAX_SIGNATURES = 5
"""DKIM signatures verified in one message (each costs a DNS lookup)."""
DNS_TIMEOUT_S = 5


def dkim_results(raw: bytes, dnsfunc: DnsLookup) -> list[str]:
    """One ``dkim=...`` result per DKIM signature of ``raw``; ``dkim=none`` when it has none."""
    verifier = dkim.DKIM(raw, timeout=DNS_TIMEOUT_S)
    signatures = [name for name, _ in verifier.headers if name.lower() == b"dkim-signature"]
    found: list[str] = []
    for index in range(min(MAX_SIGNATURES, len(signatures))):
        verifier.domain = None
        try:
            outcome = "pass" if verifier.verify(index, dnsfunc=dnsfunc) else "fail"
        except dkim.DKIMException as error:
            outcome = "permerror"
            logger.info("DKIM signature %d: %s", index, error)
        except Exception as error:  # a DNS failure: the signature could not be checked now
            outcome = "temperror"
            logger.info("DKIM signature %d not checked: %s", index, error)
        domain = (verifier.domain or b"").decode("ascii", "replace").lower()
        found.append(f"dkim={outcome}" + (f" header.d={domain}" if _is_domain(domain) else ""))
    return found or ["dkim=none"]


def _is_domain(value: str) -> bool:
    return bool(re.fullmatch(r"[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?", value))


def has_dmarc_record(domain: str, dnsfunc: DnsLookup) -> bool:
    """Whether ``domain`` or a parent of it (down to two labels) publishes a DMARC record."""
    labels = domain.split(".")
    for start in range(max(1, len(labels) - 1)):
        name = ".".join(labels[start:])
        try:
            record = dnsfunc(f"_dmarc.{name}.".encode("ascii"), timeout=DNS_TIMEOUT_S)
        except Exception as error:  # no answer: as if none (DKIM still decides)
            logger.info("DMARC record of %s not read: %s", name, error)
            return False
        if record and record.lstrip().lower().startswith(b"v=dmarc1"):
            return True
    return False


def dmarc_result(from_domain: str, dkim_found: Sequence[str], dnsfunc: DnsLookup) -> str:
    """The DMARC verdict for ``from_domain`` on the DKIM results (module docstring)."""
    signers = [r.partition("header.d=")[2] for r in dkim_found if r.startswith("dkim=pass ")]
    if not has_dmarc_record(from_domain, dnsfunc):
        return f"dmarc=none header.from={from_domain}"
    passed = any(aligned(signer, from_domain) for signer in signers)
    return f"dmarc={'pass' if passed else 'fail'} header.from={from_domain}"


def _fields(head: bytes) -> list[bytes]:
    """The header fields of a header block, each with its folded lines."""
    fields: list[bytes] = []
    for line in head.splitlines(keepends=True):
        if line[:1] in (b" ", b"\t") and fields:
            fields[-1] += line
        else:
            fields.append(line)
    return fields


def stamp(raw: bytes, authserv_id: str, dnsfunc: DnsLookup | None = None) -> bytes:
    """``raw`` with our own ``Authentication-Results`` on top, without any field that claims
    ``authserv_id``."""
    lookup = dnsfunc or get_txt
    results = dkim_results(raw, lookup)
    parsed = email.parser.BytesHeaderParser(policy=email.policy.compat32).parsebytes(raw)
    sender = headers.sender_of(parsed)
    from_domain = sender.rpartition("@")[2] if sender else ""
    if _is_domain(from_domain):
        results.append(dmarc_result(from_domain, results, lookup))
    match = re.search(rb"(\r?\n)\r?\n", raw)
    # The head keeps its last line break, so that every field ends with one.
    head, body = (raw[: match.end(1)], raw[match.end(1) :]) if match else (raw, b"")
    kept = []
    for field in _fields(head):
        name, _, value = field.partition(b":")
        claimed = authserv_id_of(value.decode("ascii", "replace"))
        if name.strip().lower() == b"authentication-results" and claimed == authserv_id.lower():
            continue
        kept.append(field)
    newline = "\r\n" if b"\r\n" in head else "\n"
    ours = f"Authentication-Results: {authserv_id};{newline}\t" + f";{newline}\t".join(results)
    return (ours + newline).encode("ascii") + b"".join(kept) + body
