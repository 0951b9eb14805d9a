"""Conditional GET for the game pages: an ETag made of what a page shows depends on, checked
before anything is rendered, so a browser that has the page gets a 304 for a few reads.

- The private page of a seat depends on the game row (its ply, status, deadline: any change
  moves ``updated_at``), the seat (its token generation and preferences), the player's defaults
  and which addresses bounce. The public page on the game row and the position asked for.
- Every tag also holds this server's build (``engine.RULES_VERSION``, the templates and static
  files), so a deploy never serves a stale page.
- Private pages are ``Cache-Control: private, no-cache``: only the player's own browser may keep
  one, and it must ask each time (the signed link is in its history already; no shared cache
  may hold it). Public pages are ``no-cache``: any cache may keep them and must ask.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from flask import Flask, current_app, request
from werkzeug.wrappers import Response

import engine
from service.catalogue import page_language
from service.i18n import TRANSLATIONS

BUILD_KEY = "battleline.build"
PRIVATE = "private, no-cache"
PUBLIC = "no-cache"


def page_etag(*parts: object) -> str:
    """A strong ETag for a page made from ``parts`` (plain values) and this server's build."""
    # The page's language too: one address serves each reader in theirs (service.i18n).
    text = "\n".join([current_app.extensions[BUILD_KEY], page_language(), *map(repr, parts)])
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def not_modified(etag: str, cache_control: str) -> Response | None:
    """A 304 when the request already holds the page tagged ``etag``, else None."""
    if not request.if_none_match.contains(etag):
        return None
    response = Response(status=304)
    return tagged(response, etag, cache_control)


def tagged(response: Response, etag: str, cache_control: str) -> Response:
    """``response`` with its ETag and caching rule."""
    response.set_etag(etag)
    response.headers["Cache-Control"] = cache_control
    return response


def _build(app: Flask) -> str:
    digest = hashlib.sha256(engine.RULES_VERSION.encode())
    folders = (app.template_folder, app.static_folder, TRANSLATIONS)
    for folder in folders:
        if folder is None:
            continue
        root = Path(app.root_path, folder)
        for path in sorted(root.rglob("*")):
            if path.is_file():
                digest.update(str(path.relative_to(root)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def init_app(app: Flask) -> None:
    app.extensions[BUILD_KEY] = _build(app)
