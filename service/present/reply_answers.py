"""The answers to a reply by email (``service.inbound``): a receipt when it was played, a refusal
saying what was understood and why it cannot be played, with the moves possible now and their
codes, and a note to a seat's own address when its reply address was used from another one.

Each is queued in the caller's transaction, in the game's thread, after the player's email
(``in_reply_to``), and carries ``Auto-Submitted: auto-replied`` (``KindRules``): nothing answers
it back, and ``service.inbound`` never answers a message that carries it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlmodel import Session

import engine
from service.games.seats import seats_of
from service.links import private_page_url
from service.models import Game
from service.outbox.kinds import MailKind
from service.outbox.models import OutboxMessage
from service.outbox.queue import queue_email
from service.present.choices import move_choices, move_code
from service.present.emails import game_facts
from service.present.plain_text import card_text, pieces_text, wrap
from service.present.reply_reading import Reading
from service.present.words import instruction


def move_row(move: engine.Move) -> dict[str, Any]:
    """One move as an answer shows it: its code and what it does."""
    return {"code": move_code(move), "text": pieces_text(instruction(move))}


def reply_codes(state: engine.GameState, seat: str) -> list[dict[str, Any]]:
    """Every move ``seat`` may make now, in groups (a card and its flags, the claims, the draws
    ...), each with the codes to reply with. Empty when it is not the seat's turn."""
    choices = move_choices(state, seat)
    groups: list[dict[str, Any]] = []

    def add(title: str, codes: Sequence[str]) -> None:
        if codes:
            # The plain-text part: the codes in lines that fit an 80-column mail program.
            lines = wrap("   ".join(codes), "    ")
            groups.append({"title": title, "codes": list(codes), "lines": lines})

    add("Discard (the Mud left)", [c.code for c in choices.discards])
    add("Claim a flag", [c.code for c in choices.claims])
    for group in choices.plays:
        add(f"Play {card_text(group.card)}", [c.code for c in group.choices])
    if choices.scout is not None:
        add("Play the Scout, then draw up to three", [choices.scout.code])
    for group in choices.redeploys:
        add(
            f"Redeploy your {card_text(group.card)} from flag {group.source}",
            [c.code for c in group.choices],
        )
    add("Deserter", [c.code for c in choices.deserters])
    for group in choices.traitors:
        add(
            f"Traitor: take {card_text(group.card)} from flag {group.source}",
            [c.code for c in group.choices],
        )
    if choices.passing is not None:
        add("Pass (you cannot play a troop card)", [choices.passing.code])
    add("Draw (Scout)", [c.code for c in choices.scout_draws])
    if choices.scout_return is not None:
        count = choices.scout_return
        add(
            f"Put back {count} card{'s' if count != 1 else ''} (the last one listed ends on top)",
            ["return " + " ".join(["CARD"] * count) if count else "return"],
        )
    add("Draw to end your turn", [c.code for c in choices.draws])
    if choices.end is not None:
        add("End your turn", [choices.end.code])
    return groups


def reading_rows(reading: Reading | None) -> list[dict[str, Any]]:
    """Each part of a reply as understood: the words, the move they named or why not."""
    if reading is None:
        return []
    return [
        {
            "words": part.words,
            "move": move_row(part.move) if part.move is not None else None,
            "problem": part.problem or part.note,
            "options": [move_code(m) for m in part.options[:20]],
        }
        for part in reading.parts
    ]


def _turn_context(
    session: Session, game: Game, state: engine.GameState, seat: str
) -> dict[str, Any]:
    assert game.id is not None
    seats = seats_of(session, game.id)
    seat_row, _ = seats[seat]
    names = {letter: player.display_name for letter, (_, player) in seats.items()}
    over = state.result is not None
    return {
        **game_facts(game),
        "move_number": state.ply + 1,
        "game_over": over,
        "your_turn": not over and state.to_move == seat,
        "to_move_name": None if over else names[state.to_move],
        "codes": reply_codes(state, seat),
        "private_url": private_page_url(seat_row),
    }


def played_rows(
    before: engine.GameState, seat: str, moves: Sequence[engine.Move]
) -> list[dict[str, Any]]:
    """``move_row`` of each of ``moves`` made from ``before``, a draw with the card it drew
    (``drawn``: what came into the seat's hand, and ``drawn_text`` in plain text; None for the
    other moves)."""
    rows = []
    state = before
    for move in moves:
        after, _ = engine.apply(state, move)
        row = {**move_row(move), "drawn": None, "drawn_text": None}
        if move.action is engine.Action.DRAW:
            came = set(engine.player_view(after, seat).hand) - set(
                engine.player_view(state, seat).hand
            )
            row["drawn"] = next(iter(came), None)
            row["drawn_text"] = card_text(row["drawn"]) if row["drawn"] else None
        rows.append(row)
        state = after
    return rows


def queue_receipt(
    session: Session,
    game: Game,
    state: engine.GameState,
    seat: str,
    moves: Sequence[engine.Move],
    *,
    before: engine.GameState,
    notes: Sequence[str] = (),
    in_reply_to: str | None,
) -> OutboxMessage | None:
    """Tell the player their reply was played: the moves (``moves``, made from ``before``),
    each draw with the card drawn, what was passed over (``notes``: a claim of a flag already
    theirs), the hand now, then what comes next in ``state`` (the position after them)."""
    assert game.id is not None
    _, player = seats_of(session, game.id)[seat]
    hand = list(engine.player_view(state, seat).hand)
    context = {
        **_turn_context(session, game, state, seat),
        "played": played_rows(before, seat, moves),
        "notes": list(notes),
        "hand": hand,
        "hand_lines": wrap("Your hand now: " + (" ".join(hand) or "no cards"), "", "  "),
    }
    return queue_email(
        session, MailKind.REPLY_RECEIPT, player, game=game, context=context, in_reply_to=in_reply_to
    )


def queue_refusal(
    session: Session,
    game: Game,
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
    assert game.id is not None
    seats = seats_of(session, game.id)
    seat_row, player = seats[seat]
    context: dict[str, Any] = {
        **game_facts(game),
        "game_over": False,
        "your_turn": False,
        "to_move_name": None,
        "codes": [],
        "private_url": private_page_url(seat_row),
    }
    if state is not None:
        context.update(_turn_context(session, game, state, seat))
    context.update(
        {
            "reason": reason,
            "written": written.strip()[:500],
            "parts": reading_rows(reading),
            "ignored": list(reading.ignored) if reading is not None else [],
        }
    )
    return queue_email(
        session, MailKind.REPLY_REFUSED, player, game=game, context=context, in_reply_to=in_reply_to
    )


def queue_other_sender(
    session: Session, game: Game, seat: str, sender: str
) -> OutboxMessage | None:
    """Tell a seat's own address that an email with its reply address came from ``sender`` (a
    checked address) and was not played."""
    assert game.id is not None
    seat_row, player = seats_of(session, game.id)[seat]
    context = {
        **game_facts(game),
        "sender": sender,
        "own_address": player.email,
        "private_url": private_page_url(seat_row),
    }
    return queue_email(session, MailKind.REPLY_OTHER_SENDER, player, game=game, context=context)
