"""Japanese puts さん after a person's name: after each name of a list, never after the
computer's nor after "a former player" (``service.honorifics``)."""

from __future__ import annotations

from datetime import UTC, datetime

from flask import Flask, render_template_string
from markupsafe import Markup

from service.catalogue import gettext, ngettext
from service.game_words import in_words
from service.i18n import recipient_language
from service.models import Player
from service.present.seat_names import computer_name_words, shown_name

AGAINST = "%(title)s against %(opponents)s"
"""Its Japanese: 「%(opponents)sさんとの%(title)s」."""


def test_each_person_of_a_list_is_honoured_and_the_computer_is_not(bare_app: Flask) -> None:
    with bare_app.test_request_context(), recipient_language("ja"):
        computer = computer_name_words("normal")
        people = gettext(AGAINST, title="X", opponents=in_words(["Alice", "Bob"]))
        mixed = gettext(AGAINST, title="X", opponents=in_words(["Alice", computer]))
        alone = gettext(AGAINST, title="X", opponents=computer)
        closed = Player(email="gone@example.org", display_name="Gone", closed_at=datetime.now(UTC))
        former = gettext("%(name)s resigned", name=shown_name(closed))
    assert people == "AliceさんとBobさんとのX"
    assert mixed == f"Aliceさんと{computer}とのX"
    assert alone == f"{computer}とのX"
    assert "さん" not in former


def test_templates_honour_the_same_way_in_text_and_in_html(bare_app: Flask) -> None:
    source = '{{ _("%(title)s against %(opponents)s", title="X", opponents=who) }}'
    with bare_app.test_request_context(), recipient_language("ja"):
        who = in_words(["<Ann>", computer_name_words("easy")])
        html = render_template_string(source, who=who)  # autoescaped: the names escaped
        counted = ngettext(
            "%(name)s did not play before the deadline, so %(num)d vacation day was used: "
            "%(left)d left.",
            "%(name)s did not play before the deadline, so %(num)d vacation days were used: "
            "%(left)d left.",
            2,
            name=computer_name_words("easy"),
            left=1,
        )
        easy = computer_name_words("easy")
    assert html.startswith("&lt;Ann&gt;さんと") and "さんとのX" not in html
    with bare_app.test_request_context(), recipient_language("ja"):
        linked = render_template_string(source, who=Markup('<a href="/players/Ann">Ann</a>'))
    assert linked == '<a href="/players/Ann">Ann</a>さんとのX'

    assert counted.startswith(f"{easy}が期限までに")


def test_english_is_unchanged(bare_app: Flask) -> None:
    with bare_app.test_request_context(), recipient_language("en"):
        text = gettext(AGAINST, title="X", opponents=in_words(["Alice", "Bob"]))
    assert text == "X against Alice and Bob"
