"""The command line as other tools use it: real `python -m engine` subprocesses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine import RULESETS, ClaimTiming, GameRecord, deal_from_seed
from tests.engine.test_games import random_game

ROOT = Path(__file__).resolve().parents[2]


def engine_cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def finished_record(tmp_path: Path, ruleset: str = "battleline", seed: int = 3) -> Path:
    moves = [str(m) for _, m, _ in random_game(ruleset, ClaimTiming.ADVANCED, seed)]
    rs = RULESETS[ruleset]
    record = GameRecord(rs, ClaimTiming.ADVANCED, deal_from_seed(rs, str(seed)), tuple(moves))
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record.to_json()))
    return path


def test_replay_json_prints_the_final_position(tmp_path: Path) -> None:
    done = engine_cli("replay", str(finished_record(tmp_path)), "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["ok"] is True and out["result"] in ("breakthrough", "envelopment", "stalemate")
    assert set(out) >= {
        "to_move",
        "winner",
        "flags",
        "hands",
        "decks",
        "discards",
        "tactics_played",
    }
    assert len(out["flags"]) == 9 and set(out["flags"][0]) == {
        "flag",
        "claimed_by",
        "A",
        "B",
        "env",
    }


def test_replay_for_a_person(tmp_path: Path) -> None:
    done = engine_cli("replay", str(finished_record(tmp_path)))
    assert (done.returncode == 0 and " wins by " in done.stdout) or "draw" in done.stdout


def test_replay_reports_the_illegal_move_and_exits_1(tmp_path: Path) -> None:
    path = finished_record(tmp_path)
    data = json.loads(path.read_text())
    data["moves"] = [*data["moves"][:4], "A: R11>3", *data["moves"][4:]]
    path.write_text(json.dumps(data))
    done = engine_cli("replay", str(path), "--json")
    assert done.returncode == 1
    out = json.loads(done.stdout)
    assert out["ok"] is False and out["move"] == 5 and "R11" in out["error"]


@pytest.mark.parametrize("content", ["not json", "{}", '{"first": "A", "deal": {"A": []}}'])
def test_replay_of_an_unreadable_record(tmp_path: Path, content: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    done = engine_cli("replay", str(path), "--json")
    assert done.returncode == 1 and json.loads(done.stdout)["ok"] is False


def test_legal_lists_the_actions_after_the_record(tmp_path: Path) -> None:
    rs = RULESETS["battleline"]
    dealt = deal_from_seed(rs, "legal")
    record = GameRecord(rs, ClaimTiming.ADVANCED, dealt, ())
    path = tmp_path / "start.json"
    path.write_text(json.dumps(record.to_json()))
    out = json.loads(engine_cli("legal", str(path), "--json").stdout)
    assert out["to_move"] == dealt.first
    hand = dealt.hands["AB".index(dealt.first)]
    troops = [c for c in hand if c[0] in "ROYGBP" and c[1:].isdigit()]
    assert f"{dealt.first}: {troops[0]}>1" in out["actions"]


def test_deal_reproduces_a_game_from_its_seed() -> None:
    out = json.loads(engine_cli("deal", "some-seed").stdout)
    dealt = deal_from_seed(RULESETS["battleline"], "some-seed")
    assert out["deal"]["A"] == list(dealt.hands[0]) and out["first"] == dealt.first
    assert len(out["seed_commitment"]) == 64


def test_play_against_a_random_mover_to_the_end(tmp_path: Path) -> None:
    # A person who always answers "1" (the first legal move) against a random mover.
    save = tmp_path / "played.json"
    done = engine_cli(
        "play", "--random", "B", "--seed", "7", "--save", str(save), stdin="1\n" * 3000
    )
    assert done.returncode == 0, done.stderr
    assert " wins by " in done.stdout or "draw (" in done.stdout
    replayed = engine_cli("replay", str(save), "--json")
    assert json.loads(replayed.stdout)["result"] is not None


def test_play_bad_lines_get_an_error_and_the_game_goes_on() -> None:
    done = engine_cli("play", "--seed", "9", stdin="R11>3\n9999\nclaim 12\nhello\nwhy\nquit\n")
    assert done.returncode == 0
    errors = [line for line in done.stdout.splitlines() if "error:" in line]
    assert len(errors) == 4, done.stdout[-2000:]
    assert "flag 1:" in done.stdout  # 'why' explains each flag
