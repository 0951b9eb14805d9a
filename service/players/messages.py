"""Messages with moves: what a player says to the other seats with a move (a field of the move
forms, or the words of a reply that are no move), stored with the move and shown only to the
game's seats: on their private pages and in their next email, never on a public page or record.

Who reads what: a player with messages turned off reads none and sends none; a muted player's
messages are not shown to whoever muted them (in every game); nothing passes either way between
two players while either blocks the other (``service.players.blocks``); a message an operator
hid is shown to nobody; a suspended player sends none (``service.players.moderation``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import BindParameter, CompoundSelect, bindparam, literal, null, union_all
from sqlalchemy import select as rows_of
from sqlmodel import Session, col, or_, select

from service.catalogue import lazy_gettext
from service.db import added_once, read_rows
from service.models import Player, Seat
from service.players.models import MESSAGE_MAX_CHARS, Block, GameMessage, MessageReport, Mute
from service.refusal import Refusal

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""Control characters but the tab and the line feed: never part of a message."""
_INVISIBLE_FORMATS = ("Cf",)
"""Unicode format characters (right-to-left overrides, zero-width joiners): taken out, as they
can make a message read as something else."""


class MessageRefused(Refusal):
    """A message that cannot be sent as written; the move is not played either (on a page)."""

    status = 400
    title = lazy_gettext("This message cannot be sent")


def cleaned_message(text: str) -> str:
    """``text`` as a message is kept: line ends as ``\\n``, control and format characters out,
    spaces at both ends off. Raises MessageRefused when it is longer than ``MESSAGE_MAX_CHARS``."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ")
    text = _CONTROL.sub("", text)
    text = "".join(c for c in text if unicodedata.category(c) not in _INVISIBLE_FORMATS)
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    if len(text) > MESSAGE_MAX_CHARS:
        raise MessageRefused(
            lazy_gettext(
                "Your message is %(count)d characters long; a message may have at most "
                "%(most)d. Nothing was played: shorten it and send the move again.",
                count=len(text),
                most=MESSAGE_MAX_CHARS,
            )
        )
    return text


def may_send(player: Player) -> bool:
    """Whether ``player``'s messages are kept at all (not turned off, not suspended)."""
    return not player.messages_off and player.suspended_at is None


def save_message(
    session: Session, game_id: int, seat: Seat, player: Player, ply: int, body: str
) -> GameMessage | None:
    """Keep what ``seat`` said with its move made at ``ply``, in the caller's transaction (the
    move's). None when there is nothing to keep: no words, messages off, a suspended player, or
    the same move's message kept already (a move is made once, so is its message)."""
    assert player.id is not None
    if not body or not may_send(player):
        return None
    message = GameMessage(
        game_id=game_id, seat=seat.letter, player_id=player.id, ply=ply, body=body
    )
    return message if added_once(session, message) else None


@dataclass(frozen=True, slots=True)
class ShownMessage:
    """A message as one reader of the game sees it."""

    id: int
    seat: str
    """The seat that said it (its name comes from ``seat_names``)."""
    ply: int
    body: str
    """Plain text: templates escape it, and no link in it is made clickable."""
    mine: bool


_MESSAGE_COLUMNS = (
    col(GameMessage.id),
    col(GameMessage.player_id),
    col(GameMessage.seat),
    col(GameMessage.ply),
    col(GameMessage.body),
)


def _talk_statement(*, among_others: bool) -> CompoundSelect[Any]:
    """A game's messages from a ply on that no operator hid, the reader's mutes and the blocks
    between the reader and others either way, in one statement; ``among_others``: only the
    mutes and blocks of the players bound as ``others``."""
    reader: BindParameter[int] = bindparam("reader")
    mutes = col(Mute.muter_id) == reader
    made = col(Block.blocker_id) == reader
    suffered = col(Block.blocked_id) == reader
    if among_others:
        others: BindParameter[list[int]] = bindparam("others", expanding=True)
        mutes &= col(Mute.muted_id).in_(others)
        made &= col(Block.blocked_id).in_(others)
        suffered &= col(Block.blocker_id).in_(others)
    return union_all(
        rows_of(literal("message"), *_MESSAGE_COLUMNS).where(
            col(GameMessage.game_id) == bindparam("game_id"),
            col(GameMessage.ply) >= bindparam("since_ply"),
            col(GameMessage.hidden_at).is_(None),
        ),
        rows_of(literal("mute"), col(Mute.muted_id), literal(0), null(), null(), null()).where(
            mutes
        ),
        rows_of(
            literal("block"), col(Block.blocker_id), col(Block.blocked_id), null(), null(), null()
        ).where(or_(made, suffered)),
    )


# Statements are built once: building one costs more than running it.
_GAME_TALK = _talk_statement(among_others=True)
"""For a private page, which reads all three on every load and knows the game's players."""
_READERS_TALK = _talk_statement(among_others=False)
"""For an email's quotes: every mute and block of the reader."""


@dataclass(frozen=True)
class GameTalk:
    """What a reader may read of a game's messages, and how they stand towards its players."""

    messages: tuple[ShownMessage, ...]
    muted: frozenset[int]
    """The other players the reader muted."""
    blocks: tuple[tuple[int, int], ...]
    """(blocker, blocked) pairs between the reader and the other players, either way."""


def game_talk(session: Session, game_id: int, reader: Player, others: Collection[int]) -> GameTalk:
    """The game's messages ``reader`` may read, oldest first, and their standing towards
    ``others`` (the game's other players), in one query."""
    assert reader.id is not None
    params = {"game_id": game_id, "since_ply": 0, "reader": reader.id, "others": list(others)}
    return _talk(read_rows(session, _GAME_TALK, params).all(), reader)


def messages_for(
    session: Session,
    game_id: int,
    reader: Player,
    *,
    since_ply: int = 0,
    others_only: bool = False,
) -> list[ShownMessage]:
    """The game's messages that ``reader`` may read, oldest first, from ``since_ply`` on, in one
    query."""
    assert reader.id is not None
    if reader.messages_off:
        return []
    params = {"game_id": game_id, "since_ply": since_ply, "reader": reader.id}
    rows = read_rows(session, _READERS_TALK, params).all()
    return list(_talk(rows, reader, others_only=others_only).messages)


def _talk(rows: Sequence[Sequence[Any]], reader: Player, *, others_only: bool = False) -> GameTalk:
    """The rows of a ``_talk_statement`` as the reader stands: the messages they read, oldest
    first (none with their messages off); ``others_only``: none of their own."""
    assert reader.id is not None
    muted = frozenset(row[1] for row in rows if row[0] == "mute")
    blocks = tuple((row[1], row[2]) for row in rows if row[0] == "block")
    said = sorted((row[1:] for row in rows if row[0] == "message"), key=lambda m: (m[3], m[0]))
    if reader.messages_off:
        return GameTalk((), muted, blocks)
    shown = _readable(said, reader.id, muted, blocks, others_only=others_only)
    return GameTalk(tuple(shown), muted, blocks)


def _readable(
    rows: Iterable[Sequence[Any]],
    reader_id: int,
    muted: Collection[int],
    blocks: Sequence[tuple[int, int]],
    *,
    others_only: bool,
) -> Iterator[ShownMessage]:
    """The messages of ``rows`` (``_MESSAGE_COLUMNS``) that the reader reads: none of the players
    they muted, none across a block, either way."""
    silenced = set(muted) | {p for pair in blocks for p in pair if p != reader_id}
    for message_id, player_id, seat, ply, body in rows:
        mine = player_id == reader_id
        if (mine and others_only) or (not mine and player_id in silenced):
            continue
        yield ShownMessage(message_id, seat, ply, body, mine)


def mute(session: Session, muter_id: int, muted_id: int) -> bool:
    """``muter_id`` reads no more messages of ``muted_id``; False when they had muted them."""
    if muter_id == muted_id:
        return False
    found = session.exec(
        select(Mute.id).where(col(Mute.muter_id) == muter_id, col(Mute.muted_id) == muted_id)
    ).first()
    if found is not None:
        return False
    return added_once(session, Mute(muter_id=muter_id, muted_id=muted_id))


def unmute(session: Session, muter_id: int, muted_id: int) -> bool:
    row = session.exec(
        select(Mute).where(col(Mute.muter_id) == muter_id, col(Mute.muted_id) == muted_id)
    ).first()
    if row is None:
        return False
    session.delete(row)
    return True


class NotYoursToReport(Refusal):
    status = 404
    title = lazy_gettext("This message cannot be reported")
    message = lazy_gettext("There is no message of another player by that number in this game.")


def report_message(session: Session, game_id: int, message_id: int, reporter: Player) -> bool:
    """Keep ``reporter``'s report of a message another seat sent them in this game; False when
    they reported it already. Raises NotYoursToReport for any other message."""
    assert reporter.id is not None
    if not 0 < message_id < 2**31:  # beyond any id, and beyond PostgreSQL's integer
        raise NotYoursToReport()
    message = session.get(GameMessage, message_id)
    if message is None or message.game_id != game_id or message.player_id == reporter.id:
        raise NotYoursToReport()
    found = session.exec(
        select(MessageReport.id).where(
            col(MessageReport.message_id) == message_id,
            col(MessageReport.reporter_id) == reporter.id,
        )
    ).first()
    if found is not None:
        return False
    return added_once(session, MessageReport(message_id=message_id, reporter_id=reporter.id))
