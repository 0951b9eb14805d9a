"""The pages behind the links in emails: confirm an address, unsubscribe, mute a game, refuse
invitations. GET and HEAD only show a page with a button (mail scanners open every link); the
POST acts, with no further question: that is RFC 8058's one-click unsubscribe, which mail
programs send as ``List-Unsubscribe=One-Click``. Each POST can be repeated without harm.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import Blueprint, render_template, request
from sqlmodel import Session

from service import store
from service.db import session_scope
from service.mail import addresses
from service.mail.models import AddressStatus
from service.mail.signed import MailPurpose, MailToken, read_token
from service.models import Player
from service.refusal import Refusal

bp = Blueprint("mail", __name__, url_prefix="/mail")


class UnknownPlayerError(Refusal):
    """A well-signed link for a player who no longer exists."""

    status = 404
    title = "Nothing to change"

    def __init__(self) -> None:
        super().__init__("This link belongs to nobody known here any more. Nothing was changed.")


@dataclass(frozen=True)
class ActionPage:
    """The words of one action's page before and after the button."""

    title: str
    ask: str
    button: str
    done: str
    undo_button: str | None = None
    undone: str | None = None


def _player(session: Session, token: MailToken) -> Player:
    player = session.get(Player, token.player_id)
    if player is None:
        raise UnknownPlayerError()
    return player


def _page(page: ActionPage, *, name: str, done: bool, undone: bool = False) -> str:
    return render_template(
        "mail/action.html",
        page=page,
        action=request.path,
        name=name,
        done=done,
        undone=undone,
    )


# Links of this kind were mailed before games were confirmed one by one (from their private
# page): they confirm the address and nothing more. No invitation goes out from here: it would
# send games that strangers started in this address's name.
CONFIRM = ActionPage(
    title="Confirm your address",
    ask="Press the button to confirm that this is your address.",
    button="Confirm my address",
    done="Your address is confirmed. To send a game's invitation, open the game's private page "
    "from the email we sent about it and press \"Send the invitation\".",
)


@bp.get("/confirm/<token>")
def confirm(token: str) -> str:
    mail_token = read_token(MailPurpose.CONFIRM_ADDRESS, token)
    with session_scope() as session:
        player = _player(session, mail_token)
        assert player.id is not None
        done = addresses.is_confirmed(session, player.id)
    return _page(CONFIRM, name=player.display_name, done=done)


@bp.post("/confirm/<token>")
def confirm_post(token: str) -> str:
    mail_token = read_token(MailPurpose.CONFIRM_ADDRESS, token)
    with session_scope() as session:
        player = _player(session, mail_token)
        assert player.id is not None
        addresses.confirm(session, player.id)
    return _page(CONFIRM, name=player.display_name, done=True)


UNSUBSCRIBE = ActionPage(
    title="Unsubscribe",
    ask="Press the button and we send you no more email: no invitations, no turns, no reminders. "
    "Your games go on; open them from your private pages.",
    button="Unsubscribe",
    done="You are unsubscribed: we send you no more email.",
    undo_button="Send me email again",
    undone="You get email from us again.",
)


@bp.get("/unsubscribe/<token>")
def unsubscribe(token: str) -> str:
    mail_token = read_token(MailPurpose.UNSUBSCRIBE, token)
    with session_scope() as session:
        player = _player(session, mail_token)
        status = session.get(AddressStatus, player.id)
        done = status is not None and status.unsubscribed_at is not None
    return _page(UNSUBSCRIBE, name=player.display_name, done=done)


@bp.post("/unsubscribe/<token>")
def unsubscribe_post(token: str) -> str:
    mail_token = read_token(MailPurpose.UNSUBSCRIBE, token)
    undo = request.form.get("undo") == "1"
    with session_scope() as session:
        player = _player(session, mail_token)
        assert player.id is not None
        addresses.set_unsubscribed(session, player.id, not undo)
    return _page(UNSUBSCRIBE, name=player.display_name, done=not undo, undone=undo)


MUTE = ActionPage(
    title="Mute this game",
    ask="Press the button and we send you no more email about this game. The game goes on: "
    "open it from your private page.",
    button="Mute this game",
    done="This game is muted: no more email about it.",
    undo_button="Email me about this game again",
    undone="You get email about this game again.",
)


@bp.get("/mute/<token>")
def mute(token: str) -> str:
    mail_token = read_token(MailPurpose.MUTE_GAME, token)
    assert mail_token.game_id is not None
    with session_scope() as session:
        player = _player(session, mail_token)
        store.get_game(session, mail_token.game_id)
        assert player.id is not None
        done = addresses.is_game_muted(session, player.id, mail_token.game_id)
    return _page(MUTE, name=player.display_name, done=done)


@bp.post("/mute/<token>")
def mute_post(token: str) -> str:
    mail_token = read_token(MailPurpose.MUTE_GAME, token)
    assert mail_token.game_id is not None
    undo = request.form.get("undo") == "1"
    with session_scope() as session:
        player = _player(session, mail_token)
        store.get_game(session, mail_token.game_id)
        assert player.id is not None
        addresses.set_game_muted(session, player.id, mail_token.game_id, not undo)
    return _page(MUTE, name=player.display_name, done=not undo, undone=undo)


REFUSE = ActionPage(
    title="Refuse all invitations",
    ask="Press the button and nobody can invite you to a game here any more.",
    button="Refuse all invitations",
    done="Nobody can invite you here any more.",
    undo_button="Accept invitations again",
    undone="People can invite you again.",
)


@bp.get("/refuse-invitations/<token>")
def refuse_invitations(token: str) -> str:
    mail_token = read_token(MailPurpose.REFUSE_INVITATIONS, token)
    with session_scope() as session:
        player = _player(session, mail_token)
        status = session.get(AddressStatus, player.id)
        done = status is not None and status.refuses_invitations_at is not None
    return _page(REFUSE, name=player.display_name, done=done)


@bp.post("/refuse-invitations/<token>")
def refuse_invitations_post(token: str) -> str:
    mail_token = read_token(MailPurpose.REFUSE_INVITATIONS, token)
    undo = request.form.get("undo") == "1"
    with session_scope() as session:
        player = _player(session, mail_token)
        assert player.id is not None
        addresses.set_refuses_invitations(session, player.id, not undo)
    return _page(REFUSE, name=player.display_name, done=not undo, undone=undo)
