"""Closing a player's account: their address and name are erased, their games keep "a former
player", the running ones end as their resignation, every link and sign-in of theirs dies and no
email goes to them again.

The player's row stays (the games' seats point to it) with a placeholder address and name and
``closed_at`` set. Then each family of tables forgets them through its own eraser in
``ERASERS``: a new table that can hold a player's address, name or words adds its eraser there
(one line), and ``tests/service/test_own_data.py`` scans every text column of every table for
the address and the name afterwards, so a table forgotten fails that test.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlmodel import Session, col, delete, or_, select

from service import clock
from service.catalogue import lazy_gettext
from service.games.loaded import lock_loaded_game
from service.games.seats import revoke_seat_links
from service.games.series import leave_series
from service.games.state import apply_to_locked, load_state
from service.inbound_models import InboundMessage, ReplyKey
from service.models import AddressStatus, Game, GameStatus, Player, Seat
from service.outbox.erasure import forget_recipient, unname_in_emails
from service.players import challenge_models
from service.players.models import Block
from service.refusal import Refusal

CLOSED_NAME = "a former player"
"""The name kept in a closed player's row (pages and emails say it in the reader's language,
``service.present.seat_names.shown_name``)."""
CLOSED_DOMAIN = "closed.invalid"
"""The placeholder addresses' domain (RFC 2606: it leads nowhere)."""


class AccountClosedError(Refusal):
    """A closed account asked to close again (only reachable with a row read before closing)."""

    status = 409
    title = lazy_gettext("This account is closed")
    message = lazy_gettext("This account was closed already. Nothing was changed.")


@dataclass(frozen=True, slots=True)
class Closing:
    """What an eraser needs: the player's row (already without address and name), what the
    address and name were, and the player's seats."""

    player_id: int
    address: str
    name: str
    seats: tuple[Seat, ...]

    @property
    def game_ids(self) -> list[int]:
        return sorted({seat.game_id for seat in self.seats})


Eraser = Callable[[Session, Closing], None]


def _erase_address_status(session: Session, closing: Closing) -> None:
    session.exec(delete(AddressStatus).where(col(AddressStatus.player_id) == closing.player_id))


def _erase_inbound(session: Session, closing: Closing) -> None:
    """Their replies, read or refused, and anything else received from their address."""
    theirs = [(seat.game_id, seat.letter) for seat in closing.seats]
    by_seat = [
        (col(InboundMessage.game_id) == game_id) & (col(InboundMessage.seat) == letter)
        for game_id, letter in theirs
    ]
    session.exec(
        delete(InboundMessage).where(
            or_(
                col(InboundMessage.sender) == closing.address,
                col(InboundMessage.rate_key).contains(closing.address, autoescape=True),
                *by_seat,
            )
        )
    )


def _erase_seats(session: Session, closing: Closing) -> None:
    """The name typed for their seats, their choices, and their reply addresses."""
    seat_ids = [seat.id for seat in closing.seats if seat.id is not None]
    if seat_ids:
        session.exec(delete(ReplyKey).where(col(ReplyKey.seat_id).in_(seat_ids)))
    for seat in closing.seats:
        seat.typed_name = None
        seat.preferences = None
        session.add(seat)


def _erase_blocks(session: Session, closing: Closing) -> None:
    """Blocks they made, and blocks of them: nobody can meet a closed account anyway."""
    session.exec(
        delete(Block).where(
            or_(
                col(Block.blocker_id) == closing.player_id,
                col(Block.blocked_id) == closing.player_id,
            )
        )
    )


def _erase_challenges(session: Session, closing: Closing) -> None:
    challenge_models.withdraw_all(session, closing.player_id)


def _erase_mail(session: Session, closing: Closing) -> None:
    forget_recipient(session, closing.player_id, closing.address)
    unname_in_emails(session, closing.game_ids, closing.player_id, [closing.name, closing.address])


ERASERS: list[Eraser] = [
    _erase_address_status,
    _erase_inbound,
    _erase_seats,
    _erase_blocks,
    _erase_challenges,
    _erase_mail,
]
"""One eraser per family of tables, run in this order after the running games ended."""


def _seats_of_player(session: Session, player_id: int) -> list[Seat]:
    return list(
        session.exec(select(Seat).where(Seat.player_id == player_id).order_by(col(Seat.id)))
    )


def _end_games(session: Session, seats: list[Seat]) -> None:
    """Running games end as the player's resignation, through the move path (the opponents are
    told as for any resignation); a series stops there; unanswered invitations are declined."""
    for seat in seats:
        loaded = lock_loaded_game(session, seat.game_id)
        game = loaded.game
        if game.status == GameStatus.ACTIVE:
            if game.series_id is not None:
                leave_series(session, game, seat.letter)
            apply_to_locked(
                session, loaded, load_state(session, loaded), seat.letter, game.ply, ["resign"]
            )
        elif game.status == GameStatus.INVITED:
            _decline(session, game)
        revoke_seat_links(session, seat)


def _decline(session: Session, game: Game) -> None:
    game.status = GameStatus.DECLINED
    game.creation_key = None
    game.deadline = None
    game.next_check_at = None
    session.add(game)


def close_account(session: Session, player: Player) -> None:
    """Close ``player``'s account, all in the caller's transaction. Raises AccountClosedError
    when it is closed already."""
    assert player.id is not None
    if player.closed_at is not None:
        raise AccountClosedError()
    address, name = player.email, player.display_name
    # The placeholders first: the resignation emails then name "a former player".
    player.email = f"closed-{player.id}@{CLOSED_DOMAIN}"
    player.display_name = CLOSED_NAME
    player.name_confirmed = True
    # The chosen name is theirs no more: its key (the player page, look-alike guard) goes too.
    player.name_key = None
    player.name_changed_at = None
    player.closed_at = clock.now()
    player.preferences = {}
    player.time_zone = None
    player.digest_sent_at = None
    player.token_generation += 1
    player.session_generation += 1
    session.add(player)
    session.flush()
    seats = _seats_of_player(session, player.id)
    _end_games(session, seats)
    closing = Closing(player_id=player.id, address=address, name=name, seats=tuple(seats))
    for erase in ERASERS:
        erase(session, closing)
    session.flush()
