"""Refuse POSTs that another site's page makes a browser send (cross-site request forgery).

The sign-in cookie is SameSite=Lax, so another site cannot act with it; but a POST needs no
cookie to sign a browser in as someone else, or to press a seat link's button from a page the
player was lured to. Browsers say where a request comes from (``Sec-Fetch-Site``, ``Origin``):
a POST that a browser marks as coming from another site is refused with 403, and nothing
changes. Requests without those headers (mail programs, command-line clients) pass: they are
not a browser on someone else's page.

The one exception is RFC 8058's one-click unsubscribe, which mail providers POST from their own
servers and which must always work.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Flask, current_app, request

from service.catalogue import lazy_gettext
from service.refusal import Refusal

ONE_CLICK_ENDPOINTS = frozenset({"mail.unsubscribe_post"})


class CrossSiteRequestError(Refusal):
    status = 403
    title = lazy_gettext("This form came from another site")
    message = lazy_gettext(
        "Your browser sent this from a page of another site, so it was refused. Nothing was "
        "changed. Use the buttons on this site's own pages."
    )


def is_cross_site() -> bool:
    """True when the browser says this request does not come from one of this site's own pages:
    only ``same-origin`` counts (a sibling subdomain, ``same-site``, is someone else's), and an
    ``Origin`` must have this host and ``BASE_URL``'s scheme (an ``http:`` page of an https site
    is one a network attacker can write)."""
    fetch_site = request.headers.get("Sec-Fetch-Site")
    if fetch_site is not None:
        return fetch_site != "same-origin"
    origin = request.headers.get("Origin")
    if origin is None or origin == "null":
        return origin == "null"  # "null": a sandboxed or opaque origin, never one of ours
    parts = urlsplit(origin)
    scheme = urlsplit(str(current_app.config["BASE_URL"])).scheme
    return parts.netloc != request.host or parts.scheme != scheme


def init_app(app: Flask) -> None:
    @app.before_request
    def refuse_cross_site_posts() -> None:
        posted = request.method == "POST" and request.endpoint not in ONE_CLICK_ENDPOINTS
        if posted and is_cross_site():
            raise CrossSiteRequestError()
