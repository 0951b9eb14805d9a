"""Views of the lobby's open challenges and of automatch ("find me an opponent").

Anyone may read the lobby; posting, accepting and withdrawing are POSTs from a browser signed in
as the player (``service.signin``): a challenge has a poster and a taker whose addresses the
session proves. GET and HEAD change nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from flask import redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from engine import ClaimTiming
from service.catalogue import gettext, lazy_gettext
from service.config import MAX_DAYS_PER_MOVE
from service.db import read_scope, session_scope
from service.game_words import (
    CLAIM_TIMING_CHOICES,
    CLAIM_TIMING_SENTENCES,
    COMPUTER_LEVEL_NAMES,
    ruleset_title,
)
from service.games.computer import COMPUTER_LEVELS
from service.games.seats import read_seats
from service.links import private_page_url
from service.lobby import bp
from service.lobby.automatch import find_opponent
from service.lobby.challenge_terms import LOBBY_RULESETS, MAX_MESSAGE_LENGTH, parse_terms
from service.lobby.challenges import (
    LOBBY_PAGE_SIZE,
    MAX_OPEN_CHALLENGES,
    ListedChallenge,
    accept_challenge,
    open_challenges,
    own_challenges,
    post_challenge,
    suspended_error,
    withdraw_challenge,
)
from service.lobby.forms import DEFAULT_DAYS_PER_MOVE, FormError
from service.players.challenge_models import ChallengeKind, ChallengeStatus
from service.players.moderation import is_suspended
from service.ratings.pools import POOL_WORDS
from service.signin import required_signed_in_player, signed_in_player

SIGN_IN_TO_CHALLENGE = lazy_gettext(
    "Only a signed-in player can post or accept a challenge. Ask for your games link on "
    "the \u201cMy games\u201d page and sign in. Nothing was changed."
)
"""Why a challenge posted, accepted or withdrawn from a browser not signed in is refused."""


def _filter(name: str, allowed: tuple[str, ...]) -> str | None:
    value = request.args.get(name, "")
    return value if value in allowed else None


def _whole(name: str, low: int, high: int) -> int | None:
    text = request.args.get(name, "")
    return int(text) if re.fullmatch(r"[0-9]{1,9}", text) and low <= int(text) <= high else None


@dataclass(frozen=True)
class LobbyLine:
    """One challenge as the lobby shows it, its words in the reader's language."""

    id: int
    own: bool
    """Posted by the reader: it has no button to accept."""
    offer: str
    """Who offers which game ("Alice offers Battle Line, 3 days per move.")."""
    claims: str
    rated: str
    """Whether the game will be rated, in words."""
    played_only: bool
    message: str | None


def _lines(listed: list[ListedChallenge], reader_id: int | None) -> list[LobbyLine]:
    """The page's lines, each message translated once per page rather than once per line (a
    page of the lobby is most of its cost in words)."""
    offer = gettext("%(name)s offers %(variant)s, %(days)s days per move.")
    claims = {timing: str(words) for timing, words in CLAIM_TIMING_SENTENCES.items()}
    titles = {name: ruleset_title(name) for name in LOBBY_RULESETS}
    rated = {True: gettext("Rated."), False: gettext("Casual.")}
    return [
        LobbyLine(
            id=c.id,
            own=c.poster_id == reader_id,
            offer=offer
            % {"name": c.poster_name, "variant": titles[c.ruleset], "days": c.days_per_move},
            claims=claims.get(c.claims, claims["advanced"]),
            rated=rated[c.rated],
            played_only=c.played_only,
            message=c.message,
        )
        for c in listed
    ]


def _claims_choices(chosen: str) -> list[tuple[str, str, bool]]:
    """(value, words, checked) of the claim timings a challenge may ask for."""
    return [(value, str(words), value == chosen) for value, words in CLAIM_TIMING_CHOICES.items()]


def _render_lobby(errors: dict[str, str], status: int) -> tuple[str, int]:
    ruleset = _filter("ruleset", LOBBY_RULESETS)
    days = _whole("days", 1, MAX_DAYS_PER_MOVE)
    before = _whole("before", 1, 2**31 - 1)
    with read_scope() as session:
        player = signed_in_player(session)
        reader_id = player.id if player is not None else None
        listed = open_challenges(
            session, ruleset=ruleset, days_per_move=days, before_id=before, viewer_id=reader_id
        )
        mine = own_challenges(session, player) if player is not None else []
        # A suspended player reads the lobby, told why it offers them nothing to press.
        suspended = str(suspended_error()) if player is not None and is_suspended(player) else None
        # A newcomer with no name yet is told to choose one, not shown forms that would refuse.
        nameless = player is not None and not player.display_name
    more = len(listed) == LOBBY_PAGE_SIZE
    titles = [(name, ruleset_title(name)) for name in LOBBY_RULESETS]
    offered = request.form.get("ruleset")
    return (
        render_template(
            "lobby/lobby.html",
            challenges=_lines(listed, reader_id),
            mine=mine,
            signed_in=player is not None,
            suspended=suspended,
            nameless=nameless,
            errors=errors,
            values=request.form if errors else {},
            claims_choices=_claims_choices(
                request.form.get("claims", "") if errors else ClaimTiming.ADVANCED.value
            ),
            ruleset=ruleset,
            days=days,
            next_before=listed[-1].id if more else None,
            filter_rulesets=[(name, title, name == ruleset) for name, title in titles],
            rulesets=[(name, title, bool(errors) and name == offered) for name, title in titles],
            ruleset_title=ruleset_title,
            max_days=MAX_DAYS_PER_MOVE,
            rating_pools=POOL_WORDS,
            default_days=DEFAULT_DAYS_PER_MOVE,
            max_message=MAX_MESSAGE_LENGTH,
            max_open=MAX_OPEN_CHALLENGES,
            automatch=ChallengeKind.AUTOMATCH.value,
            computer_levels=[(level, COMPUTER_LEVEL_NAMES[level]) for level in COMPUTER_LEVELS],
        ),
        status,
    )


@bp.get("/lobby")
def lobby_page() -> tuple[str, int]:
    return _render_lobby({}, 200)


def _posted(kind: ChallengeKind) -> Response | tuple[str, int]:
    try:
        terms = parse_terms(request.form.to_dict())
    except FormError as error:
        with read_scope() as session:
            required_signed_in_player(session, SIGN_IN_TO_CHALLENGE)  # not signed in is told first
        return _render_lobby(error.errors, error.status)
    with session_scope() as session:
        player = required_signed_in_player(session, SIGN_IN_TO_CHALLENGE)
        if kind is ChallengeKind.OPEN:
            post_challenge(session, player, terms, kind)
            return redirect(url_for("lobby.lobby_page"), code=303)
        request_row = find_opponent(session, player, terms)
        if request_row.status == ChallengeStatus.TAKEN and request_row.game_id is not None:
            seat = next(
                s for s, p in read_seats(session, request_row.game_id).values() if p.id == player.id
            )
            return redirect(private_page_url(seat), code=303)
    return redirect(url_for("lobby.lobby_page"), code=303)


@bp.post("/lobby/challenges")
def post_challenge_view() -> Response | tuple[str, int]:
    return _posted(ChallengeKind.OPEN)


@bp.post("/lobby/automatch")
def find_opponent_view() -> Response | tuple[str, int]:
    return _posted(ChallengeKind.AUTOMATCH)


@bp.post("/lobby/challenges/<int:challenge_id>/accept")
def accept_challenge_view(challenge_id: int) -> Response:
    """Accept, then the new game's private page of the taker's seat (see-other: reloading does
    not accept twice)."""
    with session_scope() as session:
        player = required_signed_in_player(session, SIGN_IN_TO_CHALLENGE)
        game = accept_challenge(session, challenge_id, player)
        assert game.id is not None
        seat = next(s for s, p in read_seats(session, game.id).values() if p.id == player.id)
        url = private_page_url(seat)
    return redirect(url, code=303)


@bp.post("/lobby/challenges/<int:challenge_id>/withdraw")
def withdraw_challenge_view(challenge_id: int) -> Response:
    with session_scope() as session:
        withdraw_challenge(
            session, challenge_id, required_signed_in_player(session, SIGN_IN_TO_CHALLENGE)
        )
    return redirect(url_for("lobby.lobby_page"), code=303)
