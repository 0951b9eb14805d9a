"""A stored game as an ``engine.GameRecord`` (FORMATS.md): the engine writes and reads records,
the service only files their fields.

``games.deal`` holds the record's deal fields as the engine wrote them (``first``, ``deal`` and,
after a cut, ``cuts``); ruleset and claims have their own columns and the moves live in the log.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import engine
from service.models import Game

DEAL_FIELDS = ("first", "deal", "cuts")


def deal_fields(record: engine.GameRecord) -> dict[str, Any]:
    """The fields of a record that the deal decides, for ``games.deal``."""
    data = record.to_json()
    return {key: data[key] for key in DEAL_FIELDS if key in data}


def game_record(game: Game, moves: Sequence[str] = ()) -> engine.GameRecord:
    """The record of a dealt game with these log entries. Raises InvalidRecordError if the stored
    deal is damaged, ValueError if the game was never dealt."""
    if game.deal is None:
        raise ValueError(f"game {game.id} has not been dealt")
    return engine.GameRecord.from_json(
        {"ruleset": game.ruleset, "claims": game.claims, **game.deal, "moves": list(moves)}
    )


def cut_words(game: Game) -> str:
    """The cut of a dealt game in words (R2), from its stored deal fields alone."""
    if game.deal is None:
        raise ValueError(f"game {game.id} has not been dealt")
    players = len(engine.get_ruleset(game.ruleset).seats)
    return engine.describe_cut(game.deal["first"], game.deal.get("cuts", []), players)
