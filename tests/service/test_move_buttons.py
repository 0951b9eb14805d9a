"""The buttons of the private page drawn by Python: each legal move of a card is one button whose
value is the move's notation (escaped: ``>`` is ``&gt;``) and whose text says where it goes."""

from __future__ import annotations

import re

import engine
from service.present.choices import CardChoices, Choice, move_choices
from service.present.move_buttons import card_play_html, redeploy_html, traitor_html
from tests.engine.builders import position

Move, Action = engine.Move, engine.Action


def buttons(html: str) -> list[tuple[str, str]]:
    return re.findall(
        r'<button class="pick" name="move" value="([^"]*)"[^>]*>([^<]*)</button>', html
    )


def test_a_card_in_hand_has_a_button_per_flag_it_may_go_to() -> None:
    group = CardChoices(
        "R7",
        None,
        tuple(Choice(Move("A", Action.PLAY, card="R7", flag=f), i) for i, f in enumerate((2, 9))),
    )
    html = str(card_play_html(group))
    assert buttons(html) == [("R7&gt;2", "2"), ("R7&gt;9", "9")]
    assert 'aria-label="red 7 to flag 9"' in html


def test_a_redeploy_moves_a_card_of_ones_own_to_a_flag_or_discards_it() -> None:
    choices = tuple(
        Choice(Move("A", Action.REDEPLOY, card="ALEXANDER", source=5, flag=f), i)
        for i, f in enumerate((1, None))
    )
    html = str(redeploy_html(CardChoices("ALEXANDER", 5, choices)))
    assert buttons(html) == [
        ("REDEPLOY ALEXANDER@5&gt;1", "1"),
        ("REDEPLOY ALEXANDER@5&gt;discard", "discard it"),
    ]
    assert 'aria-label="Redeploy"' in html and 'aria-label="Alexander"' in html
    assert '<span class="what">at flag 5 to</span>' in html


def test_a_traitor_takes_an_opponents_troop_to_a_flag_of_ones_own() -> None:
    choices = tuple(
        Choice(Move("B", Action.TRAITOR, card="B4", source=9, flag=f), i)
        for i, f in enumerate((6, 7))
    )
    html = str(traitor_html(CardChoices("B4", 9, choices)))
    assert buttons(html) == [("TRAITOR B4@9&gt;6", "6"), ("TRAITOR B4@9&gt;7", "7")]
    assert 'aria-label="Traitor"' in html and 'aria-label="blue 4"' in html
    assert '<span class="what">from flag 9 to your flag</span>' in html


def test_the_turn_ending_offered_with_the_cards_is_that_of_every_card() -> None:
    """Standard claims and empty decks: the card that completes a provable wedge leaves the end
    to choose (after a claim), the first card listed ends the turn by itself. The page offers
    the end with the cards, even though the first card leaves none."""
    hands = {"A": ["R1", "G10"], "B": ["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7"]}
    state = position(flags={1: {"A": ["G8", "G9"]}}, hands=hands, empty_decks=True)
    choices = move_choices(state, "A")
    assert [group.card for group in choices.plays] == ["R1", "G10"]
    assert engine.turn_endings(state, choices.plays[0].choices[0].move) == []
    assert [c.notation for c in choices.then] == ["end"]
