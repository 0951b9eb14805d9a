"""Move links for emails: one signed link per legal move of the seat to move.

The token names game, seat, token generation and ply (never a card: tokens are readable); the
address adds the index of the move in ``engine.legal_moves`` at that ply, whose order is
deterministic. Changing the index only picks another legal move of the same seat and turn.
"""

from __future__ import annotations

from service import tokens
from service.links import external_url
from service.models import Seat


def move_link_url(seat: Seat, ply: int, index: int) -> str:
    """The absolute link that plays legal move number ``index`` (from 0) of ``seat`` at ``ply``."""
    token = tokens.make_move_token(seat.game_id, seat.letter, seat.token_generation, ply)
    return external_url("play.move_link", token=token, index=index)


def move_link_urls(seat: Seat, ply: int, count: int) -> list[str]:
    """The links of legal moves 0 to ``count - 1`` of ``seat`` at ``ply``: one token for all."""
    token = tokens.make_move_token(seat.game_id, seat.letter, seat.token_generation, ply)
    return [external_url("play.move_link", token=token, index=index) for index in range(count)]
