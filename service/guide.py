"""The "how to play" page, in each language (``templates/guide/how_to_play.<code>.html``),
linked from every page's header and every email's footer."""

from __future__ import annotations

from flask import Blueprint, Flask, render_template, request

from service.catalogue import page_language
from service.i18n import checked_language, recipient_language
from service.links import external_url

bp = Blueprint("guide", __name__)


@bp.get("/how-to-play")
def how_to_play() -> str:
    # ``?lang=`` (the emails' link) shows the page in the email's language, whatever the
    # browser's; without it the page follows the reader like every other page.
    chosen = checked_language(request.args.get("lang"))
    if chosen is None:
        return render_template("guide/how_to_play.html")
    with recipient_language(chosen):
        return render_template("guide/how_to_play.html")


def how_to_play_url() -> str:
    """The page's absolute address in the language being written (for emails)."""
    return external_url("guide.how_to_play", lang=page_language())


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    app.jinja_env.globals["how_to_play_url"] = how_to_play_url
