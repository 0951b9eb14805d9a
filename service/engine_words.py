"""The engine's errors said to a person in their language.

The engine writes its errors in English (its command line and the format tools read them), and
gives each a typed reason (``engine.Why``) with the facts it names (card, flag, seat, counts).
English readers get the engine's own message, word for word; every other language says the
reason from this module's table, one whole sentence per reason, with the facts as named
placeholders. Card codes, move notation and ruling codes are never translated.
"""

from __future__ import annotations

from collections.abc import Callable

import engine
from engine import Why
from service.catalogue import DEFAULT_LANGUAGE, gettext, ngettext, page_language

Sentence = Callable[[engine.ExplainedError, str | None], str]
"""Says an error to the seat reading it (None: someone who is not at the table)."""


def _flag(error: engine.ExplainedError) -> str:
    """The flag an error names: its number, or what was written for one."""
    if error.flag is not None:
        return str(error.flag)
    return error.text or ""


def _card_not_there(error: engine.ExplainedError, reader: str | None) -> str:
    if reader is not None and error.seat == reader:
        return str(
            gettext(
                "%(card)s is not on your side of flag %(flag)s.", card=error.card, flag=_flag(error)
            )
        )
    return str(
        gettext(
            "%(card)s is not on your opponent's side of flag %(flag)s.",
            card=error.card,
            flag=_flag(error),
        )
    )


def _tactics_limit(error: engine.ExplainedError, reader: str | None) -> str:
    if error.rule == "V6.4":
        return str(
            gettext(
                "You have played %(mine)d tactics cards and one of your opponents only %(theirs)d: "
                "you may play another only when you have not played more than either opponent.",
                mine=error.count or 0,
                theirs=error.other_count or 0,
            )
        )
    return str(
        gettext(
            "You have played %(mine)d tactics cards and your opponent %(theirs)d: you may play "
            "another only when you have not played more than your opponent.",
            mine=error.count or 0,
            theirs=error.other_count or 0,
        )
    )


def _deck_empty(error: engine.ExplainedError, reader: str | None) -> str:
    if error.deck == engine.Deck.TACTICS:
        return str(gettext("The tactics deck is empty."))
    return str(gettext("The troop deck is empty."))


def _not_provable(error: engine.ExplainedError, reader: str | None) -> str:
    flag = _flag(error)
    status = error.claim_status
    if status == engine.ClaimStatus.INCOMPLETE:
        return str(
            gettext(
                "Flag %(flag)s cannot be claimed yet: your formation there is not complete.",
                flag=flag,
            )
        )
    if status == engine.ClaimStatus.CLAIMED:
        return str(gettext("Flag %(flag)s is claimed already.", flag=flag))
    if status == engine.ClaimStatus.DISCARD_DUE:
        return str(
            gettext(
                "Flag %(flag)s cannot be claimed until a card is discarded there: the Mud has "
                "left.",
                flag=flag,
            )
        )
    if status == engine.ClaimStatus.NOT_YOURS:
        return str(
            gettext(
                "Flag %(flag)s lies between the two other players: you cannot claim it.", flag=flag
            )
        )
    return str(
        gettext(
            "Flag %(flag)s cannot be claimed yet: your opponent could still beat your "
            "formation there.",
            flag=flag,
        )
    )


SENTENCES: dict[Why, Sentence] = {
    Why.NOT_A_CARD: lambda e, _: gettext(
        "%(text)s is not a card of this game.", text=(e.text or "").strip()
    ),
    Why.NO_TACTICS: lambda e, _: gettext(
        "%(card)s is a tactics card, and this game is played without them.", card=e.card
    ),
    Why.NOT_NOTATION: lambda e, _: gettext(
        "“%(text)s” is not a move of the notation.", text=e.text or ""
    ),
    Why.NOT_A_SEAT: lambda e, _: gettext("%(seat)s is not a seat of this game.", seat=e.seat),
    Why.NO_SUCH_FLAG: lambda e, _: gettext(
        "There is no flag %(flag)s: the flags are numbered 1 to %(count)d.",
        flag=_flag(e),
        count=e.count or 0,
    ),
    Why.GAME_OVER: lambda e, _: gettext("The game is over."),
    Why.NOT_YOUR_TURN: lambda e, _: gettext("It is not your turn."),
    Why.PLAY_FIRST: lambda e, _: gettext(
        "“%(move)s” comes later: first play a card (or pass, when you cannot play one).",
        move=e.move,
    ),
    Why.ALREADY_PLAYED: lambda e, _: gettext(
        "You have already played this turn: “%(move)s” is not possible now.", move=e.move
    ),
    Why.SCOUTING: lambda e, _: ngettext(
        "You are playing a Scout: draw up to %(num)d card, then put cards back.",
        "You are playing a Scout: draw up to %(num)d cards, then put cards back.",
        e.count or 0,
    ),
    Why.MUD_DISCARD_FIRST: lambda e, _: gettext(
        "First discard one card of your four at flag %(flag)s: the Mud has left.",
        flag=_flag(e),
    ),
    Why.NO_DRAW_DUE: lambda e, _: gettext("No draw is due now: end your turn with “end”."),
    Why.DRAW_FIRST: lambda e, _: gettext("You must draw a card before your turn ends."),
    Why.NO_CARD_NAMED: lambda e, _: gettext("The move names no card."),
    Why.CARD_NOT_IN_HAND: lambda e, _: gettext("%(card)s is not in your hand.", card=e.card),
    Why.CARD_NOT_THERE: _card_not_there,
    Why.NOT_PLAYED_TO_FLAG: lambda e, _: gettext(
        "%(card)s is not played to a flag: it has a move of its own.", card=e.card
    ),
    Why.NOT_YOUR_FLAG: lambda e, _: gettext(
        "Flag %(flag)s lies between the two other players: your cards and tactics act only at "
        "your own flags.",
        flag=_flag(e),
    ),
    Why.FLAG_CLAIMED: lambda e, _: gettext(
        "Flag %(flag)s is claimed: nothing may be played there nor taken from it.",
        flag=_flag(e),
    ),
    Why.FLAG_FULL: lambda e, _: gettext("Your side of flag %(flag)s is full.", flag=_flag(e)),
    Why.MUST_PLAY_TROOP: lambda e, _: gettext(
        "You may pass only when you cannot play a troop card (no troop in hand, or no free "
        "slot on your side of an unclaimed flag)."
    ),
    Why.TACTICS_LIMIT: _tactics_limit,
    Why.SECOND_LEADER: lambda e, _: gettext(
        "You have already played a Leader: the second stays in your hand to the end."
    ),
    Why.REDEPLOY_ENVIRONMENT: lambda e, _: gettext(
        "Redeploy moves troop and morale cards, not Fog or Mud."
    ),
    Why.REDEPLOY_SAME_FLAG: lambda e, _: gettext(
        "Redeploy moves a card to another flag, or discards it."
    ),
    Why.TRAITOR_TACTICS: lambda e, _: gettext("Traitor takes a troop card, not a tactics card."),
    Why.SCOUT_DRAWS_DONE: lambda e, _: ngettext(
        "The Scout draws %(num)d card at most: now put cards back.",
        "The Scout draws %(num)d cards at most: now put cards back.",
        e.count or 0,
    ),
    Why.SCOUT_RETURN_COUNT: lambda e, _: ngettext(
        "Put back exactly %(num)d card, to bring your hand back to %(size)d.",
        "Put back exactly %(num)d cards, to bring your hand back to %(size)d.",
        e.count or 0,
        size=e.other_count or 0,
    ),
    Why.NO_DISCARD_OWED: lambda e, _: gettext(
        "You owe no discard at flag %(flag)s: only a side left with four cards when the Mud "
        "leaves gives one up.",
        flag=_flag(e),
    ),
    Why.DECK_EMPTY: _deck_empty,
    Why.CLAIM_AFTER_PLAY: lambda e, _: gettext(
        "Flags are claimed after you play your card, before you draw."
    ),
    Why.CLAIM_AT_START: lambda e, _: gettext(
        "Under the advanced rule flags are claimed only at the start of your turn, before you play."
    ),
    Why.CLAIM_NOT_PROVABLE: _not_provable,
}


def engine_error_sentence(error: engine.ExplainedError, reader: str | None = None) -> str:
    """What ``error`` says, as a whole sentence in the current page's (or email's) language,
    said to seat ``reader`` (None: not a player of the game), its ruling in brackets."""
    ruling = f" ({error.rule})" if error.rule and error.rule not in str(error) else ""
    if page_language() == DEFAULT_LANGUAGE:
        return f"{error}{ruling}."
    sentence = SENTENCES[error.why](error, reader)
    return f"{sentence[:-1]}{ruling}{sentence[-1]}" if ruling else sentence
