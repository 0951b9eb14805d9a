"""The refusals of a move: why ``apply_moves`` changed nothing, in words a player reads."""

from __future__ import annotations

from collections.abc import Sequence

import engine
from service.refusal import Refusal


class RulesVersionError(Refusal):
    """The game began under other rules than this server's engine plays."""

    status = 409
    title = "This game needs another version of the rules"

    def __init__(self, game_version: str) -> None:
        super().__init__(
            f"This game was started under rules version {game_version}, and this server plays "
            f"version {engine.RULES_VERSION}. It cannot be replayed or continued here; "
            "nothing was changed."
        )


class GameNotPlayingError(Refusal):
    """The game is not being played: not dealt yet, declined, or over."""

    status = 409
    title = "This game is not being played"


class WrongSeatError(Refusal):
    """A move for a seat other than the link's."""

    status = 403
    title = "That is not your move to make"


class UnreadableMoveError(Refusal):
    """A move that is not in the notation (or too many of them)."""

    status = 400
    title = "That move could not be read"


class NotATurnEndingError(Refusal):
    """A move link's ``then`` that is not one of the engine's endings of the turn after the
    linked move (``engine.turn_endings``)."""

    status = 400
    title = "This form could not be read"

    def __init__(self, then: engine.Move) -> None:
        super().__init__(f"'{then.action_text()}' cannot end the turn after this move.")


class IllegalMoveRefusal(Refusal):
    """The engine refused the move: the message names the rule."""

    status = 422
    title = "That move is not allowed"

    def __init__(
        self, move: engine.Move, error: engine.IllegalMoveError, reason: str | None = None
    ) -> None:
        rule = f" ({error.rule})" if error.rule and error.rule not in str(error) else ""
        said = reason or f"{error}{rule}"
        super().__init__(f"{move.action_text()}: {said}. Nothing was changed.")
        self.rule = error.rule


class StaleMoveError(Refusal):
    """The move was meant for an earlier moment of the game, which has moved on since."""

    status = 409
    title = "The game has moved on"

    def __init__(self, expected_ply: int, current_ply: int) -> None:
        super().__init__(f"{_moved_on(expected_ply, current_ply)} {_CHOOSE_AGAIN}")
        self.expected_ply = expected_ply
        self.current_ply = current_ply


_CHOOSE_AGAIN = "Nothing was changed. Look at the game as it is now and choose again."


def _moved_on(expected_ply: int, current_ply: int) -> str:
    """How far the game is from the position a move was chosen in, in log entries (a turn may
    hold several: a claim, a card, a draw), not in turns or ply numbers nobody sees."""
    if expected_ply > current_ply:
        return "This was meant for a position the game has not reached."
    since = current_ply - expected_ply
    entries = "one move has" if since == 1 else f"{since} moves have"
    return f"This was chosen before the latest moves of the game: {entries} been made since."


class AlreadyPlayedError(Refusal):
    """The very same move(s) are already in the log at that ply: a repeated request.

    Not a failure for the person (the move they wanted is made), so views answer it with 200.
    """

    status = 200
    title = "Already played"

    def __init__(self, moves: Sequence[engine.Move]) -> None:
        text = ", ".join(move.action_text() for move in moves)
        super().__init__(f"This move ({text}) was already played. Nothing more was changed.")
        self.moves = tuple(moves)
