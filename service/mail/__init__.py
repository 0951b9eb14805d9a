"""The mail area: delivering the outbox (``delivery``, run by the worker), the pages behind the
links in every email (unsubscribe, mute a game, refuse invitations), and the development outbox
viewer. Emails are written by ``service.present`` and queued with ``service.outbox.queue``."""
