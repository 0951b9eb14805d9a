"""The private page's buttons that play a card from the hand to a flag, and the Redeploy and
Traitor buttons (one per card and flag it may go to), drawn by Python: with seven cards and nine
flags a page holds sixty of them, a Traitor in hand adds fifty more, and as Jinja loops they
were the largest part of the page's cost (docs/architecture.md). The markup is the one the template
had."""

from __future__ import annotations

import functools

from markupsafe import Markup, escape

from service.catalogue import gettext, page_language
from service.present.choices import CardChoices
from service.templating import card_face, card_html


def card_play_html(group: CardChoices) -> Markup:
    """One card of the hand and a button for each flag it may go to."""
    targets = tuple((choice.notation, choice.flag) for choice in group.choices)
    return _card_play(group.card, targets, page_language())


@functools.lru_cache(maxsize=4096)
def _card_play(card: str, targets: tuple[tuple[str, int | None], ...], language: str) -> Markup:
    """Kept by card, targets and ``language`` (the one being written)."""
    label = card_face(card).label
    to_flag = gettext("%(card)s to flag %(flag)s", card=label, flag="\x00")
    buttons = "".join(
        f'\n        <button class="pick" name="move" value="{escape(notation)}" '
        f'aria-label="{escape(to_flag.replace(chr(0), str(flag)))}">{flag}</button>'
        for notation, flag in targets
    )
    what = escape(gettext("to flag"))
    # A group named by its card: a screen reader jumps from card to card.
    name = escape(gettext("Play %(card)s", card=label))
    return Markup(
        f'<div class="choice" role="group" aria-label="{name}">{card_html(card)}\n      '
        f'<div class="targets"><span class="what">{what}</span>{buttons}'
        "</div></div>"
    )


def redeploy_html(group: CardChoices) -> Markup:
    """A card of the seat's own at a flag, and a button for each flag it may move to (or to
    discard it)."""
    return _tactic("REDEPLOY", group.card, group.source, _targets(group), page_language())


def traitor_html(group: CardChoices) -> Markup:
    """An opponent's troop at a flag, and a button for each of the seat's flags it may join."""
    return _tactic("TRAITOR", group.card, group.source, _targets(group), page_language())


def _targets(group: CardChoices) -> tuple[tuple[str, int | None], ...]:
    return tuple((choice.notation, choice.flag) for choice in group.choices)


_CARD = "\x00"
"""Stands for the card inside a translated sentence, which is then cut around it."""


@functools.lru_cache(maxsize=4096)
def _tactic(
    tactic: str,
    card: str,
    source: int | None,
    targets: tuple[tuple[str, int | None], ...],
    language: str,
) -> Markup:
    """Kept by its fields and ``language`` (the one being written)."""
    discard = gettext("discard it")
    buttons = "".join(
        f'\n      <button class="pick" name="move" value="{escape(notation)}">'
        f"{escape(discard if flag is None else str(flag))}</button>"
        for notation, flag in targets
    )
    if tactic == "REDEPLOY":
        sentence = gettext("your %(card)s at flag %(flag)s to", card=_CARD, flag=source)
    else:
        sentence = gettext("take %(card)s from flag %(flag)s to your flag", card=_CARD, flag=source)
    before, _, after = sentence.partition(_CARD)
    label = card_face(card).label
    name = escape(f"{card_face(tactic).label}: {before}{label}{after}")
    words = (
        (f'<span class="what">{escape(before.strip())}</span>' if before.strip() else "")
        + str(card_html(card))
        + (f'<span class="what">{escape(after.strip())}</span>' if after.strip() else "")
    )
    return Markup(
        f'<div class="choice" role="group" aria-label="{name}">{card_html(tactic)}'
        f'<div class="targets">{words}{buttons}</div></div>'
    )
