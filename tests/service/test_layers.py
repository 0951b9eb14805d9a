"""The service's packages point one way (docs/architecture.md):

    foundation modules  <  games (the game store)  <  outbox  <  present  <  areas  <  the factory

An area (play, history, lobby, turns, mail, inbound) imports the layers below and never another
area; no two packages import each other in a circle; no import hides inside a function to dodge one
(the app factory registering blueprints is the one exception). Read from the source with ``ast``:
nothing is imported to check it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

SERVICE = Path(__file__).resolve().parents[2] / "service"

LAYERS = {"service.games": 1, "service.outbox": 2, "service.present": 3}
AREAS = (
    "service.play",
    "service.history",
    "service.lobby",
    "service.turns",
    "service.mail",
    "service.inbound",
)
TOP = ("service", "service.embedded_beat")
"""The app factory and the embedded mode's sweep command: they wire the areas together."""


@dataclass(frozen=True)
class Import:
    source: str
    """The importing unit (``service.play``, ``service.models``)."""
    target: str
    where: str
    nested: bool
    """Inside a function or class body rather than at the top of the module."""


def unit(module: str) -> str:
    """service.play.routes -> service.play; service.models -> service.models."""
    return ".".join(module.split(".")[:2])


def rank(name: str) -> int:
    if name in TOP:
        return 5
    if name in AREAS:
        return 4
    return LAYERS.get(name, 0)


def imports() -> Iterator[Import]:
    for path in sorted(SERVICE.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        relative = path.relative_to(SERVICE.parent)
        module = ".".join(relative.with_suffix("").parts).removesuffix(".__init__")
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        tree = ast.parse(path.read_text(), str(path))
        top_level = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parts, base] if base else parts)
                names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
            else:
                continue
            for name in names:
                if name.startswith("service.") and unit(name) != unit(module):
                    yield Import(
                        source=unit(module),
                        target=unit(name),
                        where=f"{relative}:{node.lineno}",
                        nested=id(node) not in top_level,
                    )


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one member (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in list(edges):
        if v not in index:
            visit(v)
    return found


@pytest.fixture(scope="module")
def found() -> list[Import]:
    return [i for i in imports() if i.source != "service"]


def test_no_two_service_packages_import_each_other_in_a_circle(found: list[Import]) -> None:
    edges: dict[str, set[str]] = {}
    for i in found:
        edges.setdefault(i.source, set()).add(i.target)
    assert circles(edges) == []


def test_no_import_hides_inside_a_function(found: list[Import]) -> None:
    hidden = [i.where for i in found if i.nested and i.source not in TOP]
    assert hidden == []


def test_layers_point_down_and_areas_never_sideways(found: list[Import]) -> None:
    wrong = [
        f"{i.where}: {i.source} imports {i.target}"
        for i in found
        if rank(i.target) > rank(i.source)
        or (rank(i.source) == rank(i.target) and rank(i.source) > 0)
    ]
    assert wrong == []


def test_the_checker_sees_a_circle_and_a_sideways_import() -> None:
    """The checks above can fail: a circle and an area importing an area are caught."""
    assert circles({"service.a": {"service.b"}, "service.b": {"service.a"}}) == [
        ["service.a", "service.b"]
    ]
    assert rank("service.play") == rank("service.turns") == 4
    assert rank("service.games") < rank("service.outbox") < rank("service.present")
