"""How a bench reports: a table for a person, or with ``--json`` one JSON object a line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TextIO


def arguments(doc: str | None) -> argparse.ArgumentParser:
    """A bench's parser, described by the first line of its docstring, with ``--json``."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    parser.add_argument("--json", action="store_true", help="one JSON object a line")
    return parser


def json_line(record: Mapping[str, Any], out: TextIO | None = None) -> None:
    """One measurement as one JSON object on a line of its own."""
    (out or sys.stdout).write(json.dumps(record) + "\n")


def percentile(values: list[float], fraction: float) -> float:
    """The value at ``fraction`` (0.5: the median, 0.99) of ``values``, one of them."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


@dataclass(frozen=True)
class Column:
    """A column of a table: its title, its width, and how a value is written (``spec`` for
    ``format``: ``".1f"``, ``".0%"``, ``","``); None is written ``-``."""

    title: str
    width: int
    spec: str = ""
    left: bool = False

    def cell(self, value: Any) -> str:
        text = "-" if value is None else format(value, self.spec)
        return f"{text:<{self.width}}" if self.left else f"{text:>{self.width}}"


@dataclass(frozen=True)
class Table:
    """Fixed-width columns: a header line and a line per row, the same widths in both."""

    columns: tuple[Column, ...]

    def header(self) -> str:
        return "".join(
            f"{c.title:<{c.width}}" if c.left else f"{c.title:>{c.width}}" for c in self.columns
        )

    def row(self, *values: Any) -> str:
        if len(values) != len(self.columns):
            raise ValueError(f"{len(values)} values for {len(self.columns)} columns")
        return "".join(c.cell(v) for c, v in zip(self.columns, values, strict=True))
