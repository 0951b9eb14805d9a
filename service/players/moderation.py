"""What an operator does about reported messages, from the command line (``flask moderation``):
list the reports, hide a message (nobody sees it any more), suspend a player (they send no
message, and post, accept or ask for no challenge; their open challenges and standing requests
are withdrawn with the suspension; their running games go on).

Operator's commands: their output is for the operator, in English, and names players by id and
address (the operator's own records), never shown to another player.
"""

from __future__ import annotations

from datetime import datetime

import click
from flask.cli import AppGroup
from sqlmodel import Session, col, select

from service.db import session_scope
from service.models import Player, utcnow
from service.players.challenge_models import withdraw_open
from service.players.models import GameMessage, MessageReport

moderation_cli = AppGroup("moderation", help="Reported messages and suspended players.")


def is_suspended(player: Player) -> bool:
    """Whether an operator suspended ``player`` (``flask moderation suspend``)."""
    return player.suspended_at is not None


def hide_message(session: Session, message_id: int, now: datetime) -> bool:
    """Hide a message from everyone and mark its reports reviewed; False when there is no such
    message or it was hidden already."""
    message = session.get(GameMessage, message_id)
    if message is None or message.hidden_at is not None:
        return False
    message.hidden_at = now
    for report in session.exec(
        select(MessageReport).where(col(MessageReport.message_id) == message_id)
    ):
        report.reviewed_at = report.reviewed_at or now
    return True


def suspend(session: Session, player_id: int, now: datetime) -> bool:
    """Suspend a player and withdraw their open challenges and standing requests, in the
    caller's transaction; False when there is no such player or they are suspended already.
    Their row is locked first: a challenge they post at the same moment is either refused
    (``service.lobby.challenges.post_challenge`` reads the locked row) or withdrawn here."""
    player = session.get(Player, player_id, with_for_update=True, populate_existing=True)
    if player is None or player.suspended_at is not None:
        return False
    player.suspended_at = now
    session.add(player)
    withdraw_open(session, player_id)
    return True


def unsuspend(session: Session, player_id: int) -> bool:
    player = session.get(Player, player_id)
    if player is None or player.suspended_at is None:
        return False
    player.suspended_at = None
    return True


@moderation_cli.command("reports")
@click.option("--all", "show_all", is_flag=True, help="Also the reports already reviewed.")
def reports_command(show_all: bool) -> None:
    """List the reported messages, oldest first: report, message, game, sender, text."""
    with session_scope() as session:
        query = (
            select(MessageReport, GameMessage)
            .join(GameMessage, col(GameMessage.id) == col(MessageReport.message_id))
            .order_by(col(MessageReport.id))
        )
        if not show_all:
            query = query.where(col(MessageReport.reviewed_at).is_(None))
        found = session.exec(query).all()
        for report, message in found:
            hidden = " (hidden)" if message.hidden_at else ""
            click.echo(
                f"report {report.id} by player {report.reporter_id} at "
                f"{report.created_at:%Y-%m-%d %H:%M}: message {message.id}{hidden} in game "
                f"{message.game_id} from player {message.player_id}: {message.body!r}"
            )
        if not found:
            click.echo("No report to review.")


@moderation_cli.command("hide")
@click.argument("message_id", type=int)
def hide_command(message_id: int) -> None:
    """Hide MESSAGE_ID from every reader; its reports count as reviewed."""
    with session_scope() as session:
        done = hide_message(session, message_id, utcnow())
    click.echo(f"Message {message_id} hidden." if done else f"No visible message {message_id}.")


@moderation_cli.command("dismiss")
@click.argument("report_id", type=int)
def dismiss_command(report_id: int) -> None:
    """Mark REPORT_ID reviewed, leaving its message as it is."""
    with session_scope() as session:
        report = session.get(MessageReport, report_id)
        if report is not None and report.reviewed_at is None:
            report.reviewed_at = utcnow()
    click.echo(f"Report {report_id} dismissed." if report else f"No report {report_id}.")


@moderation_cli.command("suspend")
@click.argument("player_id", type=int)
def suspend_command(player_id: int) -> None:
    """Suspend PLAYER_ID: no more messages or challenges from them (their open ones are
    withdrawn); their games go on."""
    with session_scope() as session:
        done = suspend(session, player_id, utcnow())
    click.echo(f"Player {player_id} suspended." if done else f"No active player {player_id}.")


@moderation_cli.command("unsuspend")
@click.argument("player_id", type=int)
def unsuspend_command(player_id: int) -> None:
    """Lift the suspension of PLAYER_ID."""
    with session_scope() as session:
        done = unsuspend(session, player_id)
    click.echo(f"Player {player_id} no longer suspended." if done else f"No suspended {player_id}.")
