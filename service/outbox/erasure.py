"""The outbox's part of closing an account (``service.history.closure``): every email to the
player goes (those waiting are never sent), and the emails to other people that name them name
"a former player" instead, in each reader's language.

A sent email keeps its text and HTML (what the reader was told, without the name) but loses its
wire copy (``mime``), as pruning does; one still waiting gets its wire copy built again from the
scrubbed parts, with the same Message-ID.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from flask import current_app
from sqlmodel import Session, col, delete, or_, select

from service.catalogue import gettext
from service.dkim_signing import signing_key
from service.i18n import recipient_language
from service.models import Player
from service.outbox.mime import build_mime
from service.outbox.models import GameMute, NoticeDay, OutboxMessage, OutboxStatus


def former_player_words() -> str:
    """What stands for a closed account's name, in the language of the moment."""
    return str(gettext("a former player"))


def forget_recipient(session: Session, player_id: int, address: str) -> None:
    """Every email to this player or address goes, queued or sent; and their mutes and notice
    days, which only said what to send them."""
    session.exec(
        delete(OutboxMessage).where(
            or_(col(OutboxMessage.player_id) == player_id, col(OutboxMessage.recipient) == address)
        )
    )
    session.exec(delete(GameMute).where(col(GameMute.player_id) == player_id))
    session.exec(delete(NoticeDay).where(col(NoticeDay.recipient_id) == player_id))


def _forms(word: str) -> list[str]:
    """``word`` as it can appear in a body: as typed, HTML-escaped, and with every character
    beyond ASCII as a reference (the HTML parts are ASCII, ``queue.render_email``)."""
    escaped = html.escape(word)
    ascii_html = escaped.encode("ascii", "xmlcharrefreplace").decode("ascii")
    return list(dict.fromkeys([word, escaped, ascii_html]))


def _without(text: str | None, words: Sequence[str], placeholder: str) -> str | None:
    if text is None:
        return None
    for word in words:
        for form in _forms(word):
            # Whole words only, and never inside a link or an address: a short name must not
            # eat the middle of another word or break a link of a waiting email.
            pattern = rf"(?<![\w&#/.@:+=-]){re.escape(form)}(?![\w/@=-]|\.\w)"
            text = re.sub(pattern, lambda _m: placeholder, text, flags=re.IGNORECASE)
    return text


def unname_in_emails(
    session: Session, game_ids: Sequence[int], player_id: int, words: Sequence[str]
) -> None:
    """In the emails to other people about ``game_ids``, ``words`` (the closed player's name
    and address) become "a former player" in the reader's language."""
    words = [word for word in words if word]
    if not game_ids or not words:
        return
    rows = session.exec(
        select(OutboxMessage, Player)
        .join(Player, col(Player.id) == col(OutboxMessage.player_id))
        .where(col(OutboxMessage.game_id).in_(list(game_ids)), OutboxMessage.player_id != player_id)
    ).all()
    for row, reader in rows:
        with recipient_language(reader.language):
            placeholder = former_player_words()
        text = _without(row.text_body, words, placeholder)
        body = _without(row.html_body, words, html.escape(placeholder))
        subject = _without(row.subject, words, placeholder) or ""
        if (text, body, subject) == (row.text_body, row.html_body, row.subject):
            continue
        row.text_body, row.html_body, row.subject = text, body, subject
        if row.status in (OutboxStatus.QUEUED, OutboxStatus.SENDING) and text and body:
            row.mime = build_mime(
                row,
                sender=current_app.config["MAIL_DEFAULT_SENDER"],
                signing_key=signing_key(current_app.config),
            )
        else:
            row.mime = None
        session.add(row)
