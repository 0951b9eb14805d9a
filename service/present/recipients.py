"""Queueing one kind of email to each of its recipients, each built in its recipient's language:
every word made in Python for an email (its frozen value, its subject) is made by a function
``queue_email`` calls inside ``recipient_language``, so a game between an English and a
Japanese player gives each their own, whoever's page or task sends it."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TypeVar

from sqlmodel import Session

from service.games.loaded import LoadedGame
from service.models import Player
from service.outbox.kinds import MailKind
from service.outbox.models import OutboxMessage
from service.outbox.queue import queue_email
from service.present.template_values import template_values

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

Whom = TypeVar("Whom")
"""What a builder needs to know of a recipient (a seat letter, a seat row, nothing)."""
Made = TypeVar("Made")


def queue_to_each(
    session: Session,
    kind: MailKind,
    recipients: Iterable[tuple[Whom, Player]],
    email_for: Callable[[Whom], DataclassInstance],
    *,
    game: LoadedGame | None = None,
    subject_for: Callable[[Whom], str] | None = None,
    language: str | None = None,
) -> list[OutboxMessage]:
    """Queue an email of ``kind`` to each player of ``recipients``, its frozen value
    ``email_for(whom)`` and subject ``subject_for(whom)`` (default: the kind's) built in that
    player's language (``language`` for one who chose none). Returns the rows queued (a player
    who takes no such email gets none)."""
    queued = []
    for whom, player in recipients:
        row = queue_email(
            session,
            kind,
            player,
            game=game,
            subject=_bound(subject_for, whom) if subject_for is not None else None,
            context=_bound(lambda w: template_values(email_for(w)), whom),
            language=language,
        )
        if row is not None:
            queued.append(row)
    return queued


def _bound(make: Callable[[Whom], Made], whom: Whom) -> Callable[[], Made]:
    """``make`` for this recipient, to be called by ``queue_email`` in their language."""
    return lambda: make(whom)


def queue_to(
    session: Session,
    kind: MailKind,
    player: Player,
    email: Callable[[], DataclassInstance],
    *,
    game: LoadedGame | None = None,
    subject: Callable[[], str] | None = None,
    language: str | None = None,
) -> OutboxMessage | None:
    """``queue_to_each`` for one player: the row queued, or None."""
    rows = queue_to_each(
        session,
        kind,
        [(None, player)],
        lambda _: email(),
        game=game,
        subject_for=(lambda _: subject()) if subject is not None else None,
        language=language,
    )
    return rows[0] if rows else None
