"""Reading a reply by email: the moves a player's words name (the words themselves come out of
the message in ``service.inbound.reply_text``).

Pure: text and a position in, moves out. No database, no app. The words are in
``reply_words``, the cutting into parts in ``reply_parts``, what a part says in ``reply_wanted``.

The words are cut into sentences (at line ends and ``.`` ``!`` ``?``), then into parts at ``,``
``;`` ``and`` ``then``, and at each new verb; each part names one move, as constraints (an
action, a card, a flag, a deck ...) that must pick exactly one of the legal moves of the position
the part meets. The parts apply in order, each to the position the one before it left: a reply
can hold a whole turn. What is accepted, case-insensitively and with spaces anywhere:

- the notation: ``R7>3``, ``claim 3``, ``draw tactics``, ``REDEPLOY R7@3>5``, ``return R2 FOG``;
- the short codes of ``service.present.choices.move_code``: ``c3``, ``troops``, ``tactics``,
  ``pass``, ``end`` (card moves are their notation);
- plain words: ``play red 7 on flag 3 and draw a tactics card``, ``seven of hearts to 2``,
  ``claim flag three``, ``pass``, ``resign`` (alone: nothing else may be in a resigning reply);
- a value without a colour: ``play the 7 on flag 3``, ``7 to 3``, ``7>3``: the troop of that
  value in hand (asked back, naming the candidates, when several match).
- the same in Japanese (``service.present.reply_japanese``): 「赤7をフラッグ3に、戦術カードを
  引く」, 「フラッグ2を確保」, 「投了します」.

Every sentence made here for the player is a gettext message: read inside
``service.i18n.recipient_language``, a reading speaks its player's language (outside an app,
English).

Chat is not read as moves (``Reading.chat``): a part with no word of a move in it (``Hi Bob``,
``thanks!``), and a remark, a part with words that belong to no move that names no whole move
(``Nice play on flag 2!``), or any part of a question that has such words (``Is flag 7 really
still open?``); and an aside, a part that names a card, a deck or a flag among words of no move,
with no verb or notation, when no move it could mean can be made (``Great move with the red
7!``, ``That Fog on flag 5 hurt``). ``claim N`` for a flag claimed already is noted, not
played. Any other part that picks no legal move, or more than one, stops the whole reply:
nothing of it is played.
"""

from __future__ import annotations

from dataclasses import dataclass

import engine
from engine import Action
from engine.cards import is_troop, troop_parts
from service.engine_words import engine_error_sentence
from service.present.choices import move_code
from service.present.reply_parts import is_code, sentences, split_parts
from service.present.reply_wanted import (
    Wanted,
    another_claim,
    is_aside,
    is_remark,
    listed_claims,
    merge_returns,
    wanted,
)
from service.present.reply_words import normalised, tokens_of
from service.present.translated import _

MAX_PARTS = 12
"""More parts than any turn has (claims, a card, three Scout draws, a return, a draw)."""


@dataclass(frozen=True)
class ReadPart:
    """One part of a reply and what came of it."""

    words: str
    """What the player wrote for it."""
    move: engine.Move | None = None
    """The legal move it names; None when it names none or several (``problem`` says why)."""
    problem: str | None = None
    options: tuple[engine.Move, ...] = ()
    """The legal moves it could mean, when it names several."""
    note: str | None = None
    """Why it was passed over without a move, the rest being played (``claim 3`` for a flag
    already the player's)."""


@dataclass(frozen=True)
class Reading:
    """What a reply says, part by part, read against the position it answers."""

    parts: tuple[ReadPart, ...] = ()
    ignored: tuple[str, ...] = ()
    """The chat, left out: parts with no word of a move in them (greetings, thanks), remarks and
    questions (``Nice play on flag 2``), in order."""
    problem: str | None = None
    """Why nothing of the reply can be played (the first part that failed, or the reply as a
    whole); None when every part names a legal move."""

    @property
    def moves(self) -> list[engine.Move]:
        return [part.move for part in self.parts if part.move is not None]

    @property
    def playable(self) -> bool:
        return self.problem is None and bool(self.moves)

    @property
    def chat(self) -> tuple[str, ...]:
        """What the player said that is no move: for the opponent, not the game."""
        return self.ignored

    @property
    def notes(self) -> tuple[str, ...]:
        """What was passed over without a move (the rest was played), as a receipt says it."""
        return tuple(
            _("'%(words)s': %(note)s", words=part.words, note=part.note)
            for part in self.parts
            if part.note
        )


def _why_not(
    state: engine.GameState, seat: str, seen: Wanted, candidates: list[engine.Move]
) -> str:
    if candidates:
        codes = ", ".join(move_code(m) for m in candidates[:12])
        if len(candidates) > 12:
            return _(
                "it could mean %(count)d moves (%(codes)s and %(more)d more): say which one",
                count=len(candidates), codes=codes, more=len(candidates) - 12,
            )  # fmt: skip
        return _(
            "it could mean %(count)d moves (%(codes)s): say which one",
            count=len(candidates), codes=codes,
        )  # fmt: skip
    named = seen.move(seat)
    if named is not None:
        written = named.action_text()
        try:
            engine.apply(state, engine.parse_action(seat, written, state.ruleset))
        except engine.ExplainedError as error:
            # The engine's reason in the reader's language; this sentence ends it.
            reason = engine_error_sentence(error, seat).removesuffix(".")
            return _("%(move)s cannot be played now: %(error)s", move=written, error=reason)
        return _("%(move)s cannot be played now", move=written)
    if seen.value is not None:
        hand = state.hands[engine.SEATS.index(seat)]
        held = [c for c in hand if is_troop(c) and troop_parts(c)[1] == seen.value]
        if not held:
            return _("you hold no troop card of value %(value)d", value=seen.value)
        if seen.flag is not None:
            return _(
                "your %(cards)s cannot be played to flag %(flag)d now",
                cards=", ".join(held), flag=seen.flag,
            )  # fmt: skip
        return _("your %(cards)s cannot be played now", cards=", ".join(held))
    return _("it names no move you can make now")


def read_words(text: str, ruleset: engine.Ruleset) -> tuple[list[Wanted], list[str]]:
    """What ``text`` says, whatever the position: the parts that name moves, in order, and the
    chat (parts with no word of a move, remarks, questions with words of no move)."""
    found: list[Wanted] = []
    chat: list[str] = []
    for sentence, question in sentences(normalised(text)):
        parts = [(words, wanted(words, ruleset)) for words in split_parts(sentence, ruleset)]
        chatty = question and any(seen is None or seen.strangers for _words, seen in parts)
        # "R3>1 troops Friday at 3?": the codes that begin a question are still moves (not
        # those after its first other words: "R7>3 or R7>4?" asks).
        leading = 0
        while leading < len(parts) and _only_codes(parts[leading][0], ruleset):
            leading += 1
        for index, (words, seen) in enumerate(parts):
            chatty_part = chatty and index >= leading
            if not chatty_part and (claims := listed_claims(words)):
                found += claims
                continue
            if seen is None and found and found[-1].action is Action.CLAIM and not chatty_part:
                seen = another_claim(words)  # "claim 3 and 5"
            if seen is None or chatty_part or is_remark(seen):
                chat.append(words)
            else:
                found.append(seen)
    return [again for seen in merge_returns(found) for again in [seen] * seen.times], chat


def _only_codes(words: str, ruleset: engine.Ruleset) -> bool:
    return all(is_code(word, ruleset) for word in tokens_of(words))


def _already_claimed(state: engine.GameState, seat: str, seen: Wanted) -> str | None:
    """What to say of ``claim N`` for a flag claimed already (the automatic claims took it, or
    an earlier reply), or None."""
    flag = seen.flag
    if seen.action is not Action.CLAIM or flag is None or not 1 <= flag <= len(state.flags):
        return None
    holder = state.flags[flag - 1].claimed_by
    if holder is None:
        return None
    if holder == engine.SEATS.index(seat):
        return _("flag %(flag)d is yours already (claimed before this reply)", flag=flag)
    return _("flag %(flag)d was claimed already, not by you, before this reply", flag=flag)


def read_turn(text: str, state: engine.GameState, seat: str) -> Reading:
    """The moves ``seat`` asks for in ``text`` (their own words of a reply), read against
    ``state`` part by part. A reading with a ``problem`` plays nothing."""
    found, ignored = read_words(text, state.ruleset)
    if not found:
        return Reading(ignored=tuple(ignored), problem=_("We found no move in your reply."))
    if len(found) > MAX_PARTS:
        return Reading(
            ignored=tuple(ignored),
            problem=_(
                "Your reply names %(count)d moves; a turn has at most %(most)d.",
                count=len(found), most=MAX_PARTS,
            ),
        )  # fmt: skip
    if any(seen.action is Action.RESIGN for seen in found):
        alone = found[0]
        extra = alone.cards or alone.deck or alone.flag is not None or alone.source is not None
        if len(found) != 1 or alone.negated or extra:
            part = ReadPart(words=" ".join(s.words for s in found), problem=_("resign"))
            return Reading(
                parts=(part,), ignored=tuple(ignored),
                problem=_("To resign, reply with the single word 'resign' and nothing else."),
            )  # fmt: skip
        resign = engine.Move(seat, Action.RESIGN)
        return Reading(parts=(ReadPart(words=found[0].words, move=resign),), ignored=tuple(ignored))
    parts: list[ReadPart] = []
    problem: str | None = None
    for index, seen in enumerate(found):
        if problem is not None:
            parts.append(ReadPart(words=seen.words, problem=_("not read: an earlier part failed")))
            continue
        if is_aside(seen) and not _can_mean_a_move(state, seat, seen):
            ignored.append(seen.words)  # "Great move with the red 7!": chat, never a refusal
            continue
        if seen.negated:
            problem = _(
                "'%(words)s' says not to play something: write only the moves to make.",
                words=seen.words,
            )
        elif state.result is not None:
            problem = _("'%(words)s': the game is over.", words=seen.words)
        elif state.to_move != seat:
            problem = (
                _(
                    "'%(words)s': your turn is over after '%(before)s'.",
                    words=seen.words, before=found[index - 1].words,
                )
                if index
                else _("'%(words)s': it is not your turn.", words=seen.words)
            )  # fmt: skip
        if problem is not None:
            parts.append(ReadPart(words=seen.words, problem=problem))
            continue
        note = _already_claimed(state, seat, seen)
        if note is not None:
            parts.append(ReadPart(words=seen.words, note=note))
            continue
        candidates = [m for m in engine.legal_moves(state) if seen.matches(m)]
        if len(candidates) == 1:
            move = candidates[0]
            parts.append(ReadPart(words=seen.words, move=move))
            state = engine.apply(state, move)[0]
            continue
        why = _why_not(state, seat, seen, candidates)
        problem = _("'%(words)s': %(why)s.", words=seen.words, why=why)
        parts.append(ReadPart(words=seen.words, problem=why, options=tuple(candidates)))
    if problem is None and not parts:
        problem = _("We found no move in your reply.")
    if problem is None and not any(part.move for part in parts):
        said = [_("%(note)s.", note=note) for note in Reading(tuple(parts)).notes]
        problem = " ".join([*said, _("Your reply names no other move.")])
    return Reading(parts=tuple(parts), ignored=tuple(ignored), problem=problem)


def _can_mean_a_move(state: engine.GameState, seat: str, seen: Wanted) -> bool:
    if state.result is not None or state.to_move != seat:
        return False
    return any(seen.matches(move) for move in engine.legal_moves(state))


def names_a_move(text: str, ruleset: engine.Ruleset) -> bool:
    """Whether any part of ``text`` reads as a move at all (a verb, a card, a deck, a code),
    whatever the position: a reply of thanks after the game names none and is not answered."""
    found = read_words(text, ruleset)[0]
    return bool(found)
