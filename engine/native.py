"""The engine's hot modules compiled to C by mypyc, used only where a build of exactly these
sources exists.

The computer opponent spends its time in a few modules: the appraisal, formations, the claim
prover, ``apply`` and the legal moves. Compiled, the search levels choose about twice as fast
and give the same results (``tests/engine/test_native.py`` plays the same games both ways and
compares them move for move). ``scripts/build_engine.py`` compiles them into the environment, under
``<sys.prefix>/engine-native/<python>-<digest>/``, and ``scripts/venv.sh`` runs it. The digest
covers every source file of the package, so any edit leaves the build unused until it is built
again: the pure-Python modules run then, never stale compiled ones. ``python -X engine-pure``
runs the pure modules anyway.

Only import machinery here (where a package looks for its modules); no rule.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

COMPILED = (
    "engine/cards.py",
    "engine/formations.py",
    "engine/claims.py",
    "engine/prover.py",
    "engine/legal.py",
    "engine/apply.py",
    "engine/bots/appraisal.py",
    "engine/bots/determinise.py",
    "engine/bots/heuristic.py",
    "engine/bots/search.py",
    "engine/bots/expert.py",
)
"""The modules compiled, as paths from the repository root: what mypyc is given."""

PURE_OPTION = "engine-pure"
"""``python -X engine-pure``: ignore any build and run the pure-Python modules."""

PACKAGE = Path(__file__).resolve().parent
_found: list[Path | None] = []


def source_digest() -> str:
    """A digest of every source file of the package, names and contents."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*.py")):
        digest.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:20]


def builds_root() -> Path:
    """Where the builds of this environment are kept."""
    return Path(sys.prefix) / "engine-native"


def build_dir() -> Path:
    """Where the build of these very sources for this Python is (or would be) kept."""
    return builds_root() / f"{sys.implementation.cache_tag}-{source_digest()}"


def active_build() -> Path | None:
    """The build in use: the one of these sources, if it was made and not refused by
    ``-X engine-pure``; None when the pure-Python modules run."""
    if not _found:
        build = build_dir()
        usable = PURE_OPTION not in sys._xoptions and (build / "engine").is_dir()
        _found.append(build if usable else None)
    return _found[0]


def use_build(package_path: list[str], package: str) -> None:
    """Let a package of the engine (``"engine"``, ``"engine.bots"``) find its compiled modules
    first, when a build of these sources is in use."""
    build = active_build()
    if build is None:
        return
    if str(build) not in sys.path:
        sys.path.append(str(build))  # the modules' shared library, by a name of its own
    package_path.insert(0, str(build.joinpath(*package.split("."))))
