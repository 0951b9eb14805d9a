"""The rating pools: which games are rated together. One rating per player and pool."""

from __future__ import annotations

import enum

from flask_babel import LazyString

from service.catalogue import lazy_gettext


class Pool(enum.StrEnum):
    """A set of variants rated together (docs/ratings.md)."""

    BATTLE_LINE = "battleline"
    """Battle Line with tactics, either claim timing."""
    NO_TACTICS = "no-tactics"
    SCHOTTEN_TOTTEN = "schotten-totten"
    PLAYING_CARDS = "playing-cards"
    THREE_PLAYERS = "three"
    """Both three-player games: a multiplayer rating from the ranks of the result."""


POOL_OF_RULESET: dict[str, Pool] = {
    "battleline": Pool.BATTLE_LINE,
    "no-tactics": Pool.NO_TACTICS,
    "schotten-totten": Pool.SCHOTTEN_TOTTEN,
    "playing-cards": Pool.PLAYING_CARDS,
    "battleline-3p": Pool.THREE_PLAYERS,
    "no-tactics-3p": Pool.THREE_PLAYERS,
}
"""The pool of each ruleset (``engine.RULESETS``; a test checks every ruleset has one)."""

POOL_WORDS: dict[Pool, LazyString] = {
    Pool.BATTLE_LINE: lazy_gettext("Battle Line"),
    Pool.NO_TACTICS: lazy_gettext("Battle Line without tactics"),
    Pool.SCHOTTEN_TOTTEN: lazy_gettext("Schotten-Totten"),
    Pool.PLAYING_CARDS: lazy_gettext("Battle Line with playing cards"),
    Pool.THREE_PLAYERS: lazy_gettext("Battle Line for three"),
}
