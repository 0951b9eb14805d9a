"""The move list as people read it: each log entry in words, with the seat's name, for pages
(the private page's latest moves, the public page's whole game)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import engine
from service.games.store import LogEntry
from service.models import Player, Seat
from service.present.words import Piece, narration


def names_of(seats: dict[str, tuple[Seat, Player]]) -> dict[str, str]:
    """Display names by seat letter."""
    return {letter: player.display_name for letter, (_, player) in seats.items()}


def log_rows(
    entries: Sequence[LogEntry],
    ruleset: engine.Ruleset,
    names: dict[str, str],
    *,
    reader: str | None,
    finished: bool,
) -> list[dict[str, Any]]:
    """The move list as rows to draw. ``reader`` is the seat reading (its own Scout returns show
    in full), None for the public; everything shows in full once the game is ``finished``."""
    rows = []
    for entry in entries:
        hide = not finished and entry.seat != reader
        name = names.get(entry.seat, entry.seat)
        words, notation = _narrated(entry.notation, ruleset, name, hide)
        rows.append(
            {
                "number": entry.ply + 1,
                "seat": entry.seat,
                "words": words,
                "notation": notation,
                "time": entry.created_at,
            }
        )
    return rows


@functools.lru_cache(maxsize=16384)
def _narrated(
    notation: str, ruleset: engine.Ruleset, name: str, hide: bool
) -> tuple[tuple[Piece, ...], str]:
    """One entry in words and in the notation shown: the same for every view of every replay
    position of a game, so kept (the log never changes)."""
    move = engine.parse_move(notation, ruleset)
    words = tuple(narration(move, name, hide_returned=hide))
    return words, move.public_text() if hide else str(move)
