"""Email: the outbox, its delivery by the worker, the emails themselves, and the links in them.

The API the rest of the service uses:

- ``queue_email(session, kind, player, game=..., subject=..., context=...)`` adds one rendered
  email to the outbox in the caller's transaction; it is sent after the commit.
- ``MailKind``: every kind of email and its rules (``kinds.py``), each with a template pair
  ``templates/email/<kind>.txt`` and ``.html``.
- ``queue_my_games_email(session, player, games_url)`` and the other builders in ``emails.py``.
- ``bouncing_addresses(session, game_id)``: the seats whose email bounces, for the game pages.
"""

from service.mail.addresses import BouncingAddress, bouncing_addresses
from service.mail.emails import queue_my_games_email
from service.mail.kinds import MailKind
from service.mail.mime import HeaderInjectionError
from service.mail.outbox import queue_email

__all__ = [
    "BouncingAddress",
    "HeaderInjectionError",
    "MailKind",
    "bouncing_addresses",
    "queue_email",
    "queue_my_games_email",
]
