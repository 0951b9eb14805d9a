"""Compiles the engine's hot modules with mypyc into this environment, once per change of
engine/ (engine/native.py says what, why and where). ``scripts/venv.sh`` runs it.

A build already made for these sources is kept and nothing is done. Otherwise the sources are
copied to a temporary folder, mypyc compiles the modules of ``engine.native.COMPILED`` there, and
the compiled files are moved into place in one rename, so that no process ever finds half a
build; the builds of earlier sources are removed. Exit status 1, saying why, when mypyc or the C
compiler fails: the engine then runs its pure-Python modules, correct but slower.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]


def _native() -> ModuleType:
    """engine/native.py alone (importing the package would load the modules it builds)."""
    spec = importlib.util.spec_from_file_location("engine_native", REPO / "engine" / "native.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build() -> int:
    native = _native()
    target: Path = native.build_dir()
    if (target / "engine").is_dir():
        return 0
    root: Path = native.builds_root()
    root.mkdir(parents=True, exist_ok=True)
    print("compiling the engine's hot modules with mypyc (once per change of engine/)...")
    with tempfile.TemporaryDirectory(dir=root, prefix=".building-") as work:
        source = Path(work) / "source"
        shutil.copytree(
            REPO / "engine", source / "engine", ignore=shutil.ignore_patterns("__pycache__")
        )
        done = subprocess.run(
            [sys.executable, "-m", "mypyc", *native.COMPILED],
            cwd=source,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            print(done.stdout[-3000:] + done.stderr[-3000:], file=sys.stderr)
            print("mypyc failed: the engine runs its pure-Python modules", file=sys.stderr)
            return 1
        staged = Path(work) / "staged"
        # the modules beside their sources, their shared library at the top (not mypyc's build/)
        for compiled in [*source.glob("*.so"), *(source / "engine").rglob("*.so")]:
            place = staged / compiled.relative_to(source)
            place.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(compiled, place)
        try:
            staged.rename(target)
        except OSError:
            if not (target / "engine").is_dir():
                raise
            # another build of the same sources finished first: it is the same
    for old in root.iterdir():
        if old != target and not old.name.startswith("."):
            shutil.rmtree(old, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(build())
