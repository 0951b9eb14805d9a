"""engine/ is pure: no web, database, queue or service code, no clock, no global random."""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"
FORBIDDEN = {
    "flask",
    "sqlmodel",
    "sqlalchemy",
    "celery",
    "redis",
    "service",
    "worker",
    "time",
    "datetime",
    "psycopg",
    "requests",
    "socket",
    "os",
}


def test_engine_imports_nothing_impure() -> None:
    for path in ENGINE.rglob("*.py"):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] not in FORBIDDEN, f"{path.name} imports {name}"


def test_engine_uses_no_global_random() -> None:
    for path in ENGINE.rglob("*.py"):
        text = path.read_text()
        for call in (
            "random.random(",
            "random.choice(",
            "random.shuffle(",
            "random.seed(",
            "random.randint(",
            "random.sample(",
        ):
            assert call not in text, f"{path.name} uses the global generator: {call}"
