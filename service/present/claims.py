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
from service.catalogue import gettext, ngettext
from service.game_words import formation_name, formation_value
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
        """Why the claim held, said to ``reader`` (a seat, or None: the public), cards drawn,
        in the language being written: "Alice's [B8][B9][B10] (Wedge 27) cannot be beaten: the
        best you could still reach there is [G5][G6][G7] (Wedge 18)"."""
        _, owner = _who(self.claimer, names, reader)
        loser, loser_owner = _who(self.loser, names, reader)
        common = {
            "owner": owner,
            "cards": _CARDS,
            "value": formation_value(self.formation),
            "loser": loser,
            "loser_owner": loser_owner,
        }
        margin, best = self.margin, self.best
        reach: list[Piece] = []
        if margin is engine.ClaimMargin.OUT_OF_TROOPS:
            sentence = gettext(
                "%(owner)s %(cards)s (%(value)s) stands: too few unseen troops remain for "
                "%(loser)s to complete %(loser_owner)s side",
                **common,
            )
        elif margin is engine.ClaimMargin.OUT_OF_REACH or best is None:
            sentence = gettext(
                "%(owner)s %(cards)s (%(value)s) stands: nothing %(loser)s could still add "
                "reaches a %(category)s",
                category=formation_name(self.formation.formation),
                **common,
            )
        else:
            reach = self._reach(best, loser_owner)
            if margin is engine.ClaimMargin.BELOW:
                sentence = gettext(
                    "%(owner)s %(cards)s (%(value)s) cannot be beaten: the best %(loser)s could "
                    "still reach there is %(reach)s",
                    reach=_REACH,
                    **common,
                )
            elif margin is engine.ClaimMargin.TIE_COMPLETED_LAST:
                sentence = gettext(
                    "%(owner)s %(cards)s (%(value)s) ties %(loser_owner)s %(reach)s and "
                    "%(loser)s completed %(loser_owner)s side last (R12)",
                    reach=_REACH,
                    **common,
                )
            else:
                sentence = gettext(
                    "%(owner)s %(cards)s (%(value)s) can at best be tied, by %(loser_owner)s "
                    "%(reach)s and %(loser)s would play the last card (R12)",
                    reach=_REACH,
                    **common,
                )
        sentence = sentence[:1].upper() + sentence[1:]
        return cut_at_marks(sentence, {_CARDS: _card_pieces(self.formation.cards), _REACH: reach})

    def _reach(self, best: engine.FormationValue, owner: str) -> list[Piece]:
        """A formation the loser could reach: its value, the cards of it on the board, and how
        many unseen troops it would add (never which: they may be in a hand)."""
        shown = [card for card in best.cards if card in self.loser_cards]
        more = len(best.cards) - len(shown)
        value = formation_value(best)
        if not shown:
            return [
                _t(
                    ngettext(
                        "%(value)s (%(num)d unseen troop)",
                        "%(value)s (%(num)d unseen troops)",
                        more,
                        value=value,
                    )
                )
            ]
        if not more:
            sentence = gettext("%(value)s: %(cards)s", value=value, cards=_CARDS)
        else:
            sentence = ngettext(
                "%(value)s: %(owner)s %(cards)s and %(num)d unseen troop",
                "%(value)s: %(owner)s %(cards)s and %(num)d unseen troops",
                more,
                value=value,
                owner=owner,
                cards=_CARDS,
            )
        return cut_at_marks(sentence, {_CARDS: _card_pieces(shown)})


_CARDS = "\x00"
_REACH = "\x01"
"""Stand for cards inside a translated sentence, which is then cut around them."""


def cut_at_marks(sentence: str, marks: Mapping[str, list[Piece]]) -> list[Piece]:
    """A translated sentence as pieces, each mark in it replaced by its pieces (cards drawn
    where the language puts them)."""
    pieces: list[Piece] = []
    text = ""
    for char in sentence:
        if char in marks:
            if text.strip():
                pieces.append(_t(text.strip()))
            pieces.extend(marks[char])
            text = ""
        else:
            text += char
    if text.strip():
        pieces.append(_t(text.strip()))
    return pieces


def _t(text: str) -> Piece:
    return Piece("text", text)


def _card_pieces(cards: Sequence[str]) -> list[Piece]:
    return [Piece("card", card) for card in cards]


def _who(seat: str, names: Mapping[str, str], reader: str | None) -> tuple[str, str]:
    """A seat as the subject and as the owner in a sentence to ``reader``: ("you", "your")."""
    if seat == reader:
        return str(gettext("you")), str(gettext("your"))
    name = names.get(seat, seat)
    return name, str(gettext("%(name)s's", name=name))


def proof_reason(proof: engine.ClaimProofView) -> list[Piece]:
    """Why a flag can or cannot be claimed now, said to the seat that would claim it, cards
    drawn, in the language being written (from the proof's fields: ``reason`` is the engine's
    English): "[B8][B9][B10] (Wedge 27) would beat Wedge 12"."""
    mine, best = proof.formation, proof.opponent_best
    if proof.status is engine.ClaimStatus.DISCARD_DUE:
        return [
            _t(
                gettext(
                    "a side here holds one card too many since the Mud left and must first "
                    "discard one (R20)"
                )
            )
        ]
    if mine is None:
        return [_t(gettext("your side is not complete yet"))]
    value = formation_value(mine)
    if best is None:
        if proof.opponent_cannot_complete:
            return [_t(gettext("too few unseen troops remain to complete the opponent's side"))]
        return [_t(gettext("nothing the opponent can still form reaches %(value)s", value=value))]
    fields = {"cards": _CARDS, "best": formation_value(best), "value": value}
    margin = proof.margin
    if margin is engine.ClaimMargin.BELOW:
        sentence = gettext(
            "the opponent's best, %(cards)s (%(best)s), is below %(value)s", **fields
        )
    elif margin is engine.ClaimMargin.TIE_PLAYS_LAST:
        sentence = gettext(
            "%(cards)s (%(best)s) would at best tie %(value)s, and the opponent would play the "
            "last card",
            **fields,
        )
    elif margin is engine.ClaimMargin.TIE_COMPLETED_LAST:
        sentence = gettext(
            "%(cards)s (%(best)s) ties %(value)s and the opponent completed last", **fields
        )
    elif best.strength > mine.strength:
        sentence = gettext("%(cards)s (%(best)s) would beat %(value)s", **fields)
    else:
        sentence = gettext("%(cards)s (%(best)s) ties %(value)s and you completed last", **fields)
    return cut_at_marks(sentence, {_CARDS: _card_pieces(best.cards)})


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
