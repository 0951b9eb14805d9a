"""What pages may know about a game, as plain data. A template never gets a ``Game`` row (it holds
the secret seed) nor the engine's full state: only these summaries and the engine's views."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from flask import url_for
from sqlmodel import Session

import engine
from service import clock
from service.games.records import cut_words
from service.games.seats import seats_of
from service.games.series import score_of_game
from service.links import private_page_url
from service.models import Game, GameStatus, Player, Seat, SeriesStatus


def load_summary(session: Session, game: Game) -> dict[str, Any]:
    """The public summary of a game, loading its seats."""
    assert game.id is not None
    return public_summary(game, seats_of(session, game.id))


def public_summary(game: Game, seats: dict[str, tuple[Seat, Player]]) -> dict[str, Any]:
    """Everything about a game that anyone with its public link may see."""
    ruleset = engine.get_ruleset(game.ruleset)
    names = {letter: player.display_name for letter, (_, player) in seats.items()}
    finished = game.status == GameStatus.FINISHED
    return {
        "public_id": game.public_id,
        "ruleset": ruleset.name,
        "ruleset_title": ruleset.title,
        "claims": game.claims,
        "rules_version": game.rules_version,
        "status": game.status,
        "days_per_move": game.days_per_move,
        # Both players are told when a vacation day is used, so what is left is public. The
        # computer plays at once: it has no deadline to miss, so no vacation days.
        "vacation_days_left": {
            letter: max(0, game.vacation_days - seat.vacation_days_used)
            for letter, (seat, player) in seats.items()
            if player.computer is None
        },
        "computers": [letter for letter, (_, player) in seats.items() if player.computer],
        "visibility": game.visibility,
        "players": names,
        "title": " vs ".join(names.values()),
        # The lobby's words: the first seat started the game and invited the others.
        "creator": names.get(engine.FIRST_SEAT, "?"),
        "invited": in_words([name for seat, name in names.items() if seat != engine.FIRST_SEAT]),
        "accepted": {letter: seat.accepted for letter, (seat, _) in seats.items()},
        "seed_commitment": game.seed_commitment,
        # R3: the seed is revealed only once the game is over.
        "seed": game.seed if finished else None,
        "first": game.deal["first"] if game.deal else None,
        # R2: the cut is shown to both players, with their names.
        "cut": cut_words(game, names) if game.deal else None,
        "created_at": game.created_at,
        "deadline": game.deadline if game.status == GameStatus.ACTIVE else None,
        "result": game.result,
        # A computer to move has no deadline to show: when it will play instead.
        "computer_plays": computer_plays(game, seats, clock.now()),
    }


def computer_plays_now(session: Session, game: Game) -> str | None:
    """``computer_plays`` now, for a page's ETag (the seats come from the session's cache)."""
    assert game.id is not None
    return computer_plays(game, seats_of(session, game.id), clock.now())


def computer_plays(game: Game, seats: dict[str, tuple[Seat, Player]], now: datetime) -> str | None:
    """When the seat to move plays, in words (``computer_wait``) if it is the computer's; None
    when it is a person's or nobody is to move. A page's ETag holds it: the words change with
    the time left."""
    if game.status != GameStatus.ACTIVE or game.to_move not in seats:
        return None
    if seats[game.to_move][1].computer is None:
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


def series_note(session: Session, game: Game, seat: str | None = None) -> dict[str, Any] | None:
    """What a game's pages say of its series: its page, the score, whether it is still played
    (None for a single game); on ``seat``'s private page, its link to the series' latest game
    when that is another."""
    score = score_of_game(session, game)
    if score is None:
        return None
    series = score.series
    assert game.id is not None
    names = {s: p.display_name for s, (_, p) in seats_of(session, game.id).items()}
    return {
        "number": [g.id for g in score.games].index(game.id) + 1,
        "page_url": url_for("history.series_page", public_id=series.public_id),
        "playing": series.status == SeriesStatus.PLAYING,
        "latest_url": _latest_game_url(session, score.games[-1], game, seat),
        "score": ", ".join(f"{names[s]} {p}" for s, p in score.totals.items()),
    }


def _latest_game_url(session: Session, latest: Game, game: Game, seat: str | None) -> str | None:
    if seat is None or latest.id is None or latest.id == game.id:
        return None
    return private_page_url(seats_of(session, latest.id)[seat][0])
