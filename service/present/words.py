"""Moves in words, as pieces a template draws: text, and cards drawn as cards.

A description is a list of ``Piece``: ``("text", "to flag 3")`` or ``("card", "R7")``. Templates
render the cards with the card macro, so a move reads "[red 7] to flag 3", not "R7>3".
"""

from __future__ import annotations

import re
from typing import NamedTuple

from engine import Action, Move, Ruleset
from engine.cards import is_tactic
from service.catalogue import gettext, ngettext


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


_CARD = "\x00"
"""Stands for the card inside a translated sentence, which is then cut around it."""


def _with_card(sentence: str, card: str | None) -> list[Piece]:
    """A translated sentence holding ``_CARD`` once, as pieces: the words before the card, the
    card, the words after it (whatever order the language puts them in)."""
    before, _, after = sentence.partition(_CARD)
    pieces = [_t(before.strip())] if before.strip() else []
    pieces.append(_c(card))
    if after.strip():
        pieces.append(_t(after.strip()))
    return pieces


def _draw_from(deck: object) -> str:
    if str(deck) == "tactics":
        return str(gettext("Draw from the tactics deck"))
    return str(gettext("Draw from the troop deck"))


def instruction(move: Move) -> list[Piece]:
    """What a move does, said to the player making it: "Play [red 7] to flag 3", in the
    language being written."""
    a = move.action
    if a is Action.PLAY:
        return _with_card(
            gettext("Play %(card)s to flag %(flag)s", card=_CARD, flag=move.flag), move.card
        )
    if a is Action.SCOUT:
        return _with_card(
            gettext("Play %(card)s and draw up to three cards", card=_CARD), move.card
        )
    if a is Action.RETURN:
        if not move.cards:
            return [_t(gettext("Finish scouting (no card to put back)"))]
        cards: list[Piece] = []
        for i, card in enumerate(move.cards):
            cards += [_t(gettext("then")), _c(card)] if i else [_c(card)]
        sentence = gettext("Put back %(cards)s (the last one ends on top of its deck)", cards=_CARD)
        before, _, after = sentence.partition(_CARD)
        return [_t(before.strip()), *cards, _t(after.strip())]
    if a is Action.REDEPLOY:
        if move.flag is None:
            sentence = gettext(
                "Redeploy your %(card)s from flag %(source)s to the discard pile",
                card=_CARD,
                source=move.source,
            )
        else:
            sentence = gettext(
                "Redeploy your %(card)s from flag %(source)s to flag %(flag)s",
                card=_CARD,
                source=move.source,
                flag=move.flag,
            )
        return _with_card(sentence, move.card)
    if a is Action.DESERTER:
        sentence = gettext(
            "Deserter: discard the opponent's %(card)s at flag %(source)s",
            card=_CARD,
            source=move.source,
        )
        return _with_card(sentence, move.card)
    if a is Action.TRAITOR:
        sentence = gettext(
            "Traitor: take the opponent's %(card)s from flag %(source)s to your side of flag "
            "%(flag)s",
            card=_CARD,
            source=move.source,
            flag=move.flag,
        )
        return _with_card(sentence, move.card)
    if a is Action.CLAIM:
        return [_t(gettext("Claim flag %(flag)s", flag=move.flag))]
    if a is Action.DRAW:
        return [_t(_draw_from(move.deck))]
    if a is Action.DISCARD:
        sentence = gettext(
            "Discard your %(card)s from flag %(source)s (the Mud left)",
            card=_CARD,
            source=move.source,
        )
        return _with_card(sentence, move.card)
    if a is Action.PASS:
        return [_t(gettext("Pass: play no card this turn"))]
    if a is Action.END:
        return [_t(gettext("End your turn"))]
    if a is Action.RESIGN:
        return [_t(gettext("Resign the game"))]
    return [_t(move.action_text())]


def narration(move: Move, name: str, *, hide_returned: bool) -> list[Piece]:
    """What a move did, for the move list: "Alice played [red 7] to flag 3", in the language
    being written.

    ``hide_returned``: cards put back after a Scout show only as how many, to which decks
    (``Move.public_text``), as the other seat and spectators see them during the game.
    """
    a = move.action
    if a is Action.PLAY:
        sentence = gettext(
            "%(name)s played %(card)s to flag %(flag)s", name=name, card=_CARD, flag=move.flag
        )
        return _with_card(sentence, move.card)
    if a is Action.SCOUT:
        return _with_card(gettext("%(name)s played %(card)s", name=name, card=_CARD), move.card)
    if a is Action.RETURN:
        if not move.cards:
            return [_t(gettext("%(name)s put no card back", name=name))]
        if hide_returned:
            return [_t(_put_back_hidden(move, name))]
        sentence = gettext("%(name)s put back %(cards)s (last on top)", name=name, cards=_CARD)
        before, _, after = sentence.partition(_CARD)
        return [_t(before.strip()), *(_c(card) for card in move.cards), _t(after.strip())]
    if a is Action.REDEPLOY:
        if move.flag is None:
            sentence = gettext(
                "%(name)s redeployed %(card)s from flag %(source)s to the discard pile",
                name=name,
                card=_CARD,
                source=move.source,
            )
        else:
            sentence = gettext(
                "%(name)s redeployed %(card)s from flag %(source)s to flag %(flag)s",
                name=name,
                card=_CARD,
                source=move.source,
                flag=move.flag,
            )
        return _with_card(sentence, move.card)
    if a is Action.DESERTER:
        sentence = gettext(
            "%(name)s's Deserter discarded %(card)s at flag %(source)s",
            name=name,
            card=_CARD,
            source=move.source,
        )
        return _with_card(sentence, move.card)
    if a is Action.TRAITOR:
        sentence = gettext(
            "%(name)s's Traitor took %(card)s from flag %(source)s to flag %(flag)s",
            name=name,
            card=_CARD,
            source=move.source,
            flag=move.flag,
        )
        return _with_card(sentence, move.card)
    if a is Action.CLAIM:
        return [_t(gettext("%(name)s claimed flag %(flag)s", name=name, flag=move.flag))]
    if a is Action.DRAW:
        if str(move.deck) == "tactics":
            return [_t(gettext("%(name)s drew from the tactics deck", name=name))]
        return [_t(gettext("%(name)s drew from the troop deck", name=name))]
    if a is Action.DISCARD:
        sentence = gettext(
            "%(name)s discarded %(card)s from flag %(source)s (Mud left)",
            name=name,
            card=_CARD,
            source=move.source,
        )
        return _with_card(sentence, move.card)
    if a is Action.PASS:
        return [_t(gettext("%(name)s passed", name=name))]
    if a is Action.END:
        return [_t(gettext("%(name)s ended the turn", name=name))]
    if a is Action.RESIGN:
        return [_t(gettext("%(name)s resigned", name=name))]
    if a is Action.TIMEOUT:
        return [_t(gettext("%(name)s ran out of time", name=name))]
    return [_t(f"{name}: {move.action_text()}")]


def _put_back_hidden(move: Move, name: str) -> str:
    """Cards put back after a Scout as the others see them: how many, on which decks."""
    troops = sum(1 for card in move.cards if not is_tactic(card))
    tactics = len(move.cards) - troops
    if troops and tactics:
        return str(
            gettext(
                "%(name)s put back %(troops)s and %(tactics)s",
                name=name,
                troops=_count_on(troops, "troops"),
                tactics=_count_on(tactics, "tactics"),
            )
        )
    deck = "troops" if troops else "tactics"
    return str(
        gettext("%(name)s put back %(cards)s", name=name, cards=_count_on(len(move.cards), deck))
    )


def _count_on(count: int, deck: str) -> str:
    if deck == "tactics":
        return str(
            ngettext("%(num)d card on the tactics deck", "%(num)d cards on the tactics deck", count)
        )
    return str(ngettext("%(num)d card on the troop deck", "%(num)d cards on the troop deck", count))


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
