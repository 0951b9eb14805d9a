"""Correspondence tournaments (issue 25): round-robin sections and Swiss tournaments whose games
are dealt by the service and whose pairings and standings come from the pure core in
``tournaments/`` (docs/tournaments.md). Pages at ``/tournaments``."""

from flask import Blueprint

bp = Blueprint("tournaments", __name__)

from service.tournaments import routes, words  # noqa: E402,F401  (registers the views on bp)
