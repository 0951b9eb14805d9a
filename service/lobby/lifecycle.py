"""A game's life before the first move: creation, the invitation's answer, the deal.

Each function works in the caller's session and leaves the commit to it.
"""

from __future__ import annotations

import hashlib
import secrets

from flask import current_app
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

import engine
from service import clock, tokens
from service.catalogue import lazy_gettext
from service.games.computer import computer_player
from service.games.loaded import NO_SNAPSHOTS, LoadedGame, SeatHolder, load_game, lock_loaded_game
from service.games.players import find_or_add_player, name_by_owner
from service.games.refusals import GAME_STATUS_WORDS
from service.games.rows import add_agreed_game, new_game
from service.games.seats import read_seats, seat_for_token
from service.games.state import deal_game
from service.i18n import adopt_language
from service.lobby import invitations as mail_invitations
from service.lobby.forms import NewGame, SeriesKind
from service.models import Game, GameStatus, Seat, Series, Visibility
from service.outbox import addresses as mail_addresses
from service.present import emails as mail_emails
from service.present.summaries import in_words
from service.refusal import Refusal, Text


class InvitationError(Refusal):
    """An answer to an invitation that cannot be given (wrong seat, already answered)."""

    title = lazy_gettext("This invitation cannot be answered")

    def __init__(self, message: Text, status: int) -> None:
        super().__init__(message)
        self.status = status


def creation_key(new: NewGame) -> str:
    """What makes two game requests the same request: who, against whom, with which settings.
    A third player is part of it (a two-player request's key is the one it always was)."""
    parts = [
        new.a_email, new.b_email, new.ruleset, new.claims.value, str(new.days_per_move),
        str(new.vacation_days), new.visibility.value,
    ]  # fmt: skip
    if new.c_email is not None:
        parts.append(new.c_email)
    if new.series is not SeriesKind.SINGLE:
        parts += [new.series.value, str(new.series_points), str(new.series_games)]
    if new.rated:
        parts.append("rated")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _game_by_key(session: Session, key: str) -> Game | None:
    return session.exec(
        select(Game).where(Game.creation_key == key).execution_options(populate_existing=True)
    ).one_or_none()


def create_game(
    session: Session, new: NewGame, *, creator_present: bool = False
) -> tuple[Game, dict[str, Seat]]:
    """Store a new game with a fresh secret seed and its commitment (R3); A has accepted, every
    other seat of the ruleset (B, and C with three players) is invited. Nothing is dealt until
    all of them accept.

    ``creator_present``: the creator's own signed-in browser (or an operator) asks, so the
    invitation goes now; otherwise the creator's address gets the link that sends it
    (``service.lobby.invitations.after_game_created``). The same request again, while the first
    game is neither dealt nor declined, returns that game and sends nothing new (unless the
    creator is now present and its invitations were not sent yet). Raises the refusals of the
    invitation checks (TooManyInvitationsError, BouncingInviteeError); nothing is stored
    then.
    """
    key = creation_key(new)
    game = _game_by_key(session, key)
    if game is None:
        mail_invitations.check_invitees_reachable(session, new)
        try:
            # A savepoint: the same form sent twice at once makes one game, not an error.
            with session.begin_nested():
                game = _game_row(new, creation_key=key, series_id=_new_series(session, new))
                session.add(game)
        except IntegrityError:
            game = _game_by_key(session, key)
            assert game is not None, "a creation key conflicts with a game that is not there"
        else:
            return game, _add_seats(session, game, new, creator_present=creator_present)
    # The same request again.
    assert game.id is not None
    if not creator_present:
        return game, {letter: seat for letter, (seat, _) in read_seats(session, game.id).items()}
    loaded = lock_loaded_game(session, game.id)
    mail_invitations.send_invitations(session, loaded)
    deal_when_all_accepted(session, loaded)
    return loaded.game, {letter: seat for letter, (seat, _) in loaded.seats.items()}


def _add_seats(
    session: Session, game: Game, new: NewGame, *, creator_present: bool
) -> dict[str, Seat]:
    assert game.id is not None
    letters = engine.get_ruleset(game.ruleset).seats
    given = new.players
    # The form's validation gives a third player exactly to a three-player ruleset.
    assert tuple(letter for letter, _, _ in given) == letters, (letters, given)
    seats: dict[str, SeatHolder] = {}
    computers = dict(new.computers)
    for letter, name, email in given:
        if letter in computers:
            player = computer_player(session, computers[letter])
        else:
            player = find_or_add_player(session, email, name)
        assert player.id is not None
        # The creator and the computer are in; the others are invited.
        creator = letter == letters[0] and letter not in computers
        accepted = creator or letter in computers
        seat = Seat(
            game_id=game.id, letter=letter, player_id=player.id, accepted=accepted,
            typed_name=name if creator else None,
        )  # fmt: skip
        seats[letter] = SeatHolder(seat, player)
        # The signed-in owner named themselves (a rematch only repeats the names it had).
        if creator and creator_present and new.rematch_of is None:
            name_by_owner(session, player, name, again=True)
        session.add(seat)
    session.flush()
    # Made here, with no address status read: an email's checks read each player's.
    loaded = LoadedGame(game, seats, None, NO_SNAPSHOTS)
    mail_invitations.after_game_created(
        session,
        loaded,
        creator_present=creator_present,
        rematch_of=new.rematch_of,
        language=new.language,
    )
    if creator_present:
        deal_when_all_accepted(session, loaded)
    return {letter: held.seat for letter, held in seats.items()}


def _new_series(session: Session, new: NewGame) -> int | None:
    """The series a new game begins (R23), or None for a single game."""
    if new.series is SeriesKind.SINGLE:
        return None
    series = Series(
        public_id=secrets.token_urlsafe(12),
        target_points=new.series_points if new.series is SeriesKind.POINTS else None,
        games_planned=new.series_games if new.series is SeriesKind.GAMES else 0,
    )
    session.add(series)
    session.flush()
    return series.id


def _game_row(
    new: NewGame, *, creation_key: str | None = None, series_id: int | None = None
) -> Game:
    """The row of the game ``new`` asks for (not yet added)."""
    return new_game(
        ruleset=new.ruleset,
        claims=new.claims.value,
        days_per_move=new.days_per_move,
        vacation_days=new.vacation_days,
        visibility=new.visibility.value,
        creation_key=creation_key,
        series_id=series_id,
        computer_delay_s=int(current_app.config["COMPUTER_DELAY_S"]),
        rated=new.rated,
    )


def create_agreed_game(session: Session, new: NewGame) -> Game:
    """A game every player has agreed to already (a challenge accepted in the lobby, two
    standing requests paired): every seat in, dealt at once and the game-started emails queued,
    as when the last invited seat accepts; no invitation goes. A single game for two."""
    game = _game_row(new)
    players: dict[str, int] = {}
    for letter, name, email in new.players:
        player = find_or_add_player(session, email, name)
        assert player.id is not None
        players[letter] = player.id
    add_agreed_game(session, game, players)
    assert game.id is not None
    deal_when_all_accepted(session, load_game(session, game.id))
    return game


def deal_when_all_accepted(session: Session, loaded: LoadedGame) -> bool:
    """Deal a game still invited once every seat is in (the last invited person accepted, or
    the computer plays every other seat), and tell the players. Call with the game locked."""
    game = loaded.game
    seats = loaded.seats.values()
    if game.status != GameStatus.INVITED or not all(seat.accepted for seat, _ in seats):
        return False
    game.creation_key = None  # answered: the same people may start the same game again
    mail_emails.queue_game_started(session, deal_game(session, loaded, clock.now()))
    return True


def send_held_invitation(
    session: Session, token: tokens.SeatToken, *, language: str | None = None
) -> Game:
    """Seat A's button on its private page (a link only ever emailed to A's address): send the
    invitation that waits for it, and count the address as confirmed (a creator who chose no
    language takes the page's ``language``, ``adopt_language``). Raises InvitationError
    (not seat A: 403; already answered: 409), the invitation checks' refusals, and the token
    errors of ``seat_for_token``."""
    loaded, seat = seat_for_token(session, token, lock=True)
    game = loaded.game
    if seat.letter != engine.FIRST_SEAT:
        raise InvitationError(
            lazy_gettext("Only the player who started this game can send its invitation."), 403
        )
    if game.status != GameStatus.INVITED:
        raise InvitationError(
            lazy_gettext(
                "This game is %(status)s: there is no invitation to send.",
                status=GAME_STATUS_WORDS[GameStatus(game.status)],
            ),
            409,
        )
    creator, _ = mail_invitations.creator_and_invited(loaded)
    assert creator.id is not None
    mail_addresses.confirm(session, creator.id)
    adopt_language(creator, language)
    if seat.typed_name is not None:
        name_by_owner(session, creator, seat.typed_name, again=False)
    mail_invitations.send_invitations(session, loaded)
    deal_when_all_accepted(session, loaded)
    return game


_ONLY_INVITED = {
    ("accept", 2): lazy_gettext("Only the invited player can accept this invitation."),
    ("decline", 2): lazy_gettext("Only the invited player can decline this invitation."),
    ("accept", 3): lazy_gettext("Only the invited players can accept this invitation."),
    ("decline", 3): lazy_gettext("Only the invited players can decline this invitation."),
}
"""Who may answer an invitation, by the answer and the number of seats."""


def _check_invitation(loaded: LoadedGame, seat: Seat, verb: str) -> None:
    """Refuse an answer the seat cannot give: the creator's seat (403), a game no longer waiting
    for answers (409), or a seat that accepted already (409: an acceptance is final)."""
    game = loaded.game
    seats = loaded.seats
    letters = engine.get_ruleset(game.ruleset).seats
    if seat.letter == letters[0]:
        raise InvitationError(_ONLY_INVITED[verb, min(len(letters), 3)], 403)
    if game.status != GameStatus.INVITED:
        raise InvitationError(
            lazy_gettext(
                "This invitation was already answered: the game is %(status)s.",
                status=GAME_STATUS_WORDS[GameStatus(game.status)],
            ),
            409,
        )
    if seat.accepted:
        waiting = in_words([p.display_name for s, p in seats.values() if not s.accepted])
        raise InvitationError(
            lazy_gettext(
                "You have already accepted this invitation. The cards are dealt when "
                "%(waiting)s accepts too. Nothing was changed.",
                waiting=waiting,
            ),
            409,
        )


def accept_invitation(
    session: Session, token: tokens.SeatToken, *, language: str | None = None
) -> Game:
    """An invited seat accepts (taking the page's ``language`` if it chose none,
    ``adopt_language``). Once every seat has, the game is dealt and becomes active; until then
    it waits for the others. Raises InvitationError (the creator's seat: 403;
    already answered, or the game no longer invited: 409) and the token errors of
    ``seat_for_token``."""
    loaded, seat = seat_for_token(session, token, lock=True)
    _check_invitation(loaded, seat, "accept")
    seat.accepted = True
    session.add(seat)
    adopt_language(loaded.seats[seat.letter].player, language)
    deal_when_all_accepted(session, loaded)
    return loaded.game


def decline_invitation(session: Session, token: tokens.SeatToken) -> Game:
    """An invited seat declines: the game is cancelled for every seat before anything is dealt
    (even when another seat accepted already), and every other seat is told who declined.
    Raises like accept_invitation."""
    loaded, seat = seat_for_token(session, token, lock=True)
    _check_invitation(loaded, seat, "decline")
    game = loaded.game
    game.status = GameStatus.DECLINED
    game.creation_key = None
    session.add(game)
    mail_emails.queue_game_cancelled(session, loaded, declined_by=seat.letter)
    return game


def offer_rematch(session: Session, token: tokens.SeatToken) -> tuple[Game, Seat]:
    """A player of a finished game offers the same game again: the same people and settings,
    this player at the creator's seat and the others after them in turn order (the computer
    keeps its seats). The invitations go at once (the player's own private link asks, as the
    button of a held invitation does); a game against the computer alone is dealt at once.

    One rematch per finished game (``games.rematch_game_id``, set under the finished game's
    row lock): a later offer, from any seat, joins that game (offering it is accepting it) and
    changes nothing else; only after it was declined does an offer start another. Returns the
    rematch and the offering player's seat in it. Raises InvitationError (409) while the game
    is not over, and the refusals of ``create_game``."""
    loaded, seat = seat_for_token(session, token, lock=True)
    game = loaded.game
    if game.status != GameStatus.FINISHED:
        raise InvitationError(lazy_gettext("A rematch can be offered once this game is over."), 409)
    if game.rematch_game_id is not None:
        rematch = lock_loaded_game(session, game.rematch_game_id)
        if rematch.game.status != GameStatus.DECLINED:
            return rematch.game, _join_rematch(session, rematch, seat.player_id)
    made, seats = _new_rematch(session, loaded, seat)
    game.rematch_game_id = made.id
    session.add(game)
    return made, seats[engine.FIRST_SEAT]


def _join_rematch(session: Session, rematch: LoadedGame, player_id: int) -> Seat:
    """The player's seat in ``rematch`` (locked), accepted if it was still invited."""
    seat = next(s for s, p in rematch.seats.values() if p.id == player_id)
    if rematch.game.status == GameStatus.INVITED and not seat.accepted:
        seat.accepted = True
        session.add(seat)
        deal_when_all_accepted(session, rematch)
    return seat


def _new_rematch(session: Session, loaded: LoadedGame, seat: Seat) -> tuple[Game, dict[str, Seat]]:
    game = loaded.game
    seats = loaded.seats
    letters = engine.get_ruleset(game.ruleset).seats
    at = letters.index(seat.letter)
    players = [seats[letter][1] for letter in letters[at:] + letters[:at]]
    fields: dict[str, str] = {}
    for letter, player in zip(letters, players, strict=True):
        fields[f"{letter.lower()}_name"] = player.display_name
        fields[f"{letter.lower()}_email"] = player.email
    new = NewGame(
        a_name=fields["a_name"],
        a_email=fields["a_email"],
        b_name=fields["b_name"],
        b_email=fields["b_email"],
        c_name=fields.get("c_name"),
        c_email=fields.get("c_email"),
        ruleset=game.ruleset,
        claims=engine.ClaimTiming(game.claims),
        days_per_move=game.days_per_move,
        visibility=Visibility(game.visibility),
        vacation_days=game.vacation_days,
        computers=tuple(
            (letter, player.computer)
            for letter, player in zip(letters, players, strict=True)
            if player.computer is not None
        ),
        rematch_of=game.id,
        rated=game.rated,
    )
    return create_game(session, new, creator_present=True)
