"""Queueing email: render a kind's templates, address it, and add one outbox row in the caller's
transaction. The row's ``deliver`` task is queued only after that transaction commits.

    queue_email(session, MailKind.GAME_STARTED, player, game=game, context={...})

adds the row and remembers its id on the session; when the session commits, an ``after_commit``
hook queues one ``deliver(*ids)`` for the rows of that commit (``TASK_BATCH`` ids at most per
task; run at once in the embedded, eager mode). A rollback forgets the ids,
so no task ever names a row that does not exist. If queueing the task fails (Redis down), the row
is still there and the beat sweep sends it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import timedelta
from email.utils import make_msgid
from typing import Any
from urllib.parse import urlsplit

import sqlalchemy as sa
from flask import current_app, has_app_context, render_template
from sqlmodel import Session, col, func, select

import engine
from service.after_commit import publish_after_commit
from service.models import Game, Player, Seat, utcnow
from service.outbox.kinds import MailKind
from service.outbox.mime import build_mime
from service.outbox.models import AddressStatus, GameMute, OutboxMessage, OutboxStatus
from service.outbox.signed import MailPurpose, mail_link

logger = logging.getLogger(__name__)

DELIVER_TASK = "worker.deliver"
"""The Celery name of the task that sends outbox rows (``worker.tasks.deliver``)."""
TASK_BATCH = 50
"""The most row ids in one ``deliver`` task: a commit of many rows makes a few tasks, not one per
row (each task sends its rows over one SMTP connection), and several workers can share them."""
SWEEP_TASK = "worker.sweep_outbox"
"""The Celery name of the beat task that sends rows still unsent (``worker.tasks.sweep_outbox``)."""

PENDING_KEY = "battleline.outbox.pending"
"""Where a session keeps the ids of the rows it queued, until it commits."""

AUTO_SUBMITTED = "auto-generated"
ONE_CLICK = "List-Unsubscribe=One-Click"


def message_id_domain() -> str:
    """The right-hand side of our Message-IDs: ``MAIL_MESSAGE_ID_DOMAIN``, else BASE_URL's host."""
    configured: str | None = current_app.config.get("MAIL_MESSAGE_ID_DOMAIN")
    return configured or urlsplit(current_app.config["BASE_URL"]).hostname or "localhost"


def new_message_id(kind: MailKind) -> str:
    """A fresh, globally unique ``<...@domain>`` (kept on the row: a retry reuses it)."""
    return make_msgid(idstring=kind.value.replace("_", "-"), domain=message_id_domain())


def game_subject(session: Session, game: Game) -> str:
    """The one subject of every email of a game, so that mail programs keep them in one thread.
    Nothing a person typed (names are chosen by whoever filled in the form) and never a card
    (PITFALLS)."""
    assert game.id is not None
    title = engine.get_ruleset(game.ruleset).title
    return f"Battle Line by mail: game {game.id}, {title}"


def thread_root(session: Session, game_id: int, player_id: int) -> str | None:
    """The Message-ID of the first email of this game's thread to this player, if any."""
    threaded = [kind.value for kind in MailKind if kind.rules.game_thread]
    return session.exec(
        select(OutboxMessage.message_id)
        .where(
            OutboxMessage.game_id == game_id,
            OutboxMessage.player_id == player_id,
            col(OutboxMessage.kind).in_(threaded),
        )
        .order_by(col(OutboxMessage.id))
        .limit(1)
    ).first()


def blocked_reason(
    session: Session, kind: MailKind, player: Player, game_id: int | None
) -> str | None:
    """Why ``player`` must not get this email, or None. Requested kinds are never blocked."""
    rules = kind.rules
    if rules.requested:
        return None
    status = session.get(AddressStatus, player.id)
    if status is not None:
        if status.unsubscribed_at is not None:
            return "unsubscribed"
        if status.bounced_at is not None:
            return "bouncing"
        if rules.invitation and status.refuses_invitations_at is not None:
            return "refuses invitations"
    if game_id is not None and session.get(GameMute, (player.id, game_id)) is not None:
        return "muted this game"
    return None


def emails_queued_since(
    session: Session,
    kind: MailKind,
    since: object,
    *,
    player_id: int | None = None,
    inviter_id: int | None = None,
) -> int:
    """How many emails of ``kind`` went into the outbox since ``since``, to ``player_id`` or
    about games that ``inviter_id`` started (emails actually queued: an email that was refused
    before queueing counts for nobody)."""
    statement = (
        select(func.count())
        .select_from(OutboxMessage)
        .where(OutboxMessage.kind == kind, col(OutboxMessage.created_at) >= since)
    )
    if player_id is not None:
        statement = statement.where(OutboxMessage.player_id == player_id)
    if inviter_id is not None:
        statement = statement.join(Seat, col(Seat.game_id) == col(OutboxMessage.game_id)).where(
            Seat.letter == "A", Seat.player_id == inviter_id
        )
    return int(session.exec(statement).one())


def render_email(kind: MailKind, context: Mapping[str, Any]) -> tuple[str, str]:
    """The text and HTML bodies of ``kind`` from ``templates/email/<kind>.txt`` and ``.html``."""
    text = render_template(f"email/{kind.value}.txt", **context)
    html = render_template(f"email/{kind.value}.html", **context)
    return text.strip() + "\n", html


def queue_email(
    session: Session,
    kind: MailKind,
    player: Player,
    *,
    game: Game | None = None,
    subject: str | None = None,
    context: Mapping[str, Any] | None = None,
) -> OutboxMessage | None:
    """Render an email of ``kind`` for ``player`` and add it to the outbox in ``session``.

    Game-thread kinds need ``game`` and get the game's stable subject; other kinds need
    ``subject``. Templates get ``context`` plus ``recipient_name``, ``unsubscribe_url``,
    ``mute_url`` (game threads) and ``refuse_invitations_url`` (invitations).
    Returns the row (flushed, with its id), or None when the player does not take this email
    (unsubscribed, bouncing, muted the game, refuses invitations). Nothing is sent before the
    session commits. Raises HeaderInjectionError for a line break in any header value.
    """
    assert player.id is not None
    rules = kind.rules
    game_id = game.id if game is not None else None
    reason = blocked_reason(session, kind, player, game_id)
    if reason is not None:
        logger.info("not queueing %s to player %s: %s", kind.value, player.id, reason)
        return None
    if rules.game_thread:
        if game is None or game_id is None:
            raise ValueError(f"a {kind.value} email belongs to a game: pass game=")
        subject = game_subject(session, game)
    elif subject is None:
        raise ValueError(f"a {kind.value} email needs a subject")

    unsubscribe_url = mail_link(MailPurpose.UNSUBSCRIBE, player.id)
    full_context: dict[str, Any] = {
        **(context or {}),
        "kind": kind.value,
        "subject": subject,
        "recipient_name": player.display_name,
        "unsubscribe_url": unsubscribe_url,
        "mute_url": mail_link(MailPurpose.MUTE_GAME, player.id, game_id)
        if rules.game_thread and game_id is not None
        else None,
        "refuse_invitations_url": mail_link(MailPurpose.REFUSE_INVITATIONS, player.id)
        if rules.invitation
        else None,
    }
    text, html = render_email(kind, full_context)

    message_id = new_message_id(kind)
    headers = {
        "Auto-Submitted": AUTO_SUBMITTED,
        # RFC 8058: a mail program may POST here with no further step; GET only shows a page.
        "List-Unsubscribe": f"<{unsubscribe_url}>",
        "List-Unsubscribe-Post": ONE_CLICK,
    }
    if rules.game_thread and game_id is not None:
        root = thread_root(session, game_id, player.id)
        if root is not None:
            headers["In-Reply-To"] = root
            headers["References"] = root
    # build_mime refuses a line break in any header value (HeaderInjectionError).
    mime = build_mime(
        sender=current_app.config["MAIL_DEFAULT_SENDER"],
        recipient_name=player.display_name,
        recipient=player.email,
        subject=subject,
        text=text,
        html=html,
        message_id=message_id,
        headers=headers,
    )
    now = utcnow()
    sweep_after = timedelta(seconds=float(current_app.config["MAIL_SWEEP_AFTER_S"]))
    row = OutboxMessage(
        recipient=player.email,
        recipient_name=player.display_name,
        player_id=player.id,
        game_id=game_id,
        kind=kind.value,
        subject=subject,
        text_body=text,
        html_body=html,
        message_id=message_id,
        headers=headers,
        mime=mime,
        status=OutboxStatus.QUEUED,
        created_at=now,
        next_attempt_at=now + sweep_after,
    )
    session.add(row)
    session.flush()
    assert row.id is not None
    session.info.setdefault(PENDING_KEY, []).append(row.id)
    return row


def dispatch(outbox_ids: list[int]) -> None:
    """Queue ``deliver`` for the rows, ``TASK_BATCH`` ids per task (eager mode: send now).
    Called after the commit."""
    if not has_app_context():
        logger.warning(
            "outbox rows %s committed outside an app: the sweep will send them", outbox_ids
        )
        return
    # The rows are committed and the sweep will send them: a broker that is down or stalled (or
    # an SMTP failure in eager mode) must neither turn the change just committed into an error
    # page nor hold the request (bounded by BROKER_PUBLISH_TIMEOUT_S).
    publish_after_commit(
        current_app.extensions["celery"],
        [
            (DELIVER_TASK, tuple(outbox_ids[start : start + TASK_BATCH]))
            for start in range(0, len(outbox_ids), TASK_BATCH)
        ],
        f"delivery of outbox rows {outbox_ids}",
    )


@sa.event.listens_for(Session, "after_commit")
def _queue_after_commit(session: Session) -> None:
    pending: list[int] | None = session.info.pop(PENDING_KEY, None)
    if pending:
        dispatch(pending)


@sa.event.listens_for(Session, "after_rollback")
def _forget_after_rollback(session: Session) -> None:
    session.info.pop(PENDING_KEY, None)
