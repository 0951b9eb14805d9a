"""The emails of a game's start (the creator's confirmation, the invitations, the deal, a
decline that cancels it), of a series left, and the "my games" link: each a function that gathers
what its templates show into a frozen value and queues it.

Templates get plain values (names, links, public facts), never a ``Game`` row: it holds the seed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from flask_babel import LazyString
from sqlmodel import Session

import engine
from service import tokens
from service.catalogue import gettext as _
from service.catalogue import lazy_gettext
from service.game_words import lazy_ruleset_title, ruleset_title
from service.games.loaded import LoadedGame
from service.games.records import cut_words
from service.games.series import score_of_game, series_goal
from service.games.tournament_note import TournamentNote
from service.links import external_url, private_page_url
from service.models import Game, GameStatus, Player
from service.outbox.kinds import MailKind
from service.outbox.models import OutboxMessage
from service.present.recipients import queue_to, queue_to_each
from service.present.seat_names import names_of, people_besides, shown_name
from service.present.summaries import in_words
from service.present.template_values import template_values

CLAIMS_WORDS = {"standard": lazy_gettext("standard"), "advanced": lazy_gettext("advanced")}
"""A game's claims setting (``Game.claims``) in the reader's words."""


@dataclass(frozen=True, slots=True)
class GameFacts:
    """What anyone may know about a game's settings: every email of a game shows them."""

    game_number: int
    ruleset_title: LazyString | str
    """In the reader's words when a template renders it (lazy: the facts of a game may be
    gathered before the reader's language is known)."""
    claims: str
    claims_words: LazyString | str
    """``claims`` in the reader's words, as ``ruleset_title``."""
    days_per_move: int
    seed_commitment: str
    public_url: str
    tournament: TournamentLink | None = None
    """The tournament the game was dealt for, when the email names it."""


@dataclass(frozen=True, slots=True)
class TournamentLink:
    """A game's tournament and round in words, and the address of the tournament's page."""

    words: str
    url: str


def facts_of(game: Game, tournament: TournamentNote | None = None) -> GameFacts:
    """The public facts of ``game``, of ``tournament`` if given (in the language being
    written)."""
    assert game.id is not None
    return GameFacts(
        game_number=game.id,
        ruleset_title=lazy_ruleset_title(game.ruleset),
        claims=game.claims,
        claims_words=CLAIMS_WORDS.get(game.claims, game.claims),
        days_per_move=game.days_per_move,
        seed_commitment=game.seed_commitment,
        public_url=external_url("history.public_page", public_id=game.public_id),
        tournament=None
        if tournament is None
        else TournamentLink(
            tournament.words,
            external_url("tournaments.tournament_view", public_id=tournament.public_id),
        ),
    )


def game_facts(game: Game) -> dict[str, object]:
    """``facts_of(game)`` as template variables, for an email whose values are not yet frozen."""
    return template_values(facts_of(game))


@dataclass(frozen=True, slots=True)
class ConfirmationEmail:
    """What the creator's address is asked to confirm before the invitations go."""

    facts: GameFacts
    invited_name: str
    invitations: int
    deal_only: bool
    """Against the computer alone: nobody is invited, and the button deals the cards."""
    confirm_url: str
    """Seat A's private page, where a button sends the invitations."""
    sign_in_url: str


def queue_confirmation(
    session: Session, loaded: LoadedGame, *, language: str | None = None
) -> OutboxMessage | None:
    """Ask the address given as the creator's (seat A) of the game to send its invitations: the
    link is seat A's private page, where a button sends them. Also the owner's sign-in link
    ("my games"), so that the next game needs no confirmation. The subject carries no text
    that the form's sender typed. In the creator's language, or if they chose none in
    ``language`` (the form's page's)."""
    game = loaded.game
    assert game.id is not None
    seats = loaded.seats
    seat_a, creator = seats[engine.FIRST_SEAT]
    assert creator.id is not None
    games_token = tokens.make_games_token(creator.id, creator.token_generation)

    def confirmation() -> ConfirmationEmail:
        # Names in the recipient's words (the computer's is): made inside their language.
        invited = [name for s, name in names_of(seats).items() if s != seat_a.letter]
        return ConfirmationEmail(
            facts=facts_of(game),
            invited_name=in_words(invited),
            invitations=len(invited),
            deal_only=not people_besides(seats, seat_a.letter),
            confirm_url=private_page_url(seat_a),
            sign_in_url=external_url("history.my_games", token=games_token),
        )

    return queue_to(
        session,
        MailKind.CONFIRM_ADDRESS,
        creator,
        confirmation,
        subject=lambda: _("Confirm your new game of %(title)s", title=ruleset_title(game.ruleset)),
        language=language,
    )


@dataclass(frozen=True, slots=True)
class InvitationEmail:
    """What an invited seat is told."""

    facts: GameFacts
    inviter_name: str
    also_invited: str
    accept_url: str
    decline_url: str
    private_url: str
    rematch_of: int | None


def queue_invitations(
    session: Session, loaded: LoadedGame, *, rematch_of: int | None = None
) -> list[OutboxMessage]:
    """Invite every seat but the creator's, each with its own accept and decline links (to the
    pages that show a button), its private page, and a link to refuse every future invitation.
    With three players each is told who else is invited; a rematch names the game it plays
    again (``rematch_of``)."""
    game = loaded.game
    assert game.id is not None
    seats = loaded.seats
    creator_seat = engine.FIRST_SEAT
    creator = seats[creator_seat][1]
    invited = [s for s in seats if s != creator_seat]

    def invitation(letter: str) -> InvitationEmail:
        token_url = private_page_url(seats[letter][0])
        names = names_of(seats)  # in the recipient's words, as every name below
        return InvitationEmail(
            facts=facts_of(game),
            inviter_name=shown_name(creator),
            also_invited=in_words([names[s] for s in invited if s != letter]),
            accept_url=f"{token_url}/accept",
            decline_url=f"{token_url}/decline",
            private_url=token_url,
            rematch_of=rematch_of,
        )

    recipients = [(letter, seats[letter][1]) for letter in invited]
    return queue_to_each(session, MailKind.INVITATION, recipients, invitation, game=loaded)


@dataclass(frozen=True, slots=True)
class GameStartedEmail:
    """What every player is told when the cards are dealt."""

    facts: GameFacts
    seat: str
    player_names: tuple[str, ...]
    """Every player's name, in seat order."""
    players_text: str
    """The same in words."""
    accepted_by: str
    """The people who accepted an invitation, in words; empty when none was sent."""
    series_game: int | None
    """The game's number in its series, from the second game on."""
    series_goal: str | None
    cut: str
    first: str
    first_name: str
    your_turn: bool
    deadline: datetime | None
    private_url: str


def queue_game_started(session: Session, loaded: LoadedGame) -> list[OutboxMessage]:
    """Tell every player the game is dealt: the cut (R2), who begins, the seed commitment (R3).
    A later game of a series (dealt when the one before ended) says which game of it it is."""
    game = loaded.game
    assert game.id is not None and game.deal is not None
    seats = loaded.seats
    score = score_of_game(session, game)
    number = 1 + [g.id for g in score.games].index(game.id) if score is not None else 1
    first: str = game.deal["first"]
    creator = engine.FIRST_SEAT

    def dealt(letter: str) -> GameStartedEmail:
        names = names_of(seats)  # in the recipient's words, as every name below
        return GameStartedEmail(
            facts=facts_of(game, loaded.tournament),
            seat=letter,
            player_names=tuple(names.values()),
            players_text=in_words(list(names.values())),
            # Only invitations are accepted: a game agreed at once (a challenge taken, a
            # tournament's pairing) sent none, and the computer was chosen as the opponent.
            accepted_by=in_words(
                [name for s, name in names.items() if s != creator and not seats[s][1].computer]
            )
            if game.invited_at is not None
            else "",
            series_game=number if number > 1 else None,
            series_goal=series_goal(score.series) if score is not None else None,
            cut=cut_words(game, names),
            first=first,
            first_name=names[first],
            your_turn=letter == first,
            deadline=game.deadline,
            private_url=private_page_url(seats[letter][0]),
        )

    recipients = [(letter, player) for letter, (_seat, player) in sorted(seats.items())]
    return queue_to_each(session, MailKind.GAME_STARTED, recipients, dealt, game=loaded)


@dataclass(frozen=True, slots=True)
class GameCancelledEmail:
    """What the others are told when an invited player declines."""

    facts: GameFacts
    seat: str
    player_names: tuple[str, ...]
    players_text: str
    declined_name: str
    you_accepted: bool
    private_url: str
    new_game_url: str


def queue_game_cancelled(
    session: Session, loaded: LoadedGame, *, declined_by: str
) -> list[OutboxMessage]:
    """Tell every seat but ``declined_by`` that it declined: the game is cancelled for all and
    nothing was dealt (the seed stays secret: no card of it was ever shown)."""
    game = loaded.game
    assert game.id is not None
    seats = loaded.seats

    def cancelled(letter: str) -> GameCancelledEmail:
        seat = seats[letter][0]
        names = names_of(seats)  # in the recipient's words, as every name below
        return GameCancelledEmail(
            facts=facts_of(game),
            seat=letter,
            player_names=tuple(names.values()),
            players_text=in_words(list(names.values())),
            declined_name=names[declined_by],
            # The creator's seat accepted by creating the game: no "although you had".
            you_accepted=seat.accepted and letter != engine.FIRST_SEAT,
            private_url=private_page_url(seat),
            new_game_url=external_url("lobby.new_game"),
        )

    recipients = [(s, player) for s, (_seat, player) in seats.items() if s != declined_by]
    return queue_to_each(session, MailKind.GAME_CANCELLED, recipients, cancelled, game=loaded)


@dataclass(frozen=True, slots=True)
class SeriesLeftEmail:
    """What the others are told when a player leaves the series."""

    facts: GameFacts
    left_name: str
    finished: bool
    """The game of the series just played is over."""
    series_url: str
    private_url: str


def queue_series_left(
    session: Session, loaded: LoadedGame, series_url: str, *, left_by: str
) -> list[OutboxMessage]:
    """Tell every seat but ``left_by`` that it left the series of the game: the game being
    played goes on and is the series' last."""
    game = loaded.game
    assert game.id is not None
    seats = loaded.seats

    def left(letter: str) -> SeriesLeftEmail:
        return SeriesLeftEmail(
            facts=facts_of(game),
            left_name=shown_name(seats[left_by][1]),
            finished=game.status == GameStatus.FINISHED,
            series_url=series_url,
            private_url=private_page_url(seats[letter][0]),
        )

    recipients = [(s, player) for s, (_seat, player) in seats.items() if s != left_by]
    return queue_to_each(session, MailKind.SERIES_LEFT, recipients, left, game=loaded)


@dataclass(frozen=True, slots=True)
class MyGamesEmail:
    """The link to a player's list of games; ``welcome``: to a newcomer with none yet, for
    whom the link is how they sign in and become a player."""

    games_url: str
    welcome: bool = False


def queue_my_games_email(
    session: Session,
    player: Player,
    games_url: str,
    *,
    welcome: bool = False,
    language: str | None = None,
) -> OutboxMessage | None:
    """Send a player the link to the list of their games (``games_url``, signed by the caller);
    ``welcome`` a newcomer (no games yet); ``language`` for a player who chose none."""
    return queue_to(
        session,
        MailKind.MY_GAMES,
        player,
        lambda: MyGamesEmail(games_url, welcome),
        subject=lambda: (
            _("Sign in to Battle Line by mail")
            if welcome
            else _("Your games on Battle Line by mail")
        ),
        language=language,
    )
