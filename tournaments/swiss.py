"""Swiss pairing: the FIDE Dutch system (C.04.3) by the caissify-pairings library.

This module turns a tournament's results into the library's input (scores, seat histories,
floats, byes, who met whom), calls it, and checks what comes back against the rules we promise
(docs/tournaments.md): every present player paired once or given the bye, no two players paired
twice, at most one bye each while anyone present has had none. A pairing that breaks one raises
`SwissPairingError` rather than being dealt.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from caissify_pairings import generate_pairings

from tournaments.results import (
    Bye,
    Finish,
    GameResult,
    Pairing,
    PlayerId,
    Scoring,
    TournamentError,
)
from tournaments.standings import check_results

PAIRING_SCORING = Scoring.GAME
"""Score groups are formed on game points (1, 1/2, 0) whatever the tournament's scoring: series
points (0 to 5 by flags) would split the field into many small groups and make most pairings
floats. Standings still use the tournament's own scoring."""


class SwissPairingError(TournamentError):
    """No pairing for the round satisfies the rules (too many rounds for the players left)."""


@dataclass(frozen=True)
class Entrant:
    """A player of a Swiss tournament."""

    player: PlayerId
    rating: float
    """The rating at the tournament's start: it fixes the pairing order for every round."""
    withdrawn: bool = False
    """Withdrawn players are not paired again; their finished games still count."""


@dataclass(frozen=True)
class SwissRound:
    round: int
    pairings: tuple[Pairing, ...]
    """Board order: the leading score groups first."""
    bye: PlayerId | None


def pairing_order(entrants: tuple[Entrant, ...]) -> tuple[PlayerId, ...]:
    """Players by rating, highest first; equal ratings by player id (the earlier entry)."""
    return tuple(e.player for e in sorted(entrants, key=lambda e: (-e.rating, e.player)))


def check_rounds(players: int, rounds: int) -> None:
    """A Swiss has at most half as many rounds as players. Then, while nobody withdraws, every
    round has a pairing with no repeat (each player has met fewer than half the field, so the
    players not yet met always hold a perfect matching, Dirac's theorem); with more rounds the
    last ones can be impossible to pair."""
    if players < 2:
        raise TournamentError("a Swiss tournament needs at least two players")
    if not 1 <= rounds <= players // 2:
        raise TournamentError(
            f"{players} players can play 1 to {players // 2} Swiss rounds, not {rounds}"
        )


def pair_round(
    entrants: tuple[Entrant, ...],
    games: tuple[GameResult, ...],
    byes: tuple[Bye, ...],
    round: int,
    rounds: int,
) -> SwissRound:
    """The pairings of `round`, from the results of the rounds before it."""
    order = pairing_order(entrants)
    check_results(order, games, byes)
    check_rounds(len(entrants), rounds)
    if not 1 <= round <= rounds:
        raise TournamentError(f"this tournament has rounds 1 to {rounds}, not {round}")
    if any(g.round >= round for g in games) or any(b.round >= round for b in byes):
        raise TournamentError(f"results of round {round} or later exist before its pairing")
    present = [e.player for e in entrants if not e.withdrawn]
    present.sort(key=order.index)
    if len(present) < 2:
        raise SwissPairingError("fewer than two players are left to pair")
    number = {player: index for index, player in enumerate(order, start=1)}
    histories = _histories(order, games, byes, round)
    met = {tuple(sorted(g.players)) for g in games}
    raw = generate_pairings(
        "dutch",
        [
            {
                "id": player,
                "name": str(player),
                "rating": next(e.rating for e in entrants if e.player == player),
                "pairing_number": number[player],
                "starting_number": number[player],
                **histories[player],
            }
            for player in present
        ],
        set(met),
        round,
        rounds,
        bye_value=1.0,
        max_byes_per_player=1,
    )
    result = _read(raw, round)
    _check(result, present, met, byes)
    return result


def _histories(
    order: tuple[PlayerId, ...],
    games: tuple[GameResult, ...],
    byes: tuple[Bye, ...],
    round: int,
) -> dict[PlayerId, dict[str, object]]:
    """Each player's score, seats played (first = "white"), floats and unplayed wins so far."""
    score = dict.fromkeys(order, 0.0)
    seats: dict[PlayerId, list[str]] = defaultdict(list)
    floats: dict[PlayerId, list[str]] = defaultdict(list)
    bye_count: dict[PlayerId, int] = defaultdict(int)
    forfeit_wins: dict[PlayerId, int] = defaultdict(int)
    for past in range(1, round):
        before = dict(score)
        direction = dict.fromkeys(order, "none")
        for game in (g for g in games if g.round == past):
            for player in game.players:
                score[player] += game.points(player, PAIRING_SCORING)
            if game.finish is Finish.FORFEIT:
                winner = game.winner()
                if winner is not None:
                    forfeit_wins[winner] += 1
                    direction[winner] = "down"
                continue
            seats[game.first].append("white")
            seats[game.second].append("black")
            for player in game.players:
                mine, theirs = before[player], before[game.opponent_of(player)]
                direction[player] = "up" if theirs > mine else "down" if theirs < mine else "none"
        for bye in (b for b in byes if b.round == past):
            score[bye.player] += 1.0
            bye_count[bye.player] += 1
            direction[bye.player] = "down"
        for player in order:
            floats[player].append(direction[player])
    return {
        player: {
            "score": score[player],
            "color_hist": seats[player],
            "float_history": floats[player],
            "bye_count": bye_count[player],
            "forfeit_win_count": forfeit_wins[player],
        }
        for player in order
    }


def _read(raw: list[dict[str, object]], round: int) -> SwissRound:
    pairings: list[Pairing] = []
    byes: list[PlayerId] = []
    for entry in raw:
        first, second = entry["white_id"], entry["black_id"]
        if not isinstance(first, int):
            raise SwissPairingError(f"the pairing library returned no player: {entry}")
        if second is None:
            byes.append(first)
        elif isinstance(second, int):
            pairings.append(Pairing(round, first, second))
        else:
            raise SwissPairingError(f"the pairing library returned no player: {entry}")
    if len(byes) > 1:
        raise SwissPairingError(f"round {round} cannot be paired without {len(byes)} byes")
    return SwissRound(round, tuple(pairings), byes[0] if byes else None)


def _check(
    result: SwissRound,
    present: list[PlayerId],
    met: set[tuple[PlayerId, ...]],
    byes: tuple[Bye, ...],
) -> None:
    placed = [p for pairing in result.pairings for p in (pairing.first, pairing.second)]
    if result.bye is not None:
        placed.append(result.bye)
    if sorted(placed) != sorted(present):
        raise SwissPairingError(f"round {result.round}'s pairing misses or repeats a player")
    for pairing in result.pairings:
        if tuple(sorted((pairing.first, pairing.second))) in met:
            raise SwissPairingError(
                f"round {result.round} would pair {pairing.first} and {pairing.second} again"
            )
    had_bye = {b.player for b in byes}
    if result.bye in had_bye and any(p not in had_bye for p in present):
        raise SwissPairingError(
            f"round {result.round} would give {result.bye} a second bye before others had one"
        )
