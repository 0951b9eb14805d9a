"""The emails of a game being played: your turn, reminder, running late, timeout notice, game
over, and the daily digest. Each builder gathers plain values from one seat's view (never the
state or a ``Game`` row in a template) and calls ``queue_email`` in the caller's transaction.

Cards are given as codes; templates draw them (HTML) or write them "red 4 (R4)" (plain text), so
every email can be read and played from a plain-text mail program.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session

import engine
from engine import Action
from service.games import store
from service.links import external_url, private_page_url
from service.models import Game, MoveEntry, Player, Seat
from service.outbox.kinds import MailKind
from service.outbox.models import OutboxMessage
from service.outbox.queue import queue_email
from service.present.emails import game_facts
from service.present.move_links import move_links
from service.present.words import Piece, instruction, narration, with_cards
from service.templating import card_face

PAGE_ONLY_TACTICS = (Action.SCOUT, Action.REDEPLOY, Action.DESERTER, Action.TRAITOR)
"""Tactics whose move needs more choices than one link can carry: the email sends the player to
their private page for these."""


def card_text(code: str) -> str:
    """A card in plain text: ``red 4 (R4)``, ``Alexander (ALEXANDER)``."""
    return f"{card_face(code).label} ({code})"


def pieces_text(pieces: Sequence[Piece]) -> str:
    """Described moves (``service.present.words``) as one line of plain text."""
    words = [card_text(p.value) if p.kind == "card" else p.value.strip() for p in pieces]
    return " ".join(word for word in words if word)


def _described(pieces: Sequence[Piece]) -> dict[str, Any]:
    return {"pieces": list(pieces), "text": pieces_text(pieces)}


def other_seat(seat: str) -> str:
    return "B" if seat == "A" else "A"


@dataclass(frozen=True)
class MadeClaim:
    """A claim the server made for a player at the start of their turn, with the proof."""

    flag: int
    reason: str


# --- pieces of context -------------------------------------------------------------------------


def last_turn(
    entries: Sequence[MoveEntry], seat: str, ruleset: engine.Ruleset, name: str
) -> list[dict[str, Any]]:
    """The opponent's whole last turn, in words and public notation: the entries of the other
    seat just before the latest ones of ``seat`` (the claims made for it at this start)."""
    index = len(entries)
    while index > 0 and entries[index - 1].seat == seat:
        index -= 1
    end = index
    while index > 0 and entries[index - 1].seat != seat:
        index -= 1
    rows = []
    for entry in entries[index:end]:
        move = engine.parse_move(entry.notation, ruleset)
        rows.append(
            {
                **_described(narration(move, name, hide_returned=True)),
                "notation": move.public_text(),
            }
        )
    return rows


def board_rows(seen: dict[str, Any], seat: str, names: dict[str, str]) -> list[dict[str, Any]]:
    """The line of flags as ``seat`` sees it: their cards, the opponent's, who holds the flag."""
    opponent = other_seat(seat)
    rows = []
    for flag in seen["flags"]:
        env = sorted(flag["env_sides"]) if flag.get("env_sides") else []
        holder = flag["claimed_by"]
        rows.append(
            {
                "flag": flag["flag"],
                "mine": list(flag[seat]),
                "theirs": list(flag[opponent]),
                "env": env,
                "held_by": None if holder is None else ("you" if holder == seat else names[holder]),
                "mine_text": ", ".join(card_text(c) for c in flag[seat]) or "-",
                "theirs_text": ", ".join(card_text(c) for c in flag[opponent]) or "-",
            }
        )
    return rows


def move_link_groups(seat_row: Seat, state: engine.GameState) -> dict[str, Any]:
    """Every legal move with one link, grouped by card (a card, then the flags it may go to);
    claims, discards and a pass on their own; the tactics that need more choices named only
    (they are played from the private page)."""
    plays: dict[str, dict[str, Any]] = {}
    claims, discards, others = [], [], []
    page_only: list[str] = []
    for move, url in move_links(seat_row, state):
        a = move.action
        if a is Action.PLAY:
            assert move.card is not None
            group = plays.setdefault(
                move.card, {"card": move.card, "text": card_text(move.card), "flags": []}
            )
            group["flags"].append({"flag": move.flag, "url": url})
        elif a is Action.CLAIM:
            claims.append({"flag": move.flag, "url": url})
        elif a is Action.DISCARD:
            assert move.card is not None
            discards.append(
                {"card": move.card, "text": card_text(move.card), "flag": move.source, "url": url}
            )
        elif a in PAGE_ONLY_TACTICS:
            label = card_face(move.card or a.value.upper()).label
            if label not in page_only:
                page_only.append(label)
        elif a is Action.PASS:
            others.append({"label": "Pass (you cannot play a troop card)", "url": url})
        else:
            others.append({"label": pieces_text(instruction(move)), "url": url})
    return {
        "plays": list(plays.values()),
        "claims": claims,
        "discards": discards,
        "others": others,
        "page_only": page_only,
    }


def provable_now(state: engine.GameState, seat: str) -> list[dict[str, Any]]:
    """The flags ``seat`` could prove now, with the prover's reason (when claims are not made
    for them automatically)."""
    return [
        {"flag": flag, **_reason(proof.reason, state.ruleset)}
        for flag, proof in sorted(engine.claim_proofs(state, seat).items())
        if proof.claimable
    ]


def _reason(reason: str, ruleset: engine.Ruleset) -> dict[str, Any]:
    pieces = with_cards(reason, ruleset)
    return {"reason_pieces": pieces, "reason_text": pieces_text(pieces)}


def _seat_and_player(session: Session, game: Game, seat: str) -> tuple[Seat, Player]:
    assert game.id is not None
    return store.seats_of(session, game.id)[seat]


def _names(session: Session, game: Game) -> dict[str, str]:
    assert game.id is not None
    return {s: p.display_name for s, (_, p) in store.seats_of(session, game.id).items()}


def vacation_left(game: Game, seat_row: Seat) -> int:
    return max(0, game.vacation_days - seat_row.vacation_days_used)


# --- the emails --------------------------------------------------------------------------------


def queue_your_turn(
    session: Session,
    game: Game,
    state: engine.GameState,
    *,
    claims_made: Sequence[MadeClaim] = (),
    automatic_claims: bool = True,
) -> OutboxMessage | None:
    """Tell the player to move that it is their turn, with a link for every legal move."""
    assert game.id is not None and state.result is None
    seat = state.to_move
    seat_row, player = _seat_and_player(session, game, seat)
    names = _names(session, game)
    opponent = other_seat(seat)
    seen = engine.view(state, seat)
    entries = store.move_log(session, game.id)
    advanced = state.claims is engine.ClaimTiming.ADVANCED
    context = {
        **game_facts(game),
        "seat": seat,
        "names": names,
        "opponent_name": names[opponent],
        "move_number": state.ply + 1,
        "turn": state.turn,
        "last_turn": last_turn(entries, seat, state.ruleset, names[opponent]),
        "claims_made": [{"flag": c.flag, **_reason(c.reason, state.ruleset)} for c in claims_made],
        "automatic_claims": automatic_claims and advanced,
        "advanced": advanced,
        "provable": provable_now(state, seat) if advanced and not automatic_claims else [],
        "board": board_rows(seen, seat, names),
        "hand": list(seen["hand"]),
        "hand_text": ", ".join(card_text(c) for c in seen["hand"]) or "no cards",
        "flags_held": seen["flags_held"],
        "decks": seen["decks"],
        "deadline": game.deadline,
        "vacation_left": vacation_left(game, seat_row),
        "links": move_link_groups(seat_row, state),
        "private_url": private_page_url(seat_row),
    }
    return queue_email(session, MailKind.YOUR_TURN, player, game=game, context=context)


def queue_reminder(session: Session, game: Game, seat: str, now: datetime) -> OutboxMessage | None:
    """Remind the player to move of the deadline."""
    seat_row, player = _seat_and_player(session, game, seat)
    names = _names(session, game)
    assert game.deadline is not None
    hours = max(0, int((game.deadline - now).total_seconds() // 3600))
    context = {
        **game_facts(game),
        "opponent_name": names[other_seat(seat)],
        "deadline": game.deadline,
        "hours_left": hours,
        "vacation_left": vacation_left(game, seat_row),
        "private_url": private_page_url(seat_row),
    }
    return queue_email(session, MailKind.REMINDER, player, game=game, context=context)


def queue_running_late(session: Session, game: Game, late_seat: str) -> OutboxMessage | None:
    """Tell the opponent of ``late_seat`` that the player to move runs late."""
    late_row, _ = _seat_and_player(session, game, late_seat)
    seat_row, player = _seat_and_player(session, game, other_seat(late_seat))
    names = _names(session, game)
    context = {
        **game_facts(game),
        "late_name": names[late_seat],
        "deadline": game.deadline,
        "vacation_left": vacation_left(game, late_row),
        "private_url": private_page_url(seat_row),
    }
    return queue_email(session, MailKind.RUNNING_LATE, player, game=game, context=context)


def queue_timeout_notices(
    session: Session, game: Game, late_seat: str, *, days_used: int, lost: bool
) -> list[OutboxMessage]:
    """Tell both players that ``late_seat`` passed a deadline: ``days_used`` vacation days were
    used (and the new deadline), or, with none left, that the player lost on time."""
    assert game.id is not None
    names = _names(session, game)
    late_row, _ = _seat_and_player(session, game, late_seat)
    queued = []
    for letter, (seat_row, player) in sorted(store.seats_of(session, game.id).items()):
        context = {
            **game_facts(game),
            "you_are_late": letter == late_seat,
            "late_name": names[late_seat],
            "other_name": names[other_seat(late_seat)],
            "days_used": days_used,
            "lost": lost,
            "deadline": game.deadline,
            "vacation_left": vacation_left(game, late_row),
            "private_url": private_page_url(seat_row),
        }
        row = queue_email(session, MailKind.TIMEOUT_NOTICE, player, game=game, context=context)
        if row is not None:
            queued.append(row)
    return queued


def result_words(state: engine.GameState, names: dict[str, str]) -> str:
    """How the game ended, in a sentence."""
    result = state.result
    assert result is not None
    ruleset = state.ruleset
    kind = result.termination
    if result.winner is None:
        return "The game is a draw: both players passed and no flag could be claimed."
    winner = names[result.winner]
    loser = names[other_seat(result.winner)]
    how = {
        engine.Termination.BREAKTHROUGH: f"holding {ruleset.adjacent_to_win} adjacent flags",
        engine.Termination.ENVELOPMENT: f"holding {ruleset.flags_to_win} flags",
        engine.Termination.STALEMATE: "holding more flags after both players passed",
        engine.Termination.RESIGNATION: f"as {loser} resigned",
        engine.Termination.TIME: f"as {loser} ran out of time",
    }[kind]
    return f"{winner} won, {how}."


def queue_game_over(session: Session, game: Game, state: engine.GameState) -> list[OutboxMessage]:
    """Tell both players the result: flags, points (R23), the revealed seed (R3), the history
    and a link to play again (the new-game form filled with the same two players)."""
    assert game.id is not None and state.result is not None
    seats = store.seats_of(session, game.id)
    names = {s: p.display_name for s, (_, p) in seats.items()}
    seen = engine.public_view(state)
    points = engine.series_points(state)
    held: dict[str, list[int]] = {s: [] for s in names}
    for flag in seen["flags"]:
        if flag["claimed_by"] in held:
            held[flag["claimed_by"]].append(flag["flag"])
    queued = []
    for letter, (seat_row, player) in sorted(seats.items()):
        _, opponent = seats[other_seat(letter)]
        play_again = external_url(
            "lobby.new_game",
            a_name=player.display_name,
            a_email=player.email,
            b_name=opponent.display_name,
            b_email=opponent.email,
            ruleset=game.ruleset,
            claims=game.claims,
            days_per_move=game.days_per_move,
            vacation_days=game.vacation_days,
        )
        context = {
            **game_facts(game),
            "seat": letter,
            "names": names,
            "winner": state.result.winner,
            "you_won": state.result.winner == letter,
            "result_text": result_words(state, names),
            "termination": state.result.termination.value,
            "flags_held": {s: held[s] for s in sorted(names)},
            "points": {s: points[s] for s in sorted(names)},
            "moves": state.ply,
            "seed": game.seed,
            "history_url": external_url("history.public_page", public_id=game.public_id),
            "record_url": external_url("history.record", public_id=game.public_id),
            "play_again_url": play_again,
            "private_url": private_page_url(seat_row),
        }
        row = queue_email(session, MailKind.GAME_OVER, player, game=game, context=context)
        if row is not None:
            queued.append(row)
    return queued


def queue_digest(
    session: Session, player: Player, games: Sequence[dict[str, Any]]
) -> OutboxMessage | None:
    """The daily digest: each game where it is ``player``'s turn, with its private page."""
    count = len(games)
    return queue_email(
        session,
        MailKind.DIGEST,
        player,
        subject=f"Battle Line: your turn in {count} game{'s' if count != 1 else ''}",
        context={
            "games": list(games),
            "my_games_request_url": external_url("history.my_games_request"),
        },
    )
