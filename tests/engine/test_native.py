"""The engine's compiled modules (engine/native.py): the test command builds them and runs with
them, and they play exactly as the pure-Python modules do.

Two processes play the same seeded games and decisions, one with the build and one with
``-X engine-pure``, and print every move, every appraisal and every search level's choice: the
outputs must be the same to the last digit.
"""

from __future__ import annotations

import importlib
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from engine import native

ROOT = Path(__file__).resolve().parents[2]
REBUILD = "scripts/venv.sh builds them (it needs mypy, from the lock, and a C compiler)"


def _require_build() -> Path:
    build = native.active_build()
    if build is None:
        message = f"the engine's compiled modules are not in use for these sources: {REBUILD}"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return build


def test_every_compiled_module_is_loaded_from_the_build() -> None:
    build = _require_build()
    for path in native.COMPILED:
        name = path.removesuffix(".py").replace("/", ".")
        module = importlib.import_module(name)
        loaded = Path(str(module.__file__))
        assert loaded.is_relative_to(build), f"{name} came from {loaded}"
        assert loaded.suffix == ".so"


def test_a_pure_run_ignores_the_build() -> None:
    _require_build()
    done = subprocess.run(
        [
            sys.executable,
            "-X",
            "engine-pure",
            "-c",
            "import engine.bots.appraisal as a; print(a.__file__)",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == str(ROOT / "engine" / "bots" / "appraisal.py")


def test_an_edited_source_makes_another_build_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / "engine"
    copy.mkdir()
    (copy / "a.py").write_text("x = 1\n")
    monkeypatch.setattr(native, "PACKAGE", copy)
    first = native.build_dir()
    (copy / "a.py").write_text("x = 2\n")
    assert native.build_dir() != first
    (copy / "a.py").write_text("x = 1\n")
    assert native.build_dir() == first


def workload() -> None:
    """Seeded games of every variant, each seat played by a cheap level, with the appraisal of
    every position and, now and then, the search levels' choice on a small budget: one line of
    JSON each."""
    from engine import RULESETS, ClaimTiming, apply, choose_move, deal_from_seed, player_view, start
    from engine.bots.appraisal import Appraiser

    variants = [
        ("battleline", ClaimTiming.STANDARD),
        ("battleline", ClaimTiming.ADVANCED),
        ("schotten-totten", None),
        ("battleline-3p", None),
    ]
    for ruleset_name, claims in variants:
        ruleset = RULESETS[ruleset_name]
        for game in range(2):
            levels = ["normal", "easy", "normal-2026"][: len(ruleset.seats)]
            state = start(
                ruleset, claims or ruleset.default_claims, deal_from_seed(ruleset, f"n/{game}")
            )
            rngs = {seat: random.Random(f"{ruleset_name}/{game}/{seat}") for seat in ruleset.seats}
            while state.result is None:
                seat = state.to_move
                view = player_view(state, seat)
                mover = state.mover
                line: dict[str, object] = {
                    "ply": state.ply,
                    "value": repr(Appraiser.of(state, mover).value(state)),
                    "knowing": repr(Appraiser.knowing(state, mover).value(state)),
                }
                if state.ply % 9 == 5 and not view.claimable:
                    for level, budget in (("strong", 2), ("expert", 6)):
                        searched = choose_move(view, level, random.Random(state.ply), budget=budget)
                        line[level] = str(searched)
                level = levels[ruleset.seats.index(seat)]
                move = choose_move(view, level, rngs[seat])
                line["move"] = str(move)
                print(json.dumps(line), flush=True)
                state, _ = apply(state, move)
            print(json.dumps({"result": str(state.result)}), flush=True)


def _run_workload(*options: str) -> list[str]:
    done = subprocess.run(
        [
            sys.executable,
            *options,
            "-c",
            "from tests.engine.test_native import workload; workload()",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.splitlines()


def test_compiled_and_pure_modules_play_the_same_moves() -> None:
    _require_build()
    compiled = _run_workload()
    pure = _run_workload("-X", "engine-pure")
    assert len(compiled) > 500
    assert sum("strong" in line for line in compiled) >= 8
    for number, (mine, theirs) in enumerate(zip(compiled, pure, strict=True)):
        assert mine == theirs, f"line {number}: compiled {mine} but pure {theirs}"
