"""engine/ and tournaments/ are pure: no web, database, queue or service code, no clock, no global
random."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PURE_PACKAGES = [REPO / "engine", REPO / "tournaments"]
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


@pytest.mark.parametrize("package", PURE_PACKAGES, ids=lambda path: path.name)
def test_engine_imports_nothing_impure(package: Path) -> None:
    for path in package.rglob("*.py"):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] not in FORBIDDEN, f"{path.name} imports {name}"


@pytest.mark.parametrize("package", PURE_PACKAGES, ids=lambda path: path.name)
def test_engine_uses_no_global_random(package: Path) -> None:
    for path in package.rglob("*.py"):
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
