"""The history area: the public game page with step-through replay and the exported record,
the list of public games, and a player's "my games" page by signed link."""

from flask import Blueprint

bp = Blueprint("history", __name__)

# Registers the views on bp.
from service.history import own_data_routes, routes  # noqa: E402,F401
