"""A stored game as an ``engine.GameRecord`` (docs/formats.md): the engine writes and reads records,
the service only files their fields.

``games.deal`` holds the record's deal fields as the engine wrote them (``first``, ``deal`` and,
after a cut, ``cuts``); ruleset and claims have their own columns and the moves live in the log.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import engine
from service.card_words import card_words
from service.catalogue import gettext as _
from service.json_columns import DealFields
from service.models import Game

DEAL_FIELDS = ("first", "deal", "cuts")


def deal_fields(record: engine.GameRecord) -> DealFields:
    """The fields of a record that the deal decides, for ``games.deal``."""
    data = record.to_json()
    fields = DealFields(first=data["first"], deal=data["deal"])
    if "cuts" in data:
        fields["cuts"] = data["cuts"]
    return fields


def game_record(game: Game, moves: Sequence[str] = ()) -> engine.GameRecord:
    """The record of a dealt game with these log entries. Raises InvalidRecordError if the stored
    deal is damaged, ValueError if the game was never dealt."""
    if game.deal is None:
        raise ValueError(f"game {game.id} has not been dealt")
    return engine.GameRecord.from_json(
        {"ruleset": game.ruleset, "claims": game.claims, **game.deal, "moves": list(moves)}
    )


def cut_words(game: Game, names: Mapping[str, str]) -> str:
    """The cut of a dealt game in words (R2), from its stored deal fields alone, with the
    players' ``names`` (by seat) and the cards' names: "Alice cut yellow 7, Bob cut red 3:
    Bob deals, Alice plays first" (a seat letter would read as a colour: "B" is also blue)."""
    if game.deal is None:
        raise ValueError(f"game {game.id} has not been dealt")
    seats = engine.get_ruleset(game.ruleset).seats
    first: str = game.deal["first"]
    cuts = game.deal.get("cuts", [])
    if not cuts:
        return str(_("%(name)s plays first (winner of the previous game)", name=names[first]))
    # The list's and the cuts' separators are the language's own ("、" in Japanese).
    lines = [
        str(_(", ")).join(
            str(_("%(name)s cut %(card)s", name=names[seat], card=card_words(card)))
            for seat, card in zip(seats, cut, strict=True)
            if card is not None
        )
        for cut in cuts
    ]
    dealer = seats[seats.index(first) - 1]
    return str(
        _(
            "%(cuts)s: %(dealer)s deals, %(first)s plays first",
            cuts=str(_("; ")).join(lines),
            dealer=names[dealer],
            first=names[first],
        )
    )
