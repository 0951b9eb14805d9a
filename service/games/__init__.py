"""The games area: creating a game, answering an invitation, private and public pages."""

from flask import Blueprint

bp = Blueprint("games", __name__)

from service.games import routes  # noqa: E402,F401  (registers the views on bp)
