"""The lobby: creating a game, sending its invitation, answering it (until the deal)."""

from flask import Blueprint

bp = Blueprint("lobby", __name__)

from service.lobby import challenge_routes, routes  # noqa: E402,F401  (registers the views on bp)
