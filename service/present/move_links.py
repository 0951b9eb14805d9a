"""Move links for emails: one signed link per legal move of the seat to move, and those links
grouped as the "your turn" email lists them.

The token names game, seat, token generation and ply (never a card: tokens are readable); the
address adds the index of the move in ``engine.legal_moves`` at that ply, whose order is
deterministic. Changing the index only picks another legal move of the same seat and turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from service import tokens
from service.catalogue import gettext
from service.links import external_url
from service.models import Seat
from service.present.choices import MoveChoices
from service.present.plain_text import pieces_text
from service.present.tactics_choices import HeldTactics, TacticsOffer
from service.templating import card_face


def move_link_url(seat: Seat, ply: int, index: int) -> str:
    """The absolute link that plays legal move number ``index`` (from 0) of ``seat`` at ``ply``."""
    token = tokens.make_move_token(seat.game_id, seat.letter, seat.token_generation, ply)
    return external_url("play.move_link", token=token, index=index)


def move_link_urls(seat: Seat, ply: int, count: int) -> list[str]:
    """The links of legal moves 0 to ``count - 1`` of ``seat`` at ``ply``: one token for all."""
    token = tokens.make_move_token(seat.game_id, seat.letter, seat.token_generation, ply)
    return [external_url("play.move_link", token=token, index=index) for index in range(count)]


@dataclass(frozen=True, slots=True)
class FlagLink:
    """A move to one flag (a card's, or a claim), its link and its code to reply with."""

    flag: int | None
    url: str
    code: str


@dataclass(frozen=True, slots=True)
class PlayLinks:
    """A card of the hand and the flags it may go to."""

    card: str
    text: str
    flags: tuple[FlagLink, ...]


@dataclass(frozen=True, slots=True)
class DiscardLink:
    """A card to discard from a flag the Mud left over-full."""

    card: str | None
    text: str
    flag: int | None
    url: str
    code: str


@dataclass(frozen=True, slots=True)
class LabelledLink:
    """A move named in words: a pass, a draw, the end of the turn, a tactics card's choice."""

    label: str
    url: str
    code: str


@dataclass(frozen=True, slots=True)
class TargetLinks:
    """A card (or flag) a tactics card acts on, and where it may go."""

    card: str | None
    flag: int | None
    choices: tuple[LabelledLink, ...]


@dataclass(frozen=True, slots=True)
class TacticsLinks:
    """A tactics card that acts on the board, per card it acts on."""

    card: str
    what: str
    code_form: str
    targets: tuple[TargetLinks, ...]


@dataclass(frozen=True, slots=True)
class HeldCards:
    """Tactics cards a limit keeps in the hand, and why."""

    cards: tuple[str, ...]
    why: str


@dataclass(frozen=True, slots=True)
class MoveLinks:
    """A seat's legal moves grouped, each with its link and code: a card, then the flags it may
    go to; claims, discards, a pass and the draws on their own; the Scout, Redeploy, Deserter
    and Traitor per card they act on; the tactics cards a limit holds back."""

    plays: tuple[PlayLinks, ...]
    then: tuple[str, ...]
    """The codes of the follow-ups (draws) that may end a turn after a card."""
    claims: tuple[FlagLink, ...]
    discards: tuple[DiscardLink, ...]
    others: tuple[LabelledLink, ...]
    tactics: tuple[TacticsLinks, ...]
    held: tuple[HeldCards, ...]


def move_link_groups(
    seat_row: Seat,
    choices: MoveChoices,
    ply: int,
    offers: Sequence[TacticsOffer] = (),
    held: Sequence[HeldTactics] = (),
) -> MoveLinks:
    """The seat's grouped legal moves (``service.present.choices``) with their links: ``offers``
    the tactics cards that act on the board (``service.present.tactics_choices``), ``held`` the
    ones a limit keeps in the hand."""
    urls = move_link_urls(seat_row, ply, choices.count)
    others = [choices.passing] if choices.passing else []
    others += [*choices.scout_draws, *choices.draws, *([choices.end] if choices.end else [])]
    return MoveLinks(
        plays=tuple(
            PlayLinks(
                card=group.card,
                text=card_face(group.card).label,
                flags=tuple(FlagLink(c.flag, urls[c.index], c.code) for c in group.choices),
            )
            for group in choices.plays
        ),
        then=tuple(c.code for c in choices.then),
        claims=tuple(FlagLink(c.flag, urls[c.index], c.code) for c in choices.claims),
        discards=tuple(
            DiscardLink(c.card, card_face(c.card or "").label, c.source, urls[c.index], c.code)
            for c in choices.discards
        ),
        others=tuple(
            LabelledLink(
                gettext("Pass (you cannot play a troop card)")
                if c is choices.passing
                else pieces_text(c.words),
                urls[c.index],
                c.code,
            )
            for c in others
        ),
        tactics=tuple(
            TacticsLinks(
                card=offer.card,
                what=offer.what,
                code_form=offer.code_form,
                targets=tuple(
                    TargetLinks(
                        target.card,
                        target.flag,
                        tuple(
                            LabelledLink(label, urls[c.index], c.code)
                            for label, c in target.choices
                        ),
                    )
                    for target in offer.targets
                ),
            )
            for offer in offers
        ),
        held=tuple(HeldCards(tuple(hold.cards), hold.why) for hold in held),
    )
