"""``python -m engine claims`` / ``compare``: the JSON-lines interfaces of docs/formats.md."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli.claims import run_claims, run_compare

ROOT = Path(__file__).resolve().parents[2]

# docs/formats.md's example, byte for byte
EXAMPLE_IN = (
    '{"id":"wedge-vs-b8","env":[],"mine":["R4","R5","R3"],"theirs":["B8"],'
    '"visible":["B7","B10"]}\n'
    '{"id":"wedge-vs-b8-open","env":[],"mine":["R4","R5","R3"],"theirs":["B8"],'
    '"visible":["B7"]}\n'
)
EXAMPLE_OUT = (
    '{"id":"wedge-vs-b8","claimable":true}\n'
    '{"id":"wedge-vs-b8-open","claimable":false,'
    '"reason":"B8 B9 B10 (Wedge 27) would beat Wedge 12"}\n'
)


def claims(text: str) -> list[dict[str, object]]:
    out = io.StringIO()
    run_claims(io.StringIO(text), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def compare(text: str) -> list[dict[str, object]]:
    out = io.StringIO()
    run_compare(io.StringIO(text), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_r13_formats_example_exact() -> None:
    out = io.StringIO()
    run_claims(io.StringIO(EXAMPLE_IN), out)
    assert out.getvalue() == EXAMPLE_OUT


def test_codes_case_insensitive_and_printed_upper_case() -> None:
    [answer] = claims(
        '{"id":"x","env":[],"mine":["r4","r5","r3"],"theirs":["b8"],"visible":["b7"]}\n'
    )
    assert answer["reason"] == "B8 B9 B10 (Wedge 27) would beat Wedge 12"


def test_r12_completed_last_and_rulesets() -> None:
    lines = [
        {
            "id": 1,
            "env": [],
            "mine": ["Y7", "B2", "G1"],
            "theirs": ["Y3", "B3", "G4"],
            "visible": [],
            "completed_last": "theirs",
        },
        {
            "id": 2,
            "env": [],
            "mine": ["Y7", "B2", "G1"],
            "theirs": ["Y3", "B3", "G4"],
            "visible": [],
            "completed_last": "mine",
        },
        {
            "id": 3,
            "ruleset": "playing-cards",
            "env": [],
            "mine": ["S11", "S12", "S13"],
            "theirs": [],
            "visible": [],
        },
        {
            "id": 4,
            "ruleset": "schotten-totten",
            "env": [],
            "mine": ["R7", "R8", "R9"],
            "theirs": [],
            "visible": [],
        },
        {"id": 5, "env": ["MUD"], "mine": ["R4", "R5", "R3"], "theirs": [], "visible": []},
    ]
    answers = claims("".join(json.dumps(line) + "\n" for line in lines))
    assert answers[0] == {"id": 1, "claimable": True}
    assert answers[1]["claimable"] is False and "you completed last" in str(answers[1]["reason"])
    assert answers[2] == {"id": 3, "claimable": True}
    assert answers[3] == {"id": 4, "claimable": True}
    assert answers[4]["reason"] == "your formation is incomplete (3 of 4 cards)"


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("not json", "not JSON"),
        ('["a list"]', "JSON object"),
        ('{"id":"u","env":[],"mine":["R11"],"theirs":[],"visible":[]}', "R11"),
        ('{"id":"t","env":[],"mine":["R4"],"theirs":["R4"],"visible":[]}', "twice"),
        ('{"id":"s","env":[],"mine":["R1","R2","R3","R4"],"theirs":[],"visible":[]}', "at most"),
        ('{"id":"r","ruleset":"chess","env":[],"mine":[],"theirs":[],"visible":[]}', "ruleset"),
        ('{"id":"n","ruleset":"no-tactics","env":[],"mine":["SHIELD"],"theirs":[]}', "tactics"),
        ('{"id":"e","env":["SCOUT"],"mine":[],"theirs":[],"visible":[]}', "environment"),
        (
            '{"id":"c","env":[],"mine":["R1","R2","R3"],"theirs":[],"completed_last":"me"}',
            "completed_last",
        ),
    ],
)
def test_bad_lines_give_an_error_and_the_run_goes_on(line: str, words: str) -> None:
    good = '{"id":"ok","env":[],"mine":["R4","R5","R3"],"theirs":["Y8","R8","G8"],"visible":[]}'
    answers = claims(f"{line}\n{good}\n")
    assert len(answers) == 2
    assert set(answers[0]) == {"id", "error"}
    assert words in str(answers[0]["error"])
    assert answers[1] == {"id": "ok", "claimable": True}


def test_compare() -> None:
    lines = (
        '{"id":"w","env":[],"a":["R4","R5","R3"],"b":["Y8","R8","G8"]}\n'
        '{"id":"h","env":[],"a":["Y7","B2","G1"],"b":["Y3","B3","G4"]}\n'
        '{"id":"f","env":["FOG"],"a":["R4","R5","R3"],"b":["y8","r8","g8"]}\n'
        '{"id":"l","env":[],"a":["ALEXANDER","SHIELD","R3"],"b":["R9","G9","B9"]}\n'
        '{"id":"x","env":[],"a":["R4","R5"],"b":["Y8","R8","G8"]}\n'
    )
    answers = compare(lines)
    assert answers[0] == {
        "id": "w",
        "winner": "a",
        "a": {"formation": "wedge", "sum": 12},
        "b": {"formation": "phalanx", "sum": 24},
    }
    assert answers[1]["winner"] == "tie"  # no R12 tie-break in compare
    assert answers[2] == {
        "id": "f",
        "winner": "b",
        "a": {"formation": "sum", "sum": 12},
        "b": {"formation": "sum", "sum": 24},
    }
    assert answers[3]["winner"] == "a"
    assert "error" in answers[4]


def test_subprocess_claims() -> None:
    """The real command, as outside tools run it."""
    done = subprocess.run(
        [sys.executable, "-m", "engine", "claims"],
        input=EXAMPLE_IN + "junk\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0
    lines = done.stdout.splitlines(keepends=True)
    assert "".join(lines[:2]) == EXAMPLE_OUT
    assert "error" in json.loads(lines[2])


@pytest.mark.parametrize("ruleset", ["battleline-3p", "no-tactics-3p"])
def test_v6_a_three_player_flag_is_a_two_seat_flag(ruleset: str) -> None:
    lines = EXAMPLE_IN.replace('{"id"', f'{{"ruleset":"{ruleset}","id"')
    out = io.StringIO()
    run_claims(io.StringIO(lines), out)
    assert out.getvalue() == EXAMPLE_OUT
