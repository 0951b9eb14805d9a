"""The emails written so far, each a function that gathers what its templates show and queues it.

Templates get plain values (names, links, public facts), never a ``Game`` row: it holds the seed.
``service.games`` is imported inside the functions: it imports this package for its hooks.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from flask import current_app
from sqlmodel import Session

import engine
from service import store, tokens
from service.links import external_url, private_page_url
from service.mail.kinds import MailKind
from service.mail.models import OutboxMessage
from service.mail.outbox import emails_queued_since, queue_email
from service.models import Game, Player, utcnow


def game_facts(game: Game) -> dict[str, Any]:
    """What anyone may know about a game's settings, for a template."""
    ruleset = engine.get_ruleset(game.ruleset)
    return {
        "game_number": game.id,
        "ruleset_title": ruleset.title,
        "claims": game.claims,
        "days_per_move": game.days_per_move,
        "seed_commitment": game.seed_commitment,
        "public_url": external_url("games.public_page", public_id=game.public_id),
    }


def queue_confirmation(session: Session, game: Game) -> OutboxMessage | None:
    """Ask the address given as the creator's (seat A) of ``game`` to send its invitation: the
    link is seat A's private page, where a button sends it. Also the owner's sign-in link
    ("my games"), so that the next game needs no confirmation. The subject carries no text
    that the form's sender typed."""
    assert game.id is not None
    seats = store.seats_of(session, game.id)
    (seat_a, creator), invited = seats["A"], seats["B"][1]
    assert creator.id is not None
    games_token = tokens.make_games_token(creator.id, creator.token_generation)
    return queue_email(
        session,
        MailKind.CONFIRM_ADDRESS,
        creator,
        subject="Confirm your new Battle Line game",
        context={
            **game_facts(game),
            "invited_name": invited.display_name,
            "confirm_url": private_page_url(seat_a),
            "sign_in_url": external_url("history.my_games", token=games_token),
        },
    )


def queue_invitation(session: Session, game: Game) -> OutboxMessage | None:
    """Invite seat B: accept and decline links (to the pages that show a button), the private
    page, and a link to refuse every future invitation."""
    assert game.id is not None
    seats = store.seats_of(session, game.id)
    creator = seats["A"][1]
    seat_b, invited = seats["B"]
    token_url = private_page_url(seat_b)
    return queue_email(
        session,
        MailKind.INVITATION,
        invited,
        game=game,
        context={
            **game_facts(game),
            "inviter_name": creator.display_name,
            "inviter_email": creator.email,
            "accept_url": f"{token_url}/accept",
            "decline_url": f"{token_url}/decline",
            "private_url": token_url,
        },
    )


def queue_game_started(session: Session, game: Game) -> list[OutboxMessage]:
    """Tell both players the game is dealt: the cut (R2), who begins, the seed commitment (R3)."""
    from service.games.records import game_record

    assert game.id is not None and game.deal is not None
    seats = store.seats_of(session, game.id)
    names = {letter: player.display_name for letter, (_, player) in seats.items()}
    first: str = game.deal["first"]
    cut = game_record(game).deal.describe_cut()
    queued: list[OutboxMessage] = []
    for letter, (seat, player) in sorted(seats.items()):
        row = queue_email(
            session,
            MailKind.GAME_STARTED,
            player,
            game=game,
            context={
                **game_facts(game),
                "seat": letter,
                "names": names,
                "cut": cut,
                "first": first,
                "first_name": names[first],
                "your_turn": letter == first,
                "deadline": game.deadline,
                "private_url": private_page_url(seat),
            },
        )
        if row is not None:
            queued.append(row)
    return queued


def queue_my_games_email(session: Session, player: Player, games_url: str) -> OutboxMessage | None:
    """Send a player the link to the list of their games (``games_url``, signed by the caller)."""
    return queue_email(
        session,
        MailKind.MY_GAMES,
        player,
        subject="Your Battle Line games",
        context={"games_url": games_url},
    )


def send_my_games_link(session: Session, email: str) -> str | None:
    """Email the "my games" link to the player with this address, if there is one and they have
    not had ``MY_GAMES_EMAILS_PER_ADDRESS_PER_DAY`` of them in the last day (anyone can type any
    address: this must not become a way to flood someone). Returns the link, or None.

    Raises ``service.history.my_games.EmailFormError`` when ``email`` is not an address. The
    caller answers the same whatever happened, so nobody learns whether the address plays here.
    """
    from service.history.my_games import request_my_games_link

    link = request_my_games_link(session, email)
    if link is None:
        return None
    player = store.find_player(session, email.strip().lower())
    assert player is not None  # a link was made for this address
    since = utcnow() - timedelta(days=1)
    already = emails_queued_since(session, MailKind.MY_GAMES, since, player_id=player.id)
    if already < int(current_app.config["MY_GAMES_EMAILS_PER_ADDRESS_PER_DAY"]):
        queue_my_games_email(session, player, link)
    return link
