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
from service.games import store
from service.games.store import LogEntry
from service.links import external_url, private_page_url
from service.models import Game, Player, Seat
from service.outbox.kinds import MailKind
from service.outbox.models import OutboxMessage
from service.outbox.queue import queue_email
from service.present.board import board_of
from service.present.choices import move_choices
from service.present.emails import game_facts
from service.present.game_lists import PlayerGame
from service.present.move_links import move_link_urls
from service.present.summaries import in_words
from service.present.words import Piece, narration, with_cards
from service.templating import card_face


def card_text(code: str) -> str:
    """A card in plain text: ``red 4 (R4)``, ``Alexander (ALEXANDER)``."""
    return f"{card_face(code).label} ({code})"


def pieces_text(pieces: Sequence[Piece]) -> str:
    """Described moves (``service.present.words``) as one line of plain text."""
    words = [card_text(p.value) if p.kind == "card" else p.value.strip() for p in pieces]
    return " ".join(word for word in words if word)


def _described(pieces: Sequence[Piece]) -> dict[str, Any]:
    return {"pieces": list(pieces), "text": pieces_text(pieces)}


@dataclass(frozen=True)
class MadeClaim:
    """A claim the server made for a player at the start of their turn, with the proof."""

    flag: int
    reason: str


# --- pieces of context -------------------------------------------------------------------------


def last_turn(
    entries: Sequence[LogEntry], seat: str, ruleset: engine.Ruleset, names: dict[str, str]
) -> list[dict[str, Any]]:
    """What the others did since ``seat`` last moved, in words and public notation: the entries
    of other seats just before the latest ones of ``seat`` (the claims made for it at this
    start)."""
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
                **_described(narration(move, names[entry.seat], hide_returned=True)),
                "notation": move.public_text(),
            }
        )
    return rows


def board_rows(view: engine.PlayerView, names: dict[str, str]) -> list[dict[str, Any]]:
    """The line of flags as the view's seat sees it, in rows of one pair of seats each (the whole
    line with two players, the three rows of the ring with three): at each flag the near side
    (the reader's cards, where the reader is one of the pair) and the far side, the environment
    cards and who holds it."""

    def name(seat: str) -> str:
        return "you" if seat == view.seat else names[seat]

    groups = []
    for row in board_of(view, view.seat).rows:
        flags = []
        for drawn in row.flags:
            holder = drawn.flag.claimed_by
            near, far = drawn.right_cards, drawn.left_cards
            flags.append(
                {
                    "flag": drawn.flag.number,
                    "near": list(near),
                    "far": list(far),
                    "env": sorted(env.card for env in drawn.flag.env),
                    "held_by": None if holder is None else name(holder),
                    "near_text": ", ".join(card_text(c) for c in near) or "-",
                    "far_text": ", ".join(card_text(c) for c in far) or "-",
                }
            )
        near_name, far_name = name(row.right), name(row.left)
        groups.append(
            {
                "near_name": near_name[:1].upper() + near_name[1:],
                "far_name": far_name,
                "flags": flags,
                "first": row.first,
                "last": row.last,
            }
        )
    return groups


def move_link_groups(seat_row: Seat, state: engine.GameState) -> dict[str, Any]:
    """The seat's grouped legal moves (``service.present.choices``), each with its link: a card,
    then the flags it may go to; claims, discards, a pass and the draws on their own; the
    tactics that need more choices named only (they are played from the private page)."""
    choices = move_choices(state, seat_row.letter)
    urls = move_link_urls(seat_row, state.ply, choices.count)
    others = [choices.passing] if choices.passing else []
    others += [*choices.scout_draws, *choices.draws, *([choices.end] if choices.end else [])]
    return {
        "plays": [
            {
                "card": group.card,
                "text": card_text(group.card),
                "flags": [{"flag": c.flag, "url": urls[c.index]} for c in group.choices],
            }
            for group in choices.plays
        ],
        "claims": [{"flag": c.flag, "url": urls[c.index]} for c in choices.claims],
        "discards": [
            {
                "card": c.card,
                "text": card_text(c.card or ""),
                "flag": c.source,
                "url": urls[c.index],
            }
            for c in choices.discards
        ],
        "others": [
            {
                "label": "Pass (you cannot play a troop card)"
                if c is choices.passing
                else pieces_text(c.words),
                "url": urls[c.index],
            }
            for c in others
        ],
        "page_only": list(choices.page_only),
    }


def provable_now(state: engine.GameState, seat: str) -> list[dict[str, Any]]:
    """The flags ``seat`` could prove now, with the prover's reason (when claims are not made
    for them automatically)."""
    return [
        {"flag": proof.flag, **_reason(proof.reason, state.ruleset)}
        for proof in engine.claim_proof_views(state, seat)
        if proof.provable
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
    seen = engine.player_view(state, seat)
    opponents = in_words([names[s] for s in seen.opponents])
    # The others' last turns end at most a few dozen entries back.
    entries = store.moves_from(session, game.id, max(0, state.ply - 60), state.ply)
    advanced = state.claims is engine.ClaimTiming.ADVANCED
    context = {
        **game_facts(game),
        "seat": seat,
        "names": names,
        "opponent_name": opponents,
        "others_turns_title": f"{opponents}'s last turn"
        if len(seen.opponents) == 1
        else f"Since your last turn ({opponents})",
        "opponents": [{"name": names[s], "flags_held": seen.flags_held[s]} for s in seen.opponents],
        "move_number": state.ply + 1,
        "turn": state.turn,
        "last_turn": last_turn(entries, seat, state.ruleset, names),
        "claims_made": [{"flag": c.flag, **_reason(c.reason, state.ruleset)} for c in claims_made],
        "automatic_claims": automatic_claims and advanced,
        "advanced": advanced,
        "provable": provable_now(state, seat) if advanced and not automatic_claims else [],
        "board": board_rows(seen, names),
        "hand": list(seen.hand),
        "hand_text": ", ".join(card_text(c) for c in seen.hand) or "no cards",
        "flags_held": dict(seen.flags_held),
        "decks": dict(seen.decks),
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
        "opponent_name": in_words([name for s, name in names.items() if s != seat]),
        "deadline": game.deadline,
        "hours_left": hours,
        "vacation_left": vacation_left(game, seat_row),
        "private_url": private_page_url(seat_row),
    }
    return queue_email(session, MailKind.REMINDER, player, game=game, context=context)


def queue_running_late(session: Session, game: Game, late_seat: str) -> list[OutboxMessage]:
    """Tell the others that ``late_seat``, the player to move, runs late."""
    assert game.id is not None
    seats = store.seats_of(session, game.id)
    late_row, late_player = seats[late_seat]
    queued = []
    for letter, (seat_row, player) in seats.items():
        if letter == late_seat:
            continue
        context = {
            **game_facts(game),
            "late_name": late_player.display_name,
            "deadline": game.deadline,
            "vacation_left": vacation_left(game, late_row),
            "private_url": private_page_url(seat_row),
        }
        row = queue_email(session, MailKind.RUNNING_LATE, player, game=game, context=context)
        if row is not None:
            queued.append(row)
    return queued


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
            "other_name": in_words([n for s, n in names.items() if s != late_seat]),
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


def result_words(state: engine.GameState, names: dict[str, str], leaver: str | None = None) -> str:
    """How the game ended, in a sentence. ``leaver``: the seat that resigned or ran out of time
    (the last entry of the log), when the game ended so."""
    result = state.result
    assert result is not None
    ruleset = state.ruleset
    kind = result.termination
    left = names.get(leaver or "", "a player")
    if result.winner is None:
        sharing = in_words([names[seat] for seat in result.draw_between])
        if kind is engine.Termination.STALEMATE:
            return f"The game is a draw between {sharing}: no one could take more flags."
        gone = "resigned" if kind is engine.Termination.RESIGNATION else "ran out of time"
        return f"The game is a draw between {sharing}, as {left} {gone} with them level."
    winner = names[result.winner]
    how = {
        engine.Termination.BREAKTHROUGH: f"holding {ruleset.adjacent_to_win} adjacent flags",
        engine.Termination.ENVELOPMENT: f"holding {ruleset.flags_to_win} flags",
        engine.Termination.STALEMATE: "holding the most flags when no one could take more",
        engine.Termination.RESIGNATION: f"as {left} resigned",
        engine.Termination.TIME: f"as {left} ran out of time",
    }[kind]
    return f"{winner} won, {how}."


def queue_game_over(session: Session, game: Game, state: engine.GameState) -> list[OutboxMessage]:
    """Tell every player the result: flags, points (R23), the revealed seed (R3), the history
    and a link to play again (the new-game form filled with the same players)."""
    assert game.id is not None and state.result is not None
    seats = store.seats_of(session, game.id)
    names = {s: p.display_name for s, (_, p) in seats.items()}
    seen = engine.spectator_view(state)
    points = engine.series_points(state)
    held: dict[str, list[int]] = {s: [] for s in names}
    for flag in seen.flags:
        if flag.claimed_by in held:
            held[flag.claimed_by].append(flag.number)
    last = store.moves_from(session, game.id, state.ply - 1, state.ply)
    leaver = last[0].seat if last else None
    queued = []
    for letter, (seat_row, player) in seats.items():
        # "Play again": the new-game form filled in, this player first, the others in turn order
        # after them as the invited seats (b_, c_).
        at = seen.seats.index(letter)
        others = [seats[s][1] for s in (seen.seats[at + 1 :] + seen.seats[:at])]
        invited = {
            f"{field}_{kind}": getattr(other, attr)
            for field, other in zip("bc", others, strict=False)
            for kind, attr in (("name", "display_name"), ("email", "email"))
        }
        play_again = external_url(
            "lobby.new_game",
            a_name=player.display_name,
            a_email=player.email,
            **invited,
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
            "result_text": result_words(state, names, leaver),
            "termination": state.result.termination.value,
            "flags_held": held,
            "points": {s: points[s] for s in names},
            "moves": state.ply,
            "seed": game.seed,
            "history_url": external_url("history.public_page", public_id=game.public_id),
            "record_url": external_url("history.record", public_id=game.public_id),
            "play_again_url": play_again,
            "play_again_with": in_words([other.display_name for other in others]),
            "players_text": in_words(list(names.values())),
            "private_url": private_page_url(seat_row),
        }
        row = queue_email(session, MailKind.GAME_OVER, player, game=game, context=context)
        if row is not None:
            queued.append(row)
    return queued


def queue_digest(
    session: Session, player: Player, games: Sequence[PlayerGame]
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
