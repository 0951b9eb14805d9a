"""``GET /healthz``: the smallest endpoint, for load balancers and as the benchmark's baseline.
It touches no database and renders no template."""

from __future__ import annotations

from flask import Blueprint, Response

bp = Blueprint("health", __name__)


@bp.get("/healthz")
def healthz() -> Response:
    return Response("ok", mimetype="text/plain")
