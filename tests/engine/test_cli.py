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


# --- three players (V6): the additions of docs/formats.md ---------------------------------------

PAIRS = [["A", "B"]] * 3 + [["B", "C"]] * 3 + [["C", "A"]] * 3


def three_player_record(tmp_path: Path, moves: list[str], first: str = "C") -> Path:
    rs = RULESETS["battleline-3p"]
    record = GameRecord(rs, ClaimTiming.ADVANCED, deal_from_seed(rs, "cli", first=first), ())
    data = record.to_json()
    data["moves"] = moves
    path = tmp_path / "three.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("ruleset", ["battleline-3p", "no-tactics-3p"])
def test_v6_replay_json_of_a_finished_three_player_game(tmp_path: Path, ruleset: str) -> None:
    done = engine_cli("replay", str(finished_record(tmp_path, ruleset, seed=11)), "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["ok"] is True and out["to_move"] is None
    assert out["result"] in ("breakthrough", "envelopment", "stalemate")
    assert out["winner"] in ("A", "B", "C") or (
        isinstance(out["winner"], list) and len(out["winner"]) >= 2
    )
    assert [f["seats"] for f in out["flags"]] == PAIRS
    for f, pair in zip(out["flags"], PAIRS, strict=True):
        assert set(f) == {"flag", "claimed_by", "seats", "env", *pair}
        assert f["claimed_by"] in (None, *pair)
    for key in ("hands", "discards", "tactics_played"):
        assert list(out[key]) == ["A", "B", "C"]
    cards = [c for f in out["flags"] for s in f["seats"] for c in f[s]]
    cards += [c for f in out["flags"] for c in f["env"]]
    cards += [c for key in ("hands", "discards") for hand in out[key].values() for c in hand]
    assert len(cards) + out["decks"]["troops"] + out["decks"]["tactics"] == len(
        RULESETS[ruleset].all_cards
    )


def test_v6_replay_json_lists_the_seats_sharing_a_draw(tmp_path: Path) -> None:
    out = json.loads(
        engine_cli("replay", str(three_player_record(tmp_path, ["B: resign"])), "--json").stdout
    )
    assert out["winner"] == ["A", "C"] and out["result"] == "resignation"
    person = engine_cli("replay", str(three_player_record(tmp_path, ["B: resign"])))
    assert "draw between A and C (resignation)" in person.stdout
    assert "C  flag  A" in person.stdout and "hand C: " in person.stdout


def test_v6_replay_json_after_moves_and_an_illegal_one(tmp_path: Path) -> None:
    rs = RULESETS["battleline-3p"]
    hand_c = deal_from_seed(rs, "cli", first="C").hands[2]
    troop = next(c for c in hand_c if c[1:].isdigit())
    path = three_player_record(tmp_path, [f"C: {troop}>8", "C: draw troops"])
    out = json.loads(engine_cli("replay", str(path), "--json").stdout)
    assert out["to_move"] == "A" and out["winner"] is None and out["result"] is None
    assert out["flags"][7] == {
        "flag": 8,
        "claimed_by": None,
        "seats": ["C", "A"],
        "C": [troop],
        "A": [],
        "env": [],
    }
    assert out["decks"] == {"troops": 38, "tactics": 10} and len(out["hands"]["C"]) == 7
    bad = three_player_record(tmp_path, [f"C: {troop}>2"])
    done = engine_cli("replay", str(bad), "--json")
    assert done.returncode == 1
    error = json.loads(done.stdout)
    assert error["ok"] is False and error["move"] == 1 and "between A and B" in error["error"]


def test_v6_legal_json_lists_only_the_seat_to_moves_own_flags(tmp_path: Path) -> None:
    out = json.loads(engine_cli("legal", str(three_player_record(tmp_path, [])), "--json").stdout)
    assert out["to_move"] == "C"
    targets = {int(a.rsplit(">", 1)[1]) for a in out["actions"] if ">" in a}
    assert targets == {4, 5, 6, 7, 8, 9}
    assert all(a.startswith("C: ") for a in out["actions"])
    over = json.loads(
        engine_cli("legal", str(three_player_record(tmp_path, ["A: resign"])), "--json").stdout
    )
    assert over == {"to_move": None, "actions": []}


def test_v6_deal_takes_a_three_player_ruleset_and_seed() -> None:
    out = json.loads(engine_cli("deal", "seed-3", "--ruleset", "no-tactics-3p").stdout)
    dealt = deal_from_seed(RULESETS["no-tactics-3p"], "seed-3")
    assert out["ruleset"] == "no-tactics-3p" and out["first"] == dealt.first
    assert [out["deal"][s] for s in "ABC"] == [list(h) for h in dealt.hands]
    assert all(len(out["deal"][s]) == 6 for s in "ABC") and len(out["deal"]["troops"]) == 42
    assert out["cut"] == dealt.describe_cut()


def test_v6_play_with_three_random_movers_to_the_end(tmp_path: Path) -> None:
    save = tmp_path / "played.json"
    args = ["play", "--ruleset", "battleline-3p", "--seed", "5", "--save", str(save)]
    done = engine_cli(*args, "--random", "A", "--random", "B", "--random", "C")
    assert done.returncode == 0, done.stderr
    assert " wins by " in done.stdout or "draw" in done.stdout
    replayed = json.loads(engine_cli("replay", str(save), "--json").stdout)
    assert replayed["ok"] is True and replayed["result"] is not None


def test_v6_play_against_two_random_movers() -> None:
    done = engine_cli(
        "play",
        "--ruleset",
        "no-tactics-3p",
        "--random",
        "B",
        "--random",
        "C",
        "--seed",
        "2",
        stdin="1\n" * 3000,
    )
    assert done.returncode == 0, done.stderr
    assert " wins by " in done.stdout or "draw" in done.stdout


def test_play_refuses_a_random_seat_the_ruleset_lacks() -> None:
    done = engine_cli("play", "--random", "C", "--seed", "1")
    assert done.returncode == 2 and "no seat C" in done.stderr
