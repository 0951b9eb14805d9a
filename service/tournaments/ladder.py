"""A ladder's challenges: a signed-in entrant challenges a player a few rungs above and the game
is dealt at once. The core decides which challenges may be made (``tournaments.check_challenge``:
reach, the re-challenge days, one challenge at a time per player); this module reads what it
needs under the tournament's lock and stores the game."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session

import tournaments
from service.catalogue import lazy_gettext
from service.models import Player
from service.tournaments.dealing import deal_pairing
from service.tournaments.lifecycle import lock
from service.tournaments.models import Entrant, TournamentGame, TournamentKind, TournamentStatus
from service.tournaments.rungs import challenge_of, day_number, ladder_of
from service.tournaments.settings import TournamentRefusal
from service.tournaments.standing import entrants_of, pairings_of

CHALLENGE_ROUND = 1
"""Every ladder game is in round 1: a ladder has no rounds."""


@dataclass(frozen=True)
class LadderState:
    """What the core needs to judge a challenge, read in one session."""

    ladder: tournaments.Ladder
    earlier: tuple[tournaments.Challenge, ...]
    playing: frozenset[int]
    """The players of the challenges still being played."""


def ladder_state(session: Session, tournament_id: int) -> LadderState:
    entrants = entrants_of(session, tournament_id)
    links = [p for p in pairings_of(session, tournament_id) if p.challenged_at is not None]
    return LadderState(
        ladder=ladder_of(entrants),
        earlier=tuple(challenge_of(p) for p in links),
        playing=frozenset(
            player
            for p in links
            if p.outcome is None
            for player in (p.first_id, p.second_id)
            if player is not None
        ),
    )


def may_challenge(state: LadderState, challenger: int, defender: int, day: int) -> bool:
    """Whether the core allows the challenge (the page's buttons)."""
    try:
        tournaments.check_challenge(
            state.ladder,
            tournaments.Challenge(challenger, defender, day),
            state.earlier,
            state.playing,
        )
    except tournaments.ChallengeError:
        return False
    return True


def challenge(
    session: Session,
    tournament_id: int,
    challenger: Player,
    defender_entrant_id: int,
    now: datetime,
) -> TournamentGame:
    """``challenger`` challenges the entrant ``defender_entrant_id``; the game is dealt at once,
    the challenger in the first seat. Raises TournamentRefusal: not a ladder or no such
    defender (404), not an entrant on the ladder (403), not playing or paused, or a challenge
    the core refuses (409)."""
    tournament = lock(session, tournament_id)
    assert tournament.id is not None and challenger.id is not None
    if tournament.kind != TournamentKind.LADDER:
        raise TournamentRefusal(lazy_gettext("Only a ladder has challenges."), 404)
    if tournament.status != TournamentStatus.PLAYING or tournament.paused_at is not None:
        raise TournamentRefusal(lazy_gettext("This ladder is not being played now."))
    defender = session.get(Entrant, defender_entrant_id)
    if defender is None or defender.tournament_id != tournament.id:
        raise TournamentRefusal(lazy_gettext("This player has not entered this tournament."), 404)
    state = ladder_state(session, tournament.id)
    if challenger.id not in state.ladder.rungs:
        raise TournamentRefusal(lazy_gettext("Only a player on the ladder can challenge."), 403)
    if not may_challenge(state, challenger.id, defender.player_id, day_number(now)):
        raise TournamentRefusal(
            lazy_gettext(
                "This challenge cannot be made: a challenge reaches 1 to 3 places above yours, "
                "the same two players meet again only 7 days after their last challenge, and "
                "each player plays one challenge at a time."
            )
        )
    pairing = tournaments.Pairing(CHALLENGE_ROUND, challenger.id, defender.player_id)
    link = deal_pairing(session, tournament, pairing)
    link.challenged_at = now
    session.add(link)
    session.flush()
    return link
