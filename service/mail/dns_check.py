"""``flask mail check-dns DOMAIN``: the DNS records that let receivers trust our email (SPF, DKIM,
DMARC; docs/deployment.md), read from DNS, and what is missing or wrong.

- SPF: one ``v=spf1`` TXT record at DOMAIN, and at the envelope's domain (``INBOUND_DOMAIN``,
  where bounces return) when that is another name: SPF is checked on the envelope sender.
- DKIM: a TXT record at ``SELECTOR._domainkey.DKIM_DOMAIN`` whose public key is the half of the
  configured private key.
- DMARC: one ``v=DMARC1`` TXT record at ``_dmarc.DOMAIN``.

The lookups go through a ``TxtLookup`` (dnspython's resolver by default), so a test gives its own.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import click
import dns.exception
import dns.resolver
from dkim.crypto import UnparsableKeyError, parse_public_key  # type: ignore[import-untyped]
from dkim.util import InvalidTagValueList, parse_tag_value  # type: ignore[import-untyped]
from flask import current_app
from flask.cli import with_appcontext

from service.dkim_signing import SigningKey, SigningKeyError, signing_key

TxtLookup = Callable[[str], list[str]]
"""The TXT records at a name, each as one string; [] when there is none."""

LOOKUP_KEY = "battleline.dns_txt_lookup"
"""``app.extensions`` key of a TxtLookup to use instead of DNS (tests)."""


class LookupFailedError(RuntimeError):
    """DNS did not answer (no server, a timeout): nothing can be said about the record."""


def dns_txt(name: str) -> list[str]:
    """The TXT records at ``name`` from DNS (dnspython). Raises LookupFailedError."""
    try:
        answer = dns.resolver.resolve(name, "TXT")
    except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
        return []
    except dns.exception.DNSException as error:
        raise LookupFailedError(f"no answer for {name}: {error}") from None
    return [b"".join(record.strings).decode("ascii", "replace") for record in answer]


@dataclass(frozen=True)
class Finding:
    """One record: where it is, whether it is right, and what to do if not."""

    record: str
    name: str
    ok: bool
    says: str


def _spf(name: str, lookup: TxtLookup) -> Finding:
    found = [txt for txt in lookup(name) if txt.lower().startswith("v=spf1")]
    if not found:
        return Finding(
            "SPF", name, False,
            f'missing: publish TXT "v=spf1 include:<your mail provider> -all" at {name} '
            "(the hosts that send our mail)",
        )  # fmt: skip
    if len(found) > 1:
        return Finding("SPF", name, False, f"{len(found)} SPF records: receivers need exactly one")
    policy = found[0].split()[-1].lower()
    if policy in ("+all", "all", "?all"):
        return Finding("SPF", name, False, f"ends in {policy}: it lets anyone send as {name}")
    return Finding("SPF", name, True, found[0])


def _dkim(key: SigningKey | None, lookup: TxtLookup) -> Finding:
    if key is None:
        return Finding(
            "DKIM", "-", False,
            "no key configured: set DKIM_PRIVATE_KEY (or DKIM_PRIVATE_KEY_FILE) and DKIM_SELECTOR",
        )  # fmt: skip
    name = key.record_name
    publish = f'publish TXT "{key.public_record()}" at {name}'
    records = [txt for txt in lookup(name) if "p=" in txt]
    if not records:
        return Finding("DKIM", name, False, f"missing: {publish}")
    try:
        tags = parse_tag_value(records[0].replace(" ", "").encode())
        public = parse_public_key(base64.b64decode(tags[b"p"]))
    except (InvalidTagValueList, KeyError, UnparsableKeyError, binascii.Error, ValueError):
        return Finding("DKIM", name, False, f"the record does not parse: {publish}")
    if (public["modulus"], public["publicExponent"]) != key.public_numbers():
        return Finding("DKIM", name, False, f"another key than the configured one: {publish}")
    return Finding("DKIM", name, True, "the public key of the configured private key")


def _dmarc(domain: str, lookup: TxtLookup) -> Finding:
    name = f"_dmarc.{domain}"
    found = [txt for txt in lookup(name) if txt.replace(" ", "").upper().startswith("V=DMARC1")]
    if len(found) != 1:
        problem = "missing" if not found else f"{len(found)} records: receivers need exactly one"
        return Finding(
            "DMARC", name, False,
            f'{problem}: publish TXT "v=DMARC1; p=quarantine; rua=mailto:dmarc@{domain}" at '
            f"{name}",
        )  # fmt: skip
    return Finding("DMARC", name, True, found[0])


def check_domain(domain: str, config: Mapping[str, Any], lookup: TxtLookup) -> list[Finding]:
    """Every record the mail of ``domain`` needs, as found. Raises SigningKeyError for a DKIM
    setting that cannot sign, LookupFailedError when DNS does not answer."""
    domain = domain.strip().lower().rstrip(".")
    findings = [_spf(domain, lookup)]
    envelope = str(config.get("INBOUND_DOMAIN") or "").lower()
    if envelope and envelope != domain:
        findings.append(_spf(envelope, lookup))
    findings.append(_dkim(signing_key(config), lookup))
    findings.append(_dmarc(domain, lookup))
    return findings


@click.command("check-dns")
@click.argument("domain")
@with_appcontext
def check_dns_command(domain: str) -> None:
    """Read the SPF, DKIM and DMARC records of DOMAIN (the From address's) and say what is
    missing. Exits 1 unless every record is right."""
    lookup: TxtLookup = current_app.extensions.get(LOOKUP_KEY, dns_txt)
    try:
        findings = check_domain(domain, current_app.config, lookup)
    except (SigningKeyError, LookupFailedError) as error:
        raise click.ClickException(str(error)) from None
    for finding in findings:
        mark = "ok" if finding.ok else "MISSING" if "missing" in finding.says else "WRONG"
        click.echo(f"{finding.record:<6} {mark:<8} {finding.name}: {finding.says}")
    if not all(finding.ok for finding in findings):
        raise click.exceptions.Exit(1)
