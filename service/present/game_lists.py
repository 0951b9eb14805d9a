"""Lists of a player's games ("my games", the daily digest): what each game row says, read in two
queries whatever the number of games. No position is loaded: the row knows whose turn it is."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from flask_babel import LazyString
from sqlmodel import Session, col, select

import engine
from service.game_words import lazy_ruleset_title
from service.games.preferences import turn_preferences
from service.games.seats import seats_of_games
from service.games.tournament_note import TournamentNote
from service.json_columns import GameResult
from service.links import private_page_url
from service.models import Game, GameStatus, Player, Seat
from service.present.seat_names import shown_name
from service.present.summaries import in_words
from service.present.tournament_notes import tournament_notes


@dataclass(frozen=True, slots=True)
class PlayerGame:
    """One game as its player sees it in a list. No seed, no hand."""

    game_number: int
    ruleset_title: LazyString | str
    """Put into words when rendered, in the reader's language."""
    status: str
    seat: str
    """The player's seat letter."""
    opponents: tuple[str, ...]
    """The display names of the other seats, in seat order."""
    to_move: str | None
    """The seat to move while the game is being played."""
    turn: int
    """The turn being played (turns counted as players count them: one seat's play each)."""
    deadline: datetime | None
    result: GameResult | None
    """The stored result (``Game.result``)."""
    private_url: str
    public_id: str
    created_at: datetime
    """When the game was started (the list tells games against the same people apart by it and
    by ``game_number``)."""
    updated_at: datetime
    digest: bool
    """This seat is told of its turns by the daily digest, not one email per turn."""
    tournament: TournamentNote | None = None
    """The tournament round the game belongs to, if any."""

    @property
    def your_turn(self) -> bool:
        return self.to_move == self.seat

    @property
    def opponent(self) -> str:
        """The other seats' names as words: "Bob", "Bob and Carol"."""
        return in_words(list(self.opponents)) or "?"


def player_games(session: Session, player: Player, *, to_play: bool = False) -> list[PlayerGame]:
    """The player's games, newest first; with ``to_play``, only the active games where it is
    their turn, soonest deadline first."""
    query = (
        select(Game, Seat)
        .join(Seat, col(Seat.game_id) == col(Game.id))
        .where(Seat.player_id == player.id)
    )
    if to_play:
        query = query.where(
            Game.status == GameStatus.ACTIVE,
            col(Game.to_move) == col(Seat.letter),
            Game.rules_version == engine.RULES_VERSION,
        ).order_by(col(Game.deadline), col(Game.id))
    else:
        query = query.order_by(col(Game.updated_at).desc(), col(Game.id).desc())
    rows = session.exec(query).all()
    ids = [game.id for game, _ in rows if game.id is not None]
    seats = seats_of_games(session, ids)
    notes = tournament_notes(session, ids)
    return [
        _listed(game, seat, player, seats.get(seat.game_id, {}), notes.get(seat.game_id))
        for game, seat in rows
    ]


def _listed(
    game: Game,
    seat: Seat,
    player: Player,
    seats: dict[str, tuple[Seat, Player]],
    tournament: TournamentNote | None = None,
) -> PlayerGame:
    assert game.id is not None
    active = game.status == GameStatus.ACTIVE
    return PlayerGame(
        game_number=game.id,
        ruleset_title=lazy_ruleset_title(game.ruleset),
        status=game.status,
        seat=seat.letter,
        opponents=tuple(shown_name(p) for letter, (_, p) in seats.items() if letter != seat.letter),
        to_move=game.to_move if active else None,
        turn=game.current_turn,
        deadline=game.deadline if active else None,
        result=game.result,
        private_url=private_page_url(seat),
        public_id=game.public_id,
        created_at=game.created_at,
        updated_at=game.updated_at,
        digest=turn_preferences(player, seat).digest,
        tournament=tournament,
    )
