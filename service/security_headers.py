"""Headers on every response that keep pages from being framed, scripted, sniffed or cached.

- A Content-Security-Policy with no script but our one static file (``local-time.js``: it says
  deadlines in the browser's time zone; every page works without it, with plain forms), no
  inline script or style (one static style sheet), no framing by anyone.
- ``Referrer-Policy: no-referrer``: a signed link in the address bar must not travel to another
  site in a Referer header.
- ``Cache-Control: no-store`` on every page a view renders (move links, "my games" carry
  signed links that no shared cache or back button may keep), unless the view set its own
  (``service.conditional``: the private page ``private, no-cache``, the public page
  ``no-cache``, both revalidated by ETag); static files are cached, addressed by their
  content's hash.
- HSTS in production, where BASE_URL is https.
"""

from __future__ import annotations

from flask import Flask, request
from werkzeug.wrappers import Response

from service.config import AppEnv

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'none'",
        # One static script of ours (deadlines in the browser's time zone); nothing inline.
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "form-action 'self'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
    ]
)
# The development outbox shows emails as their recipients would see them: emails carry inline
# styles (mail programs ignore style sheets). Still no script, still no framing of this page.
OUTBOX_CONTENT_SECURITY_POLICY = CONTENT_SECURITY_POLICY.replace(
    "style-src 'self'", "style-src 'self' 'unsafe-inline'; frame-src 'self'"
)
HSTS = "max-age=31536000; includeSubDomains"


def _set_headers(response: Response, *, production: bool) -> Response:
    headers = response.headers
    outbox = request.blueprint == "outbox"
    headers.setdefault(
        "Content-Security-Policy",
        OUTBOX_CONTENT_SECURITY_POLICY if outbox else CONTENT_SECURITY_POLICY,
    )
    headers.setdefault("X-Frame-Options", "DENY")
    headers.setdefault("Referrer-Policy", "no-referrer")
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
    if request.endpoint != "static" and "Cache-Control" not in headers:
        headers["Cache-Control"] = "no-store"
    if production:
        headers.setdefault("Strict-Transport-Security", HSTS)
    return response


def init_app(app: Flask) -> None:
    production = app.config["APP_ENV"] == AppEnv.PRODUCTION

    @app.after_request
    def security_headers(response: Response) -> Response:
        return _set_headers(response, production=production)
