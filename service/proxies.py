"""Whose word is taken for the client's address: ``TRUSTED_PROXIES`` reverse proxies, and only
when the request came from one of them.

Behind a proxy, every request comes from the proxy's address; the client's is in the
``X-Forwarded-For`` header the proxy adds (werkzeug's ``ProxyFix`` reads it, with
``X-Forwarded-Proto`` and ``-Host``). But anyone can write that header. If gunicorn can be
reached directly (a public bind, a container port published next to the proxy), one client could
rotate it and count as a new visitor each time, past every per-client limit. So the headers are
read only from a peer that ``FORWARDED_ALLOW_IPS`` names: the same setting (and the same default,
the loopback addresses) with which gunicorn decides whose ``X-Forwarded-Proto`` it believes.
A request from anyone else counts under its own address, whatever it says.

Production refuses ``FORWARDED_ALLOW_IPS=*`` with ``TRUSTED_PROXIES``
(``service.config_checks``): it would take anyone's word again. See docs/security.md.
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from werkzeug.middleware.proxy_fix import ProxyFix

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

logger = logging.getLogger(__name__)

DEFAULT_FORWARDED_ALLOW_IPS = "127.0.0.1,::1"
"""gunicorn's own default for ``FORWARDED_ALLOW_IPS``: a proxy on the same machine."""

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def proxy_networks(value: str) -> tuple[Network, ...] | None:
    """The addresses and networks of ``FORWARDED_ALLOW_IPS`` (comma-separated, as gunicorn
    reads it: ``10.0.0.5,192.168.1.0/24``); None for ``*`` (any peer). Raises ValueError
    naming an entry that is neither."""
    entries = [entry.strip() for entry in value.split(",") if entry.strip()]
    if "*" in entries:
        return None
    networks = []
    for entry in entries:
        try:
            # Strict, as gunicorn reads it: 10.0.0.1/8 (host bits set) is a mistake.
            networks.append(ipaddress.ip_network(entry))
        except ValueError:
            raise ValueError(f"{entry!r} is not an IP address or network") from None
    return tuple(networks)


def _peer_in(peer: str | None, networks: Iterable[Network]) -> bool:
    try:
        address = ipaddress.ip_address(peer or "")
    except ValueError:
        # A Unix socket has no address: only who may open the socket file reaches it, and
        # gunicorn trusts such a peer too.
        return True
    return any(address in network for network in networks)


class TrustedProxyFix:
    """``ProxyFix`` for ``proxies`` proxies, applied only to a request whose peer is one of
    ``networks`` (None: any peer)."""

    def __init__(
        self, app: WSGIApplication, proxies: int, networks: tuple[Network, ...] | None
    ) -> None:
        self.app = app
        self.fixed = ProxyFix(app, x_for=proxies, x_proto=proxies, x_host=proxies)
        self.networks = networks
        self.warned = False

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Any:
        peer = environ.get("REMOTE_ADDR")
        if self.networks is None or _peer_in(peer, self.networks):
            return self.fixed(environ, start_response)
        if "HTTP_X_FORWARDED_FOR" in environ and not self.warned:
            # Either a client writing the header itself, or a proxy FORWARDED_ALLOW_IPS misses
            # (then every client counts as that proxy).
            self.warned = True
            logger.warning(
                "X-Forwarded-For from %s, which FORWARDED_ALLOW_IPS does not name: ignored", peer
            )
        return self.app(environ, start_response)
