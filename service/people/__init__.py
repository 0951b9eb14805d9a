"""The people area: players' public pages (``/players/<name>``), blocking a player from their
page, and choosing one's own public name (``/me/name``)."""

from flask import Blueprint

bp = Blueprint("people", __name__)

from service.people import routes  # noqa: E402,F401  (registers the views on bp)
