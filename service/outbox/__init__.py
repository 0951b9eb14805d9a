"""The outbox: every email the service sends, queued in the caller's transaction and delivered
after the commit (by ``service.mail.delivery``), and what the service knows about addresses.

Below the areas and the presentation layer; it imports neither.

- ``queue_email(session, kind, player, game=..., subject=..., context=...)`` renders one email
  and adds it to the outbox (``queue``); it is sent after the commit.
- ``MailKind``: every kind of email and its rules (``kinds``), each with a template pair
  ``templates/email/<kind>.txt`` and ``.html``.
- ``addresses``: bounces, unsubscribing, muted games, confirmed addresses.
- ``signed``: the signed links of the mail pages; ``mime``: building and storing messages.
- ``prune``: the bodies of emails sent long ago dropped (``OUTBOX_KEEP_BODIES_DAYS``), by beat.
"""

from service.outbox.addresses import BouncingAddress, bouncing_addresses
from service.outbox.kinds import MailKind
from service.outbox.mime import HeaderInjectionError
from service.outbox.queue import queue_email

__all__ = [
    "BouncingAddress",
    "HeaderInjectionError",
    "MailKind",
    "bouncing_addresses",
    "queue_email",
]
