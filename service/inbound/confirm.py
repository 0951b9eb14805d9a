"""A reply whose sender was not proven (``service.inbound.authentication``) plays nothing: its
moves wait in its ``inbound_messages`` row (``held_moves``) and the seat's own address gets a
signed link to confirm them, as Discourse queues such posts for review.

The link's token names the game, the seat, the seat's token generation, the ply the moves were
read at and the row (never a card: a token is readable). Opening it shows the moves; only its
button (a POST) plays them, and only while the game is still at that ply and the seat's links
were not revoked: then it is a clear "the game has moved on" page.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from sqlmodel import Session

import engine
from service import clock, tokens
from service.games.loaded import LoadedGame, load_game
from service.inbound_models import InboundMessage
from service.links import external_url, private_page_url
from service.models import Game, Player, Seat
from service.outbox.kinds import MailKind
from service.outbox.models import OutboxMessage
from service.outbox.queue import emails_queued_since, queue_email
from service.present.choices import move_code
from service.present.emails import game_facts
from service.present.plain_text import pieces_text
from service.present.words import instruction

SALT = "battleline.reply-confirm"
_FIELDS = {"g": int, "s": str, "n": int, "p": int, "r": int}
CONFIRMATIONS_PER_HOUR = 5
"""At most this many confirmation emails to one player an hour: forged mail cannot flood."""


@dataclass(frozen=True)
class ConfirmToken:
    game_id: int
    seat: str
    generation: int
    ply: int
    row_id: int
    """The ``inbound_messages`` row that holds the moves."""


def make_token(seat: Seat, ply: int, row_id: int) -> str:
    payload = {"g": seat.game_id, "s": seat.letter, "n": seat.token_generation, "p": ply,
               "r": row_id}  # fmt: skip
    token = tokens.signed_serializer(SALT).dumps(payload)
    assert isinstance(token, str)
    return token


def read_token(token: str) -> ConfirmToken:
    """Check the token's signature and age (TamperedTokenError, ExpiredTokenError); the caller
    checks the generation, the ply and the row."""
    loaded = tokens.load_signed(tokens.signed_serializer(SALT), token)
    p = tokens.checked_payload(loaded, _FIELDS)
    return ConfirmToken(p["g"], p["s"], p["n"], p["p"], p["r"])


def held_moves(row: InboundMessage, ruleset: engine.Ruleset) -> list[engine.Move]:
    """The moves a row holds for confirmation (their notations, a line each)."""
    return [engine.parse_move(text, ruleset) for text in (row.held_moves or "").splitlines()]


def described(moves: Sequence[engine.Move]) -> list[dict[str, str]]:
    """Each move's reply code and its words, for the email and the page."""
    return [{"code": move_code(move), "text": pieces_text(instruction(move))} for move in moves]


def hold(
    session: Session,
    loaded: LoadedGame,
    seat: Seat,
    player: Player,
    row: InboundMessage,
    moves: Sequence[engine.Move],
    *,
    reason: str,
    in_reply_to: str | None,
) -> OutboxMessage | None:
    """Keep ``moves`` in ``row`` and ask the seat's own address to confirm them (None when it
    was asked CONFIRMATIONS_PER_HOUR times this hour already)."""
    game = loaded.game
    assert game.id is not None and player.id is not None and row.id is not None
    row.held_moves = "\n".join(str(move) for move in moves)
    session.add(row)
    since = clock.now() - timedelta(hours=1)
    asked = emails_queued_since(session, MailKind.REPLY_CONFIRM, since, player_id=player.id)
    if asked >= CONFIRMATIONS_PER_HOUR:
        return None
    url = external_url("reply_confirm.confirm_page", token=make_token(seat, game.ply, row.id))
    # The moves in words and the game's facts in the recipient's language (service.i18n).
    return queue_email(
        session,
        MailKind.REPLY_CONFIRM,
        player,
        game=loaded,
        context=lambda: {
            **game_facts(game),
            "moves": described(moves),
            "turn": game.ply + 1,
            "confirm_url": url,
            "own_address": player.email,
            "reason": reason,
            "private_url": private_page_url(seat),
        },
        in_reply_to=in_reply_to,
    )


def seat_of(session: Session, token: ConfirmToken) -> tuple[Game, Seat, Player]:
    """The game, seat and player a token names (RevokedTokenError, GameNotFoundError)."""
    loaded = load_game(session, token.game_id)
    game = loaded.game
    found = loaded.seats.get(token.seat)
    if found is None:
        raise tokens.TamperedTokenError()
    seat, player = found
    tokens.check_generation(token.generation, seat.token_generation)
    return game, seat, player
