"""The key of each seat's reply address (``play+<key>@INBOUND_DOMAIN``): like a seat's links, a
secret that only that seat's emails carry, revoked with them.

A key is made for the seat's token generation the first time an email of that generation is
queued (``service.outbox.queue``), and opens the seat only while the generation is unchanged:
``seats.revoke_seat_links`` (a bump of ``Seat.token_generation``) withdraws it, and the next
email carries a new key. Keys are random (``secrets``), twelve characters of a 32-letter lower-case
alphabet (60 bits): mail servers may lower-case an address's local part, and a person may copy one
by hand, so no ``0``/``o`` or ``1``/``l``.
"""

from __future__ import annotations

import re
import secrets

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from service.inbound_models import ReplyKey
from service.models import Seat

KEY_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"
KEY_LENGTH = 12
KEY_RE = re.compile(f"[{KEY_ALPHABET}]{{{KEY_LENGTH}}}")


def new_key() -> str:
    """A fresh random key."""
    return "".join(secrets.choice(KEY_ALPHABET) for _ in range(KEY_LENGTH))


def _key_of(session: Session, seat: Seat) -> str | None:
    return session.exec(
        select(ReplyKey.key).where(
            ReplyKey.seat_id == seat.id, ReplyKey.generation == seat.token_generation
        )
    ).first()


def reply_key(session: Session, seat: Seat) -> str:
    """The key of the seat's reply address for its current token generation, made if missing
    (a concurrent maker wins without an error)."""
    assert seat.id is not None
    key = _key_of(session, seat)
    if key is not None:
        return key
    try:
        with session.begin_nested():
            row = ReplyKey(key=new_key(), seat_id=seat.id, generation=seat.token_generation)
            session.add(row)
    except IntegrityError:
        key = _key_of(session, seat)
        if key is None:  # not a concurrent maker: the same random key twice (2^-60); try again
            return reply_key(session, seat)
        return key
    return row.key


def seat_for_key(session: Session, key: str) -> Seat | None:
    """The seat a reply key opens, or None: no such key (anything that is not a key is never
    looked up), or the seat's links were revoked since it was made."""
    key = key.lower()
    if not KEY_RE.fullmatch(key):
        return None
    found = session.exec(
        select(ReplyKey, Seat)
        .join(Seat, col(ReplyKey.seat_id) == col(Seat.id))
        .where(ReplyKey.key == key)
    ).first()
    if found is None:
        return None
    row, seat = found
    return seat if row.generation == seat.token_generation else None
