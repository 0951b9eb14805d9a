"""The move list as people read it: each log entry in words, with the seat's name and the turn it
belongs to, for pages (the private page's latest moves, the public page's whole game) and emails.

Turns are counted as players count them: a turn is one seat's entries in a row (the claims at its
start, the card, the claims after it, the draw), numbered from 1 for the first turn of the game,
so "turn 53" comes after 26 turns each, however many entries those turns made."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from markupsafe import Markup, escape

import engine
from service.catalogue import gettext, page_language
from service.games.move_log import LogEntry
from service.honorifics import with_name
from service.present.claims import ClaimExplained
from service.present.words import Piece, narration
from service.templating import pieces_html, utc_time

NAME_MARK = "\x01name\x01"
"""Where the player's name goes in a kept narration: names refuse control characters
(``service.player_fields``), so nothing else is ever taken for it; not NUL, which stands for
the card in a translated sentence (``service.present.words``)."""


class LogRow(NamedTuple):
    """One log entry as people read it (a named tuple, not a frozen dataclass: a long game's
    page makes a hundred, and a tuple is made in a quarter of the time)."""

    number: int
    """The position after the entry (a replay's ``?ply=``)."""
    turn: int
    starts_turn: bool
    """The first entry of its turn in the list."""
    seat: str
    name: str
    narration: tuple[Piece, ...]
    """The entry in words, with ``NAME_MARK`` where the player's name goes (``words``)."""
    words_html: str
    notation: str
    """The notation shown, without the seat (the words name the player)."""
    notation_html: str
    placed: str | None
    """The card the entry put on the board (``card_placed``), if any."""
    time: datetime
    why: list[Piece] | None
    """Why the claim of this entry held, said to the reader (claims only)."""
    lines: tuple[str, ...] = ()
    """The entry in words and notation as plain-text lines (emails)."""
    why_lines: tuple[str, ...] = ()
    """``why`` as plain-text lines (emails)."""

    @property
    def words(self) -> tuple[Piece, ...]:
        """The entry in words, the player named: put together when asked (emails, a replay's
        caption), not for every row of a move list, which shows ``words_html``."""
        return tuple(
            Piece("text", with_name(piece.value, NAME_MARK, self.name))
            if piece.kind == "text"
            else piece
            for piece in self.narration
        )


@dataclass(frozen=True, slots=True)
class TurnRows:
    """The entries of one turn of one seat."""

    turn: int
    seat: str
    name: str
    rows: tuple[LogRow, ...]


def turn_of_last_entry(after: engine.GameState, seat: str) -> int:
    """The turn of the log entry that led to position ``after``, made by ``seat``: the turn in
    progress, unless that entry ended it and another seat's turn began."""
    return after.turn if seat == after.to_move else after.turn - 1


def entry_turns(entries: Sequence[LogEntry], after: engine.GameState) -> list[int]:
    """The turn of each of ``entries``, the latest entries of the log up to position ``after``
    (a window of it or all of it: the numbers are the same), counted back from ``after``'s turn:
    a turn is one seat's entries in a row."""
    if not entries:
        return []
    turn = turn_of_last_entry(after, entries[-1].seat)
    turns = [turn]
    for later, earlier in zip(reversed(entries[1:]), reversed(entries[:-1]), strict=True):
        if earlier.seat != later.seat:
            turn -= 1
        turns.append(turn)
    return turns[::-1]


def log_rows(
    entries: Sequence[LogEntry],
    ruleset: engine.Ruleset,
    names: Mapping[str, str],
    *,
    reader: str | None,
    finished: bool,
    after: engine.GameState,
    claims: Mapping[int, ClaimExplained] | None = None,
) -> list[LogRow]:
    """The move list as rows to draw: ``entries`` are the latest of the log, up to position
    ``after`` (for the turn numbers). ``reader`` is the seat reading (its own Scout returns show
    in full), None for the public; everything shows in full once the game is ``finished``.
    ``number`` is the position after the entry (a replay's ``?ply=``), ``turn`` its turn,
    ``starts_turn`` whether it is the first entry of that turn listed, ``placed`` the card the
    entry put on the board (``cards_placed``), if any, ``why`` (for a claim in
    ``claims``, ``service.present.claims.claims_in_log``) why the claim held, said to the
    reader."""
    rows: list[LogRow] = []
    language = page_language()
    names_html = {seat: str(escape(name)) for seat, name in names.items()}
    for entry, turn in zip(entries, entry_turns(entries, after), strict=True):
        hide = not finished and entry.seat != reader
        name = names.get(entry.seat, entry.seat)
        narrated, narrated_html, notation, notation_html, placed = _narrated(
            entry.notation, ruleset, hide, language
        )
        name_html = names_html.get(entry.seat) or str(escape(name))
        rows.append(
            LogRow(
                number=entry.ply + 1,
                turn=turn,
                starts_turn=not rows or rows[-1].turn != turn,
                seat=entry.seat,
                name=name,
                narration=narrated,
                words_html=with_name(narrated_html, NAME_MARK, name, name_html),
                notation=notation,
                notation_html=notation_html,
                placed=placed,
                time=entry.created_at,
                why=claims[entry.ply].words(names, reader)
                if claims and entry.ply in claims
                else None,
            )
        )
    return rows


def by_turn(rows: Sequence[LogRow]) -> list[TurnRows]:
    """``log_rows`` grouped by turn, in order."""
    groups: list[TurnRows] = []
    for row in rows:
        if groups and groups[-1].turn == row.turn:
            last = groups[-1]
            groups[-1] = TurnRows(last.turn, last.seat, last.name, (*last.rows, row))
        else:
            groups.append(TurnRows(row.turn, row.seat, row.name, (row,)))
    return groups


Narrated = tuple[tuple[Piece, ...], str, str, str, str | None]
"""An entry in words, those words in HTML, the notation shown as text and escaped, and the card
it put on the board (``_narrated``)."""


@functools.lru_cache(maxsize=16384)
def _narrated(notation: str, ruleset: engine.Ruleset, hide: bool, language: str) -> Narrated:
    """One entry in words (of ``language``, the one being written), the same words drawn in
    HTML, the notation shown (without its seat: the words name the player), as text and
    escaped, and the card it put on the board, with ``NAME_MARK`` for the player's name: the same
    for every view of every replay position of every game, so kept (the log never changes, and
    games differ by their players' names more than by their moves)."""
    move = engine.parse_move(notation, ruleset)
    words = tuple(narration(move, NAME_MARK, hide_returned=hide))
    shown = _SEAT_PREFIX.sub("", move.public_text() if hide else str(move))
    return words, str(pieces_html(words)), shown, str(escape(shown)), card_placed(move)


_SEAT_PREFIX = re.compile(r"^[A-Z]: ")


def card_placed(move: engine.Move) -> str | None:
    """The card a move put on the board (a troop or tactics card played to a flag, a troop
    taken by a Traitor or redeployed to another flag), which the board marks as played last."""
    if move.action in (engine.Action.PLAY, engine.Action.TRAITOR):
        return move.card
    if move.action is engine.Action.REDEPLOY and move.flag is not None:
        return move.card
    return None


def cards_placed(rows: Sequence[LogRow]) -> frozenset[str]:
    """The cards that ``log_rows`` put on the board."""
    return frozenset(row.placed for row in rows if row.placed)


def log_html(rows: Sequence[LogRow], here: str | None, current: int | None = None) -> Markup:
    """A move list's items (``log_rows``): on the public page (``here``: its address) each entry
    links to the position after it, with its notation, ``current`` marked; on a private page
    (``here`` None) the entries alone.

    Drawn by Python into one string, not a Jinja loop nor an item at a time through Markup: a
    long game lists a hundred entries on every replay step, most of them of games not drawn
    before (bench/service.py), and the entries' words come drawn from ``_narrated``."""
    link = None if here is None else str(escape(here))
    items: list[str] = []
    add = items.append
    turn_word = gettext("Turn ")
    for row in rows:
        turn = row.turn if row.starts_turn else None
        number_html = (
            f'<span class="visually-hidden">{escape(turn_word)}</span>{turn}'
            if turn is not None
            else ""
        )
        why_html = f'<span class="why">{pieces_html(row.why)}</span>' if row.why else ""
        when = utc_time(row.time)  # digits, dashes, colons, "UTC": nothing to escape
        if link is None:
            classes = ' class="starts"' if turn is not None else ""
            add(
                f'<li{classes}><span class="n">{number_html}</span><span>{row.words_html}'
                f'{why_html}<span class="meta">{when}</span></span></li>'
            )
            continue
        number = row.number
        current_here = number == current
        if turn is not None:
            classes = "starts here" if current_here else "starts"
        else:
            classes = "here" if current_here else ""
        step = ' aria-current="step"' if current_here else ""
        add(
            f'\n    <li class="{classes}"><span class="n">{number_html}</span>\n      '
            f'<span><a href="{link}?ply={number}" rel="nofollow"{step}>{row.words_html}</a>'
            f'{why_html}<span class="meta"><code>{row.notation_html}</code> · {when}</span>'
            "</span></li>"
        )
    return Markup("".join(items))
