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
from service.games.move_log import LogEntry, moves_from
from service.games.rows import get_game
from service.games.seats import seats_of
from service.games.series import score_of_game, series_goal
from service.links import external_url, private_page_url
from service.models import Game, GameStatus, Player, Seat
from service.outbox.kinds import MailKind
from service.outbox.models import OutboxMessage
from service.outbox.notice_days import first_today
from service.outbox.queue import queue_email
from service.present.board import board_of
from service.present.choices import MoveChoices, move_choices
from service.present.claims import (
    ClaimExplained,
    claims_in_log,
    claims_now,
    deciding_flags,
    final_claims,
)
from service.present.emails import game_facts
from service.present.game_lists import PlayerGame, player_games
from service.present.move_links import move_link_urls
from service.present.move_list import by_turn, log_rows
from service.present.plain_text import (  # card_text: also imported from here by others
    board_lines,
    card_text,  # noqa: F401
    legend,
    move_code_lines,
    pieces_text,
    wrap,
)
from service.present.summaries import in_words
from service.present.tactics_choices import (
    HeldTactics,
    TacticsOffer,
    held_tactics,
    tactics_offers,
)
from service.present.words import with_cards
from service.templating import card_face


@dataclass(frozen=True)
class MadeClaim:
    """A claim the server made for a player at the start of their turn, with the proof."""

    flag: int
    reason: str
    explained: ClaimExplained | None = None
    """The proof in fields (``service.present.claims``), when the caller has it."""


# --- pieces of context -------------------------------------------------------------------------


OTHERS_TURNS_ENTRIES = 60
"""The others' last turns end at most this many log entries back."""


def others_turns(
    session: Session,
    game: Game,
    state: engine.GameState,
    seat: str,
    names: dict[str, str],
    entries: Sequence[LogEntry] | None = None,
) -> list[dict[str, Any]]:
    """What the others did since ``seat`` last moved, turn by turn (``move_list.by_turn``), each
    entry in words and public notation, each claim with why it held (the one who lost the flag
    reads why). The claims made for ``seat`` at this start are left out (said apart).
    ``entries``: the last ``OTHERS_TURNS_ENTRIES`` of the log up to ``state``, when the caller
    has read them."""
    assert game.id is not None
    if entries is None:
        entries = moves_from(session, game.id, max(0, state.ply - OTHERS_TURNS_ENTRIES), state.ply)
    rows = log_rows(entries, state.ruleset, names, reader=seat, finished=False, after=state)
    groups = by_turn(rows)
    while groups and groups[-1]["seat"] == seat:
        groups.pop()
    start = len(groups)
    while start > 0 and groups[start - 1]["seat"] != seat:
        start -= 1
    turns = groups[start:]
    wanted = {row["number"] - 1 for group in turns for row in group["rows"]}
    claims = claims_in_log(session, game, [e for e in entries if e.ply in wanted])
    for group in turns:
        for row in group["rows"]:
            explained = claims.get(row["number"] - 1)
            why = explained.words(names, seat) if explained else None
            row["lines"] = wrap(
                f"{pieces_text(row['words'])} [{row['notation']}]", "    ", "      "
            )
            row["why"] = why
            why_text = f"Why: {pieces_text(why, codes=True)}" if why else ""
            row["why_lines"] = wrap(why_text, "      ") if why else []
    return turns


def board_rows(
    view: engine.PublicView, names: dict[str, str], reader: str | None
) -> list[dict[str, Any]]:
    """The line of flags as ``reader`` sees it (None: the public), as on the pages: in rows of
    one pair of seats each (the whole line with two players, the three rows of the ring with
    three), at each flag the other seat's cards on the left and the reader's on the right, the
    environment cards and who holds it."""
    labels = seat_labels(view, names, reader)
    groups = []
    for row in board_of(view, reader).rows:
        flags = []
        for drawn in row.flags:
            holder = drawn.flag.claimed_by
            flags.append(
                {
                    "flag": drawn.flag.number,
                    "left": list(drawn.left_cards),
                    "right": list(drawn.right_cards),
                    "env": sorted(env.card for env in drawn.flag.env),
                    "held_by": None
                    if holder is None
                    else "you"
                    if holder == reader
                    else labels[holder],
                    "held_by_left": holder is not None and holder == row.left,
                }
            )
        groups.append(
            {
                "left_name": labels[row.left],
                "right_name": labels[row.right],
                "flags": flags,
                "first": row.first,
                "last": row.last,
            }
        )
    return groups


def seat_labels(
    view: engine.PublicView, names: dict[str, str], reader: str | None
) -> dict[str, str]:
    """The name over each side of the board: the players' names, and "You" for the reader."""
    return {
        **{seat: names.get(seat, seat) for seat in view.seats},
        **({reader: "You"} if reader else {}),
    }


def move_link_groups(
    seat_row: Seat,
    choices: MoveChoices,
    ply: int,
    offers: Sequence[TacticsOffer] = (),
    held: Sequence[HeldTactics] = (),
) -> dict[str, Any]:
    """The seat's grouped legal moves (``service.present.choices``), each with its link and its
    code (to reply with): a card, then the flags it may go to; claims, discards, a pass and the
    draws on their own; the Scout, Redeploy, Deserter and Traitor (``offers``) per card they act
    on, then where it may go; the tactics cards a limit keeps in the hand (``held``), and why."""
    urls = move_link_urls(seat_row, ply, choices.count)
    others = [choices.passing] if choices.passing else []
    others += [*choices.scout_draws, *choices.draws, *([choices.end] if choices.end else [])]
    return {
        "plays": [
            {
                "card": group.card,
                "text": card_face(group.card).label,
                "flags": [
                    {"flag": c.flag, "url": urls[c.index], "code": c.code} for c in group.choices
                ],
            }
            for group in choices.plays
        ],
        "then": [c.code for c in choices.then],
        "claims": [{"flag": c.flag, "url": urls[c.index], "code": c.code} for c in choices.claims],
        "discards": [
            {
                "card": c.card,
                "text": card_face(c.card or "").label,
                "flag": c.source,
                "url": urls[c.index],
                "code": c.code,
            }
            for c in choices.discards
        ],
        "others": [
            {
                "label": "Pass (you cannot play a troop card)"
                if c is choices.passing
                else pieces_text(c.words),
                "url": urls[c.index],
                "code": c.code,
            }
            for c in others
        ],
        "tactics": [
            {
                "card": offer.card,
                "what": offer.what,
                "code_form": offer.code_form,
                "targets": [
                    {
                        "card": target.card,
                        "flag": target.flag,
                        "choices": [
                            {"label": label, "url": urls[c.index], "code": c.code}
                            for label, c in target.choices
                        ],
                    }
                    for target in offer.targets
                ],
            }
            for offer in offers
        ],
        "held": [{"cards": list(hold.cards), "why": hold.why} for hold in held],
    }


def _claim_context(
    flag: int,
    reason: str,
    explained: ClaimExplained | None,
    names: dict[str, str],
    reader: str,
    ruleset: engine.Ruleset,
) -> dict[str, Any]:
    """A claim for the emails: why it held, said to ``reader`` (the engine's sentence when the
    proof's fields are not at hand)."""
    pieces = explained.words(names, reader) if explained else with_cards(reason, ruleset)
    return {
        "flag": flag,
        "reason_pieces": pieces,
        "reason_lines": wrap(f"Flag {flag}: {pieces_text(pieces, codes=True)}", "  - ", "    "),
    }


def _seat_and_player(session: Session, game: Game, seat: str) -> tuple[Seat, Player]:
    assert game.id is not None
    return seats_of(session, game.id)[seat]


def _names(session: Session, game: Game) -> dict[str, str]:
    assert game.id is not None
    return {s: p.display_name for s, (_, p) in seats_of(session, game.id).items()}


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
    """Tell the player to move that it is their turn: what the others did (and why each claim
    held), the board, the hand, every legal move with its code to reply with (plain text) and
    its link (HTML), and one link to the private page."""
    assert game.id is not None and state.result is None
    seat = state.to_move
    seat_row, player = _seat_and_player(session, game, seat)
    names = _names(session, game)
    seen = engine.player_view(state, seat)
    opponents = in_words([names[s] for s in seen.opponents])
    advanced = not seen.claims_after_play
    provable = claims_now(state, seat) if advanced and not automatic_claims else {}
    choices = move_choices(state, seat)
    offers = tactics_offers(choices, seen, opponents)
    held = held_tactics(seen, names)
    labels = seat_labels(seen, names, seat)
    context = {
        **game_facts(game),
        "seat": seat,
        "names": names,
        "opponent_name": opponents,
        "others_turns_title": f"{opponents}'s last turn"
        if len(seen.opponents) == 1
        else f"Since your last turn ({opponents})",
        "opponents": [{"name": names[s], "flags_held": seen.flags_held[s]} for s in seen.opponents],
        "turn": state.turn,
        "others_turns": others_turns(session, game, state, seat, names),
        "claims_made": [
            _claim_context(c.flag, c.reason, c.explained, names, seat, state.ruleset)
            for c in claims_made
        ],
        "automatic_claims": automatic_claims and advanced,
        "advanced": advanced,
        "provable": [
            _claim_context(flag, "", claim, names, seat, state.ruleset)
            for flag, claim in provable.items()
        ],
        "board": board_rows(seen, names, seat),
        "board_lines": board_lines(board_of(seen, seat), labels, seat),
        "legend": legend(state.ruleset.colors),
        "hand": list(seen.hand),
        "hand_lines": wrap("Your hand: " + (" ".join(seen.hand) or "no cards"), "", "  "),
        "flags_held": dict(seen.flags_held),
        "decks": dict(seen.decks),
        "deadline": game.deadline,
        "vacation_left": vacation_left(game, seat_row),
        "links": move_link_groups(seat_row, choices, state.ply, offers, held),
        "code_lines": move_code_lines(choices, offers, held),
        # The example of a whole turn in one reply: one of the reader's own moves (a made-up
        # card could be another seat's).
        "example": " ".join(
            [c.code for c in [*choices.plays[0].choices[:1], *choices.then[:1]]]
            if choices.plays
            else [c.code for c in choices.links[:1]]
        ),
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
    seats = seats_of(session, game.id)
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
    for letter, (seat_row, player) in sorted(seats_of(session, game.id).items()):
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
        what = "A vacation day used" if days_used == 1 else f"{days_used} vacation days used"
        if lost:
            what = "You lost on time" if letter == late_seat else "Your opponent lost on time"
        row = queue_email(
            session, MailKind.TIMEOUT_NOTICE, player, game=game, subject=what, context=context
        )
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


def queue_game_over(
    session: Session,
    game: Game,
    state: engine.GameState,
    *,
    following: Game | None = None,
) -> list[OutboxMessage]:
    """Tell every player the result: flags, points (R23), the revealed seed (R3), the history
    and a link to play again (the new-game form filled with the same players). In a series:
    its score, and the next game (``following``, dealt already) or the series' end."""
    assert game.id is not None and state.result is not None
    seats = seats_of(session, game.id)
    series = series_context(session, game, following)
    names = {s: p.display_name for s, (_, p) in seats.items()}
    seen = engine.spectator_view(state)
    points = engine.series_points(state)
    held: dict[str, list[int]] = {s: [] for s in names}
    for flag in seen.flags:
        if flag.claimed_by in held:
            held[flag.claimed_by].append(flag.number)
    # The last entries: the last made it (a resignation names the leaver), and the claims of
    # the last turn, the one that ended the game among them, and why each held.
    recent = moves_from(session, game.id, max(0, state.ply - 12), state.ply)
    leaver = recent[-1].seat if recent else None
    ending = final_claims(session, game, recent)
    deciding = deciding_flags(seen, state.result)
    queued = []
    for letter, (seat_row, player) in seats.items():
        # "Play again": a rematch offered from this seat's own link; the others follow it in
        # turn order.
        at = seen.seats.index(letter)
        others = [seats[s][1] for s in (seen.seats[at + 1 :] + seen.seats[:at])]
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
            "turns": state.turn,
            "deciding": list(deciding),
            "deciding_text": in_words([str(flag) for flag in deciding]),
            "final_claims": [
                _claim_context(c.flag, "", c, names, letter, state.ruleset) for c in ending
            ],
            "board": board_rows(seen, names, letter),
            "board_lines": board_lines(
                board_of(seen, letter), seat_labels(seen, names, letter), letter
            ),
            "legend": legend(state.ruleset.colors),
            "seed": game.seed,
            "history_url": external_url("history.public_page", public_id=game.public_id),
            "record_url": external_url("history.record", public_id=game.public_id),
            # A rematch from the seat's own link: the others get their invitations at once.
            "play_again_url": f"{private_page_url(seat_row)}/rematch",
            "play_again_with": in_words([other.display_name for other in others]),
            "players_text": in_words(list(names.values())),
            "private_url": private_page_url(seat_row),
            "series": None,
        }
        if series is not None:
            # ``series`` is shared by every seat: read this seat's next link, change nothing.
            next_seat = series["next_seats"].get(letter)
            context["series"] = {
                **{key: value for key, value in series.items() if key != "next_seats"},
                "next_url": private_page_url(next_seat) if next_seat is not None else None,
            }
        winner = state.result.winner
        if winner is None:
            what = "Game over, a draw" if letter in state.result.draw_between else "Game over"
        else:
            what = "Game over, you won" if winner == letter else "Game over, you lost"
        row = queue_email(
            session, MailKind.GAME_OVER, player, game=game, subject=what, context=context
        )
        if row is not None:
            queued.append(row)
    return queued


def series_context(session: Session, game: Game, following: Game | None) -> dict[str, Any] | None:
    """What a game-over email says of the series the game belongs to (None: a single game)."""
    score = score_of_game(session, game)
    if score is None:
        return None
    series = score.series
    assert game.id is not None
    names = {s: p.display_name for s, (_, p) in seats_of(session, game.id).items()}
    next_seats: dict[str, Seat] = {}
    first_name = None
    if following is not None and following.id is not None and following.deal is not None:
        next_seats = {s: seat for s, (seat, _) in seats_of(session, following.id).items()}
        first_name = names.get(following.deal["first"])
    return {
        "number": score.finished_games,
        "goal": series_goal(series),
        "totals": [(names[s], p) for s, p in score.totals.items()],
        "over": score.over,
        "left_by": names.get(series.left_by) if series.left_by else None,
        "winner_name": names[score.winner] if score.winner else None,
        "first_name": first_name,
        "page_url": external_url("history.series_page", public_id=series.public_id),
        "next_seats": next_seats,
    }


def queue_digest(
    session: Session, player: Player, games: Sequence[PlayerGame]
) -> OutboxMessage | None:
    """The daily digest: each game where it is ``player``'s turn, with its private page."""
    count = len(games)
    return queue_email(
        session,
        MailKind.DIGEST,
        player,
        subject=f"Your turn in {count} game{'s' if count != 1 else ''}: Battle Line by mail",
        context={
            "games": list(games),
            "my_games_request_url": external_url("history.my_games_request"),
        },
    )


def queue_seat_unreachable(session: Session, player_id: int, why: str) -> list[OutboxMessage]:
    """Tell the other seats of every running game of ``player_id`` that its address no longer
    takes our email (``why``: "unsubscribed" or "bouncing"): the game goes on, the player can
    still play from the private page, and the deadlines still count. The address's
    ``service.outbox.addresses`` listener, in the transaction that records it."""
    player = session.get(Player, player_id)
    if player is None:
        return []
    queued = []
    for listed in player_games(session, player):
        if listed.status != GameStatus.ACTIVE:
            continue
        game = get_game(session, listed.game_number)
        assert game.id is not None
        for letter, (seat_row, other) in seats_of(session, game.id).items():
            assert other.id is not None
            if other.id == player_id:
                continue
            # The player may unsubscribe and undo at will: their opponents hear of it once a day.
            if not first_today(session, MailKind.SEAT_UNREACHABLE, other.id, game.id):
                continue
            context = {
                **game_facts(game),
                "name": player.display_name,
                "why": why,
                "to_move": listed.to_move == listed.seat,
                "deadline": game.deadline,
                "private_url": private_page_url(seat_row),
                "seat": letter,
            }
            row = queue_email(session, MailKind.SEAT_UNREACHABLE, other, game=game, context=context)
            if row is not None:
                queued.append(row)
    return queued
