"""Rating a game when it ends, in the transaction that ends it (a move listener of
``service.games.state``), exactly once: the game row is locked by whoever ends it, the players'
rows are locked in id order while their ratings change, and ``rating_changes`` has one row per
(game, player) at most (docs/ratings.md).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from flask import Flask
from sqlmodel import Session, col, select

import engine
from service import clock
from service.games.loaded import LoadedGame
from service.games.state import add_move_listener
from service.models import MoveEntry, Player, Seat
from service.ratings.glicko import Standing, rate_pair, rate_ranked
from service.ratings.models import Rating, RatingChange
from service.ratings.pools import POOL_OF_RULESET, Pool

MIN_TURNS_EACH = 2
"""A game in which a seat played fewer turns than this is not rated."""


class Verdict(enum.StrEnum):
    """What a rated game's end did to the ratings."""

    COUNTED = "counted"
    TOO_SHORT = "too-short"
    """A seat played fewer than ``MIN_TURNS_EACH`` turns."""
    ANNULLED = "annulled"
    """A loss on time by a player who had lost another rated game on time since their last
    move (OGS's rule: one absence costs one game)."""


@dataclass(frozen=True, slots=True)
class Leaving:
    """The seat whose resignation or loss on time ended the game."""

    letter: str
    on_time: bool


def is_rateable(players: list[Player]) -> bool:
    """Whether a game between these players may be rated: each signed in (has chosen their
    name) or the computer, and none has closed their account."""
    return all(
        p.closed_at is None and (p.computer is not None or p.name_confirmed) for p in players
    )


def on_moves(
    session: Session, loaded: LoadedGame, state: engine.GameState, events: list[engine.Event]
) -> None:
    """The move listener: a rated game that just ended is rated."""
    if state.result is not None and loaded.game.rated:
        rate_finished_game(session, loaded, state, clock.now())


def rate_finished_game(
    session: Session, loaded: LoadedGame, state: engine.GameState, now: datetime
) -> Verdict | None:
    """Rate the finished game ``state`` of ``loaded`` (locked by the caller); None when it is
    not to be rated or was rated already."""
    outcome = state.result
    game = loaded.game
    assert outcome is not None and game.id is not None
    holders = [loaded.seats[letter] for letter in state.ruleset.seats]
    players = [h.player for h in holders]
    if not game.rated or not is_rateable(players):
        return None
    already = session.exec(select(RatingChange.id).where(RatingChange.game_id == game.id)).first()
    if already is not None:
        return None
    ids = sorted({p.id for p in players if p.id is not None})
    # Two games of one player ending at once change their rating one after the other.
    session.exec(
        select(Player.id).where(col(Player.id).in_(ids)).order_by(col(Player.id)).with_for_update()
    ).all()
    pool = POOL_OF_RULESET[game.ruleset]
    leaving = _leaving(session, game.id, game.ply, outcome)
    ratings = [_rating_row(session, p, pool, now) for p in players]
    before = [_standing(r) for r in ratings]
    verdict = _verdict(session, state, leaving, loaded)
    after = _rated(state, before, now) if verdict is Verdict.COUNTED else before
    for letter, player, row, old, new in zip(
        state.ruleset.seats, players, ratings, before, after, strict=True
    ):
        assert player.id is not None
        if verdict is Verdict.COUNTED:
            row.rating, row.deviation, row.volatility = new.rating, new.deviation, new.volatility
            row.rated_at = new.rated_at
            row.games += 1
            session.add(row)
        session.add(
            RatingChange(
                game_id=game.id,
                player_id=player.id,
                pool=pool,
                verdict=verdict,
                time_loss=leaving is not None and leaving.on_time and leaving.letter == letter,
                before=old.rating,
                after=new.rating,
                deviation_after=new.deviation,
            )
        )
    session.flush()
    return verdict


def _rated(state: engine.GameState, before: list[Standing], now: datetime) -> list[Standing]:
    ranks = result_ranks(state)
    if len(before) == 2:
        score = {(1, 2): 1.0, (2, 1): 0.0}.get((ranks[0], ranks[1]), 0.5)
        return list(rate_pair(before[0], before[1], score, now))
    return rate_ranked(before, ranks, now)


def result_ranks(state: engine.GameState) -> list[int]:
    """Each seat's place in the result, in seat order: 1 the winner (or those sharing a draw),
    2 the others; all 1 in a draw shared by every seat."""
    outcome = state.result
    assert outcome is not None
    seats = state.ruleset.seats
    if outcome.winner is not None:
        return [1 if s == outcome.winner else 2 for s in seats]
    sharing = set(outcome.draw_between or seats)
    return [1 if s in sharing else 2 for s in seats]


def turns_played(state: engine.GameState, leaving: Leaving | None) -> dict[str, int]:
    """The turns each seat played: those it began, less the one it left the game in."""
    seats = state.ruleset.seats
    count = len(seats)
    played = {}
    for offset in range(count):
        index = (state.first + offset) % count
        played[seats[index]] = max(0, (state.turn - offset + count - 1) // count)
    if leaving is not None and seats[state.mover] == leaving.letter:
        played[leaving.letter] -= 1
    return played


def _verdict(
    session: Session, state: engine.GameState, leaving: Leaving | None, loaded: LoadedGame
) -> Verdict:
    if min(turns_played(state, leaving).values()) < MIN_TURNS_EACH:
        return Verdict.TOO_SHORT
    if leaving is not None and leaving.on_time:
        loser = loaded.seats[leaving.letter].player
        assert loser.id is not None
        if _lost_on_time_since_last_move(session, loser.id):
            return Verdict.ANNULLED
    return Verdict.COUNTED


def _lost_on_time_since_last_move(session: Session, player_id: int) -> bool:
    """Whether the player has a counted loss on time after their last move in any game. A
    claim is no sign of them: the start of a turn makes the automatic ones in their absence
    (and a turn they play has a card or a pass besides)."""
    last_move = session.exec(
        select(sa.func.max(MoveEntry.created_at))
        .join(
            Seat,
            (col(Seat.game_id) == col(MoveEntry.game_id)) & (col(Seat.letter) == MoveEntry.seat),
        )
        .where(
            Seat.player_id == player_id,
            ~col(MoveEntry.notation).endswith("timeout"),
            ~col(MoveEntry.notation).contains(": claim "),
        )
    ).one()
    query = select(RatingChange.id).where(
        RatingChange.player_id == player_id,
        col(RatingChange.time_loss).is_(True),
        RatingChange.verdict == Verdict.COUNTED,
    )
    if last_move is not None:
        query = query.where(col(RatingChange.created_at) > last_move)
    return session.exec(query.limit(1)).first() is not None


def _leaving(session: Session, game_id: int, ply: int, outcome: engine.Outcome) -> Leaving | None:
    """Who resigned or lost on time (the log's last entry), or None when the game was played
    out."""
    if outcome.termination not in (engine.Termination.RESIGNATION, engine.Termination.TIME):
        return None
    last = session.exec(
        select(MoveEntry.seat).where(MoveEntry.game_id == game_id, MoveEntry.ply == ply - 1)
    ).one()
    return Leaving(letter=last, on_time=outcome.termination is engine.Termination.TIME)


def _rating_row(session: Session, player: Player, pool: Pool, now: datetime) -> Rating:
    assert player.id is not None
    found = session.exec(
        select(Rating)
        .where(Rating.player_id == player.id, Rating.pool == pool)
        # Read after the player's lock: what another game's end just committed.
        .execution_options(populate_existing=True)
    ).first()
    if found is not None:
        return found
    fresh = Standing.new(now)
    return Rating(
        player_id=player.id,
        pool=pool,
        rating=fresh.rating,
        deviation=fresh.deviation,
        volatility=fresh.volatility,
        rated_at=fresh.rated_at,
    )


def _standing(row: Rating) -> Standing:
    return Standing(row.rating, row.deviation, row.volatility, row.rated_at)


def init_app(app: Flask) -> None:
    """Rate every rated game of ``app`` when it ends. Before the game-over emails' listener, so
    that they can tell the change."""
    add_move_listener(app, on_moves)
