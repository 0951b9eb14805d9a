"""The private page's buttons that play a card from the hand to a flag, and the Redeploy and
Traitor buttons (one per card and flag it may go to), drawn by Python: with seven cards and nine
flags a page holds sixty of them, a Traitor in hand adds fifty more, and as Jinja loops they
were the largest part of the page's cost (docs/architecture.md). The markup is the one the template
had."""

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
    # A group named by its card: a screen reader jumps from card to card.
    return Markup(
        f'<div class="choice" role="group" aria-label="Play {label}">{card_html(card)}\n      '
        f'<div class="targets"><span class="what">to flag</span>{buttons}</div></div>'
    )


def redeploy_html(group: CardChoices) -> Markup:
    """A card of the seat's own at a flag, and a button for each flag it may move to (or to
    discard it)."""
    where = f"at flag {group.source} to"
    return _tactic("REDEPLOY", "your", group.card, where, _targets(group))


def traitor_html(group: CardChoices) -> Markup:
    """An opponent's troop at a flag, and a button for each of the seat's flags it may join."""
    where = f"from flag {group.source} to your flag"
    return _tactic("TRAITOR", "take", group.card, where, _targets(group))


def _targets(group: CardChoices) -> tuple[tuple[str, str], ...]:
    return tuple(
        (choice.notation, "discard it" if choice.flag is None else str(choice.flag))
        for choice in group.choices
    )


@functools.lru_cache(maxsize=4096)
def _tactic(
    tactic: str, verb: str, card: str, where: str, targets: tuple[tuple[str, str], ...]
) -> Markup:
    buttons = "".join(
        f'\n      <button class="pick" name="move" value="{escape(notation)}">'
        f"{escape(label)}</button>"
        for notation, label in targets
    )
    name = escape(f"{card_face(tactic).label}: {verb} {card_face(card).label} {where}")
    return Markup(
        f'<div class="choice" role="group" aria-label="{name}">{card_html(tactic)}'
        f'<div class="targets"><span class="what">{verb}</span>{card_html(card)}'
        f'<span class="what">{where}</span>{buttons}</div></div>'
    )
