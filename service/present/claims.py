"""Why a flag was claimed, said to each reader: the claimer's formation and the best the other
seat of the flag could still reach (R13), from the engine's proof at the moment of the claim.

The proof uses open information only (the board and the discards), so anyone may read it: the
player who lost the flag ("the best you could still reach ..."), the claimer, and the public. The
engine's fields are read, never its sentence (``ClaimProofView.reason`` is for reading only).
The best formation is named by its value and the cards it keeps from the board, never by the
unseen troops it would add: those may lie in a hand, and no page or email names a card that a
hand may hold (tests/service/test_leaks.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session

import engine
from service.games.claim_proofs import formation_from_record, record_of
from service.games.loaded import LoadedGame
from service.games.move_log import LogEntry
from service.games.snapshots import snapshots_up_to
from service.games.state import state_at
from service.kept import Kept
from service.models import Game
from service.present.words import Piece


@dataclass(frozen=True, slots=True)
class ClaimExplained:
    """One claim and why it held, as fields."""

    flag: int
    claimer: str
    """The seat that claimed."""
    loser: str
    """The other seat of the flag's pair: it lost the flag."""
    formation: engine.FormationValue
    """The claimer's formation."""
    best: engine.FormationValue | None
    """The best formation the loser could still reach there (unseen troops included), when it
    reached at least the claimer's category; None when it could not, or could not complete."""
    margin: engine.ClaimMargin
    """What the claim rested on, as the engine's prover said (the tie cases of R12 included)."""
    loser_cards: tuple[str, ...] = ()
    """The loser's cards at the flag then (the best formation's cards that show)."""

    def words(self, names: Mapping[str, str], reader: str | None) -> list[Piece]:
        """Why the claim held, said to ``reader`` (a seat, or None: the public), cards drawn:
        "Alice's [B8][B9][B10] (Wedge 27) cannot be beaten: the best you could still reach
        there is [G5][G6][G7] (Wedge 18)"."""
        _, claimer_s = _who(self.claimer, names, reader)
        loser, loser_s = _who(self.loser, names, reader)
        pieces = [_t(f"{claimer_s[:1].upper()}{claimer_s[1:]}"), *_formation(self.formation)]
        margin, best = self.margin, self.best
        if margin is engine.ClaimMargin.OUT_OF_TROOPS:
            return [
                *pieces,
                _t(f"stands: too few unseen troops remain for {loser} to complete {loser_s} side"),
            ]
        if margin is engine.ClaimMargin.OUT_OF_REACH or best is None:
            category = self.formation.formation.title
            return [*pieces, _t(f"stands: nothing {loser} could still add reaches a {category}")]
        reach = self._reach(best, loser_s)
        if margin is engine.ClaimMargin.BELOW:
            return [
                *pieces,
                _t(f"cannot be beaten: the best {loser} could still reach there is"),
                *reach,
            ]
        if margin is engine.ClaimMargin.TIE_COMPLETED_LAST:
            return [
                *pieces,
                _t(f"ties {loser_s}"),
                *reach,
                _t(f"and {loser} completed {loser_s} side last (R12)"),
            ]
        return [
            *pieces,
            _t(f"can at best be tied, by {loser_s}"),
            *reach,
            _t(f"and {loser} would play the last card (R12)"),
        ]

    def _reach(self, best: engine.FormationValue, owner: str) -> list[Piece]:
        """A formation the loser could reach: its value, the cards of it on the board, and how
        many unseen troops it would add (never which: they may be in a hand)."""
        shown = [card for card in best.cards if card in self.loser_cards]
        more = len(best.cards) - len(shown)
        value = f"{best.formation.title} {best.total}"
        if not shown:
            return [_t(f"{value} ({more} unseen troop{'s' if more != 1 else ''})")]
        if not more:
            return [_t(f"{value}:"), *(Piece("card", card) for card in shown)]
        return [
            _t(f"{value}: {owner}"),
            *(Piece("card", card) for card in shown),
            _t(f"and {more} unseen troop{'s' if more != 1 else ''}"),
        ]


def _t(text: str) -> Piece:
    return Piece("text", text)


def _formation(value: engine.FormationValue) -> list[Piece]:
    return [*(Piece("card", card) for card in value.cards), _t(f"({value})")]


def _who(seat: str, names: Mapping[str, str], reader: str | None) -> tuple[str, str]:
    """A seat as the subject and as the owner in a sentence to ``reader``: ("you", "your")."""
    if seat == reader:
        return "you", "your"
    name = names.get(seat, seat)
    return name, f"{name}'s"


def explained(proof: engine.ClaimProofView, flag: engine.FlagView) -> ClaimExplained | None:
    """A proved claim in fields, from the proof and the flag at the moment of the claim; None
    for a proof that does not hold."""
    record = record_of(proof, flag)
    return None if record is None else _from_fields(proof.flag, proof.seat, record)


def claims_now(state: engine.GameState, seat: str) -> dict[int, ClaimExplained]:
    """Every flag ``seat`` could claim in ``state``, explained, by flag number."""
    flags = {flag.number: flag for flag in engine.spectator_view(state).flags}
    found = {}
    for proof in engine.claim_proof_views(state, seat):
        claim = explained(proof, flags[proof.flag])
        if claim is not None:
            found[claim.flag] = claim
    return found


def claims_in_log(
    session: Session, loaded: LoadedGame, entries: Sequence[LogEntry]
) -> dict[int, ClaimExplained]:
    """The claims among ``entries``, explained, by the entry's ply, in log order: from the
    proof kept with each claim (``service.games.claim_proofs``); a claim logged before proofs
    were kept, from the position just before it (a snapshot and a few moves), kept once
    computed (the log never changes, and a page lists the same claims at every visit)."""
    game = loaded.game
    claims = [e for e in entries if e.notation.split(":", 1)[-1].strip().startswith("claim ")]
    missing = [
        e for e in claims if e.proof is None and (game.public_id, e.ply, e.notation) not in _KEPT
    ]
    before = _positions_before(session, game, [e.ply for e in missing], entries)
    found = {}
    for entry in claims:
        if entry.proof is not None:
            claim: ClaimExplained | None = from_record(entry, game.ruleset)
        else:
            claim = _claim_at(session, loaded, entry, before.get(entry.ply))
        if claim is not None:
            found[entry.ply] = claim
    return found


def from_record(entry: LogEntry, ruleset: str) -> ClaimExplained:
    """The claim of log ``entry`` (a game of ``ruleset``) explained from the proof kept with it."""
    assert entry.proof is not None
    move = engine.parse_move(entry.notation, engine.get_ruleset(ruleset))
    assert move.flag is not None, f"a proof is kept with claims only, not {entry.notation!r}"
    return _from_fields(move.flag, entry.seat, entry.proof)


def _from_fields(flag: int, claimer: str, record: Mapping[str, Any]) -> ClaimExplained:
    """A claim of ``flag`` by ``claimer`` from its fields (``claim_proofs.record_of``)."""
    kept = record.get("best")
    formation = formation_from_record(record["mine"])
    best = None if kept is None else formation_from_record(kept)
    return ClaimExplained(
        flag=flag,
        claimer=claimer,
        loser=record["loser"],
        formation=formation,
        best=best,
        # The record keeps the proof's fields, not its margin: the engine reads it from them.
        margin=engine.claim_margin(
            formation,
            best,
            out_of_troops=record.get("short", False),
            opponent_complete=record.get("done", False),
        ),
        loser_cards=tuple(record["theirs"]),
    )


def _positions_before(
    session: Session, game: Game, plies: Sequence[int], entries: Sequence[LogEntry]
) -> dict[int, engine.GameState]:
    """The positions at ``plies`` (before each claim), from the game's few snapshots (one query)
    and the log ``entries`` at hand, walking forward once: a long game's page explains all its
    claims without a query and a replay per claim. Plies that ``entries`` do not reach are left
    out (``_claim_at`` reads them alone)."""
    if not plies or game.id is None:
        return {}
    by_ply = {entry.ply: entry for entry in entries}
    snapshots = snapshots_up_to(session, game.id, max(plies))
    found: dict[int, engine.GameState] = {}
    state: engine.GameState | None = None
    for ply in sorted(plies):
        nearest = max((s for s in snapshots if s.ply <= ply), key=lambda s: s.ply, default=None)
        if nearest is None:
            continue
        if state is None or state.ply > ply or state.ply < nearest.ply:
            state = engine.state_from_json(nearest.state)
        while state is not None and state.ply < ply:
            entry = by_ply.get(state.ply)
            if entry is None:
                state = None
                break
            state, _ = engine.apply(state, engine.parse_move(entry.notation, state.ruleset))
        if state is not None:
            found[ply] = state
    return found


def _claim_at(
    session: Session, loaded: LoadedGame, entry: LogEntry, before: engine.GameState | None
) -> ClaimExplained | None:
    key = (loaded.game.public_id, entry.ply, entry.notation)
    kept, claim = _KEPT.find(key)
    if kept:
        return claim
    state = before if before is not None else state_at(session, loaded, entry.ply)
    claim = None
    if state is not None:
        move = engine.parse_move(entry.notation, state.ruleset)
        if move.action is engine.Action.CLAIM and move.flag is not None:
            claim = claims_now(state, move.seat).get(move.flag)
    _KEPT.put(key, claim)
    return claim


KEPT_CLAIMS = 4096
"""How many explained claims this process keeps (a few hundred bytes each)."""
_KEPT: Kept[tuple[str, int, str], ClaimExplained | None] = Kept(KEPT_CLAIMS)
"""Explained claims by (game's public id, ply, notation): a claim in the log never changes."""


def deciding_flags(view: engine.PublicView, result: engine.Outcome) -> tuple[int, ...]:
    """The flags that decided a game won on the board: the adjacent flags of a breakthrough
    (around the ring on three seats, the corner flags joining two rows), every flag of the
    winner for an envelopment or a stalemate; none for a draw, a resignation or a loss on time.
    """
    winner = result.winner
    if winner is None or result.termination not in _ON_THE_BOARD:
        return ()
    held = [flag.claimed_by == winner for flag in view.flags]
    numbers = [flag.number for flag in view.flags]
    if result.termination is engine.Termination.BREAKTHROUGH:
        # Around the ring the last flags run on into the first ones.
        order = list(range(len(held))) * (2 if engine.get_ruleset(view.ruleset).ring else 1)
        run: list[int] = []
        for index in order:
            run = [*run, index] if held[index] else []
            if len(run) >= view.adjacent_to_win:
                return tuple(numbers[i] for i in run)
    return tuple(number for number, mine in zip(numbers, held, strict=True) if mine)


_ON_THE_BOARD = (
    engine.Termination.BREAKTHROUGH,
    engine.Termination.ENVELOPMENT,
    engine.Termination.STALEMATE,
)


def final_claims(
    session: Session, loaded: LoadedGame, entries: Sequence[LogEntry]
) -> list[ClaimExplained]:
    """The claims of the last turn of ``entries`` (the latest of a finished game's log), the
    last one being the claim that ended the game when it ended on the board, explained."""
    last: list[LogEntry] = []
    for entry in reversed(entries):
        if last and entry.seat != last[0].seat:
            break
        last.insert(0, entry)
    explained = claims_in_log(session, loaded, last)
    return [explained[entry.ply] for entry in last if entry.ply in explained]
