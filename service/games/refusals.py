"""The refusals of a move: why ``apply_moves`` changed nothing, in words a player reads."""

from __future__ import annotations

from collections.abc import Sequence

import engine
from service.catalogue import gettext, lazy_gettext, ngettext
from service.engine_words import engine_error_sentence
from service.models import GameStatus
from service.refusal import Refusal, later

GAME_STATUS_WORDS = {
    GameStatus.INVITED: lazy_gettext("invited"),
    GameStatus.ACTIVE: lazy_gettext("active"),
    GameStatus.DECLINED: lazy_gettext("declined"),
    GameStatus.FINISHED: lazy_gettext("finished"),
}
"""Where a game stands, as "This game is ..." ends in each language."""


class RulesVersionError(Refusal):
    """The game began under other rules than this server's engine plays."""

    status = 409
    title = lazy_gettext("This game needs another version of the rules")

    def __init__(self, game_version: str) -> None:
        super().__init__(
            lazy_gettext(
                "This game was started under rules version %(game)s, and this server plays "
                "version %(server)s. It cannot be replayed or continued here; nothing was "
                "changed.",
                game=game_version,
                server=engine.RULES_VERSION,
            )
        )


class GameNotPlayingError(Refusal):
    """The game is not being played: not dealt yet, declined, or over."""

    status = 409
    title = lazy_gettext("This game is not being played")


class WrongSeatError(Refusal):
    """A move for a seat other than the link's."""

    status = 403
    title = lazy_gettext("That is not your move to make")


class UnreadableMoveError(Refusal):
    """A move that is not in the notation (or too many of them)."""

    status = 400
    title = lazy_gettext("That move could not be read")


class NotATurnEndingError(Refusal):
    """A move link's ``then`` that is not one of the engine's endings of the turn after the
    linked move (``engine.turn_endings``)."""

    status = 400
    title = lazy_gettext("This form could not be read")

    def __init__(self, then: engine.Move) -> None:
        super().__init__(
            lazy_gettext("'%(move)s' cannot end the turn after this move.", move=then.action_text())
        )


class IllegalMoveRefusal(Refusal):
    """The engine refused the move: the sentence names the rule, in the reader's language
    (``engine_error_sentence``)."""

    status = 422
    title = lazy_gettext("That move is not allowed")

    def __init__(
        self, move: engine.Move, error: engine.IllegalMoveError, not_your_turn: bool = False
    ) -> None:
        def sentence() -> str:
            said = gettext("it is not your turn yet.") if not_your_turn else None
            return str(
                gettext(
                    "%(move)s: %(reason)s Nothing was changed.",
                    move=move.action_text(),
                    reason=said or engine_error_sentence(error),
                )
            )

        super().__init__(later(sentence))
        self.rule = error.rule
        self.why = error.why


class StaleMoveError(Refusal):
    """The move was meant for an earlier moment of the game, which has moved on since."""

    status = 409
    title = lazy_gettext("The game has moved on")

    def __init__(self, expected_ply: int, current_ply: int) -> None:
        super().__init__(later(lambda: _moved_on(expected_ply, current_ply)))
        self.expected_ply = expected_ply
        self.current_ply = current_ply


def _moved_on(expected_ply: int, current_ply: int) -> str:
    """How far the game is from the position a move was chosen in, in log entries (a turn may
    hold several: a claim, a card, a draw), not in turns or ply numbers nobody sees."""
    if expected_ply > current_ply:
        return str(
            gettext(
                "This was meant for a position the game has not reached. Nothing was changed. "
                "Look at the game as it is now and choose again."
            )
        )
    return str(
        ngettext(
            "This was chosen before the latest moves of the game: one move has been made since. "
            "Nothing was changed. Look at the game as it is now and choose again.",
            "This was chosen before the latest moves of the game: %(num)d moves have been made "
            "since. Nothing was changed. Look at the game as it is now and choose again.",
            current_ply - expected_ply,
        )
    )


class AlreadyPlayedError(Refusal):
    """The very same move(s) are already in the log at that ply: a repeated request.

    Not a failure for the person (the move they wanted is made), so views answer it with 200.
    """

    status = 200
    title = lazy_gettext("Already played")

    def __init__(self, moves: Sequence[engine.Move]) -> None:
        text = ", ".join(move.action_text() for move in moves)
        super().__init__(
            lazy_gettext(
                "This move (%(moves)s) was already played. Nothing more was changed.", moves=text
            )
        )
        self.moves = tuple(moves)
