"""Everything we hold about a player, for them to download as JSON from "my games": their
profile, their defaults, their games, their ratings and what each game did to them, the blocks
they made and the emails we sent them.

Only their own: another player appears by the name everyone sees, never by address, and of a
game only what the player may know (the public facts, the result and the moves they made
themselves; never the deal, the seed or another seat's hand).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, TypedDict

from sqlmodel import Session, col, select

from service.catalogue import gettext
from service.games.preferences import player_defaults
from service.games.seats import seats_of_games
from service.links import external_url
from service.models import Game, MoveEntry, Player, Seat
from service.outbox.models import OutboxMessage
from service.players.models import Block
from service.present.seat_names import shown_name
from service.ratings.models import Rating, RatingChange

ADDRESS_RE = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
"""Something that reads as an email address, in an email's text."""
FORMAT = "battleline-player-data/1"
"""Named in every export, so that a reader can tell which shape it has."""


def _when(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def _profile(player: Player) -> dict[str, Any]:
    return {
        "email": player.email,
        "display_name": player.display_name,
        "language": player.language,
        "time_zone": player.time_zone,
        "created_at": _when(player.created_at),
    }


def _games(session: Session, player: Player) -> list[dict[str, Any]]:
    rows = session.exec(
        select(Seat, Game)
        .join(Game, col(Game.id) == col(Seat.game_id))
        .where(Seat.player_id == player.id)
        .order_by(col(Game.id))
    ).all()
    game_ids = [game.id for _, game in rows if game.id is not None]
    seats = seats_of_games(session, game_ids)
    moves: dict[int, list[dict[str, Any]]] = {game_id: [] for game_id in game_ids}
    mine = {(seat.game_id, seat.letter) for seat, _ in rows}
    for entry in session.exec(
        select(MoveEntry)
        .where(col(MoveEntry.game_id).in_(game_ids))
        .order_by(col(MoveEntry.game_id), col(MoveEntry.ply))
    ):
        # Only the player's own moves: another seat's entries may name cards put back face down.
        if (entry.game_id, entry.seat) in mine:
            moves[entry.game_id].append(
                {"ply": entry.ply, "move": entry.notation, "at": _when(entry.created_at)}
            )
    games = []
    for seat, game in rows:
        assert game.id is not None
        games.append(
            {
                "id": game.id,
                "public_url": external_url("history.public_page", public_id=game.public_id),
                "variant": game.ruleset,
                "claims": game.claims,
                "status": game.status,
                "created_at": _when(game.created_at),
                "seat": seat.letter,
                "seats": [
                    {"seat": letter, "name": shown_name(holder)}
                    for letter, (_, holder) in seats.get(game.id, {}).items()
                ],
                "result": dict(game.result) if game.result is not None else None,
                "moves": moves[game.id],
            }
        )
    return games


def _blocks(session: Session, player: Player) -> list[dict[str, Any]]:
    rows = session.exec(
        select(Block, Player)
        .join(Player, col(Player.id) == col(Block.blocked_id))
        .where(Block.blocker_id == player.id)
        .order_by(col(Block.id))
    ).all()
    return [{"name": shown_name(blocked), "since": _when(row.created_at)} for row, blocked in rows]


class RatingEntry(TypedDict):
    """One of the player's ratings, as the export writes it."""

    pool: str
    rating: float
    deviation: float
    volatility: float
    games: int
    rated_at: str | None


class RatingChangeEntry(TypedDict):
    """One change of the player's ratings by a game, as the export writes it."""

    game_id: int
    pool: str
    verdict: str
    before: float
    after: float
    at: str | None


def _ratings(session: Session, player: Player) -> list[RatingEntry]:
    rows = session.exec(
        select(Rating).where(Rating.player_id == player.id).order_by(col(Rating.pool))
    ).all()
    return [
        RatingEntry(
            pool=row.pool, rating=row.rating, deviation=row.deviation,
            volatility=row.volatility, games=row.games, rated_at=_when(row.rated_at),
        )
        for row in rows
    ]  # fmt: skip


def _rating_changes(session: Session, player: Player) -> list[RatingChangeEntry]:
    rows = session.exec(
        select(RatingChange)
        .where(RatingChange.player_id == player.id)
        .order_by(col(RatingChange.id))
    ).all()
    return [
        RatingChangeEntry(
            game_id=row.game_id, pool=row.pool, verdict=row.verdict, before=row.before,
            after=row.after, at=_when(row.created_at),
        )
        for row in rows
    ]  # fmt: skip


def _withhold_addresses(text: str | None, own: str) -> str | None:
    """``text`` without any address but the player's own: an invitation names its sender's
    address to the person invited, but the export is a file that travels."""
    if text is None:
        return None
    withheld = gettext("(address withheld)")
    return ADDRESS_RE.sub(lambda m: m[0] if m[0].lower() == own else withheld, text)


def _emails(session: Session, player: Player) -> list[dict[str, Any]]:
    rows = session.exec(
        select(OutboxMessage)
        .where(OutboxMessage.player_id == player.id)
        .order_by(col(OutboxMessage.id))
    ).all()
    return [
        {
            "kind": row.kind,
            "subject": row.subject,
            "queued_at": _when(row.created_at),
            "sent_at": _when(row.sent_at),
            "text": _withhold_addresses(row.text_body, player.email),
        }
        for row in rows
    ]


def player_data(session: Session, player: Player, now: datetime) -> dict[str, Any]:
    """Everything we hold about ``player``, as plain JSON values (``FORMAT``)."""
    defaults = player_defaults(player)
    return {
        "format": FORMAT,
        "exported_at": now.isoformat(),
        "profile": _profile(player),
        "preferences": {
            "automatic_claims": defaults.automatic_claims,
            "digest": defaults.digest,
        },
        "games": _games(session, player),
        "ratings": _ratings(session, player),
        "rating_changes": _rating_changes(session, player),
        "blocks": _blocks(session, player),
        "emails": _emails(session, player),
    }
