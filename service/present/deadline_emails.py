"""The emails of the clock and of reachability: a reminder of the deadline, the note that the
player to move runs late, the notice that a deadline passed (a vacation day used, or the game
lost on time), and the note that a player's address no longer takes our email."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session

from service.catalogue import ngettext
from service.games.loaded import LoadedGame, load_game
from service.links import private_page_url
from service.models import Game, GameStatus, Player, Seat
from service.outbox.kinds import MailKind
from service.outbox.models import OutboxMessage
from service.outbox.notice_days import first_today
from service.present.emails import GameFacts, facts_of
from service.present.game_lists import PlayerGame, player_games
from service.present.recipients import queue_to, queue_to_each
from service.present.seat_names import names_of, shown_name, vacation_left
from service.present.summaries import in_words


@dataclass(frozen=True, slots=True)
class ReminderEmail:
    """What the reminder of a deadline tells the player to move."""

    facts: GameFacts
    opponent_name: str
    deadline: datetime | None
    hours_left: int
    vacation_left: int
    private_url: str


def queue_reminder(
    session: Session, loaded: LoadedGame, seat: str, now: datetime
) -> OutboxMessage | None:
    """Remind the player to move of the deadline."""
    game = loaded.game
    assert game.id is not None and game.deadline is not None
    seats = loaded.seats
    seat_row, player = seats[seat]
    deadline = game.deadline
    return queue_to(
        session,
        MailKind.REMINDER,
        player,
        lambda: ReminderEmail(
            facts=facts_of(game, loaded.tournament),
            # names in the recipient's words (the computer's is), made inside their language
            opponent_name=in_words([n for s, n in names_of(seats).items() if s != seat]),
            deadline=deadline,
            hours_left=max(0, int((deadline - now).total_seconds() // 3600)),
            vacation_left=vacation_left(game, seat_row),
            private_url=private_page_url(seat_row),
        ),
        game=loaded,
    )


@dataclass(frozen=True, slots=True)
class RunningLateEmail:
    """What the others are told when the player to move runs late."""

    facts: GameFacts
    late_name: str
    deadline: datetime | None
    vacation_left: int
    """The late player's."""
    private_url: str


def queue_running_late(session: Session, loaded: LoadedGame, late_seat: str) -> list[OutboxMessage]:
    """Tell the others that ``late_seat``, the player to move, runs late."""
    game = loaded.game
    assert game.id is not None
    seats = loaded.seats
    late_row, late_player = seats[late_seat]

    def running_late(seat_row: Seat) -> RunningLateEmail:
        return RunningLateEmail(
            facts=facts_of(game),
            late_name=shown_name(late_player),
            deadline=game.deadline,
            vacation_left=vacation_left(game, late_row),
            private_url=private_page_url(seat_row),
        )

    recipients = [(row, player) for s, (row, player) in seats.items() if s != late_seat]
    return queue_to_each(session, MailKind.RUNNING_LATE, recipients, running_late, game=loaded)


@dataclass(frozen=True, slots=True)
class VacationNotice:
    """What every player is told when a deadline passed and vacation days were used. A deadline
    passed with none left ends the game: the game-over email says so, and no notice goes."""

    facts: GameFacts
    you_are_late: bool
    late_name: str
    days_used: int
    deadline: datetime | None
    vacation_left: int
    """The late player's."""
    private_url: str


def queue_vacation_notices(
    session: Session, loaded: LoadedGame, late_seat: str, *, days_used: int
) -> list[OutboxMessage]:
    """Tell every player that ``late_seat`` passed a deadline and ``days_used`` vacation days
    were used, and the new deadline."""
    game = loaded.game
    assert game.id is not None
    seats = loaded.seats
    late_row = seats[late_seat][0]

    def notice(letter: str) -> VacationNotice:
        names = names_of(seats)  # in the recipient's words
        return VacationNotice(
            facts=facts_of(game),
            you_are_late=letter == late_seat,
            late_name=names[late_seat],
            days_used=days_used,
            deadline=game.deadline,
            vacation_left=vacation_left(game, late_row),
            private_url=private_page_url(seats[letter][0]),
        )

    def subject(letter: str) -> str:
        return str(ngettext("A vacation day used", "%(num)d vacation days used", days_used))

    recipients = [(letter, player) for letter, (_row, player) in sorted(seats.items())]
    return queue_to_each(
        session, MailKind.TIMEOUT_NOTICE, recipients, notice, game=loaded, subject_for=subject
    )


@dataclass(frozen=True, slots=True)
class SeatUnreachableEmail:
    """What the other seats are told when a player's address no longer takes our email."""

    facts: GameFacts
    name: str
    """The player whose address no longer takes our email."""
    why: str
    """ "unsubscribed" or "bouncing"."""
    to_move: bool
    deadline: datetime | None
    private_url: str
    seat: str


def queue_seat_unreachable(session: Session, player_id: int, why: str) -> list[OutboxMessage]:
    """Tell the other seats of every running game of ``player_id`` that its address no longer
    takes our email (``why``: "unsubscribed" or "bouncing"): the game goes on, the player can
    still play from the private page, and the deadlines still count. The address's
    ``service.outbox.addresses`` listener, in the transaction that records it."""
    player = session.get(Player, player_id)
    if player is None:
        return []
    queued: list[OutboxMessage] = []
    for listed in player_games(session, player):
        if listed.status != GameStatus.ACTIVE:
            continue
        loaded = load_game(session, listed.game_number)
        game = loaded.game
        assert game.id is not None
        # The player may unsubscribe and undo at will: their opponents hear of it once a day.
        recipients = [
            ((letter, seat_row), other)
            for letter, (seat_row, other) in loaded.seats.items()
            if other.id != player_id
            and other.id is not None
            and first_today(session, MailKind.SEAT_UNREACHABLE, other.id, game.id)
        ]

        def unreachable(
            seat: tuple[str, Seat], game: Game = game, listed: PlayerGame = listed
        ) -> SeatUnreachableEmail:
            return SeatUnreachableEmail(
                facts=facts_of(game),
                name=shown_name(player),
                why=why,
                to_move=listed.to_move == listed.seat,
                deadline=game.deadline,
                private_url=private_page_url(seat[1]),
                seat=seat[0],
            )

        queued += queue_to_each(
            session, MailKind.SEAT_UNREACHABLE, recipients, unreachable, game=loaded
        )
    return queued
