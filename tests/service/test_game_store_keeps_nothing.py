"""The game store (``service/games/``) keeps nothing on the session: what a request read of a
game comes down as a ``LoadedGame`` passed by hand, so a reader can tell whether a call queries
(it queries unless it is given what it needs). Neither ``session.info`` nor a session event
listener, read from the source with ``ast``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

GAMES = Path(__file__).resolve().parents[2] / "service" / "games"


def kept_on_the_session(source: str) -> list[str]:
    """Where ``source`` reads or writes a session's ``info`` or listens to a session's events,
    as ``line: what``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr == "info":
            found.append(f"{node.lineno}: .info")
        elif isinstance(node, ast.Attribute) and node.attr in ("listens_for", "listen"):
            found.append(f"{node.lineno}: event.{node.attr}")
        elif isinstance(node, ast.Name) and node.id in ("listens_for", "listen"):
            found.append(f"{node.lineno}: {node.id}")
    return found


def test_the_game_store_keeps_nothing_on_the_session() -> None:
    found = {
        path.name: kept
        for path in sorted(GAMES.glob("*.py"))
        if (kept := kept_on_the_session(path.read_text(encoding="utf-8")))
    }
    assert found == {}


@pytest.mark.parametrize(
    "source",
    [
        "session.info.setdefault('k', {})[1] = 2",
        "found = session.info.get('k')",
        "@sa.event.listens_for(Session, 'after_commit')\ndef forget(session): pass",
        "from sqlalchemy.event import listens_for\n@listens_for(Session, 'after_flush')\n"
        "def forget(session, context): pass",
    ],
)
def test_the_check_finds_what_a_session_keeps(source: str) -> None:
    assert kept_on_the_session(source)


def test_the_check_passes_a_value_passed_down() -> None:
    assert kept_on_the_session("def seats(loaded):\n    return loaded.seats\n") == []
