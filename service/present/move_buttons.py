"""The private page's buttons that play a card from the hand to a flag, drawn by Python: with seven
cards and nine flags a page holds sixty of them, and as a Jinja loop they were the largest part of
the page's cost (bench/service.py). The markup is the one the template had."""

from __future__ import annotations

import functools

from markupsafe import Markup, escape

from service.present.choices import CardChoices
from service.templating import card_face, card_html


def card_play_html(group: CardChoices) -> Markup:
    """One card of the hand and a button for each flag it may go to."""
    targets = tuple((choice.notation, choice.flag) for choice in group.choices)
    return _card_play(group.card, targets)


@functools.lru_cache(maxsize=4096)
def _card_play(card: str, targets: tuple[tuple[str, int | None], ...]) -> Markup:
    label = escape(card_face(card).label)
    buttons = "".join(
        f'\n        <button class="pick" name="move" value="{escape(notation)}" '
        f'aria-label="{label} to flag {flag}">{flag}</button>'
        for notation, flag in targets
    )
    return Markup(
        f'<div class="choice">{card_html(card)}\n      <div class="targets">'
        f'<span class="what">to flag</span>{buttons}</div></div>'
    )
