"""What the public game page shows at any position, and the exported record.

During the game only ``engine.public_view`` of each position is shown, and Scout returns in
their public form. Once the game is over, both hands at every position and every move in full
are public, with the seed (R3), so anyone can re-deal and check.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from flask import url_for
from markupsafe import Markup
from sqlmodel import Session

import engine
from service.catalogue import lazy_gettext
from service.games.loaded import LoadedGame
from service.games.move_log import move_log, moves_from
from service.games.records import game_record
from service.games.state import check_rules_version, states_at
from service.models import GameStatus
from service.present.board import Board, board_of
from service.present.claims import claims_in_log
from service.present.move_list import LogRow, cards_placed, log_html, log_rows
from service.present.seat_names import seat_names
from service.present.summaries import SeriesNote, series_note
from service.refusal import Refusal


class PositionError(Refusal):
    """A ``?ply=`` that names no position of the game."""

    status = 404
    title = lazy_gettext("No such position")


class RecordNotPublicError(Refusal):
    """The record of a game in progress: its deal and hands are secret until the end."""

    status = 403
    title = lazy_gettext("The record is published when the game ends")

    def __init__(self) -> None:
        super().__init__(
            lazy_gettext(
                "The full record holds the deal, which stays secret while the game is played. "
                "It can be downloaded here once the game is over."
            )
        )


def requested_ply(text: str | None) -> int | None:
    """The number ``?ply=`` holds, if it is one (whether the game has that position or not)."""
    # ASCII digits only: str.isdigit() also accepts "²", which int() refuses.
    return int(text) if text and re.fullmatch(r"[0-9]{1,7}", text) else None


def parse_ply(text: str | None, last: int) -> int:
    """The position asked for by ``?ply=`` (default: the latest). Raises PositionError."""
    if text is None or text == "":
        return last
    ply = requested_ply(text)
    if ply is None or ply > last:
        raise PositionError(
            lazy_gettext("Positions of this game run from 0 (the deal) to %(last)d.", last=last)
        )
    return ply


@dataclass(frozen=True, slots=True)
class PublicPage:
    """The public page of a dealt game at one position, besides the public summary."""

    view: engine.PublicView
    sides: Board
    marked: frozenset[str]
    """The card the move shown put on the board."""
    ply: int
    last: int
    moves: tuple[LogRow, ...]
    moves_html: Markup
    finished: bool
    to_move: str
    series: SeriesNote | None


def public_page_context(session: Session, loaded: LoadedGame, ply_text: str | None) -> PublicPage:
    """The public page of a dealt game at position ``?ply=`` (after that many moves)."""
    game = loaded.game
    assert game.id is not None
    last = game.ply
    ply = parse_ply(ply_text, last)
    # The log up to the game row's ply: a page read outside a transaction (db.read_scope) must
    # not list a move committed after the row was read.
    entries = moves_from(session, game.id, 0, last)
    # Two positions from their nearest snapshots and the few moves after them in the log.
    positions = states_at(session, loaded, (ply, last), entries)
    state, final = positions[ply], positions[last]
    finished = game.status == GameStatus.FINISHED
    # R3: once the game is over nothing is secret: the view of any position holds the hands.
    seen = engine.spectator_view(state, reveal=finished)
    names = seat_names(loaded)
    moves = log_rows(
        entries,
        state.ruleset,
        names,
        reader=None,
        finished=finished,
        after=final,
        claims=claims_in_log(session, loaded, entries),
    )
    here = url_for("history.public_page", public_id=game.public_id)
    return PublicPage(
        view=seen,
        sides=board_of(seen, None),
        marked=cards_placed(moves[ply - 1 : ply]) if ply else frozenset(),
        ply=ply,
        last=last,
        moves=tuple(moves),
        moves_html=log_html(moves, here, ply),
        finished=finished,
        to_move=final.to_move,
        series=series_note(session, loaded),
    )


def record_json(session: Session, loaded: LoadedGame) -> dict[str, object]:
    """The finished game as a docs/formats.md record, with the seed, the players' names and the time
    of every move. Raises RecordNotPublicError while the game is not over."""
    game = loaded.game
    assert game.id is not None
    if game.status != GameStatus.FINISHED:
        raise RecordNotPublicError()
    check_rules_version(game)
    entries = move_log(session, game.id)
    record = game_record(game, [e.notation for e in entries])
    data: dict[str, object] = record.to_json()
    data["seed"] = game.seed
    data["seed_commitment"] = game.seed_commitment
    data["rules_version"] = game.rules_version
    data["players"] = dict(seat_names(loaded))
    data["times"] = [e.created_at.isoformat() for e in entries]
    data["outcome"] = game.result
    return data
