"""The plain-text part of the emails, in the language being written (made while rendering, so
in the recipient's), laid out for an 80-column mail program: lines of at most
``WIDTH`` columns (a link alone on its line may be longer), the board as aligned columns of
card codes, the moves as the short codes a reply may use.

HTML parts draw the same things with the card macro (``templates/email/_macros.html``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from engine.cards import COLOR_NAMES
from service.card_words import COLOUR_WORDS
from service.catalogue import gettext
from service.present.board import Board
from service.present.choices import MoveChoices
from service.present.tactics_choices import HeldTactics, TacticsOffer
from service.present.words import Piece
from service.templating import card_face
from service.text_wrap import display_width, wrap_line

WIDTH = 78
"""The longest line of a plain-text part (RFC 5322 recommends 78)."""


def card_text(code: str) -> str:
    """A card in plain text: ``red 4 (R4)``, ``Alexander (ALEXANDER)``."""
    return str(gettext("%(card)s (%(code)s)", card=card_face(code).label, code=code))


def pieces_text(pieces: Sequence[Piece], *, codes: bool = False) -> str:
    """Described moves (``service.present.words``) as one line of plain text: cards as
    ``red 4 (R4)``, or with ``codes`` as ``R4`` alone (formations: ``B8 B9 B10 (Wedge 27)``)."""
    words = [
        (p.value if codes else card_text(p.value)) if p.kind == "card" else p.value.strip()
        for p in pieces
    ]
    return " ".join(word for word in words if word)


def wrap(text: str, indent: str = "", hanging: str | None = None) -> list[str]:
    """``text`` in lines of at most ``WIDTH`` columns, the first indented by ``indent``, the
    others by ``hanging`` (default: the same). Words are never cut (a code or a link stays
    whole)."""
    return wrap_line(text, WIDTH, indent, hanging) or [indent.rstrip()]


def legend(colors: Iterable[str]) -> str:
    """What the letters of card codes mean: ``R red, O orange, ...``."""
    return str(gettext(", ")).join(
        f"{color} {COLOUR_WORDS.get(color, COLOR_NAMES.get(color, color))}" for color in colors
    )


def board_lines(board: Board, labels: Mapping[str, str], reader: str | None) -> list[str]:
    """The board as aligned columns, one block per row of the board: the other seat's cards on
    the left of the flag's number, the reader's on the right (as on the pages), card codes
    only; the environment (Fog, Mud) and who holds the flag after the line.

    ``labels``: the name over each seat's side; ``reader``: the seat reading (None: the
    public)."""
    lines: list[str] = []
    flag_word, yours = str(gettext("flag")), str(gettext("yours"))
    for row in board.rows:
        cells = [
            (
                " ".join(drawn.left_cards),
                drawn.flag.number,
                " ".join(drawn.right_cards),
                [env.card for env in drawn.flag.env],
                drawn.flag.claimed_by,
            )
            for drawn in row.flags
        ]
        left_name, right_name = labels[row.left], labels[row.right]
        width = max(display_width(left_name), *(display_width(left) for left, *_ in cells))
        middle = max(4, display_width(flag_word))
        if lines:
            lines.append("")
        heading = f"{_right_aligned(left_name, width)} | {_centred(flag_word, middle)}"
        lines.append(f"  {heading} | {right_name}")
        for left, number, right, env, holder in cells:
            notes = [card_face(card).label for card in env]
            if holder is not None:
                held_by = str(gettext("held by %(name)s", name=labels[holder]))
                notes.append(yours if holder == reader else held_by)
            after = f"   [{str(gettext(', ')).join(notes)}]" if notes else ""
            line = f"{_right_aligned(left, width)} | {_centred(str(number), middle)} | {right}"
            lines.append(f"  {line}{after}".rstrip())
    return lines


def _left_aligned(text: str, width: int) -> str:
    return text + " " * (width - display_width(text))


def _right_aligned(text: str, width: int) -> str:
    return " " * (width - display_width(text)) + text


def _centred(text: str, width: int) -> str:
    """As ``format(text, f"^{width}")``, by display width."""
    room = width - display_width(text)
    return " " * (room // 2) + text + " " * (room - room // 2)


def move_code_lines(
    choices: MoveChoices,
    offers: Sequence[TacticsOffer] = (),
    held: Sequence[HeldTactics] = (),
) -> list[str]:
    """The legal moves of ``choices`` as the codes a reply may use (``Choice.code``), grouped as
    the HTML part and the private page group them, in lines of at most ``WIDTH``: ``offers``,
    the tactics cards that act on the board (``service.present.tactics_choices``), per card
    they act on; ``held``, the tactics cards a limit keeps in the hand, and why."""
    lines: list[str] = []

    comma = str(gettext(", "))

    def group(title: str, codes: Iterable[str]) -> None:
        text = gettext("%(title)s: %(codes)s", title=title, codes=comma.join(codes))
        lines.extend(wrap(str(text), "  ", "      "))

    if choices.discards:
        group(
            gettext("Discard first (the Mud left)"),
            [
                gettext(
                    "%(code)s (%(card)s, flag %(flag)s)",
                    code=c.code,
                    card=card_face(c.card or "").label,
                    flag=c.source,
                )
                for c in choices.discards
            ],
        )
    if choices.claims:
        group(gettext("Claim a flag"), [c.code for c in choices.claims])
    if choices.plays:
        lines.append("  " + gettext("Play a card to a flag (CARD>FLAG):"))
        width = max(display_width(card_face(g.card).label) for g in choices.plays)
        for g in choices.plays:
            label = f"    {_left_aligned(card_face(g.card).label, width)}  "
            hanging = " " * display_width(label)
            lines.extend(wrap(" ".join(c.code for c in g.choices), label, hanging))
        if choices.then:
            group(gettext("Then draw, in the same reply"), [c.code for c in choices.then])
    if choices.passing:
        group(gettext("Pass (you cannot play a troop card)"), [choices.passing.code])
    if choices.scout_draws:
        group(gettext("Draw (scouting)"), [c.code for c in choices.scout_draws])
    if choices.draws:
        group(gettext("Draw a card"), [c.code for c in choices.draws])
    if choices.end:
        group(gettext("End your turn"), [choices.end.code])
    if offers:
        lines.append("  " + gettext("Play a tactics card:"))
    for offer in offers:
        text = gettext(
            "%(card)s: %(what)s. Code: %(code_form)s.",
            card=card_text(offer.card),
            what=offer.what,
            code_form=offer.code_form,
        )
        lines.extend(wrap(str(text), "    ", "      "))
        if offer.card == "SCOUT":
            continue
        for target in offer.targets:
            if target.card is not None:
                where = gettext(
                    "%(card)s at flag %(flag)s: %(codes)s",
                    card=card_face(target.card).label,
                    flag=target.flag,
                    codes=target.codes,
                )
            else:
                where = gettext("at flag %(flag)s: %(codes)s", flag=target.flag, codes=target.codes)
            lines.extend(wrap(str(where), "      ", "        "))
    if held:
        lines.append("  " + gettext("Not playable now:"))
    for hold in held:
        names = comma.join(card_text(card) for card in hold.cards)
        text = gettext("%(cards)s: %(why)s.", cards=names, why=hold.why)
        lines.extend(wrap(str(text), "    ", "      "))
    return lines
