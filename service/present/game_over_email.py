"""The game-over email: the result in a sentence, the flags and points of each player, the last
claims and why they held, the final board, the revealed seed (R3), the history, a link to play
again, and in a series its score and next game."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sqlmodel import Session

import engine
from service.catalogue import gettext as _
from service.games.loaded import LoadedGame
from service.games.move_log import moves_from
from service.links import external_url, private_page_url
from service.outbox.kinds import MailKind
from service.outbox.models import OutboxMessage
from service.present.board import board_of
from service.present.claims import deciding_flags, final_claims
from service.present.email_parts import ClaimLines, FlagsRow, board_rows, claim_lines
from service.present.emails import GameFacts, facts_of
from service.present.plain_text import board_lines, legend
from service.present.recipients import queue_to_each
from service.present.said import SaidMessage, said_since_last_turn
from service.present.seat_names import names_of, seat_labels, shown_name
from service.present.series_facts import series_facts
from service.present.summaries import in_words
from service.ratings.models import RatingChange
from service.ratings.read import RatingLine, game_changes, rating_line


def result_words(
    state: engine.GameState, names: Mapping[str, str], leaver: str | None = None
) -> str:
    """How the game ended, in a sentence. ``leaver``: the seat that resigned or ran out of time
    (the last entry of the log), when the game ended so."""
    result = state.result
    assert result is not None
    ruleset = state.ruleset
    kind = result.termination
    left = names.get(leaver or "") or str(_("a player"))
    if result.winner is None:
        sharing = in_words([names[seat] for seat in result.draw_between])
        if kind is engine.Termination.STALEMATE:
            return str(
                _("The game is a draw between %(players)s: no one could take more flags.",
                  players=sharing)
            )  # fmt: skip
        if kind is engine.Termination.RESIGNATION:
            return str(
                _("The game is a draw between %(players)s, as %(name)s resigned with them level.",
                  players=sharing, name=left)
            )  # fmt: skip
        return str(
            _("The game is a draw between %(players)s, as %(name)s ran out of time with them "
              "level.", players=sharing, name=left)
        )  # fmt: skip
    winner = names[result.winner]
    if kind is engine.Termination.BREAKTHROUGH:
        how = _("%(winner)s won, holding %(count)d adjacent flags.",
                winner=winner, count=ruleset.adjacent_to_win)  # fmt: skip
    elif kind is engine.Termination.ENVELOPMENT:
        how = _("%(winner)s won, holding %(count)d flags.",
                winner=winner, count=ruleset.flags_to_win)  # fmt: skip
    elif kind is engine.Termination.STALEMATE:
        how = _("%(winner)s won, holding the most flags when no one could take more.",
                winner=winner)  # fmt: skip
    elif kind is engine.Termination.RESIGNATION:
        how = _("%(winner)s won, as %(name)s resigned.", winner=winner, name=left)
    else:
        how = _("%(winner)s won, as %(name)s ran out of time.", winner=winner, name=left)
    return str(how)


@dataclass(frozen=True, slots=True)
class SeatOutcome:
    """One player at the end: the flags held and the series points (R23)."""

    name: str
    flags: tuple[int, ...]
    points: int


@dataclass(frozen=True, slots=True)
class SeriesEnd:
    """What a game-over email says of the series the game belongs to."""

    number: int
    """The games of the series finished."""
    goal: str
    totals: tuple[tuple[str, int], ...]
    """Each player's name and series points."""
    over: bool
    left_by: str | None
    winner_name: str | None
    first_name: str | None
    """Who plays first in the next game, dealt already."""
    page_url: str
    next_url: str | None
    """The reader's private page of the next game."""


@dataclass(frozen=True, slots=True)
class GameOverEmail:
    """What every player is told when the game ends."""

    facts: GameFacts
    seat: str
    winner: str | None
    you_won: bool
    result_text: str
    you_ran_out: bool
    """The reader lost on time: no vacation day was left (this email is all that tells it)."""
    termination: str
    seats: tuple[SeatOutcome, ...]
    turns: int
    deciding: tuple[int, ...]
    deciding_text: str
    final_claims: tuple[ClaimLines, ...]
    board: tuple[FlagsRow, ...]
    board_lines: tuple[str, ...]
    legend: str
    seed: str
    history_url: str
    record_url: str
    play_again_url: str
    """A rematch from the seat's own link: the others get their invitations at once."""
    play_again_with: str
    players_text: str
    private_url: str
    series: SeriesEnd | None
    said: tuple[SaidMessage, ...] = ()
    """What the other seats said since the seat's last turn: the last words of the game."""
    rating: RatingLine | None = None
    """What a rated game did to the reader's rating; None for a casual game."""


def queue_game_over(
    session: Session,
    loaded: LoadedGame,
    state: engine.GameState,
    *,
    following: LoadedGame | None = None,
) -> list[OutboxMessage]:
    """Tell every player the result. In a series: its score, and the next game (``following``,
    dealt already) or the series' end."""
    game = loaded.game
    assert game.id is not None and state.result is not None
    result = state.result
    game_id = game.id
    seats = loaded.seats
    seen = engine.spectator_view(state)
    points = engine.series_points(state)
    held: dict[str, list[int]] = {s: [] for s in seats}
    for flag in seen.flags:
        if flag.claimed_by in held:
            held[flag.claimed_by].append(flag.number)
    # The last entries: the last made it (a resignation names the leaver), and the claims of
    # the last turn, the one that ended the game among them, and why each held.
    recent = moves_from(session, game.id, max(0, state.ply - 12), state.ply)
    leaver = recent[-1].seat if recent else None
    on_time = result.termination is engine.Termination.TIME
    ending = final_claims(session, loaded, recent)
    deciding = deciding_flags(seen, result)
    seed = game.seed
    assert seed is not None
    # Rated in the same transaction, by the listener before this one (service.ratings.record).
    rating_changes = game_changes(session, game_id)

    def game_over(letter: str) -> GameOverEmail:
        seat_row = seats[letter][0]
        # In the reader's language: a closed account's name is "a former player" in theirs.
        names = names_of(seats)
        outcomes = tuple(SeatOutcome(names[s], tuple(held[s]), points[s]) for s in names)
        # "Play again": a rematch offered from this seat's own link; the others follow it in
        # turn order.
        at = seen.seats.index(letter)
        others = [seats[s][1] for s in (seen.seats[at + 1 :] + seen.seats[:at])]
        return GameOverEmail(
            facts=facts_of(game, loaded.tournament),
            seat=letter,
            winner=result.winner,
            you_won=result.winner == letter,
            result_text=result_words(state, names, leaver),
            you_ran_out=on_time and letter == leaver,
            termination=result.termination.value,
            seats=outcomes,
            turns=state.turn,
            deciding=tuple(deciding),
            deciding_text=in_words([str(flag) for flag in deciding]),
            final_claims=tuple(
                claim_lines(c.flag, "", c, names, letter, state.ruleset) for c in ending
            ),
            board=board_rows(seen, names, letter),
            board_lines=tuple(
                board_lines(board_of(seen, letter), seat_labels(seen.seats, names, letter), letter)
            ),
            legend=legend(state.ruleset.colors),
            seed=seed,
            history_url=external_url("history.public_page", public_id=game.public_id),
            record_url=external_url("history.record", public_id=game.public_id),
            play_again_url=f"{private_page_url(seat_row)}/rematch",
            play_again_with=in_words([shown_name(other) for other in others]),
            players_text=in_words(list(names.values())),
            private_url=private_page_url(seat_row),
            series=series_end(session, loaded, following, letter),
            said=said_since_last_turn(session, game_id, letter, seats[letter][1], names),
            rating=_rating_of(rating_changes, seats[letter][1].id),
        )

    def subject(letter: str) -> str:
        if on_time and letter == leaver:
            return str(_("Game over, you lost on time"))
        if on_time and result.winner == letter and len(seats) == 2:
            return str(_("Game over, you won on time"))
        if result.winner is None:
            return str(_("Game over, a draw") if letter in result.draw_between else _("Game over"))
        return str(_("Game over, you won") if result.winner == letter else _("Game over, you lost"))

    recipients = [(letter, player) for letter, (_seat, player) in seats.items()]
    return queue_to_each(
        session, MailKind.GAME_OVER, recipients, game_over, game=loaded, subject_for=subject
    )


def _rating_of(changes: Mapping[int, RatingChange], player_id: int | None) -> RatingLine | None:
    change = None if player_id is None else changes.get(player_id)
    return None if change is None else rating_line(change)


def series_end(
    session: Session, loaded: LoadedGame, following: LoadedGame | None, seat: str
) -> SeriesEnd | None:
    """What ``seat``'s game-over email says of the series the game belongs to (None: a single
    game)."""
    facts = series_facts(session, loaded)
    if facts is None:
        return None
    next_url = first_name = None
    if following is not None and following.game.deal is not None:
        next_seat = following.seats.get(seat)
        next_url = private_page_url(next_seat[0]) if next_seat is not None else None
        first_name = facts.names.get(following.game.deal["first"])
    return SeriesEnd(
        number=facts.score.finished_games,
        goal=facts.goal,
        totals=facts.totals,
        over=facts.score.over,
        left_by=facts.left_by_name,
        winner_name=facts.winner_name,
        first_name=first_name,
        page_url=external_url("history.series_page", public_id=facts.public_id),
        next_url=next_url,
    )
