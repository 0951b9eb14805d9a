"""What pages may know about a game, as plain data in the page's language. A template never
gets a ``Game`` row (it holds the secret seed) nor the engine's full state: only these summaries
and the engine's views."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from flask import url_for
from sqlmodel import Session

import engine
from service import clock
from service.catalogue import gettext, ngettext
from service.game_words import in_words as in_words  # re-exported: emails name lists with it
from service.game_words import ruleset_title
from service.games.loaded import LoadedGame
from service.games.records import cut_words
from service.games.seats import read_seats
from service.games.tournament_note import TournamentNote
from service.json_columns import GameResult
from service.links import private_page_url
from service.models import Game, GameStatus, Player, Seat, SeriesStatus
from service.present.seat_names import SeatNames, names_of, people_besides, vacation_left
from service.present.series_facts import series_facts


@dataclass(frozen=True, slots=True)
class GameSummary:
    """Everything about a game that anyone with its public link may see."""

    public_id: str
    ruleset: str
    ruleset_title: str
    claims: str
    rules_version: str
    status: str
    days_per_move: int
    rated: bool
    """Rated (its end changes the players' ratings) or casual, chosen at creation."""
    vacation_days_left: engine.FrozenMap[str, int]
    """By seat, the computer's seats left out (it plays at once: no deadline to miss)."""
    computers: tuple[str, ...]
    visibility: str
    players: SeatNames
    with_pages: tuple[str, ...]
    """The seats whose player chose their name: it links to their player page."""
    title: str
    creator: str
    """The first seat's name: the one who started the game and invited the others."""
    invited: str
    invites_people: bool
    """Someone besides the computer is invited: else the creator's button deals the cards."""
    accepted: engine.FrozenMap[str, bool]
    seed_commitment: str
    seed: str | None
    """Revealed only once the game is over (R3)."""
    first: str | None
    cut: str | None
    """The cut, shown to every player with their names (R2)."""
    created_at: datetime
    deadline: datetime | None
    result: GameResult | None
    """The stored result (``Game.result``)."""
    computer_plays: str | None
    """When the computer to move plays, in words (a computer has no deadline to show)."""
    tournament: TournamentNote | None
    """The tournament the game was dealt for, if any."""


def game_summary(loaded: LoadedGame) -> GameSummary:
    """The public summary of a loaded game."""
    return public_summary(loaded.game, loaded.seats, loaded.tournament)


def public_summary(
    game: Game,
    seats: Mapping[str, tuple[Seat, Player]],
    tournament: TournamentNote | None = None,
) -> GameSummary:
    """The public summary of ``game`` with its ``seats`` (of ``tournament``, if any)."""
    ruleset = engine.get_ruleset(game.ruleset)
    names = names_of(seats)
    finished = game.status == GameStatus.FINISHED
    return GameSummary(
        public_id=game.public_id,
        ruleset=ruleset.name,
        ruleset_title=ruleset_title(ruleset.name),
        claims=game.claims,
        rules_version=game.rules_version,
        status=game.status,
        days_per_move=game.days_per_move,
        rated=game.rated,
        # Both players are told when a vacation day is used, so what is left is public.
        vacation_days_left=engine.FrozenMap(
            (letter, vacation_left(game, seat))
            for letter, (seat, player) in seats.items()
            if player.computer is None
        ),
        computers=tuple(letter for letter, (_, player) in seats.items() if player.computer),
        visibility=game.visibility,
        players=names,
        with_pages=tuple(letter for letter, (_, p) in seats.items() if p.name_key is not None),
        title=str(gettext(" vs ")).join(names.values()),
        creator=names.get(engine.FIRST_SEAT, "?"),
        invited=in_words([name for seat, name in names.items() if seat != engine.FIRST_SEAT]),
        invites_people=people_besides(seats, engine.FIRST_SEAT),
        accepted=engine.FrozenMap((letter, seat.accepted) for letter, (seat, _) in seats.items()),
        seed_commitment=game.seed_commitment,
        seed=game.seed if finished else None,
        first=game.deal["first"] if game.deal else None,
        cut=cut_words(game, names) if game.deal else None,
        created_at=game.created_at,
        deadline=game.deadline if game.status == GameStatus.ACTIVE else None,
        result=game.result,
        computer_plays=computer_plays(game, seats, clock.now()),
        tournament=tournament,
    )


def computer_plays_now(loaded: LoadedGame) -> str | None:
    """``computer_plays`` now, for a page's ETag."""
    return computer_plays(loaded.game, loaded.seats, clock.now())


def computer_plays(
    game: Game, seats: Mapping[str, tuple[Seat, Player]], now: datetime
) -> str | None:
    """When the seat to move plays, in words (``computer_wait``) if it is the computer's; None
    when it is a person's or nobody is to move. A page's ETag holds it: the words change with
    the time left."""
    to_move = game.to_move
    if game.status != GameStatus.ACTIVE or to_move is None or to_move not in seats:
        return None
    if seats[to_move][1].computer is None:
        return None
    return computer_wait(game, now)


def computer_wait(game: Game, now: datetime) -> str:
    """When a computer seat to move plays its turn, in words: "in about 5 minutes", "in a few
    seconds", "any moment now" (its delay is over; the schedule is about to play it). From the
    game row alone, so that a page's ETag can hold it."""
    if game.turn_started_at is None:
        return str(gettext("any moment now"))
    left = game.turn_started_at + timedelta(seconds=game.computer_delay_s) - now
    seconds = left.total_seconds()
    if seconds <= 0:
        return str(gettext("any moment now"))
    if seconds < 10:
        return str(gettext("in a few seconds"))
    if seconds < 45:
        return str(gettext("in less than a minute"))
    if seconds < 90 * 60:
        minutes = max(1, round(seconds / 60))
        return str(ngettext("in about %(num)d minute", "in about %(num)d minutes", minutes))
    hours = round(seconds / 3600)
    return str(ngettext("in about %(num)d hour", "in about %(num)d hours", hours))


@dataclass(frozen=True, slots=True)
class SeriesNote:
    """What a game's pages say of its series."""

    number: int
    """The game's number in the series."""
    page_url: str
    playing: bool
    latest_url: str | None
    """The reader's private page of the series' latest game, when that is another."""
    score: str


def series_note(session: Session, loaded: LoadedGame, seat: str | None = None) -> SeriesNote | None:
    """What a game's pages say of its series: its page, the score, whether it is still played
    (None for a single game); on ``seat``'s private page, its link to the series' latest game
    when that is another."""
    facts = series_facts(session, loaded)
    if facts is None:
        return None
    game = loaded.game
    score = facts.score
    return SeriesNote(
        number=[g.id for g in score.games].index(game.id) + 1,
        page_url=url_for("history.series_page", public_id=facts.public_id),
        playing=score.series.status == SeriesStatus.PLAYING,
        latest_url=_latest_game_url(session, score.games[-1], game, seat),
        score=str(gettext(", ")).join(f"{name} {points}" for name, points in facts.totals),
    )


def _latest_game_url(session: Session, latest: Game, game: Game, seat: str | None) -> str | None:
    if seat is None or latest.id is None or latest.id == game.id:
        return None
    return private_page_url(read_seats(session, latest.id)[seat].seat)
