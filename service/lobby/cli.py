"""``flask --app service games ...``: create games and manage their links from the command line."""

from __future__ import annotations

import click
from flask.cli import AppGroup
from sqlmodel import Session

from engine import RULESETS, SEATS, ClaimTiming
from service.db import session_scope
from service.games.rows import GameNotFoundError, get_game, lock_game
from service.games.seats import read_seats, revoke_seat_links
from service.links import external_url, private_page_url
from service.lobby.forms import DEFAULT_DAYS_PER_MOVE, FormError, parse_new_game
from service.lobby.lifecycle import create_game
from service.models import Game, Seat, Visibility
from service.turn_settings import DEFAULT_VACATION_DAYS

games_cli = AppGroup("games", help="Create games and print or revoke their links.")


def _game(session: Session, game_id: int, *, lock: bool) -> Game:
    try:
        return (lock_game if lock else get_game)(session, game_id)
    except GameNotFoundError as error:
        raise click.ClickException(str(error)) from None


def _echo_links(game: Game, seats: dict[str, Seat]) -> None:
    click.echo(f"game {game.id}: {game.ruleset}, {game.status}")
    click.echo(f"seed commitment: {game.seed_commitment}")
    for letter, seat in sorted(seats.items()):
        click.echo(f"private link {letter}: {private_page_url(seat)}")
    click.echo(f"public page: {external_url('history.public_page', public_id=game.public_id)}")


@games_cli.command("create")
@click.option("--ruleset", type=click.Choice(list(RULESETS)), default="battleline")
@click.option("--a-name", required=True, help="Name of the player in seat A (who invites).")
@click.option("--a-email", required=True)
@click.option("--b-name", required=True, help="Name of the invited player (seat B).")
@click.option("--b-email", required=True)
@click.option(
    "--c-name", default=None, help="Name of the third player (seat C): a three-player ruleset only."
)
@click.option("--c-email", default=None)
@click.option(
    "--claims",
    type=click.Choice([c.value for c in ClaimTiming]),
    default=None,
    help="Claim timing (R4/R5); default: the ruleset's (advanced).",
)
@click.option("--days", "days_per_move", type=int, default=DEFAULT_DAYS_PER_MOVE)
@click.option(
    "--vacation-days",
    type=int,
    default=DEFAULT_VACATION_DAYS,
    help="Days each player may overrun deadlines before losing on time.",
)
@click.option("--visibility", type=click.Choice([v.value for v in Visibility]), default="unlisted")
def create_command(**options: object) -> None:
    """Create a game and print every seat's private link (the invited seats, B and with three
    players C, still have to accept)."""
    form = {key: "" if value is None else str(value) for key, value in options.items()}
    try:
        new = parse_new_game(form)
        with session_scope() as session:
            # The operator at the command line stands for the creator: the invitation goes now.
            game, seats = create_game(session, new, creator_present=True)
            _echo_links(game, seats)
    except FormError as error:  # a bad field, or an invited address known to bounce
        for field, message in error.errors.items():
            click.echo(f"{field.replace('_', '-')}: {message}", err=True)
        raise click.exceptions.Exit(2) from None


@games_cli.command("links")
@click.argument("game_id", type=int)
def links_command(game_id: int) -> None:
    """Print the current private links of a game."""
    with session_scope() as session:
        game = _game(session, game_id, lock=False)
        seats = read_seats(session, game_id)
        _echo_links(game, {letter: seat for letter, (seat, _) in seats.items()})


@games_cli.command("revoke")
@click.argument("game_id", type=int)
@click.argument("seat", type=click.Choice(SEATS))
def revoke_command(game_id: int, seat: str) -> None:
    """Withdraw every link of one seat and print its new private link."""
    with session_scope() as session:
        _game(session, game_id, lock=True)
        seats = read_seats(session, game_id)
        if seat not in seats:
            raise click.ClickException(f"Game {game_id} has no seat {seat}.")
        row = seats[seat][0]
        revoke_seat_links(session, row)
        click.echo(f"private link {seat}: {private_page_url(row)}")
