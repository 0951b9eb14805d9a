"""What came of a received email (``service.inbound.receive``): its ``Outcome``, kept on its
``InboundMessage`` row, and the ``Received`` that ``receive`` returns."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Outcome(enum.StrEnum):
    """What came of a received email (``InboundMessage.outcome``)."""

    APPLIED = "applied"
    """Its moves were played; a receipt went to the player."""
    REFUSED = "refused"
    """Nothing played (unreadable, ambiguous, illegal, not the player's turn, the game not being
    played, no email of ours answered); the player was told why."""
    STALE = "stale"
    """It answered a position the game has moved past; nothing played; the player was told."""
    DUPLICATE = "duplicate"
    """Its Message-ID was received before: nothing done again (no row of its own)."""
    TOO_LARGE = "too_large"
    MALFORMED = "malformed"
    """Nested too deep or in too many parts to parse (``mime_shape``): kept as dropped, never
    offered again (the SMTP receiver refuses it for good, the IMAP poller marks it handled)."""
    RATE_LIMITED = "rate_limited"
    AUTOMATIC = "automatic"
    """Sent by a program (auto-reply, bulk, list, our own answer): never played or answered."""
    BOUNCE = "bounce"
    """A bounce to one of our emails' signed bounce addresses: its recipient marked bouncing."""
    BOUNCE_UNMATCHED = "bounce_unmatched"
    """A delivery report to no signed bounce address, or a message to one that states no
    permanent failure: dropped, nothing marked."""
    NO_SENDER = "no_sender"
    """No single readable From address."""
    UNKNOWN_KEY = "unknown_key"
    """To no reply address of a seat (unknown, or revoked with the seat's links)."""
    OTHER_SENDER = "other_sender"
    """A valid reply address, from an address not the seat's: not played."""
    UNAUTHENTICATED = "unauthenticated"
    """Playable moves from the seat's address, but its sender was not proven: nothing played,
    the seat's own address was asked to confirm them by link."""
    IGNORED = "ignored"
    """The seat's reply with no move in it, to a game that is over, not started, or moved on."""


@dataclass(frozen=True)
class Received:
    """What ``receive`` did with one email."""

    outcome: Outcome
    detail: str = ""
    game_id: int | None = None
    seat: str | None = None
    answer_id: int | None = None
    """The outbox row of the answer, when one was queued."""
