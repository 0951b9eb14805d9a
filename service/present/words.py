"""Moves in words, as pieces a template draws: text, and cards drawn as cards.

A description is a list of ``Piece``: ``("text", "to flag 3")`` or ``("card", "R7")``. Templates
render the cards with the card macro, so a move reads "[red 7] to flag 3", not "R7>3".
"""

from __future__ import annotations

import re
from typing import NamedTuple

from engine import Action, Move, Ruleset


class Piece(NamedTuple):
    """One piece of a described move."""

    kind: str
    """``"text"`` or ``"card"``."""
    value: str
    """The words, or the card code."""


def _t(text: str) -> Piece:
    return Piece("text", text)


def _c(card: str | None) -> Piece:
    return Piece("card", card or "")


def _deck_name(deck: object) -> str:
    return f"the {'tactics' if str(deck) == 'tactics' else 'troop'} deck"


def instruction(move: Move) -> list[Piece]:
    """What a move does, said to the player making it: "Play [red 7] to flag 3"."""
    a = move.action
    if a is Action.PLAY:
        return [_t("Play"), _c(move.card), _t(f"to flag {move.flag}")]
    if a is Action.SCOUT:
        return [_t("Play"), _c(move.card), _t("and draw up to three cards")]
    if a is Action.RETURN:
        if not move.cards:
            return [_t("Finish scouting (no card to put back)")]
        pieces = [_t("Put back")]
        for i, card in enumerate(move.cards):
            pieces += [_t("then") if i else _t("first"), _c(card)]
        return [*pieces, _t("(the last one ends on top of its deck)")]
    if a is Action.REDEPLOY:
        target = "the discard pile" if move.flag is None else f"flag {move.flag}"
        return [_t("Redeploy your"), _c(move.card), _t(f"from flag {move.source} to {target}")]
    if a is Action.DESERTER:
        return [_t("Deserter: discard the opponent's"), _c(move.card), _t(f"at flag {move.source}")]
    if a is Action.TRAITOR:
        return [
            _t("Traitor: take the opponent's"),
            _c(move.card),
            _t(f"from flag {move.source} to your side of flag {move.flag}"),
        ]
    if a is Action.CLAIM:
        return [_t(f"Claim flag {move.flag}")]
    if a is Action.DRAW:
        return [_t(f"Draw from {_deck_name(move.deck)}")]
    if a is Action.DISCARD:
        return [_t("Discard your"), _c(move.card), _t(f"from flag {move.source} (the Mud left)")]
    if a is Action.PASS:
        return [_t("Pass: play no card this turn")]
    if a is Action.END:
        return [_t("End your turn")]
    if a is Action.RESIGN:
        return [_t("Resign the game")]
    return [_t(move.action_text())]


def narration(move: Move, name: str, *, hide_returned: bool) -> list[Piece]:
    """What a move did, for the move list: "Alice played [red 7] to flag 3".

    ``hide_returned``: cards put back after a Scout show only as how many, to which decks
    (``Move.public_text``), as the other seat and spectators see them during the game.
    """
    a = move.action
    if a is Action.PLAY:
        return [_t(f"{name} played"), _c(move.card), _t(f"to flag {move.flag}")]
    if a is Action.SCOUT:
        return [_t(f"{name} played"), _c(move.card)]
    if a is Action.RETURN:
        if not move.cards:
            return [_t(f"{name} put no card back")]
        if hide_returned:
            hidden = move.public_text().split(": return ", 1)[-1]
            return [_t(f"{name} put back {hidden}")]
        pieces = [_t(f"{name} put back")]
        for card in move.cards:
            pieces.append(_c(card))
        return [*pieces, _t("(last on top)")]
    if a is Action.REDEPLOY:
        target = "the discard pile" if move.flag is None else f"flag {move.flag}"
        return [
            _t(f"{name} redeployed"),
            _c(move.card),
            _t(f"from flag {move.source} to {target}"),
        ]
    if a is Action.DESERTER:
        return [_t(f"{name}'s Deserter discarded"), _c(move.card), _t(f"at flag {move.source}")]
    if a is Action.TRAITOR:
        return [
            _t(f"{name}'s Traitor took"),
            _c(move.card),
            _t(f"from flag {move.source} to flag {move.flag}"),
        ]
    if a is Action.CLAIM:
        return [_t(f"{name} claimed flag {move.flag}")]
    if a is Action.DRAW:
        return [_t(f"{name} drew from {_deck_name(move.deck)}")]
    if a is Action.DISCARD:
        return [_t(f"{name} discarded"), _c(move.card), _t(f"from flag {move.source} (Mud left)")]
    if a is Action.PASS:
        return [_t(f"{name} passed")]
    if a is Action.END:
        return [_t(f"{name} ended the turn")]
    if a is Action.RESIGN:
        return [_t(f"{name} resigned")]
    if a is Action.TIMEOUT:
        return [_t(f"{name} ran out of time")]
    return [_t(f"{name}: {move.action_text()}")]


_CODE_RE = re.compile(r"\b[A-Z][A-Z0-9]*\b")


def with_cards(text: str, ruleset: Ruleset) -> list[Piece]:
    """A sentence of the engine's (a prover's reason) with every card code in it drawn as a
    card: "B8 B9 B10 (Wedge 27) would beat ..." becomes three cards and the words."""
    pieces: list[Piece] = []
    position = 0
    for match in _CODE_RE.finditer(text):
        if match.group() not in ruleset.all_cards:
            continue
        if match.start() > position:
            pieces.append(_t(text[position : match.start()]))
        pieces.append(_c(match.group()))
        position = match.end()
    if position < len(text):
        pieces.append(_t(text[position:]))
    return pieces
