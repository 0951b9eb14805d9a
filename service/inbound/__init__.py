"""The inbound area: play by replying to an email.

Every email of a game carries ``Reply-To: play+<key>@INBOUND_DOMAIN``, the seat's reply address
(``service.games.reply_keys``; set by ``service.outbox.queue``). Three ways in hand the raw
message to the same ``receive.receive``:

- ``smtp``: an SMTP receiver (aiosmtpd) that a site's mail server relays those addresses to
  (``python -m service.inbound.smtp``, the Procfile's ``inbound``);
- ``imap``: a hosted mailbox, polled by beat (``worker.inbound_tasks``) or watched with IDLE
  (``flask inbound imap-idle``);
- ``routes``: the development outbox's reply box (outside production only).

A reply acts for its seat only when our receiving server authenticated its sender
(``authentication``; the SMTP receiver's own verdicts: ``verify``); otherwise its moves wait for
the owner's confirmation by link (``confirm``, ``confirm_routes``, served in production too).

The player's words come out of the message in ``reply_text``; reading them into moves is
presentation (``service.present.reply_reading``), and so are the answers
(``service.present.reply_answers``). See docs/replies.md.
"""

from flask import Blueprint

bp = Blueprint("inbound", __name__)

from service.inbound import routes  # noqa: E402,F401  (registers the views on bp)
