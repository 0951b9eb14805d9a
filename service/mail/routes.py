"""The pages behind the links in emails: confirm an address, unsubscribe, mute a game, refuse
invitations. GET and HEAD only show a page with a button (mail scanners open every link); the
POST acts, with no further question: that is RFC 8058's one-click unsubscribe, which mail
programs send as ``List-Unsubscribe=One-Click``. Each POST can be repeated without harm.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from flask import Blueprint, render_template, request
from flask_babel import LazyString
from sqlmodel import Session

from service.catalogue import gettext, lazy_gettext, page_language
from service.db import read_scope, session_scope
from service.games.rows import get_game
from service.i18n import adopt_language
from service.models import AddressStatus, GameStatus, Player
from service.outbox import addresses
from service.outbox.signed import MailPurpose, MailToken, read_token
from service.present.game_lists import player_games
from service.refusal import Refusal
from service.templating import utc_time

bp = Blueprint("mail", __name__, url_prefix="/mail")


class UnknownPlayerError(Refusal):
    """A well-signed link for a player who no longer exists."""

    status = 404
    title = lazy_gettext("Nothing to change")

    def __init__(self) -> None:
        super().__init__(
            lazy_gettext("This link belongs to nobody known here any more. Nothing was changed.")
        )


@dataclass(frozen=True)
class ActionPage:
    """The words of one action's page before and after the button."""

    title: LazyString
    ask: LazyString
    button: LazyString
    done: LazyString
    undo_button: LazyString | None = None
    undone: LazyString | None = None


def _player(session: Session, token: MailToken) -> Player:
    player = session.get(Player, token.player_id)
    if player is None:
        raise UnknownPlayerError()
    return player


def _page(
    page: ActionPage,
    *,
    name: str,
    done: bool,
    undone: bool = False,
    games: Sequence[str] = (),
) -> str:
    return render_template(
        "mail/action.html",
        page=page,
        action=request.path,
        name=name,
        done=done,
        undone=undone,
        games=games,
    )


# Links of this kind were mailed before games were confirmed one by one (from their private
# page): they confirm the address and nothing more. No invitation goes out from here: it would
# send games that strangers started in this address's name.
CONFIRM = ActionPage(
    title=lazy_gettext("Confirm your address"),
    ask=lazy_gettext("Press the button to confirm that this is your address."),
    button=lazy_gettext("Confirm my address"),
    done=lazy_gettext(
        "Your address is confirmed. To send a game's invitation, open the game's private page "
        'from the email we sent about it and press "Send the invitation".'
    ),
)


@bp.get("/confirm/<token>")
def confirm(token: str) -> str:
    mail_token = read_token(MailPurpose.CONFIRM_ADDRESS, token)
    with read_scope() as session:
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
        adopt_language(player, page_language())
    return _page(CONFIRM, name=player.display_name, done=True)


@dataclass(frozen=True)
class Switch:
    """A setting a mail link turns on (the button) or off again (the undo button)."""

    purpose: MailPurpose
    page: ActionPage
    is_on: Callable[[Session, int, int | None], bool]
    """(session, player id, game id) -> whether it is on."""
    turn: Callable[[Session, int, int | None, bool], None]
    """(session, player id, game id, on): turn it on or off."""
    lists_games: bool = False
    """The page lists the player's running games (what the switch means for them)."""


def _address_flag(name: str) -> Callable[[Session, int, int | None], bool]:
    def is_on(session: Session, player_id: int, _game_id: int | None) -> bool:
        status = session.get(AddressStatus, player_id)
        return status is not None and getattr(status, name) is not None

    return is_on


def _muted(session: Session, player_id: int, game_id: int | None) -> bool:
    assert game_id is not None
    return addresses.is_game_muted(session, player_id, game_id)


def _mute(session: Session, player_id: int, game_id: int | None, on: bool) -> None:
    assert game_id is not None
    addresses.set_game_muted(session, player_id, game_id, on)


def _switch_views(switch: Switch) -> tuple[Callable[[str], str], Callable[[str], str]]:
    """The GET view (shows the page and its button) and the POST view (acts, or undoes)."""

    def load(session: Session, token: str) -> tuple[int, int | None, str]:
        mail_token = read_token(switch.purpose, token)
        player = _player(session, mail_token)
        assert player.id is not None
        if mail_token.game_id is not None:
            get_game(session, mail_token.game_id)  # GameNotFoundError: 404
        return player.id, mail_token.game_id, player.display_name

    def show(token: str) -> str:
        with session_scope() as session:
            player_id, game_id, name = load(session, token)
            done = switch.is_on(session, player_id, game_id)
            games = running_games(session, player_id) if switch.lists_games else []
        return _page(switch.page, name=name, done=done, games=games)

    def act(token: str) -> str:
        undo = request.form.get("undo") == "1"
        with session_scope() as session:
            player_id, game_id, name = load(session, token)
            switch.turn(session, player_id, game_id, not undo)
            games = running_games(session, player_id) if switch.lists_games else []
        return _page(switch.page, name=name, done=not undo, undone=undo, games=games)

    return show, act


def running_games(session: Session, player_id: int) -> list[str]:
    """The player's games being played, in words (no link: this page is a mail switch, not a
    way into the games)."""
    player = session.get(Player, player_id)
    if player is None:
        return []
    return [
        str(
            gettext(
                "%(game)s, game %(number)s, against %(opponent)s: your turn, before %(deadline)s",
                game=g.ruleset_title,
                number=g.game_number,
                opponent=g.opponent,
                deadline=utc_time(g.deadline),
            )
            if g.your_turn
            else gettext(
                "%(game)s, game %(number)s, against %(opponent)s: their turn",
                game=g.ruleset_title,
                number=g.game_number,
                opponent=g.opponent,
            )
        )
        for g in player_games(session, player)
        if g.status == GameStatus.ACTIVE
    ]


UNSUBSCRIBE = ActionPage(
    title=lazy_gettext("Unsubscribe"),
    ask=lazy_gettext(
        "Press the button and we send you no more email: no invitations, no turns, no reminders. "
        "Your games do not stop: their deadlines still count. A missed deadline uses one of your "
        "vacation days, and with none left you lose the game on time. Play them from their private "
        "pages (the links in our earlier emails), resign the ones you want to leave there, or mute "
        'one game only with "No more email about this game" in its emails. We tell your opponents '
        "that you no longer get our email."
    ),
    button=lazy_gettext("Unsubscribe"),
    done=lazy_gettext(
        "You are unsubscribed: we send you no more email. Your games go on and their deadlines "
        "still count; your opponents are told that you no longer get our email."
    ),
    undo_button=lazy_gettext("Send me email again"),
    undone=lazy_gettext("You get email from us again."),
)

MUTE = ActionPage(
    title=lazy_gettext("Mute this game"),
    ask=lazy_gettext(
        "Press the button and we send you no more email about this game. The game goes on and "
        "its deadlines still count: a missed deadline uses one of your vacation days, and with "
        "none left you lose on time. Play it from your private page."
    ),
    button=lazy_gettext("Mute this game"),
    done=lazy_gettext(
        "This game is muted: no more email about it. Its deadlines still count: play it from "
        "your private page."
    ),
    undo_button=lazy_gettext("Email me about this game again"),
    undone=lazy_gettext("You get email about this game again."),
)

REFUSE = ActionPage(
    title=lazy_gettext("Refuse all invitations"),
    ask=lazy_gettext("Press the button and nobody can invite you to a game here any more."),
    button=lazy_gettext("Refuse all invitations"),
    done=lazy_gettext("Nobody can invite you here any more."),
    undo_button=lazy_gettext("Accept invitations again"),
    undone=lazy_gettext("People can invite you again."),
)

SWITCHES = {
    # rule: (the GET endpoint's name, the switch); the POST's endpoint is the name + "_post".
    "/unsubscribe/<token>": (
        "unsubscribe",
        Switch(
            MailPurpose.UNSUBSCRIBE,
            UNSUBSCRIBE,
            _address_flag("unsubscribed_at"),
            lambda session, player_id, _game, on: addresses.set_unsubscribed(
                session, player_id, on
            ),
            lists_games=True,
        ),
    ),
    "/mute/<token>": ("mute", Switch(MailPurpose.MUTE_GAME, MUTE, _muted, _mute)),
    "/refuse-invitations/<token>": (
        "refuse_invitations",
        Switch(
            MailPurpose.REFUSE_INVITATIONS,
            REFUSE,
            _address_flag("refuses_invitations_at"),
            lambda session, player_id, _game, on: addresses.set_refuses_invitations(
                session, player_id, on
            ),
        ),
    ),
}

for _rule, (_endpoint, _switch) in SWITCHES.items():
    _show, _act = _switch_views(_switch)
    # Names of their own: Flask-Limiter keys a view's limits by its qualified name.
    _show.__name__ = _show.__qualname__ = _endpoint
    _act.__name__ = _act.__qualname__ = f"{_endpoint}_post"
    bp.add_url_rule(_rule, endpoint=_endpoint, view_func=_show, methods=["GET"])
    bp.add_url_rule(_rule, endpoint=f"{_endpoint}_post", view_func=_act, methods=["POST"])
