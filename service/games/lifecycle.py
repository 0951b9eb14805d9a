"""A game's life before the first move: creation, the invitation's answer, the deal.

Each function works in the caller's session and leaves the commit to it.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from sqlmodel import Session

import engine
from service import store, tokens
from service.games.forms import NewGame
from service.games.records import deal_fields
from service.mail import emails as mail_emails
from service.mail import invitations as mail_invitations
from service.models import Game, GameStatus, Seat
from service.refusal import Refusal


class InvitationError(Refusal):
    """An answer to an invitation that cannot be given (wrong seat, already answered)."""

    title = "This invitation cannot be answered"

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def create_game(session: Session, new: NewGame) -> tuple[Game, dict[str, Seat]]:
    """Store a new game with a fresh secret seed and its commitment (R3); A has accepted, B is
    invited. Nothing is dealt until B accepts. Queues the invitation email, or first the
    creator's address confirmation."""
    seed = secrets.token_hex(32)
    game = Game(
        public_id=secrets.token_urlsafe(12),
        ruleset=new.ruleset,
        claims=new.claims.value,
        rules_version=engine.RULES_VERSION,
        status=GameStatus.INVITED,
        seed=seed,
        seed_commitment=engine.seed_commitment(seed),
        days_per_move=new.days_per_move,
        vacation_days=new.vacation_days,
        visibility=new.visibility.value,
    )
    session.add(game)
    session.flush()
    assert game.id is not None
    seats: dict[str, Seat] = {}
    for letter, name, email in (("A", new.a_name, new.a_email), ("B", new.b_name, new.b_email)):
        player = store.find_or_add_player(session, email, name)
        assert player.id is not None
        seats[letter] = Seat(
            game_id=game.id, seat=letter, player_id=player.id, accepted=letter == "A"
        )
        session.add(seats[letter])
    session.flush()
    # The invitation waits for the creator's confirmed address (service.mail.invitations).
    mail_invitations.after_game_created(session, game, store.seats_of(session, game.id)["A"][1])
    return game, seats


def seat_for_token(
    session: Session, token: tokens.SeatToken, *, lock: bool = False
) -> tuple[Game, Seat]:
    """The game and seat a private-page token names, checking it was not revoked.

    ``lock=True`` locks the game row first (for a change). Raises GameNotFoundError or
    RevokedTokenError.
    """
    game = (store.lock_game if lock else store.get_game)(session, token.game_id)
    seat = store.seats_of(session, token.game_id)[token.seat][0]
    tokens.check_generation(token.generation, seat.token_generation)
    return game, seat


def _check_invitation(game: Game, seat: Seat, verb: str) -> None:
    if seat.seat != "B":
        raise InvitationError(f"Only the invited player can {verb} this invitation.", 403)
    if game.status != GameStatus.INVITED:
        raise InvitationError(
            f"This invitation was already answered: the game is {game.status}.", 409
        )


def accept_invitation(session: Session, token: tokens.SeatToken) -> Game:
    """Seat B accepts: the game is dealt and becomes active. Raises InvitationError (not B: 403;
    already answered: 409) and the token errors of ``seat_for_token``."""
    game, seat = seat_for_token(session, token, lock=True)
    _check_invitation(game, seat, "accept")
    # Imported here: service.turns reaches this module through service.play.
    from service.turns import clock
    from service.turns.start import begin_turn

    seat.accepted = True
    session.add(seat)
    deal_and_start(session, game, clock.now())
    mail_emails.queue_game_started(session, game)
    # The first turn starts like every other: its "your turn" email, after the commit.
    begin_turn(session, game, 1)
    return game


def decline_invitation(session: Session, token: tokens.SeatToken) -> Game:
    """Seat B declines: the game ends before anything is dealt. Raises like accept_invitation."""
    game, seat = seat_for_token(session, token, lock=True)
    _check_invitation(game, seat, "decline")
    game.status = GameStatus.DECLINED
    session.add(game)
    return game


def deal_and_start(session: Session, game: Game, now: datetime) -> None:
    """The deal step: the engine cuts and deals from the game's seed (R2, R3) and sets up the
    first position; the deal, the ply-0 snapshot and the first deadline are stored."""
    assert game.id is not None
    ruleset = engine.get_ruleset(game.ruleset)
    claims = engine.ClaimTiming(game.claims)
    deal = engine.deal_from_seed(ruleset, game.seed)
    state = engine.start(ruleset, claims, deal)
    game.deal = deal_fields(engine.GameRecord(ruleset=ruleset, claims=claims, deal=deal))
    game.status = GameStatus.ACTIVE
    game.deadline = now + timedelta(days=game.days_per_move)
    session.add(game)
    store.save_snapshot(session, game.id, state.ply, engine.state_to_json(state))
