"""What the private page and the move-link pages show, built from the engine's typed view of one
seat (``engine.player_view``), its claim proofs and its grouped legal moves: never the state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from markupsafe import Markup
from sqlmodel import Session

import engine
from service.catalogue import gettext, lazy_gettext
from service.games.loaded import LoadedGame
from service.games.move_log import moves_from
from service.present.board import Board, board_of
from service.present.choices import MoveChoices, move_choices
from service.present.claims import claims_in_log, proof_reason
from service.present.game_emails import OTHERS_TURNS_ENTRIES, others_turns
from service.present.move_list import LogRow, cards_placed, log_html, log_rows
from service.present.seat_names import SeatNames, seat_labels, seat_names
from service.present.summaries import SeriesNote, in_words, series_note
from service.present.tactics_choices import HeldTactics, held_tactics
from service.present.words import Piece

RECENT_ENTRIES = 12
"""How many log entries the private page lists under "Latest moves"."""


@dataclass(frozen=True, slots=True)
class ProofRow:
    """One line of the claims list: one flag, or the flags where the seat's side is incomplete
    (early in a game that is most of them, and nine identical lines hide the ones that
    matter)."""

    flags: tuple[int, ...]
    provable: bool
    reason: list[Piece]

    @property
    def label(self) -> str:
        numbers = str(gettext(", ")).join(map(str, self.flags))
        if len(self.flags) > 1:
            return str(gettext("Flags %(numbers)s", numbers=numbers))
        return str(gettext("Flag %(number)s", number=numbers))


OWN_CARDS_UNSEEN = lazy_gettext(
    "(some of these are in your hand: a claim is proved from the table alone, and your "
    "opponent cannot see your hand, so they count as cards that may still come)"
)


def proof_rows(state: engine.GameState, view: engine.PlayerView) -> list[ProofRow]:
    """For every unclaimed flag of the seat of ``view`` (its view of ``state``), whether it
    could be claimed on the board as it stands, and the prover's reason (R13), which names only
    unseen or open cards."""
    rows: list[ProofRow] = []
    incomplete: list[int] = []
    hand = set(view.hand)
    for proof in engine.claim_proof_views(state, view.seat):
        if proof.status is engine.ClaimStatus.INCOMPLETE:
            incomplete.append(proof.flag)
        else:
            reason = proof_reason(proof)
            best = proof.opponent_best
            if not proof.provable and best is not None and hand.intersection(best.cards):
                # The counter-example may use the reader's own cards: say why they count.
                reason.append(Piece("text", str(OWN_CARDS_UNSEEN)))
            rows.append(ProofRow((proof.flag,), proof.provable, reason))
    if incomplete:
        reason = [Piece("text", str(gettext("your side is not complete yet")))]
        rows.append(ProofRow(tuple(incomplete), False, reason))
    return rows


def last_turn_title(view: engine.PlayerView, names: Mapping[str, str]) -> str:
    """The heading over the others' last turn: "Bob's last turn", or with two others "Since
    your last turn (Bob and Carol)"."""
    others = in_words([names.get(s, s) for s in view.opponents])
    if len(view.opponents) == 1:
        return str(gettext("%(name)s's last turn", name=others))
    return str(gettext("Since your last turn (%(names)s)", names=others))


@dataclass(frozen=True, slots=True)
class PrivatePage:
    """What the private page (and a move link's page) shows of a dealt game besides the public
    summary."""

    view: engine.PlayerView
    last_turn_title: str
    last_turn_html: Markup
    """What the others did since this seat's last turn, first on the page (as in the email)."""
    marked: frozenset[str]
    """The cards the others' last turn put on the board."""
    actions: MoveChoices
    held: tuple[HeldTactics, ...]
    proofs: tuple[ProofRow, ...]
    recent: tuple[LogRow, ...]
    recent_html: Markup
    names: SeatNames
    labels: SeatNames
    """The name over each side of the board ("You" for the reader)."""
    sides: Board
    order: tuple[str, ...]
    """The reader first, then the others in seat order."""
    series: SeriesNote | None


def private_page_context(
    session: Session, loaded: LoadedGame, seat: str, state: engine.GameState
) -> PrivatePage:
    """What the private page of ``seat`` shows besides the public summary: the seat's view,
    its legal moves as forms, the claim proofs and the latest moves."""
    names = seat_names(loaded)
    # One read of the log serves the others' last turn and the latest moves.
    read = max(RECENT_ENTRIES, OTHERS_TURNS_ENTRIES)
    window = moves_from(session, loaded.id, max(0, state.ply - read), state.ply)
    entries = window[-RECENT_ENTRIES:]
    view = engine.player_view(state, seat)
    finished = state.result is not None
    recent = log_rows(
        entries,
        state.ruleset,
        names,
        reader=seat,
        finished=finished,
        after=state,
        claims=claims_in_log(session, loaded, entries),
    )
    # What the others did since this seat's last turn, first on the page (as in the email).
    turns = others_turns(session, loaded, state, seat, names, window, plain_text=False)
    last_turn = [row for group in turns for row in group.rows]
    return PrivatePage(
        view=view,
        last_turn_title=last_turn_title(view, names),
        last_turn_html=log_html(last_turn, None),
        marked=cards_placed(last_turn),
        actions=move_choices(state, seat),
        held=() if finished else tuple(held_tactics(view, names)),
        proofs=() if finished else tuple(proof_rows(state, view)),
        recent=tuple(recent),
        recent_html=log_html(recent, None),
        names=names,
        labels=seat_labels(view.seats, names, view.seat),
        sides=board_of(view, seat),
        order=(view.seat, *view.opponents),
        series=series_note(session, loaded, seat),
    )
