"""Recorded finished games (tests/fixtures/games/*.json) replay to the result stored with them,
for ever: a change of the engine that changes how a recorded game ends must bump RULES_VERSION
(and the games keep the version they began with)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import engine

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "games"
RECORDS = sorted(FIXTURES.glob("*.json"))


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def test_there_are_three_variants() -> None:
    rulesets = {load(path)["ruleset"] for path in RECORDS}
    assert len(RECORDS) >= 3 and len(rulesets) >= 3
    tactics = " ".join(load(FIXTURES / "battleline-tactics.json")["moves"])
    for word in ("SCOUT", "return ", "REDEPLOY", "DESERTER", "TRAITOR", "MUD>"):
        assert word in tactics


@pytest.mark.parametrize("path", RECORDS, ids=[p.stem for p in RECORDS])
def test_recorded_game_replays_to_its_result(path: Path) -> None:
    data = load(path)
    expected = data["expected"]
    record = engine.GameRecord.from_json(data)
    final = engine.replay(record)
    assert final.result is not None
    assert final.result.winner == expected["winner"]
    assert final.result.termination.value == expected["result"]
    assert engine.public_view(final)["flags_held"] == expected["flags_held"]
    assert engine.series_points(final) == expected["series_points"]
    assert len(record.moves) == expected["moves"]
    # The record writes itself back unchanged (extras kept), so exports round-trip.
    assert record.to_json() == data
