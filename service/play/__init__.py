"""The playing area: a seat's private page with every legal move as a form, move links from
emails (GET shows, POST plays), and ``apply_moves``, the one way a move enters the log."""

from flask import Blueprint

bp = Blueprint("play", __name__)

from service.play import conversation, move_links, routes  # noqa: E402,F401  (registers the views on bp)
