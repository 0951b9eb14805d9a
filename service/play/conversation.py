"""The game's conversation on a seat's private page: the message field of the move forms, the
messages the seat may read, and the player's choices about them (messages on or off, the other
players muted or not, a message reported to the operator). Every change is a POST.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from flask import redirect, request, url_for
from flask_babel import LazyString
from sqlmodel import Session
from werkzeug.wrappers import Response

from service import tokens
from service.catalogue import lazy_gettext
from service.db import session_scope
from service.games.loaded import LoadedGame
from service.games.seats import seat_for_token
from service.models import Player, Seat
from service.play import bp
from service.players.blocks import block, unblock
from service.players.messages import (
    MessageRefused,
    ShownMessage,
    cleaned_message,
    game_talk,
    mute,
    report_message,
    save_message,
    unmute,
)
from service.present.seat_names import people_besides


def message_field() -> str:
    """The message sent with a move form, cleaned (``cleaned_message``); "" when none. Raises
    MessageRefused: the move is not played either."""
    values = request.form.getlist("message")
    if len(values) > 1:
        raise MessageRefused(lazy_gettext("The form sent more than one message; it takes one."))
    return cleaned_message(values[0]) if values else ""


def keep_message(session: Session, loaded: LoadedGame, seat: Seat, ply: int, body: str) -> None:
    """Keep ``body`` as what ``seat`` says with its move at ``ply``, in the move's transaction
    (before the move, so that the emails the move brings about carry it). Against the computer
    alone nothing is kept: the page offers no message there."""
    if not body or not people_besides(loaded.seats, seat.letter):
        return
    player = loaded.seats[seat.letter][1]
    save_message(session, loaded.id, seat, player, ply, body)


@dataclass(frozen=True, slots=True)
class Conversation:
    """What the private page shows of the game's messages, and the reader's choices."""

    messages: tuple[ShownMessage, ...]
    messages_off: bool
    muted: bool
    """Whether the reader muted every other player of the game."""
    blocking: bool
    """Whether the reader blocks every other player of the game."""
    named_seats: frozenset[str] = frozenset()
    """The seats whose players chose a public name: beside their messages it links to their
    page (``/players/<name>``), so a name typed inside a message is never taken for theirs."""

    @property
    def version(self) -> tuple[object, ...]:
        """What changes the page when it changes (its ETag)."""
        return (
            tuple(m.id for m in self.messages),
            self.messages_off,
            self.muted,
            self.blocking,
            tuple(sorted(self.named_seats)),
        )


def conversation(session: Session, loaded: LoadedGame, seat: str) -> Conversation | None:
    """The game's messages as ``seat`` reads them, and its choices about them; None when no
    other seat is a person's."""
    if not people_besides(loaded.seats, seat):
        return None
    seats = loaded.seats
    reader = seats[seat][1]
    assert reader.id is not None
    others = {
        p.id
        for letter, (_, p) in seats.items()
        if letter != seat and p.id is not None and p.id != reader.id
    }
    talk = game_talk(session, loaded.id, reader, others)
    blocked = {blocked for blocker, blocked in talk.blocks if blocker == reader.id}
    return Conversation(
        messages=talk.messages,
        messages_off=reader.messages_off,
        muted=bool(others) and others <= talk.muted,
        blocking=bool(others) and others <= blocked,
        named_seats=frozenset(
            letter
            for letter, (_, player) in seats.items()
            if player.name_key is not None and player.closed_at is None
        ),
    )


def _reader(session: Session, token: str) -> tuple[LoadedGame, Seat, Player]:
    loaded, seat = seat_for_token(session, tokens.read_private_token(token), lock=False)
    return loaded, seat, loaded.seats[seat.letter][1]


def _towards_the_others(token: str, choice: Callable[[Session, int, int], bool]) -> None:
    """``choice(session, reader, other)`` for every other player of the token's game (the
    reader's mute or block of each, or its end)."""
    with session_scope() as session:
        loaded, seat, player = _reader(session, token)
        assert player.id is not None
        for letter, (_, other) in loaded.seats.items():
            if letter != seat.letter and other.id is not None and other.id != player.id:
                choice(session, player.id, other.id)


def _back(token: str) -> Response:
    return redirect(url_for("play.private_page", token=token) + "#conversation", code=303)


def _switched_on(field: str, refusal: LazyString) -> bool:
    """Whether the form's switch ``field`` says "on" rather than "off". Raises MessageRefused
    saying ``refusal`` when it says neither."""
    wanted = request.form.get(field, "")
    if wanted not in ("on", "off"):
        raise MessageRefused(refusal)
    return wanted == "on"


@bp.post("/p/<token>/messages")
def messages_choice(token: str) -> Response:
    """Messages on or off for this player, in all their games."""
    on = _switched_on("messages", lazy_gettext("Choose whether messages are on or off."))
    with session_scope() as session:
        _game, _seat, player = _reader(session, token)
        player.messages_off = not on
    return _back(token)


@bp.post("/p/<token>/mute")
def mute_choice(token: str) -> Response:
    """Mute (or unmute) the other players of this game, in every game: their messages are not
    shown to this player; they are not told."""
    on = _switched_on("mute", lazy_gettext("Choose whether to mute or unmute."))
    _towards_the_others(token, mute if on else unmute)
    return _back(token)


@bp.post("/p/<token>/block")
def block_choice(token: str) -> Response:
    """Block (or stop blocking) the other players of this game: while a block stands no message
    passes between them either way, and no challenge or pairing joins them
    (``service.players.blocks``); the game being played goes on."""
    on = _switched_on("block", lazy_gettext("Choose whether to block or unblock."))
    _towards_the_others(token, block if on else unblock)
    return _back(token)


@bp.post("/p/<token>/messages/<int:message_id>/report")
def report(token: str, message_id: int) -> Response:
    """Report a message another player of this game sent: kept for the operator (``flask
    moderation reports``). Reporting it again changes nothing."""
    with session_scope() as session:
        loaded, _seat, player = _reader(session, token)
        report_message(session, loaded.id, message_id, player)
    return _back(token)
