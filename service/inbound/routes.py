"""The development outbox's reply box (registered outside production only, like the outbox):
the text typed is sent as the recipient's reply to the email, through ``receive`` as if it had
come by mail, and the page shows the answer."""

from __future__ import annotations

from flask import current_app, redirect, request, url_for
from werkzeug.wrappers import Response

from service import clock
from service.catalogue import lazy_gettext
from service.db import session_scope
from service.inbound import bp
from service.inbound.dev_reply import MAX_REPLY_CHARS, reply_to
from service.inbound.receive import receive
from service.outbox.models import OutboxMessage
from service.refusal import Refusal
from service.tokens import MAX_ID


class ReplyBoxError(Refusal):
    """The reply box was sent empty, too long, or for an email that takes no reply."""

    status = 400
    title = lazy_gettext("This reply cannot be sent")


@bp.post("/dev/outbox/<int:outbox_id>/reply")
def dev_reply(outbox_id: int) -> Response:
    texts = request.form.getlist("reply")
    text = texts[0] if len(texts) == 1 else ""
    if not text.strip():
        raise ReplyBoxError(
            lazy_gettext("Type the reply first (a move such as R7>3, or plain words).")
        )
    if len(text) > MAX_REPLY_CHARS:
        raise ReplyBoxError(
            lazy_gettext("A reply here holds at most %(num)d characters.", num=MAX_REPLY_CHARS)
        )
    with session_scope() as session:
        row = session.get(OutboxMessage, outbox_id) if outbox_id <= MAX_ID else None
    if row is None or "Reply-To" not in row.headers:
        raise ReplyBoxError(lazy_gettext("This email takes no reply (it has no Reply-To)."))
    now = clock.now()
    raw = reply_to(row, text, sender=str(current_app.config["MAIL_DEFAULT_SENDER"]), now=now)
    received = receive(raw, now=now, recipients=[row.headers["Reply-To"]])
    if received.answer_id is not None:
        return redirect(url_for("outbox.outbox_message", outbox_id=received.answer_id), code=303)
    return redirect(url_for("outbox.outbox_list"), code=303)
