"""The "your turn" email: what the others did (and why each claim held), the board, the hand,
every legal move with its code to reply with (plain text) and its link (HTML), and one link to
the private page. Built from one seat's view (never the state or a ``Game`` row in a template),
queued by ``queue_email`` in the caller's transaction.

Cards are given as codes; templates draw them (HTML) or write them "red 4 (R4)" (plain text), so
every email can be read and played from a plain-text mail program.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session

import engine
from service.catalogue import gettext as _
from service.games.loaded import LoadedGame
from service.games.move_log import LogEntry, moves_from
from service.links import private_page_url
from service.models import Player, Seat
from service.outbox.kinds import MailKind
from service.outbox.models import OutboxMessage
from service.present.board import board_of
from service.present.choices import move_choices
from service.present.claims import ClaimExplained, claims_in_log, claims_now
from service.present.email_parts import ClaimLines, FlagsRow, board_rows, claim_lines
from service.present.emails import GameFacts, facts_of
from service.present.move_links import MoveLinks, move_link_groups
from service.present.move_list import LogRow, TurnRows, by_turn, log_rows
from service.present.plain_text import board_lines, legend, move_code_lines, pieces_text, wrap
from service.present.recipients import queue_to
from service.present.said import SaidMessage, said_since_last_turn
from service.present.seat_names import seat_labels, seat_names, vacation_left
from service.present.summaries import in_words
from service.present.tactics_choices import held_tactics, tactics_offers


@dataclass(frozen=True)
class MadeClaim:
    """A claim the server made for a player at the start of their turn, with the proof."""

    flag: int
    reason: str
    explained: ClaimExplained | None = None
    """The proof in fields (``service.present.claims``), when the caller has it."""


OTHERS_TURNS_ENTRIES = 60
"""The others' last turns end at most this many log entries back."""


def others_turns(
    session: Session,
    loaded: LoadedGame,
    state: engine.GameState,
    seat: str,
    names: Mapping[str, str],
    entries: Sequence[LogEntry] | None = None,
    *,
    plain_text: bool = True,
) -> list[TurnRows]:
    """What the others did since ``seat`` last moved, turn by turn (``move_list.by_turn``), each
    entry in words and public notation, each claim with why it held (the one who lost the flag
    reads why). The claims made for ``seat`` at this start are left out (said apart).
    ``entries``: the last ``OTHERS_TURNS_ENTRIES`` of the log up to ``state``, when the caller
    has read them. ``plain_text``: the entries' lines for an email's text part too (a page
    has no use for them)."""
    if entries is None:
        entries = moves_from(
            session, loaded.id, max(0, state.ply - OTHERS_TURNS_ENTRIES), state.ply
        )
    # A turn is one seat's entries in a row: the others' turns are the entries between the
    # seat's last turn and the claims made for it at this start (its entries at the end). Only
    # those are put into words, up to the end of the log (which the turn numbers count from).
    last = len(entries)
    while last > 0 and entries[last - 1].seat == seat:
        last -= 1
    first = last
    while first > 0 and entries[first - 1].seat != seat:
        first -= 1
    rows = log_rows(entries[first:], state.ruleset, names, reader=seat, finished=False, after=state)
    turns = by_turn(rows[: last - first])
    wanted = {row.number - 1 for group in turns for row in group.rows}
    claims = claims_in_log(session, loaded, [e for e in entries if e.ply in wanted])
    return [
        dataclasses.replace(
            group,
            rows=tuple(_explained(row, claims, names, seat, plain_text) for row in group.rows),
        )
        for group in turns
    ]


def _explained(
    row: LogRow,
    claims: Mapping[int, ClaimExplained],
    names: Mapping[str, str],
    seat: str,
    plain_text: bool,
) -> LogRow:
    """``row`` with why its claim held (if it is one), and its plain-text lines if wanted."""
    explained = claims.get(row.number - 1)
    why = explained.words(names, seat) if explained else None
    if not plain_text:
        return row._replace(why=why) if why else row
    why_lines = wrap(_("Why: %(why)s", why=pieces_text(why, codes=True)), "      ") if why else []
    return row._replace(
        lines=tuple(wrap(f"{pieces_text(row.words)} [{row.notation}]", "    ", "      ")),
        why=why,
        why_lines=tuple(why_lines),
    )


@dataclass(frozen=True, slots=True)
class Opponent:
    """Another seat, by name, and the flags it holds."""

    name: str
    flags_held: int


@dataclass(frozen=True, slots=True)
class YourTurnEmail:
    """What the "your turn" email shows to the seat to move."""

    facts: GameFacts
    seat: str
    opponent_name: str
    """The others' names in words."""
    others_turns_title: str
    opponents: tuple[Opponent, ...]
    turn: int
    others_turns: tuple[TurnRows, ...]
    claims_made: tuple[ClaimLines, ...]
    """The claims made for the seat at the start of this turn (automatic claims), and why."""
    automatic_claims: bool
    advanced: bool
    provable: tuple[ClaimLines, ...]
    """The flags the seat could prove now, when claims are not made for it."""
    board: tuple[FlagsRow, ...]
    board_lines: tuple[str, ...]
    legend: str
    hand: tuple[str, ...]
    hand_lines: tuple[str, ...]
    flags_you_hold: int
    deadline: datetime | None
    vacation_left: int
    links: MoveLinks
    code_lines: tuple[str, ...]
    example: str
    """A whole turn in one reply, from the reader's own moves."""
    private_url: str
    said: tuple[SaidMessage, ...] = ()
    """What the other seats said since the seat's last turn (``service.present.said``)."""


def queue_your_turn(
    session: Session,
    loaded: LoadedGame,
    state: engine.GameState,
    *,
    claims_made: Sequence[MadeClaim] = (),
    automatic_claims: bool = True,
) -> OutboxMessage | None:
    """Tell the player to move that it is their turn."""
    assert state.result is None
    seat_row, player = loaded.seats[state.to_move]
    return queue_to(
        session,
        MailKind.YOUR_TURN,
        player,
        lambda: your_turn_email(session, loaded, state, seat_row, claims_made, automatic_claims),
        game=loaded,
    )


def your_turn_email(
    session: Session,
    loaded: LoadedGame,
    state: engine.GameState,
    seat_row: Seat,
    claims_made: Sequence[MadeClaim],
    automatic_claims: bool,
) -> YourTurnEmail:
    """What the "your turn" email shows to ``seat_row``, the seat to move, in the current
    language."""
    game = loaded.game
    seat = seat_row.letter
    names = seat_names(loaded)
    seen = engine.player_view(state, seat)
    opponents = in_words([names[s] for s in seen.opponents])
    advanced = not seen.claims_after_play
    provable = claims_now(state, seat) if advanced and not automatic_claims else {}
    choices = move_choices(state, seat)
    offers = tactics_offers(choices, seen, opponents)
    held = held_tactics(seen, names)
    ruleset = state.ruleset
    # The example of a whole turn in one reply: one of the reader's own moves (a made-up card
    # could be another seat's).
    example = (
        [c.code for c in [*choices.plays[0].choices[:1], *choices.then[:1]]]
        if choices.plays
        else [c.code for c in choices.links[:1]]
    )
    return YourTurnEmail(
        facts=facts_of(game, loaded.tournament),
        seat=seat,
        opponent_name=opponents,
        others_turns_title=_("%(name)s's last turn", name=opponents)
        if len(seen.opponents) == 1
        else _("Since your last turn (%(names)s)", names=opponents),
        opponents=tuple(Opponent(names[s], seen.flags_held[s]) for s in seen.opponents),
        turn=state.turn,
        others_turns=tuple(others_turns(session, loaded, state, seat, names)),
        claims_made=tuple(
            claim_lines(c.flag, c.reason, c.explained, names, seat, ruleset) for c in claims_made
        ),
        automatic_claims=automatic_claims and advanced,
        advanced=advanced,
        provable=tuple(
            claim_lines(flag, "", claim, names, seat, ruleset) for flag, claim in provable.items()
        ),
        board=board_rows(seen, names, seat),
        board_lines=tuple(
            board_lines(board_of(seen, seat), seat_labels(seen.seats, names, seat), seat)
        ),
        legend=legend(ruleset.colors),
        hand=tuple(seen.hand),
        hand_lines=tuple(
            wrap(_("Your hand: %(cards)s", cards=" ".join(seen.hand) or _("no cards")), "", "  ")
        ),
        flags_you_hold=seen.flags_held[seat],
        deadline=game.deadline,
        vacation_left=vacation_left(game, seat_row),
        links=move_link_groups(seat_row, choices, state.ply, offers, held),
        code_lines=tuple(move_code_lines(choices, offers, held)),
        example=" ".join(example),
        private_url=private_page_url(seat_row),
        said=said_since_last_turn(
            session, seat_row.game_id, seat, _reader(session, seat_row), names
        ),
    )


def _reader(session: Session, seat_row: Seat) -> Player:
    player = session.get(Player, seat_row.player_id)
    assert player is not None
    return player
