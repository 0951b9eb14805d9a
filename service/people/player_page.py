"""What a player page shows: a player's games (only those the visitor may see listed), their
results per variant, how fast they move and how often they ran out of time.

Whatever the number of games, the page reads a fixed number of queries: the games with the
player's seats, the other seats' names of the games listed, and the move times of the games
timed. Visitors see public games, and the unlisted ones they played in themselves (two who met in
the lobby, whose games are unlisted, find their game on each other's page); the player sees all
of theirs.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import quote

import sqlalchemy as sa
from flask import url_for
from sqlmodel import Session, col, select

import engine
from service.game_words import ruleset_title
from service.models import Game, GameStatus, MoveEntry, Player, Seat, Visibility
from service.present.seat_names import computer_name_words

LISTED_FINISHED = 20
"""The finished games listed (the latest); every finished game counts in the results."""
LISTED_PLAYING = 50
"""The games in progress listed, at most."""
TIMED_GAMES = 20
"""The latest games whose turns time the median."""


class Outcome:
    WON = "won"
    LOST = "lost"
    DRAWN = "drawn"


@dataclass(frozen=True, slots=True)
class Opponent:
    """Another seat's player, as the page names them."""

    name: str
    page_url: str | None
    """Their player page; None unless they chose their name (a label has no page)."""


@dataclass(frozen=True, slots=True)
class ListedGame:
    """One game on the page, with a link to its public page."""

    public_url: str
    number: int
    ruleset_title: str
    opponents: tuple[Opponent, ...]
    outcome: str | None
    """``Outcome`` of a finished game for this player; None while it is played."""
    unlisted: bool
    """Shown only to the player themselves."""


@dataclass(frozen=True, slots=True)
class VariantResults:
    """Finished games of one ruleset."""

    ruleset_title: str
    won: int
    lost: int
    drawn: int


@dataclass(frozen=True, slots=True)
class PlayerPage:
    """A player page's values (``templates/people/player.html``)."""

    name: str
    playing: tuple[ListedGame, ...]
    finished: tuple[ListedGame, ...]
    finished_count: int
    results: tuple[VariantResults, ...]
    median_turn: timedelta | None
    """The median time from the opponent's move to this player's, over the games timed."""
    turns_timed: int
    timeouts: int
    """Finished games this player lost on time."""
    is_self: bool
    blocks: bool
    """The signed-in visitor blocks this player."""
    signed_in: bool


@dataclass(frozen=True, slots=True)
class _Row:
    game_id: int
    public_id: str
    ruleset: str
    status: str
    visibility: str
    letter: str
    winner: str | None
    termination: str | None
    """Of a finished game (``Game.result``); None while it is played."""


def _outcome(row: _Row) -> str | None:
    if row.status != GameStatus.FINISHED or row.termination is None:
        return None
    if row.winner is None:
        return Outcome.DRAWN
    return Outcome.WON if row.winner == row.letter else Outcome.LOST


def _rows(session: Session, player: Player, *, visitor_id: int | None) -> list[_Row]:
    columns = (Game.id, Game.public_id, Game.ruleset, Game.status, Game.visibility, Seat.letter)
    query = (
        # Two fields of the result, read by the database: decoding every game's JSON costs.
        sa.select(
            *map(col, columns),
            col(Game.result)["winner"].as_string(),
            col(Game.result)["termination"].as_string(),
        )
        .join(Seat, col(Seat.game_id) == col(Game.id))
        .where(
            col(Seat.player_id) == player.id,
            col(Game.status).in_((GameStatus.ACTIVE, GameStatus.FINISHED)),
        )
        .order_by(col(Game.id).desc())
    )
    if visitor_id != player.id:
        visitors_seat = sa.select(col(Seat.id)).where(
            col(Seat.game_id) == col(Game.id), col(Seat.player_id) == visitor_id
        )
        seen = col(Game.visibility) == Visibility.PUBLIC
        if visitor_id is not None:
            seen = sa.or_(seen, sa.exists(visitors_seat.correlate(Game)))
        query = query.where(seen)
    rows = []
    for (
        game_id,
        public_id,
        ruleset,
        status,
        visibility,
        letter,
        winner,
        termination,
    ) in session.execute(query):
        assert game_id is not None
        rows.append(
            _Row(game_id, public_id, ruleset, status, visibility, letter, winner, termination)
        )
    return rows


def _opponents(
    session: Session, rows: Sequence[_Row], player_id: int
) -> dict[int, tuple[Opponent, ...]]:
    found: dict[int, list[Opponent]] = defaultdict(list)
    if not rows:
        return {}
    query = (
        select(Seat.game_id, Player.display_name, Player.name_key, Player.computer)
        .join(Player, col(Player.id) == col(Seat.player_id))
        .where(col(Seat.game_id).in_([r.game_id for r in rows]), col(Seat.player_id) != player_id)
        .order_by(col(Seat.game_id), col(Seat.letter))
    )
    pages = url_for("people.player", name="_")[:-1]
    for game_id, name, key, computer in session.exec(query):
        url = None if key is None else pages + quote(name, safe="")
        shown = name if computer is None else computer_name_words(computer)
        found[game_id].append(Opponent(shown, url))
    return {game_id: tuple(names) for game_id, names in found.items()}


def turn_times(
    entries: Sequence[tuple[int, str, datetime]], letters: dict[int, str]
) -> list[float]:
    """Seconds from the other seats' last entry to the player's next, per turn of theirs.
    ``entries``: (game id, seat, time) in log order per game; ``letters``: the player's seat by
    game. A turn's first entry is timed (a claim then a card is one turn); the first turn of a
    game has no entry before it and is not."""
    times: list[float] = []
    previous: tuple[int, str, datetime] | None = None
    for game_id, seat, at in entries:
        if (
            previous is not None
            and previous[0] == game_id
            and seat == letters[game_id]
            and previous[1] != seat
        ):
            times.append((at - previous[2]).total_seconds())
        previous = (game_id, seat, at)
    return times


def _median_turn(session: Session, rows: Sequence[_Row]) -> tuple[timedelta | None, int]:
    timed = rows[:TIMED_GAMES]
    if not timed:
        return None, 0
    letters = {r.game_id: r.letter for r in timed}
    entries = session.exec(
        select(MoveEntry.game_id, MoveEntry.seat, MoveEntry.created_at)
        .where(col(MoveEntry.game_id).in_(list(letters)))
        .order_by(col(MoveEntry.game_id), col(MoveEntry.ply))
    ).all()
    times = turn_times(list(entries), letters)
    if not times:
        return None, 0
    return timedelta(seconds=round(statistics.median(times))), len(times)


def _results(rows: Sequence[_Row]) -> tuple[tuple[VariantResults, ...], int]:
    counts: dict[str, dict[str, int]] = {}
    timeouts = 0
    for row in rows:
        outcome = _outcome(row)
        if outcome is None:
            continue
        counts.setdefault(row.ruleset, {Outcome.WON: 0, Outcome.LOST: 0, Outcome.DRAWN: 0})
        counts[row.ruleset][outcome] += 1
        if outcome == Outcome.LOST and row.termination == engine.Termination.TIME:
            timeouts += 1
    order = list(engine.RULESETS)
    results = tuple(
        VariantResults(ruleset_title(name), c[Outcome.WON], c[Outcome.LOST], c[Outcome.DRAWN])
        for name, c in sorted(
            counts.items(), key=lambda item: order.index(item[0]) if item[0] in order else 99
        )
    )
    return results, timeouts


def player_page(
    session: Session, player: Player, *, visitor: Player | None, blocks: bool
) -> PlayerPage:
    """The page of ``player`` as ``visitor`` (signed in, or None) sees it."""
    assert player.id is not None
    is_self = visitor is not None and visitor.id == player.id
    rows = _rows(session, player, visitor_id=None if visitor is None else visitor.id)
    playing = [r for r in rows if r.status == GameStatus.ACTIVE][:LISTED_PLAYING]
    finished_all = [r for r in rows if r.status == GameStatus.FINISHED]
    finished = finished_all[:LISTED_FINISHED]
    opponents = _opponents(session, [*playing, *finished], player.id)
    median, timed = _median_turn(session, rows)
    results, timeouts = _results(finished_all)
    # One url_for for every game: the page lists dozens, and each url_for costs.
    public_pages = url_for("history.public_page", public_id="_")[:-1]

    def listed(row: _Row) -> ListedGame:
        return ListedGame(
            public_url=public_pages + row.public_id,
            number=row.game_id,
            ruleset_title=ruleset_title(row.ruleset),
            opponents=opponents.get(row.game_id, ()),
            outcome=_outcome(row),
            unlisted=row.visibility != Visibility.PUBLIC,
        )

    return PlayerPage(
        name=player.display_name,
        playing=tuple(map(listed, playing)),
        finished=tuple(map(listed, finished)),
        finished_count=len(finished_all),
        results=results,
        median_turn=median,
        turns_timed=timed,
        timeouts=timeouts,
        is_self=is_self,
        blocks=blocks,
        signed_in=visitor is not None,
    )
