"""Installs come from the lock (issue 22, item 12): every dependency pinned with its hashes, the
lock made from today's ``pyproject.toml``, and the test environment holding exactly the locked
versions (``scripts/venv.sh`` installs with ``pip --require-hashes`` from ``requirements/``)."""

from __future__ import annotations

import re
import subprocess
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import Marker

REPO = Path(__file__).resolve().parents[1]
REQUIREMENTS = REPO / "requirements"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)(?: ; ([^\\\n]+))?")


def normalised(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def locked(extra: str) -> dict[str, str]:
    """The pinned versions of ``requirements/<extra>.txt`` for this Python and platform (a pin
    whose marker does not hold here is left out); each pin carries a hash."""
    text = (REQUIREMENTS / f"{extra}.txt").read_text()
    pins: dict[str, str] = {}
    for entry in re.split(r"\n(?=[A-Za-z0-9])", text):
        match = PIN.match(entry)
        if match is None:
            continue
        assert "--hash=sha256:" in entry, f"{match.group(1)} is pinned without a hash"
        marker = match.group(3)
        if marker is None or Marker(marker.strip()).evaluate():
            pins[normalised(match.group(1))] = match.group(2)
    return pins


def declared(requirements: list[str]) -> set[str]:
    return {normalised(re.split(r"[\s\[<>=!~;]", r, maxsplit=1)[0]) for r in requirements}


def test_the_lock_was_made_from_todays_pyproject() -> None:
    done = subprocess.run(
        [str(REPO / "scripts" / "venv.sh"), "--project-hash"],
        capture_output=True, text=True, check=True, cwd=REPO,
    )  # fmt: skip
    assert (REQUIREMENTS / "project.sha256").read_text().strip() == done.stdout.strip()


@pytest.mark.parametrize("extra", ["base", "test"])
def test_every_dependency_is_pinned_with_its_hashes(extra: str) -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = declared(project["dependencies"])
    if extra != "base":
        wanted |= declared(project["optional-dependencies"][extra])
    pins = locked(extra)
    assert wanted <= set(pins), f"not in the lock: {sorted(wanted - set(pins))}"


def test_the_tests_run_on_the_locked_versions() -> None:
    for name, version in locked("test").items():
        assert metadata.version(name) == version, name
