"""The answers to a reply by email (``service.inbound``): a receipt when it was played, a refusal
saying what was understood and why it cannot be played, with the moves possible now and their
codes, and a note to a seat's own address when its reply address was used from another one.

Each is queued in the caller's transaction, in the game's thread, after the player's email
(``in_reply_to``), and carries ``Auto-Submitted: auto-replied`` (``KindRules``): nothing answers
it back, and ``service.inbound`` never answers a message that carries it.

Their words are made in the player's language: the caller builds them inside
``service.i18n.recipient_language`` (``service.inbound.seat_reply``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlmodel import Session

import engine
from service.games.loaded import LoadedGame
from service.links import private_page_url
from service.models import Game
from service.outbox.kinds import MailKind
from service.outbox.models import OutboxMessage
from service.outbox.queue import queue_email
from service.present.choices import move_choices, move_code
from service.present.emails import game_facts
from service.present.plain_text import card_text, pieces_text, wrap
from service.present.reply_reading import Reading
from service.present.seat_names import shown_name
from service.present.translated import _, ngettext
from service.present.words import instruction

if TYPE_CHECKING:
    from _typeshed import DataclassInstance


@dataclass(frozen=True)
class MoveRow:
    """A move as an answer shows it."""

    code: str
    """What to reply to make it (``service.present.choices.move_code``)."""
    text: str
    """What it does, in plain text."""


@dataclass(frozen=True)
class PlayedRow:
    """A move a reply played."""

    code: str
    text: str
    drawn: engine.Card | None
    """For a draw, the card that came into the seat's hand; None for the other moves."""
    drawn_text: str | None
    """``drawn`` in plain text."""


@dataclass(frozen=True)
class CodeGroup:
    """Moves possible now that belong together (a card and its flags, the claims ...)."""

    title: str
    codes: tuple[str, ...]
    lines: tuple[str, ...]
    """The codes in lines that fit an 80-column mail program (the plain-text part)."""


@dataclass(frozen=True)
class ReadingRow:
    """One part of a reply as understood."""

    words: str
    move: MoveRow | None
    """The move the words named, None when they named none that can be played."""
    problem: str | None
    """Why not, or what was passed over (a claim of a flag already held)."""
    options: tuple[str, ...]
    """The codes of the moves the words could mean (the first 20)."""


@dataclass(frozen=True)
class TurnNow:
    """Where the game stands for the seat an answer goes to."""

    private_url: str
    game_over: bool = False
    your_turn: bool = False
    to_move_name: str | None = None
    """Who is to move, when the game goes on; None before the deal or after the end."""
    codes: tuple[CodeGroup, ...] = ()
    """The moves the seat may make now (``reply_codes``)."""


@dataclass(frozen=True)
class ReceiptEmail:
    """The receipt of a reply that was played (with ``TurnNow``: what comes next)."""

    played: tuple[PlayedRow, ...]
    notes: tuple[str, ...]
    """What was passed over without a move."""
    hand: tuple[engine.Card, ...]
    hand_lines: tuple[str, ...]
    """The hand now in plain text, wrapped."""
    message_note: str | None = None
    """What became of the reply's message when it could not be sent (too long)."""


@dataclass(frozen=True)
class RefusalEmail:
    """The answer to a reply that was not played (with ``TurnNow``: the moves possible now)."""

    reason: str
    written: str
    """The words read (the first 500 characters)."""
    parts: tuple[ReadingRow, ...]
    ignored: tuple[str, ...]
    """The chat left out."""


@dataclass(frozen=True)
class OtherSenderEmail:
    """The note to a seat's own address that its reply address was used from another one."""

    sender: str
    own_address: str
    private_url: str


def template_values(game: Game, *answers: DataclassInstance) -> dict[str, object]:
    """What an answer's templates get: the game's facts, then each field of ``answers`` by
    its name."""
    values: dict[str, object] = dict(game_facts(game))
    for answer in answers:
        values.update({f.name: getattr(answer, f.name) for f in dataclasses.fields(answer)})
    return values


def move_row(move: engine.Move) -> MoveRow:
    """One move as an answer shows it: its code and what it does."""
    return MoveRow(code=move_code(move), text=pieces_text(instruction(move)))


def reply_codes(state: engine.GameState, seat: str) -> tuple[CodeGroup, ...]:
    """Every move ``seat`` may make now, in groups (a card and its flags, the claims, the draws
    ...), each with the codes to reply with. Empty when it is not the seat's turn."""
    choices = move_choices(state, seat)
    groups: list[CodeGroup] = []

    def add(title: str, codes: Sequence[str]) -> None:
        if codes:
            lines = tuple(wrap("   ".join(codes), "    "))
            groups.append(CodeGroup(title=title, codes=tuple(codes), lines=lines))

    add(_("Discard (the Mud left)"), [c.code for c in choices.discards])
    add(_("Claim a flag"), [c.code for c in choices.claims])
    for group in choices.plays:
        add(_("Play %(card)s", card=card_text(group.card)), [c.code for c in group.choices])
    if choices.scout is not None:
        add(_("Play the Scout, then draw up to three"), [choices.scout.code])
    for group in choices.redeploys:
        add(
            _(
                "Redeploy your %(card)s from flag %(flag)d",
                card=card_text(group.card), flag=group.source,
            ),
            [c.code for c in group.choices],
        )  # fmt: skip
    add(_("Deserter"), [c.code for c in choices.deserters])
    for group in choices.traitors:
        add(
            _(
                "Traitor: take %(card)s from flag %(flag)d",
                card=card_text(group.card), flag=group.source,
            ),
            [c.code for c in group.choices],
        )  # fmt: skip
    if choices.passing is not None:
        add(_("Pass (you cannot play a troop card)"), [choices.passing.code])
    add(_("Draw (Scout)"), [c.code for c in choices.scout_draws])
    if choices.scout_return is not None:
        count = choices.scout_return
        add(
            ngettext(
                "Put back %(num)d card (the last one listed ends on top)",
                "Put back %(num)d cards (the last one listed ends on top)",
                count,
            ),
            ["return " + " ".join(["CARD"] * count) if count else "return"],
        )
    add(_("Draw to end your turn"), [c.code for c in choices.draws])
    if choices.end is not None:
        add(_("End your turn"), [choices.end.code])
    return tuple(groups)


def reading_rows(reading: Reading | None) -> tuple[ReadingRow, ...]:
    """Each part of a reply as understood: the words, the move they named or why not."""
    if reading is None:
        return ()
    return tuple(
        ReadingRow(
            words=part.words,
            move=move_row(part.move) if part.move is not None else None,
            problem=part.problem or part.note,
            options=tuple(move_code(m) for m in part.options[:20]),
        )
        for part in reading.parts
    )


def turn_now(loaded: LoadedGame, state: engine.GameState, seat: str) -> TurnNow:
    """Where ``state`` leaves ``seat``: over, their turn (with the codes), or whose turn."""
    seats = loaded.seats
    seat_row = seats[seat][0]
    names = {letter: shown_name(player) for letter, (_seat, player) in seats.items()}
    over = state.result is not None
    return TurnNow(
        private_url=private_page_url(seat_row),
        game_over=over,
        your_turn=not over and state.to_move == seat,
        to_move_name=None if over else names[state.to_move],
        codes=reply_codes(state, seat),
    )


def played_rows(
    before: engine.GameState, seat: str, moves: Sequence[engine.Move]
) -> tuple[PlayedRow, ...]:
    """Each of ``moves`` made from ``before`` as ``move_row`` shows it, a draw with the card it
    drew."""
    rows = []
    state = before
    for move in moves:
        after = engine.apply(state, move)[0]
        drawn = None
        if move.action is engine.Action.DRAW:
            came = set(engine.player_view(after, seat).hand) - set(
                engine.player_view(state, seat).hand
            )
            drawn = next(iter(came), None)
        row = move_row(move)
        drawn_text = card_text(drawn) if drawn else None
        rows.append(PlayedRow(row.code, row.text, drawn=drawn, drawn_text=drawn_text))
        state = after
    return tuple(rows)


def queue_receipt(
    session: Session,
    loaded: LoadedGame,
    state: engine.GameState,
    seat: str,
    moves: Sequence[engine.Move],
    *,
    before: engine.GameState,
    notes: Sequence[str] = (),
    message_note: str | None = None,
    in_reply_to: str | None,
) -> OutboxMessage | None:
    """Tell the player their reply was played: the moves (``moves``, made from ``before``),
    each draw with the card drawn, what was passed over (``notes``: a claim of a flag already
    theirs), the hand now, then what comes next in ``state`` (the position after them)."""
    player = loaded.seats[seat][1]
    hand = tuple(engine.player_view(state, seat).hand)
    receipt = ReceiptEmail(
        played=played_rows(before, seat, moves),
        notes=tuple(notes),
        hand=hand,
        hand_lines=tuple(
            wrap(_("Your hand now: %(cards)s", cards=" ".join(hand) or _("no cards")), "", "  ")
        ),
        message_note=message_note,
    )
    context = template_values(loaded.game, turn_now(loaded, state, seat), receipt)
    return queue_email(
        session,
        MailKind.REPLY_RECEIPT,
        player,
        game=loaded,
        context=context,
        in_reply_to=in_reply_to,
    )


def queue_refusal(
    session: Session,
    loaded: LoadedGame,
    state: engine.GameState | None,
    seat: str,
    *,
    reason: str,
    reading: Reading | None = None,
    written: str = "",
    in_reply_to: str | None,
) -> OutboxMessage | None:
    """Tell the player their reply was not played: what was read (``written``, part by part in
    ``reading``), ``reason``, and the moves possible now (``state``: the game as it is; None
    before the deal). Nothing was changed."""
    seat_row, player = loaded.seats[seat]
    if state is None:
        turn = TurnNow(private_url=private_page_url(seat_row))
    else:
        turn = turn_now(loaded, state, seat)
    refusal = RefusalEmail(
        reason=reason,
        written=written.strip()[:500],
        parts=reading_rows(reading),
        ignored=reading.ignored if reading is not None else (),
    )
    context = template_values(loaded.game, turn, refusal)
    return queue_email(
        session,
        MailKind.REPLY_REFUSED,
        player,
        game=loaded,
        context=context,
        in_reply_to=in_reply_to,
    )


def queue_other_sender(
    session: Session, loaded: LoadedGame, seat: str, sender: str
) -> OutboxMessage | None:
    """Tell a seat's own address that an email with its reply address came from ``sender`` (a
    checked address) and was not played."""
    seat_row, player = loaded.seats[seat]
    note = OtherSenderEmail(
        sender=sender, own_address=player.email, private_url=private_page_url(seat_row)
    )
    context = template_values(loaded.game, note)
    return queue_email(session, MailKind.REPLY_OTHER_SENDER, player, game=loaded, context=context)
