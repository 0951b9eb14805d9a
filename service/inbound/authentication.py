"""Whether a reply may act for its seat: what our own receiving server says of its From address.

Anyone can write a player's address in ``From:``; a reply acts for a seat only when our own
receiving server vouches for that address (RFC 8601 ``Authentication-Results``). The rule
(docs/security.md, "Replies act only when authenticated"):

- Only ``Authentication-Results`` fields whose authserv-id is ``INBOUND_AUTHSERV_ID`` count, and
  only the topmost run of them: the first field with another authserv-id ends the run, so a
  field the sender wrote further down (below the fields of the servers it passed) never counts.
- Authenticated: ``dmarc=pass`` for the From domain, or ``dkim=pass`` whose ``header.d`` is
  aligned with the From domain, or ``spf=pass`` whose ``smtp.mailfrom`` domain is aligned.
- Aligned (``aligned``): the same domain, or one a parent domain of the other
  (``mail.example.org`` and ``example.org``). Stricter than DMARC's relaxed alignment, which
  also takes siblings under one organisational domain (``a.example.org``, ``b.example.org``):
  a sibling is asked to confirm, never trusted by mistake, and no public-suffix list is needed
  (a parent that is a public suffix, such as ``co.uk``, signs no mail).
- Refused: a DMARC result of ours other than pass (even beside an aligned pass); failing or
  unaligned results only (``dkim=fail``, ``spf=softfail``, a pass for another domain).
- No verdict of ours (no field, or only ``none``/``neutral``): trusted only where the operator
  said so (``INBOUND_TRUST_FROM``; on outside production, where nothing outside reaches us).

The SMTP receiver is itself a receiving server: ``service.inbound.verify`` writes its verdicts.
"""

from __future__ import annotations

import email.message
import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import authres  # type: ignore[import-untyped]

UNDECIDED = frozenset({"none", "neutral"})
"""Results that say nothing about the sender: as if there were no result."""


@dataclass(frozen=True)
class Verdict:
    """Whether a reply may act for the seat its From names, and why (for the operator)."""

    authenticated: bool
    reason: str


def aligned(domain: str, from_domain: str) -> bool:
    """Whether an authenticated domain vouches for the From domain: equal, or one a parent of
    the other (module docstring)."""
    a, b = domain.strip().lower().rstrip("."), from_domain.strip().lower().rstrip(".")
    if not a or not b:
        return False
    return a == b or a.endswith("." + b) or b.endswith("." + a)


def _parse(value: str) -> Any | None:
    try:
        return authres.AuthenticationResultsHeader.parse_value(" ".join(value.split()))
    except (authres.AuthResError, ValueError, IndexError):
        return None


def authserv_id_of(value: str) -> str:
    """The authserv-id an ``Authentication-Results`` value names, lower case ("" if none)."""
    parsed = _parse(value)
    if parsed is not None:
        return str(parsed.authserv_id or "").lower()
    return re.split(r"[;\s(]", value.strip(), maxsplit=1)[0].lower()


def our_results(message: email.message.Message, authserv_id: str) -> list[Any]:
    """The results in the topmost run of ``Authentication-Results`` fields of ``authserv_id``."""
    results: list[Any] = []
    for value in message.get_all("Authentication-Results") or []:
        parsed = _parse(str(value))
        if parsed is None or str(parsed.authserv_id or "").lower() != authserv_id.lower():
            break
        results += parsed.results
    return results


def _property(result: Any, kind: str, name: str) -> str:
    for prop in result.properties:
        if str(prop.type).lower() == kind and str(prop.name).lower() == name:
            return str(prop.value or "").strip().lower()
    return ""


def authenticate(
    message: email.message.Message, sender: str | None, config: Mapping[str, Any]
) -> Verdict:
    """Whether ``message`` from ``sender`` (its checked From address) may act for a seat."""
    if not sender:
        return Verdict(False, "no From address")
    from_domain = sender.rpartition("@")[2]
    authserv_id = str(config.get("INBOUND_AUTHSERV_ID") or "").strip().lower()
    results = our_results(message, authserv_id) if authserv_id else []
    passed: list[str] = []
    decided: list[str] = []
    for result in results:
        method, outcome = str(result.method).lower(), str(result.result).lower()
        if outcome in UNDECIDED:
            continue
        decided.append(f"{method}={outcome}")
        if outcome != "pass":
            continue
        if method == "dmarc" and _property(result, "header", "from") == from_domain:
            passed.append("dmarc=pass")
        elif method == "dkim" and aligned(_property(result, "header", "d"), from_domain):
            passed.append(f"dkim=pass header.d={_property(result, 'header', 'd')}")
        elif method == "spf":
            mailfrom = _property(result, "smtp", "mailfrom").rpartition("@")[2]
            if aligned(mailfrom, from_domain):
                passed.append(f"spf=pass smtp.mailfrom={mailfrom}")
    # As DMARC: one aligned pass is enough beside failures (a third party's broken signature),
    # but never beside a DMARC verdict other than pass.
    failed = [d for d in decided if d.startswith("dmarc=") and d != "dmarc=pass"]
    if passed and not failed:
        return Verdict(True, passed[0])
    if decided:
        return Verdict(False, f"not authenticated for {from_domain}: {', '.join(decided)}")
    if config.get("INBOUND_TRUST_FROM"):
        return Verdict(True, "From trusted (INBOUND_TRUST_FROM)")
    return Verdict(False, "no authentication result of our receiving server")


def rate_key(sender: str | None, keys: Sequence[str], verdict: Verdict) -> str:
    """What the hourly limit counts per: the sender, the reply key it wrote to, and whether it
    was authenticated, so that forged mail never uses up a seat's own allowance."""
    kind = "authenticated" if verdict.authenticated else "unauthenticated"
    key = keys[0] if keys else ""
    return hashlib.sha256(f"{sender or ''}\n{key}\n{kind}".encode()).hexdigest()
