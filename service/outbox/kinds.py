"""Every kind of email the service sends, and the rules each one follows.

To add a kind: a member here with its ``KindRules``, a pair of templates
``templates/email/<value>.txt`` and ``.html`` (extending ``email/_layout.*``), and a function that
builds its context and calls ``service.outbox.queue.queue_email``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from flask_babel import LazyString

from service.catalogue import lazy_gettext


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
    auto_submitted: str = "auto-generated"
    """Its ``Auto-Submitted`` header (RFC 3834): ``auto-replied`` for an answer to an email
    received (``service.inbound`` never answers a message that carries either)."""
    subject: str | LazyString = ""
    """What happened, at the head of a game-thread email's subject (``"Your turn"``), unless the
    email's builder says more (``"Game over, you won"``)."""
    subject_among_three: str | LazyString = ""
    """The same for a game of three, where ``subject`` speaks of "your opponent" and there are
    two (``"Another player runs late"``); empty: ``subject`` in every game."""


class MailKind(enum.StrEnum):
    """What an email is; also the name of its template pair under ``templates/email/``."""

    CONFIRM_ADDRESS = "confirm_address"
    """To a game's creator: confirm your address, then the invitation goes out."""
    INVITATION = "invitation"
    """To the invited player: accept or decline; refuse all invitations."""
    GAME_STARTED = "game_started"
    """To both players: the cut, who begins, the seed commitment."""
    GAME_CANCELLED = "game_cancelled"
    """To every other player of a game when one invited player declines: who declined, the game
    is cancelled for everyone, nothing was dealt, and a link to start another."""
    MY_GAMES = "my_games"
    """To a player who asked for it: the link to the list of their games."""
    YOUR_TURN = "your_turn"
    """To the player to move: the others' last turns (each claim with why it held), the claims
    made for them, the board, their hand, the deadline, every legal move's code to reply with
    (text part) and link (HTML part), and the private page."""
    REMINDER = "reminder"
    """To the player to move, before the deadline (half, 80%, a day before; one a day)."""
    TIMEOUT_NOTICE = "timeout_notice"
    """To both players: a deadline passed; a vacation day was used, or the player lost on time."""
    RUNNING_LATE = "running_late"
    """To the opponent of a player who runs late (80% of the time used or a day left)."""
    GAME_OVER = "game_over"
    """To both players: the result, the flags, the points, the seed (R3), play again."""
    SEAT_UNREACHABLE = "seat_unreachable"
    """To the other players of each running game of a player whose address stopped taking our
    email (unsubscribed, or bouncing): the game goes on, the deadlines still count."""
    SERIES_LEFT = "series_left"
    """To the other players of a series when one leaves it: the game being played is its last."""
    DIGEST = "digest"
    """Once a day, to a player who chose it instead of "your turn" emails: the games where it
    is their turn."""
    REPLY_RECEIPT = "reply_receipt"
    """To a player whose reply by email was played: what was played, and what comes next (the
    moves still to make this turn, with their codes, or whose turn it is now)."""
    REPLY_REFUSED = "reply_refused"
    """To a player whose reply could not be played (unreadable, ambiguous, illegal, stale, not
    their turn, the game over): what was understood, why not, the moves and codes possible now.
    Nothing was changed."""
    REPLY_OTHER_SENDER = "reply_other_sender"
    """To a seat's own address when an email with its reply address came from another address:
    nothing was played, and only replies from this address count."""
    REPLY_CONFIRM = "reply_confirm"
    """To a seat's own address when a reply from it named playable moves but its sender was not
    proven (``service.inbound.authentication``): the moves read, and a link to play them."""
    REMATCH_CONFIRM = "rematch_confirm"
    """To a seat's own address when a rematch was asked for with its private link in a browser
    not signed in as its player (``service.lobby.rematch_confirm``): the link that offers it."""
    TOURNAMENT_ENTERED = "tournament_entered"
    """To a player who just entered a tournament (``service.tournaments``): its settings and
    page. Only to the person who entered: nobody else's action sends a tournament email."""
    TOURNAMENT_ROUND = "tournament_round"
    """To each player paired in a tournament's new round (a round-robin: its whole section):
    their games' links."""
    TOURNAMENT_OVER = "tournament_over"
    """To each entrant of a tournament that ended: the final standings' top and their place."""

    @property
    def rules(self) -> KindRules:
        return KIND_RULES[self]


KIND_RULES: dict[MailKind, KindRules] = {
    MailKind.CONFIRM_ADDRESS: KindRules(game_thread=False, requested=True),
    MailKind.INVITATION: KindRules(
        game_thread=True,
        requested=False,
        invitation=True,
        subject=lazy_gettext("An invitation to play"),
    ),
    MailKind.GAME_STARTED: KindRules(
        game_thread=True, requested=False, subject=lazy_gettext("Cards dealt")
    ),
    MailKind.GAME_CANCELLED: KindRules(
        game_thread=True, requested=False, subject=lazy_gettext("Cancelled")
    ),
    MailKind.MY_GAMES: KindRules(game_thread=False, requested=True),
    MailKind.YOUR_TURN: KindRules(
        game_thread=True, requested=False, subject=lazy_gettext("Your turn")
    ),
    MailKind.REMINDER: KindRules(
        game_thread=True, requested=False, subject=lazy_gettext("Reminder, your turn")
    ),
    MailKind.TIMEOUT_NOTICE: KindRules(
        game_thread=True, requested=False, subject=lazy_gettext("A deadline passed")
    ),
    MailKind.RUNNING_LATE: KindRules(
        game_thread=True,
        requested=False,
        subject=lazy_gettext("Your opponent runs late"),
        subject_among_three=lazy_gettext("Another player runs late"),
    ),
    MailKind.GAME_OVER: KindRules(
        game_thread=True, requested=False, subject=lazy_gettext("Game over")
    ),
    MailKind.SEAT_UNREACHABLE: KindRules(
        game_thread=True,
        requested=False,
        subject=lazy_gettext("Your opponent no longer gets our email"),
        subject_among_three=lazy_gettext("Another player no longer gets our email"),
    ),
    MailKind.SERIES_LEFT: KindRules(
        game_thread=True, requested=False, subject=lazy_gettext("A player left the series")
    ),
    MailKind.DIGEST: KindRules(game_thread=False, requested=False),
    # The player wrote just now: answered even when muted, unsubscribed or bouncing.
    MailKind.REPLY_RECEIPT: KindRules(
        game_thread=True,
        requested=True,
        subject=lazy_gettext("Played"),
        auto_submitted="auto-replied",
    ),
    MailKind.REPLY_REFUSED: KindRules(
        game_thread=True,
        requested=True,
        subject=lazy_gettext("Not played"),
        auto_submitted="auto-replied",
    ),
    MailKind.REPLY_OTHER_SENDER: KindRules(
        game_thread=True,
        requested=False,
        subject=lazy_gettext("A reply from another address"),
        auto_submitted="auto-replied",
    ),
    MailKind.REPLY_CONFIRM: KindRules(
        game_thread=True,
        requested=False,
        subject=lazy_gettext("Confirm your reply"),
        auto_submitted="auto-replied",
    ),
    MailKind.TOURNAMENT_ENTERED: KindRules(game_thread=False, requested=False),
    MailKind.TOURNAMENT_ROUND: KindRules(game_thread=False, requested=False),
    MailKind.TOURNAMENT_OVER: KindRules(game_thread=False, requested=False),
    MailKind.REMATCH_CONFIRM: KindRules(
        game_thread=True, requested=True, subject=lazy_gettext("Confirm your rematch")
    ),
}
