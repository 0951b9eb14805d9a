"""The tournament emails, each only to players who entered (their own choice): the entry's
confirmation, each new round's games, the end. In each recipient's language."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session, col, select

from service.catalogue import gettext as _
from service.games.seats import seats_of_games
from service.links import external_url, private_page_url
from service.models import Player
from service.outbox import MailKind
from service.present.recipients import queue_to
from service.tournaments.models import Tournament, TournamentGame
from service.tournaments.standing import entrants_of, standings_of

TOP_LINES = 3
"""Players of the final standings an end email names."""


@dataclass(frozen=True, slots=True)
class EntryEmail:
    tournament_name: str
    tournament_url: str
    players_now: int
    max_players: int


@dataclass(frozen=True, slots=True)
class RoundGame:
    opponent: str
    game_url: str
    """The player's private page of the game."""


@dataclass(frozen=True, slots=True)
class RoundEmail:
    tournament_name: str
    tournament_url: str
    round_number: int | None
    """None: the whole section at once (a round-robin)."""
    games: tuple[RoundGame, ...]
    bye: bool
    """A bye this round (Swiss: a round-robin's rest is no bye, and no pairing)."""


@dataclass(frozen=True, slots=True)
class TopLine:
    rank: int
    name: str
    score: str


@dataclass(frozen=True, slots=True)
class OverEmail:
    tournament_name: str
    tournament_url: str
    top: tuple[TopLine, ...]
    your_rank: int | None


def _url(tournament: Tournament) -> str:
    return external_url("tournaments.tournament_view", public_id=tournament.public_id)


def queue_entered(session: Session, tournament: Tournament, player: Player) -> None:
    assert tournament.id is not None
    count = len(entrants_of(session, tournament.id))
    queue_to(
        session,
        MailKind.TOURNAMENT_ENTERED,
        player,
        lambda: EntryEmail(tournament.name, _url(tournament), count, tournament.max_players),
        subject=lambda: _("You entered %(name)s", name=tournament.name),
    )


def queue_round(session: Session, tournament: Tournament, number: int | None) -> None:
    """Each paired player's games of round ``number`` (None: every round, a round-robin's
    section dealt at once), each with the link to the player's own private page: the email goes
    to their address only, as a game's own "cards dealt" does."""
    assert tournament.id is not None
    query = select(TournamentGame).where(TournamentGame.tournament_id == tournament.id)
    if number is not None:
        query = query.where(TournamentGame.round == number)
    pairings = session.exec(query.order_by(col(TournamentGame.round))).all()
    ids = {p.first_id for p in pairings} | {p.second_id for p in pairings if p.second_id}
    people = {p.id: p for p in session.exec(select(Player).where(col(Player.id).in_(ids))).all()}
    games = seats_of_games(session, [p.game_id for p in pairings if p.game_id is not None])
    for player_id, player in sorted(people.items(), key=lambda item: item[0] or 0):
        mine: list[RoundGame] = []
        bye = False
        for p in pairings:
            if p.second_id is None:
                bye = bye or p.first_id == player_id
                continue
            if player_id not in (p.first_id, p.second_id) or p.game_id is None:
                continue
            (own,) = [seat for seat, holder in games[p.game_id].values() if holder.id == player_id]
            other = people[p.second_id if p.first_id == player_id else p.first_id]
            mine.append(RoundGame(other.display_name, private_page_url(own)))
        queue_to(
            session,
            MailKind.TOURNAMENT_ROUND,
            player,
            lambda mine=tuple(mine), bye=bye: RoundEmail(  # type: ignore[misc]
                tournament.name, _url(tournament), number, mine, bye
            ),
            subject=lambda: _("%(name)s: your games", name=tournament.name),
        )


def queue_over(session: Session, tournament: Tournament) -> None:
    assert tournament.id is not None
    rows = standings_of(session, tournament).rows
    ids = {row.player for row in rows}
    people = {p.id: p for p in session.exec(select(Player).where(col(Player.id).in_(ids))).all()}
    top = tuple(
        TopLine(row.rank, people[row.player].display_name, f"{row.score:g}")
        for row in rows[:TOP_LINES]
    )
    for row in rows:
        player = people[row.player]
        queue_to(
            session,
            MailKind.TOURNAMENT_OVER,
            player,
            lambda rank=row.rank: OverEmail(  # type: ignore[misc]
                tournament.name, _url(tournament), top, rank
            ),
            subject=lambda: _("%(name)s is over", name=tournament.name),
        )
