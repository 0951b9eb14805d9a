"""The development outbox: every email the service queued, listed and shown in full (text and
HTML, with working links). Registered only outside production: it shows everyone's links."""

from __future__ import annotations

import re

from flask import Blueprint, Response, current_app, render_template
from markupsafe import Markup, escape
from sqlmodel import col, select

from service.catalogue import lazy_gettext
from service.db import read_scope, session_scope
from service.outbox.models import OutboxMessage
from service.refusal import Refusal
from service.tokens import MAX_ID

bp = Blueprint("outbox", __name__, url_prefix="/dev/outbox")

LIST_LIMIT = 200
_URL = re.compile(r"https?://[^\s<>\"']+")


class NoSuchEmailError(Refusal):
    status = 404
    title = lazy_gettext("No such email")

    def __init__(self, outbox_id: int) -> None:
        super().__init__(lazy_gettext("The outbox has no email %(id)d.", id=outbox_id))


def linkify(text: str) -> Markup:
    """Plain text, escaped, with every http(s) address made a link."""
    escaped = str(escape(text))
    return Markup(
        _URL.sub(lambda match: f'<a href="{match.group(0)}">{match.group(0)}</a>', escaped)
    )


def _row(outbox_id: int) -> OutboxMessage:
    if outbox_id > MAX_ID:
        raise NoSuchEmailError(outbox_id)  # no column holds it (it would not even fit a query)
    with session_scope() as session:
        row = session.get(OutboxMessage, outbox_id)
    if row is None:
        raise NoSuchEmailError(outbox_id)
    return row


@bp.get("")
def outbox_list() -> str:
    with read_scope() as session:
        rows = session.exec(
            select(OutboxMessage).order_by(col(OutboxMessage.id).desc()).limit(LIST_LIMIT)
        ).all()
    return render_template("outbox/list.html", rows=rows)


def pruned_notice() -> str:
    days = float(current_app.config["OUTBOX_KEEP_BODIES_DAYS"])
    return (
        f"This email's body was dropped: it was sent more than {days:g} days ago "
        "(OUTBOX_KEEP_BODIES_DAYS). Its headers are kept."
    )


@bp.get("/<int:outbox_id>")
def outbox_message(outbox_id: int) -> str:
    row = _row(outbox_id)
    text = linkify(row.text_body) if row.text_body is not None else None
    return render_template("outbox/message.html", row=row, text=text, pruned=pruned_notice())


@bp.get("/<int:outbox_id>/html")
def outbox_html(outbox_id: int) -> Response:
    """The HTML body alone, as the recipient's mail program would show it (410 once pruned)."""
    body = _row(outbox_id).html_body
    if body is None:
        return Response(pruned_notice(), status=410, mimetype="text/plain")
    return Response(body, mimetype="text/html")
