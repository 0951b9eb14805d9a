"""The tactics cards of a turn in words, for the "your turn" email and the private page: the
Scout, Redeploy, Deserter and Traitor moves grouped per card they act on (a card, then where it
may go), each with its reply code; and the tactics cards a limit keeps in the hand, with the
limit the engine names (``engine.PlayerView.blocked_tactics``) and when it lifts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import engine
from service.catalogue import gettext, ngettext
from service.present.choices import Choice, MoveChoices
from service.present.summaries import in_words
from service.templating import card_face


@dataclass(frozen=True, slots=True)
class Target:
    """A card a tactics card acts on (or, for the Scout, none) and the moves it may make: each
    choice's ``label`` is a destination ("5", "discard") or, for a Deserter, the card."""

    card: str | None
    flag: int | None
    choices: tuple[tuple[str, Choice], ...]

    @property
    def codes(self) -> str:
        """The codes in short: the first in full, the others by what changes
        (``REDEPLOY P4@4>1, >2, >discard``; a Deserter's are all in full)."""
        first = self.choices[0][1].code
        if ">" not in first:
            return ", ".join(c.code for _, c in self.choices)
        rest = [f">{c.code.rsplit('>', 1)[1]}" for _, c in self.choices[1:]]
        return ", ".join([first, *rest])


@dataclass(frozen=True, slots=True)
class TacticsOffer:
    """One tactics card that can be played now, what it does and its moves."""

    card: str
    """``SCOUT``, ``REDEPLOY``, ``DESERTER`` or ``TRAITOR``."""
    what: str
    """What it does, in a sentence for the player."""
    code_form: str
    """How its reply code is written, with an example from this position."""
    targets: tuple[Target, ...]


def tactics_offers(
    choices: MoveChoices, view: engine.PlayerView, opponents: str
) -> list[TacticsOffer]:
    """The Scout, Redeploy, Deserter and Traitor moves of ``choices``, grouped per card they act
    on. ``view``: the seat's (the Scout's example puts back cards of its hand); ``opponents``:
    the other players' names, in words."""
    offers: list[TacticsOffer] = []
    if choices.scout is not None:
        kept = [card for card in view.hand if card != "SCOUT"][: view.scout_returns_max]
        example = " ".join(["SCOUT troops troops tactics", *(["return", *kept] if kept else [])])
        offers.append(
            TacticsOffer(
                "SCOUT",
                gettext(
                    "draw up to three cards, each from the deck you choose after seeing the one "
                    "before, then put back as many as bring your hand back to %(size)s cards "
                    "(the last one named ends on top of its deck); no draw follows",
                    size=view.hand_size,
                ),
                gettext(
                    "SCOUT, then the draws and the cards to put back, all in one reply if you "
                    'like: "%(example)s"',
                    example=example,
                ),
                (Target(None, None, ((gettext("play it"), choices.scout),)),),
            )
        )
    if choices.redeploys:
        example = choices.redeploys[0].choices[0].code
        offers.append(
            TacticsOffer(
                "REDEPLOY",
                gettext("move one of your cards to another flag, or discard it"),
                gettext("REDEPLOY CARD@FROM>TO, or >discard, such as %(example)s", example=example),
                tuple(
                    Target(
                        g.card,
                        g.source,
                        tuple(
                            (gettext("discard") if c.flag is None else str(c.flag), c)
                            for c in g.choices
                        ),
                    )
                    for g in choices.redeploys
                ),
            )
        )
    if choices.deserters:
        by_flag: dict[int, list[Choice]] = {}
        for c in choices.deserters:
            by_flag.setdefault(c.source or 0, []).append(c)
        offers.append(
            TacticsOffer(
                "DESERTER",
                gettext("discard one of %(opponents)s's cards", opponents=opponents),
                gettext(
                    "DESERTER CARD@FLAG, such as %(example)s", example=choices.deserters[0].code
                ),
                tuple(
                    Target(None, flag, tuple((card_face(c.card or "").label, c) for c in found))
                    for flag, found in by_flag.items()
                ),
            )
        )
    if choices.traitors:
        example = choices.traitors[0].choices[0].code
        offers.append(
            TacticsOffer(
                "TRAITOR",
                gettext(
                    "take one of %(opponents)s's troops to your side of a flag", opponents=opponents
                ),
                gettext("TRAITOR CARD@FROM>TO, such as %(example)s", example=example),
                tuple(
                    Target(g.card, g.source, tuple((str(c.flag), c) for c in g.choices))
                    for g in choices.traitors
                ),
            )
        )
    return offers


@dataclass(frozen=True, slots=True)
class HeldTactics:
    """Tactics cards in the hand that a limit keeps there, and why, in a sentence."""

    cards: tuple[str, ...]
    reason: engine.TacticsBlock
    why: str
    """Why and until when, said to the seat ("you have played ...: playable once Bob has")."""


def held_tactics(view: engine.PlayerView, names: Mapping[str, str]) -> list[HeldTactics]:
    """The engine's ``blocked_tactics`` of ``view``, grouped by limit, in words."""
    groups: dict[tuple[engine.TacticsBlock, tuple[str, ...]], list[str]] = {}
    for blocked in view.blocked_tactics:
        groups.setdefault((blocked.reason, blocked.waiting_for), []).append(blocked.card)
    held = []
    for (reason, waiting_for), cards in groups.items():
        if reason is engine.TacticsBlock.LEADER_LIMIT:
            why = str(
                gettext(
                    "you have played a Leader already, and a player plays one Leader a game: "
                    "this one stays in your hand to the end"
                )
            )
        else:
            who = in_words([names.get(seat, seat) for seat in waiting_for])
            mine = view.tactics_played[view.seat]
            theirs = min(view.tactics_played[seat] for seat in waiting_for)
            # No ruling codes in these words: "R8" and "R9" are also cards (red 8, red 9).
            if len(waiting_for) == 1:
                sentence = gettext(
                    "you have played %(mine)s, %(who)s %(theirs)s, and no player may play more "
                    "tactics cards than an opponent: playable once %(who)s has played one",
                    mine=_cards(mine),
                    who=who,
                    theirs=_cards(theirs),
                )
            else:
                sentence = gettext(
                    "you have played %(mine)s, %(who)s %(theirs)s, and no player may play more "
                    "tactics cards than an opponent: playable once %(who)s have each played one",
                    mine=_cards(mine),
                    who=who,
                    theirs=_cards(theirs),
                )
            why = str(sentence)
        held.append(HeldTactics(tuple(cards), reason, why))
    return held


def _cards(count: int) -> str:
    return str(ngettext("%(num)d tactics card", "%(num)d tactics cards", count))
