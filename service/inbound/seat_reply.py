"""A reply from a seat's own address (``service.inbound.receive``, step 5): its words read
against the position of the email it answers, then played with a receipt, held for the owner's
confirmation when its sender was not authenticated, or answered with why not.

Everything said back is in the player's language (``reply_language``): the reading's reasons,
the answer's words and its templates."""

from __future__ import annotations

import email.message
from datetime import datetime

from sqlmodel import Session, col, select

import engine
from service.games.loaded import LoadedGame
from service.games.state import MAX_MOVES_PER_CALL, apply_to_locked, load_state
from service.i18n import LANGUAGE_CODES, checked_language, recipient_language
from service.inbound import confirm, headers, loops
from service.inbound.authentication import Verdict
from service.inbound.outcomes import Outcome, Received
from service.inbound.reply_text import as_typed, words_to_read
from service.inbound_models import InboundMessage
from service.models import Game, GameStatus, Player, Seat
from service.outbox.kinds import MailKind
from service.outbox.models import OutboxMessage
from service.outbox.queue import game_subject
from service.players.messages import MessageRefused, cleaned_message, save_message
from service.players.models import MESSAGE_MAX_CHARS
from service.present.reply_answers import queue_receipt, queue_refusal
from service.present.reply_chat import chat_message
from service.present.reply_japanese import is_japanese
from service.present.reply_reading import Reading, names_a_move, read_turn
from service.present.seat_names import people_besides
from service.present.translated import _


def our_subjects(session: Session, game: Game) -> list[str]:
    """The phrases of our own subjects in this game, which a reply's Subject repeats: the game's
    part and each kind's head, in every language (the player's may have changed since)."""
    phrases: list[str] = []
    for code in LANGUAGE_CODES:
        with recipient_language(code):
            phrases.append(game_subject(session, game))
            phrases += [str(kind.rules.subject) for kind in MailKind if kind.rules.subject]
    return list(dict.fromkeys(phrases))


def answered_ply(
    session: Session, message: email.message.Message, game: Game, player: Player
) -> int | None:
    """The game's ply when the email this message answers was queued: the nearest Message-ID
    it answers (In-Reply-To, then References from the parent back) that is an email of this
    game to this player. None when it answers none of them."""
    ids = headers.answered_ids(message)
    if not ids:
        return None
    rows = session.exec(
        select(OutboxMessage.message_id, OutboxMessage.ply).where(
            col(OutboxMessage.message_id).in_(ids),
            OutboxMessage.game_id == game.id,
            OutboxMessage.player_id == player.id,
            col(OutboxMessage.ply).is_not(None),
        )
    ).all()
    plies = dict(rows)
    for message_id in ids:
        if message_id in plies:
            return plies[message_id]
    return None


def reply_language(player: Player, text: str) -> str | None:
    """The language a reply is answered in: the player's saved one. A player who has chosen
    none and writes in Japanese is answered in Japanese, and Japanese is saved as theirs (their
    emails follow it from now on; docs/translating.md, "Whose language")."""
    if checked_language(player.language) is None and is_japanese(text):
        player.language = "ja"
    return player.language


def _message_of(text: str, reading: Reading, ruleset: engine.Ruleset) -> tuple[str, str | None]:
    """The reply's chat as the message of its moves (``service.present.reply_chat``), and what
    the receipt says of it when it is too long to send: then the message is "" and the moves
    are played all the same (docs/rules.md, "Messages with moves")."""
    said = chat_message(text, reading, ruleset)
    try:
        return cleaned_message(said), None
    except MessageRefused:
        return "", _(
            "Your message was not sent: it has %(count)d characters, and a message may have at "
            "most %(most)d. Your moves were played; send a shorter message with your next move.",
            count=len(said),
            most=MESSAGE_MAX_CHARS,
        )


def play_reply(
    session: Session,
    message: email.message.Message,
    row: InboundMessage,
    loaded: LoadedGame,
    seat: Seat,
    player: Player,
    now: datetime,
    verdict: Verdict,
) -> Received:
    """A reply from the seat's own address: play it, or say why not, in the player's language
    (``reply_language``)."""
    ruleset = engine.get_ruleset(loaded.game.ruleset)
    text = words_to_read(message, ruleset, our_subjects(session, loaded.game))
    with recipient_language(reply_language(player, text)):
        return _play_words(session, message, text, row, loaded, seat, player, now, verdict)


def _play_words(
    session: Session,
    message: email.message.Message,
    text: str,
    row: InboundMessage,
    loaded: LoadedGame,
    seat: Seat,
    player: Player,
    now: datetime,
    verdict: Verdict,
) -> Received:
    game = loaded.game
    assert game.id is not None
    letter = seat.letter
    in_reply_to = headers.own_message_id(message)
    ruleset = engine.get_ruleset(game.ruleset)
    state = load_state(session, loaded) if game.deal is not None else None

    def refuse(outcome: Outcome, reason: str, reading: Reading | None = None) -> Received:
        detail = reading.problem if reading is not None and reading.problem else reason
        assert player.id is not None
        if loops.refusals_paused(session, player.id):  # an auto-responder's loop: no answer
            return Received(outcome, f"{detail} ({loops.NOT_ANSWERED})", game.id, letter)
        answer = queue_refusal(
            session, loaded, state, letter, reason=reason, in_reply_to=in_reply_to,
            written=text, reading=reading,
        )  # fmt: skip
        return Received(outcome, detail, game.id, letter, answer.id if answer else None)

    if state is None or game.status != GameStatus.ACTIVE:
        if not names_a_move(text, ruleset):
            return Received(Outcome.IGNORED, "no move, game not being played", game.id, letter)
        if game.status == GameStatus.FINISHED:
            return refuse(Outcome.REFUSED, _("The game is over."))
        return refuse(Outcome.REFUSED, _("This game has not begun: no card has been dealt yet."))
    ply = answered_ply(session, message, game, player)
    if ply is None:
        return refuse(
            Outcome.REFUSED,
            _(
                "We could not tell which of our emails you answered, so not which moment of "
                "the game you meant. Reply to the latest email of this game."
            ),
        )
    if ply != game.ply:
        if not names_a_move(text, ruleset):
            return Received(Outcome.IGNORED, "no move, in reply to an old email", game.id, letter)
        return refuse(
            Outcome.STALE,
            _(
                "You answered the email of move %(then)d, and the game has moved on since: it "
                "is at move %(now)d now. Replies count only for the moment of the email they "
                "answer. Look at the game as it is now and reply again.",
                then=ply + 1, now=game.ply + 1,
            ),
        )  # fmt: skip
    reading = read_turn(text, state, letter)
    if not reading.playable:
        assert reading.problem is not None
        reason = reading.problem
        if any(part.problem for part in reading.parts):
            # The failing part says why, below: the reason only says what follows from it.
            reason = _("Part of it cannot be played now, so none of it was played.")
        return refuse(Outcome.REFUSED, reason, reading)
    moves = reading.moves
    # Against the computer alone nobody would read a message: none is kept, nor judged.
    said, message_note = (
        _message_of(as_typed(message, text), reading, state.ruleset)
        if people_besides(loaded.seats, letter)
        else ("", None)
    )
    if not verdict.authenticated:
        row.held_message = said or None
        asked = confirm.hold(
            session, loaded, seat, player, row, moves, reason=verdict.reason,
            in_reply_to=in_reply_to,
        )  # fmt: skip
        detail = f"held for confirmation ({verdict.reason})"
        detail += "" if asked else ", owner not asked again"
        return Received(
            Outcome.UNAUTHENTICATED, detail, game.id, letter, asked.id if asked else None
        )
    before = state
    save_message(session, game.id, seat, player, state.ply, said)
    for start in range(0, len(moves), MAX_MOVES_PER_CALL):
        chunk = moves[start : start + MAX_MOVES_PER_CALL]
        state = apply_to_locked(session, loaded, state, letter, state.ply, chunk, now=now)[0]
    answer = queue_receipt(
        session,
        loaded,
        state,
        letter,
        moves,
        before=before,
        notes=reading.notes,
        message_note=message_note,
        in_reply_to=in_reply_to,
    )
    played = ", ".join(m.action_text() for m in moves)
    return Received(
        Outcome.APPLIED, played, game.id, letter, answer.id if answer is not None else None
    )
