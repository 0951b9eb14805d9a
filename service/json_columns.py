"""The shapes of the JSON columns of ``service.models``: what each one holds, so that mypy checks
every read and write of them. (``typing_extensions.TypedDict``: pydantic, under SQLModel, needs
it on Python before 3.12.)"""

from __future__ import annotations

from typing import Any, NotRequired, TypeAlias

from typing_extensions import TypedDict

EngineStateJson: TypeAlias = dict[str, Any]
"""``engine.state_to_json`` of a position (``snapshots.state``): the engine's own format, read
back only by ``engine.state_from_json``; the service never looks inside."""

FormationRecord: TypeAlias = list[str | int | list[str] | list[int]]
"""A formation's value as a claim's proof keeps it: ``["host", 23, ["O3", "G10", "Y10"],
[3, 10, 10]]``, its category, sum, cards and the value each card counts for."""


class DealFields(TypedDict):
    """``games.deal``: the fields of a game record (docs/formats.md) that the deal decides."""

    first: str
    """The seat that plays first."""
    deal: dict[str, list[str]]
    """Each seat's hand by seat letter, and ``troops`` and ``tactics``: the decks, top first."""
    cuts: NotRequired[list[list[str | None]]]
    """The cuts that chose the first seat (R2), a card per seat (None: no card cut): absent in a
    series game whose first seat won the game before."""


class GameResult(TypedDict):
    """``games.result``: how a finished game ended."""

    winner: str | None
    """The winning seat (None: nobody won)."""
    termination: str
    """``engine.Termination`` value: breakthrough, envelopment, stalemate, resignation, time."""
    flags_held: dict[str, int]
    """Flags each seat held at the end, by seat letter."""
    series_points: dict[str, int]
    """Points each seat scores in a series (``engine.series_points``), by seat letter."""
    ply: int
    """Log entries at the end."""


class ClaimProof(TypedDict):
    """``moves.proof``: why a claim held (``service.games.claim_proofs``), kept with it."""

    mine: FormationRecord
    """The claimer's formation at the flag."""
    best: NotRequired[FormationRecord]
    """The best formation the loser could still reach, when there was one."""
    loser: str
    """The seat that lost the flag."""
    theirs: list[str]
    """The loser's cards at the flag."""
    short: NotRequired[bool]
    """Present (true) when too few unseen troops remained for the loser to complete."""
    done: NotRequired[bool]
    """Present (true) when the loser's side was complete."""


class TurnChoices(TypedDict, total=False):
    """``players.preferences`` and ``seats.preferences``: a player's defaults or one seat's own
    choices about turns (``service.games.preferences``); a missing key takes the default."""

    automatic_claims: bool
    digest: bool
