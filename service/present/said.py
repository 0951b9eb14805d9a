"""The messages another seat's players said since a reader's last turn, as an email shows them
(``service.players.messages`` decides who may read what): each with the name of whoever said
it, its text as written (templates escape it; no link in it is made a link), and its plain-text
lines, quoted.

A reader's last turn ends with their last entry that is no claim: the claims made for them at the
start of this turn (the advanced rule's automatic claims) come after the others' words and before
the email that must carry them; under the standard rule a turn's claims follow its own moves."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sqlalchemy import func
from sqlmodel import Session, col, select

from service.models import MoveEntry, Player
from service.players.messages import messages_for
from service.present.plain_text import wrap

CLAIM_WORD = "claim"
"""A claim's entry in the move log is ``"A: claim 3"`` (docs/formats.md)."""


@dataclass(frozen=True, slots=True)
class SaidMessage:
    """One message for an email."""

    name: str
    """Who said it: their seat's name."""
    body: str
    lines: tuple[str, ...]
    """The text in plain-text lines, each quoted with ``  | ``."""


def said_since_last_turn(
    session: Session, game_id: int, seat: str, reader: Player, names: Mapping[str, str]
) -> tuple[SaidMessage, ...]:
    """What the other seats said to ``reader`` (at ``seat``) since ``seat`` last moved."""
    last = session.exec(
        select(func.max(MoveEntry.ply)).where(
            col(MoveEntry.game_id) == game_id,
            col(MoveEntry.seat) == seat,
            col(MoveEntry.notation).not_like(f"{seat}: {CLAIM_WORD} %"),
        )
    ).first()
    since = 0 if last is None else last + 1
    return tuple(
        SaidMessage(
            name=names.get(m.seat, m.seat),
            body=m.body,
            lines=tuple(
                line for paragraph in m.body.split("\n") for line in wrap(paragraph, "  | ")
            ),
        )
        for m in messages_for(session, game_id, reader, since_ply=since, others_only=True)
    )
