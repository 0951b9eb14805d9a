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
from collections.abc import Callable, Mapping
from datetime import timedelta
from email.utils import make_msgid
from typing import Any
from urllib.parse import urlsplit

from flask import current_app, has_app_context, render_template
from sqlmodel import Session, col, func, select

import engine
from service import clock
from service.after_commit import note_for_commit, on_commit, publish_after_commit
from service.catalogue import gettext as _
from service.dkim_signing import signing_key
from service.game_words import ruleset_title
from service.games import reply_keys
from service.games.loaded import LoadedGame
from service.games.seats import known_address_status
from service.i18n import email_language, recipient_language
from service.models import AddressStatus, Game, Player, Seat, utcnow
from service.outbox.kinds import MailKind
from service.outbox.mime import build_mime
from service.outbox.models import GameMute, OutboxMessage, OutboxStatus
from service.outbox.signed import MailPurpose, mail_link
from service.text_wrap import display_width, wrap_line

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

ONE_CLICK = "List-Unsubscribe=One-Click"


def message_id_domain() -> str:
    """The right-hand side of our Message-IDs: ``MAIL_MESSAGE_ID_DOMAIN``, else BASE_URL's host."""
    configured: str | None = current_app.config.get("MAIL_MESSAGE_ID_DOMAIN")
    return configured or urlsplit(current_app.config["BASE_URL"]).hostname or "localhost"


def new_message_id(kind: MailKind) -> str:
    """A fresh, globally unique ``<...@domain>`` (kept on the row: a retry reuses it)."""
    return make_msgid(idstring=kind.value.replace("_", "-"), domain=message_id_domain())


def list_id(game_id: int) -> str:
    """The ``List-Id`` of a game's emails: ``<game-12.battleline.example>``."""
    return f"<game-{game_id}.{message_id_domain()}>"


def game_subject(session: Session, game: Game, what: str = "") -> str:
    """The subject of an email of a game: what happened, then the game (the variant's own name
    and the game's number): ``"Your turn: Schotten-Totten, game 12"``. The game's part is the
    same in every email of it, and each carries In-Reply-To/References to the first, so mail
    programs that thread by those keep a game together. Nothing a person typed (names are chosen
    by whoever filled in the form) and never a card: a subject shows in every mailbox list."""
    assert game.id is not None
    title = ruleset_title(game.ruleset)
    if what:
        return str(
            _("%(what)s: %(title)s, game %(number)d", what=what, title=title, number=game.id)
        )
    return str(_("%(title)s, game %(number)d", title=title, number=game.id))


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


def reply_address(session: Session, loaded: LoadedGame, player_id: int) -> str | None:
    """``INBOUND_LOCAL_PART+<key>@INBOUND_DOMAIN``: where the player's seat in this game replies
    by email (``service.games.reply_keys``; ``service.inbound`` receives it). None when replies
    are off (no ``INBOUND_DOMAIN``) or the player holds no seat of the game (or several)."""
    domain: str | None = current_app.config.get("INBOUND_DOMAIN")
    if not domain:
        return None
    seats = [seat for seat, p in loaded.seats.values() if p.id == player_id]
    if len(seats) != 1:
        return None
    local = current_app.config.get("INBOUND_LOCAL_PART") or "play"
    return f"{local}+{reply_keys.reply_key(session, seats[0])}@{domain}"


def blocked_reason(
    session: Session, kind: MailKind, player: Player, game: LoadedGame | None
) -> str | None:
    """Why ``player`` must not get this email (about ``game``, if any), or None. Requested kinds
    are never blocked, but nothing at all goes to the computer's players (their addresses lead
    nowhere), nor to a player who closed their account (``Player.closed_at``: they asked for
    nothing more)."""
    if player.closed_at is not None:
        return "the account is closed"
    if player.computer is not None:
        return "the computer reads no email"
    rules = kind.rules
    if rules.requested:
        return None
    # A seat's status is read with the game's seats (one query for the game, not one a player).
    known, status = (
        known_address_status(game, player.id)
        if game is not None and player.id is not None
        else (False, None)
    )
    if not known:
        status = session.get(AddressStatus, player.id)
    if status is not None:
        if status.unsubscribed_at is not None:
            return "unsubscribed"
        if status.bounced_at is not None:
            return "bouncing"
        if rules.invitation and status.refuses_invitations_at is not None:
            return "refuses invitations"
    if game is not None and session.get(GameMute, (player.id, game.id)) is not None:
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
            Seat.letter == engine.FIRST_SEAT, Seat.player_id == inviter_id
        )
    return int(session.exec(statement).one())


TEXT_WIDTH = 78
"""The longest line of an email's text part: an 80-column mail program shows every line whole."""


def fit_lines(text: str, width: int = TEXT_WIDTH) -> str:
    """``text`` with every line wider than ``width`` columns wrapped, keeping its indentation:
    at spaces, and in Japanese between phrases (``service.text_wrap``). Words are never
    cut, so a link keeps a line of its own, however long."""
    lines: list[str] = []
    for line in text.split("\n"):
        if display_width(line) <= width:
            lines.append(line)
            continue
        indent = line[: len(line) - len(line.lstrip())]
        lines.extend(wrap_line(line.strip(), width, indent))
    return "\n".join(lines)


def render_email(kind: MailKind, context: Mapping[str, Any]) -> tuple[str, str]:
    """The text and HTML bodies of ``kind`` from ``templates/email/<kind>.txt`` and ``.html``;
    the text's lines fit 78 columns (``fit_lines``)."""
    text = fit_lines(render_template(f"email/{kind.value}.txt", **context))
    html = render_template(f"email/{kind.value}.html", **context)
    return text.strip() + "\n", html_for_the_wire(html)


def html_for_the_wire(html: str) -> str:
    """``html`` with its characters beyond ASCII as HTML references when that is the smaller
    email: the part then goes as 7bit rather than base64, which takes a third more than the
    UTF-8 bytes. A reference takes 7 or 8 bytes for a character of 2 or 3 in UTF-8, so a part
    mostly in Japanese stays UTF-8."""
    referenced = html.encode("ascii", "xmlcharrefreplace").decode("ascii")
    return referenced if len(referenced) <= len(html.encode("utf-8")) * 4 / 3 else html


def queue_email(
    session: Session,
    kind: MailKind,
    player: Player,
    *,
    game: LoadedGame | None = None,
    subject: str | Callable[[], str] | None = None,
    context: Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None = None,
    in_reply_to: str | None = None,
    language: str | None = None,
) -> OutboxMessage | None:
    """Render an email of ``kind`` for ``player`` and add it to the outbox in ``session``, in
    the player's language (``language`` if they chose none: the page a newcomer filled in).
    ``subject`` and ``context`` may be given as functions that make them: they are called in
    that language, and not at all for a player who takes no such email.

    Game-thread kinds need ``game`` (as loaded: its seats and their address statuses are read
    from it); their subject is ``subject`` (what happened, by default
    the kind's ``KindRules.subject``) followed by the game (``game_subject``). Other kinds need
    ``subject``. Templates get ``context`` plus ``recipient_name``, ``unsubscribe_url``,
    ``mute_url`` (game threads) and ``refuse_invitations_url`` (invitations).
    Returns the row (flushed, with its id), or None when the player does not take this email
    (unsubscribed, bouncing, muted the game, refuses invitations). Nothing is sent before the
    session commits. Raises HeaderInjectionError for a line break in any header value.

    Emails of a game carry ``Reply-To``, the seat's reply address (``reply_address``), and keep
    the game's ply on their row: a reply by email is read as meant for that position.
    ``in_reply_to``: the Message-ID of the player's email this one answers (``service.inbound``,
    checked to be one), threaded after it instead of the first email of the game.
    """
    assert player.id is not None
    rules = kind.rules
    game_id = game.id if game is not None else None
    reason = blocked_reason(session, kind, player, game)
    if reason is not None:
        logger.info("not queueing %s to player %s: %s", kind.value, player.id, reason)
        return None
    if rules.game_thread and (game is None or game_id is None):
        raise ValueError(f"a {kind.value} email belongs to a game: pass game=")
    if not rules.game_thread and subject is None:
        raise ValueError(f"a {kind.value} email needs a subject")
    # In the recipient's language, whoever's page or task sends it (service.i18n).
    with recipient_language(email_language(player, language)):
        if callable(subject):
            subject = subject()
        if callable(context):
            context = context()
        if rules.game_thread and game is not None:
            among_three = rules.subject_among_three and len(game.seats) > 2
            what = rules.subject_among_three if among_three else rules.subject
            subject = game_subject(session, game.game, subject or str(what))
        assert subject is not None
        unsubscribe_url = mail_link(MailPurpose.UNSUBSCRIBE, player.id)
        full_context: dict[str, Any] = {
            # Times read in the player's own zone, with the time left from now
            # (service.reader_time); a caller may give its own ``now`` (the scan's clock).
            "time_zone": player.time_zone,
            "now": clock.now(),
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
        "Auto-Submitted": rules.auto_submitted,
        # RFC 8058: a mail program may POST here with no further step; GET only shows a page.
        "List-Unsubscribe": f"<{unsubscribe_url}>",
        "List-Unsubscribe-Post": ONE_CLICK,
    }
    if rules.game_thread and game is not None:
        game_id = game.id
        # RFC 2919: one list per game, so that a mail program can file or filter a game's mail.
        headers["List-Id"] = list_id(game_id)
        root = thread_root(session, game_id, player.id)
        if in_reply_to is not None:
            headers["In-Reply-To"] = in_reply_to
            headers["References"] = " ".join(r for r in (root, in_reply_to) if r)
        elif root is not None:
            headers["In-Reply-To"] = root
            headers["References"] = root
        reply_to = reply_address(session, game, player.id)
        if reply_to is not None:
            headers["Reply-To"] = reply_to
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
        mime=None,
        status=OutboxStatus.QUEUED,
        created_at=now,
        next_attempt_at=now + sweep_after,
        ply=game.game.ply if game is not None else None,
    )
    # build_mime refuses a line break in any header value (HeaderInjectionError): no row then.
    row.mime = build_mime(
        row,
        sender=current_app.config["MAIL_DEFAULT_SENDER"],
        signing_key=signing_key(current_app.config),
    )
    session.add(row)
    session.flush()
    assert row.id is not None
    note_for_commit(session, PENDING_KEY, row.id)
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


# Looked up at each commit, so that a test may replace ``dispatch``.
on_commit(PENDING_KEY, lambda outbox_ids: dispatch(outbox_ids))
