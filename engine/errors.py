"""The engine's exceptions: each names exactly what was wrong, in words a player can read."""

from __future__ import annotations


class EngineError(Exception):
    """Base class of every error the engine raises."""


class InvalidCardError(EngineError, ValueError):
    """A card code that is not a card of the ruleset (``"R11"``, ``"KING"``)."""


class InvalidMoveError(EngineError, ValueError):
    """A move that cannot be read at all (bad notation, unknown flag number)."""


class IllegalMoveError(EngineError):
    """A well-formed move that the rules forbid now.

    ``rule`` is the ruling that forbids it (``"R8"``), or ``""`` for plain turn order.
    """

    def __init__(self, message: str, rule: str = "") -> None:
        super().__init__(message)
        self.rule = rule


class InvalidSituationError(EngineError, ValueError):
    """A described position that cannot occur: a card twice, a side over its size."""


class InvalidRecordError(EngineError, ValueError):
    """A game record that cannot be read (missing field, bad deal, unknown ruleset)."""


class UnknownRulesetError(EngineError, ValueError):
    """A ruleset name that is not one of the known variants."""
