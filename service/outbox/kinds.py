"""Every kind of email the service sends, and the rules each one follows.

To add a kind: a member here with its ``KindRules``, a pair of templates
``templates/email/<value>.txt`` and ``.html`` (extending ``email/_layout.*``), and a function that
builds its context and calls ``service.outbox.queue.queue_email``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


@dataclass(frozen=True)
class KindRules:
    """How one kind of email is addressed and when it is not sent."""

    game_thread: bool
    """Part of a game's thread: the game's stable subject, In-Reply-To/References to the first
    email of that game to the same person, and a mute link."""
    requested: bool
    """The person asked for it on the site just now (a confirmation, a link): sent even to an
    unsubscribed or bouncing address, and never muted."""
    invitation: bool = False
    """Not sent to an address that refuses invitations."""


class MailKind(enum.StrEnum):
    """What an email is; also the name of its template pair under ``templates/email/``."""

    CONFIRM_ADDRESS = "confirm_address"
    """To a game's creator: confirm your address, then the invitation goes out."""
    INVITATION = "invitation"
    """To the invited player: accept or decline; refuse all invitations."""
    GAME_STARTED = "game_started"
    """To both players: the cut, who begins, the seed commitment."""
    GAME_CANCELLED = "game_cancelled"
    """To the other players of a game for three when one invited player declines: who declined,
    the game is cancelled for everyone, nothing was dealt."""
    MY_GAMES = "my_games"
    """To a player who asked for it: the link to the list of their games."""
    YOUR_TURN = "your_turn"
    """To the player to move: the opponent's last turn, the claims made for them, the board,
    their hand, the deadline, a link per legal move (by card) and the private page."""
    REMINDER = "reminder"
    """To the player to move, before the deadline (half, 80%, a day before; one a day)."""
    TIMEOUT_NOTICE = "timeout_notice"
    """To both players: a deadline passed; a vacation day was used, or the player lost on time."""
    RUNNING_LATE = "running_late"
    """To the opponent of a player who runs late (80% of the time used or a day left)."""
    GAME_OVER = "game_over"
    """To both players: the result, the flags, the points, the seed (R3), play again."""
    DIGEST = "digest"
    """Once a day, to a player who chose it instead of "your turn" emails: the games where it
    is their turn."""

    @property
    def rules(self) -> KindRules:
        return KIND_RULES[self]


KIND_RULES: dict[MailKind, KindRules] = {
    MailKind.CONFIRM_ADDRESS: KindRules(game_thread=False, requested=True),
    MailKind.INVITATION: KindRules(game_thread=True, requested=False, invitation=True),
    MailKind.GAME_STARTED: KindRules(game_thread=True, requested=False),
    MailKind.GAME_CANCELLED: KindRules(game_thread=True, requested=False),
    MailKind.MY_GAMES: KindRules(game_thread=False, requested=True),
    MailKind.YOUR_TURN: KindRules(game_thread=True, requested=False),
    MailKind.REMINDER: KindRules(game_thread=True, requested=False),
    MailKind.TIMEOUT_NOTICE: KindRules(game_thread=True, requested=False),
    MailKind.RUNNING_LATE: KindRules(game_thread=True, requested=False),
    MailKind.GAME_OVER: KindRules(game_thread=True, requested=False),
    MailKind.DIGEST: KindRules(game_thread=False, requested=False),
}
