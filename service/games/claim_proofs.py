"""What a claim's log entry keeps of the proof that made it legal (R13), written with the claim:
the pages and emails that say why a claim held read these fields, instead of replaying the game
to the position before the claim on every view (much of a long game's public page:
docs/architecture.md, measured).

The fields are open information only (the board and the count of unseen troops): the best
formation the loser could still reach names unseen troops, which is why only the cards of it that
show are ever said (``service.present.claims``)."""

from __future__ import annotations

from typing import Any

import engine
from service.json_columns import ClaimProof, FormationRecord


def proof_record(state: engine.GameState, move: engine.Move) -> ClaimProof | None:
    """The proof of claim ``move`` in ``state`` (the position before it) as stored with its log
    entry (``record_of``); None for any other move, and for a claim that does not hold (the
    engine refuses it)."""
    if move.action is not engine.Action.CLAIM or move.flag is None:
        return None
    proof = engine.claim_proof_view(state, move.seat, move.flag)
    return record_of(proof, engine.spectator_view(state).flags[move.flag - 1])


def record_of(proof: engine.ClaimProofView, flag: engine.FlagView) -> ClaimProof | None:
    """A proved claim's fields, from the proof and the flag at the moment of the claim; None for
    a proof that does not hold. What a log entry keeps, and what every explanation of a claim
    is read from (``service.present.claims``), whether kept or worked out from a position.

    Short, because a game makes a few claims and the aim is 32 KB a finished game on disk:
    ``{"mine": formation, "best": formation or absent, "loser": seat, "theirs": the loser's
    cards at the flag}``, and ``"short": true`` (too few unseen troops remained for the loser to
    complete) and ``"done": true`` (a tie the loser lost by completing last, R12) only when
    true: with ``mine`` and ``best`` they give the proof's margin (``engine.claim_margin``)."""
    if not proof.provable or proof.formation is None:
        return None
    theirs = flag.cards[proof.opponent]
    record = ClaimProof(
        mine=formation_record(proof.formation), loser=proof.opponent, theirs=list(theirs)
    )
    if proof.opponent_best is not None:
        record["best"] = formation_record(proof.opponent_best)
    if proof.margin is engine.ClaimMargin.OUT_OF_TROOPS:
        record["short"] = True
    if proof.margin is engine.ClaimMargin.TIE_COMPLETED_LAST:
        record["done"] = True
    return record


def formation_record(value: engine.FormationValue) -> FormationRecord:
    """A formation's value as stored: ``["host", 23, ["O3", "G10", "Y10"], [3, 10, 10]]``,
    its category, sum, cards and the value each card counts for."""
    return [value.formation.name.lower(), value.total, list(value.cards), list(value.values)]


def formation_from_record(data: list[Any]) -> engine.FormationValue:
    """``formation_record`` read back."""
    category, total, cards, values = data
    return engine.FormationValue(
        formation=engine.Formation[category.upper()],
        total=total,
        cards=tuple(cards),
        values=tuple(values),
    )
