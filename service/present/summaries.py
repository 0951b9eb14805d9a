"""What pages may know about a game, as plain data. A template never gets a ``Game`` row (it holds
the secret seed) nor the engine's full state: only these summaries and the engine's views."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from flask import url_for
from sqlmodel import Session

import engine
from service import clock
from service.games.records import cut_words
from service.games.seats import seats_of
from service.json_columns import GameResult
from service.links import private_page_url
from service.models import Game, GameStatus, Player, Seat, SeriesStatus
from service.present.seat_names import SeatNames, names_of, vacation_left
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


def load_summary(session: Session, game: Game) -> GameSummary:
    """The public summary of a game, loading its seats."""
    assert game.id is not None
    return public_summary(game, seats_of(session, game.id))


def public_summary(game: Game, seats: Mapping[str, tuple[Seat, Player]]) -> GameSummary:
    """The public summary of ``game`` with its ``seats``."""
    ruleset = engine.get_ruleset(game.ruleset)
    names = names_of(seats)
    finished = game.status == GameStatus.FINISHED
    return GameSummary(
        public_id=game.public_id,
        ruleset=ruleset.name,
        ruleset_title=ruleset.title,
        claims=game.claims,
        rules_version=game.rules_version,
        status=game.status,
        days_per_move=game.days_per_move,
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
        title=" vs ".join(names.values()),
        creator=names.get(engine.FIRST_SEAT, "?"),
        invited=in_words([name for seat, name in names.items() if seat != engine.FIRST_SEAT]),
        accepted=engine.FrozenMap((letter, seat.accepted) for letter, (seat, _) in seats.items()),
        seed_commitment=game.seed_commitment,
        seed=game.seed if finished else None,
        first=game.deal["first"] if game.deal else None,
        cut=cut_words(game, names) if game.deal else None,
        created_at=game.created_at,
        deadline=game.deadline if game.status == GameStatus.ACTIVE else None,
        result=game.result,
        computer_plays=computer_plays(game, seats, clock.now()),
    )


def computer_plays_now(session: Session, game: Game) -> str | None:
    """``computer_plays`` now, for a page's ETag (the seats come from the session's cache)."""
    assert game.id is not None
    return computer_plays(game, seats_of(session, game.id), clock.now())


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
        return "any moment now"
    left = game.turn_started_at + timedelta(seconds=game.computer_delay_s) - now
    seconds = left.total_seconds()
    if seconds <= 0:
        return "any moment now"
    if seconds < 10:
        return "in a few seconds"
    if seconds < 45:
        return "in less than a minute"
    if seconds < 90 * 60:
        minutes = max(1, round(seconds / 60))
        return f"in about {minutes} minute{'s' if minutes != 1 else ''}"
    hours = round(seconds / 3600)
    return f"in about {hours} hours"


def in_words(names: list[str]) -> str:
    """Names as a list in words: "Bob", "Bob and Carol", "Bob, Carol and Dan"."""
    if len(names) < 2:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


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


def series_note(session: Session, game: Game, seat: str | None = None) -> SeriesNote | None:
    """What a game's pages say of its series: its page, the score, whether it is still played
    (None for a single game); on ``seat``'s private page, its link to the series' latest game
    when that is another."""
    facts = series_facts(session, game)
    if facts is None:
        return None
    score = facts.score
    return SeriesNote(
        number=[g.id for g in score.games].index(game.id) + 1,
        page_url=url_for("history.series_page", public_id=facts.public_id),
        playing=score.series.status == SeriesStatus.PLAYING,
        latest_url=_latest_game_url(session, score.games[-1], game, seat),
        score=", ".join(f"{name} {points}" for name, points in facts.totals),
    )


def _latest_game_url(session: Session, latest: Game, game: Game, seat: str | None) -> str | None:
    if seat is None or latest.id is None or latest.id == game.id:
        return None
    return private_page_url(seats_of(session, latest.id)[seat][0])
