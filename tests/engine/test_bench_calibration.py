"""bench/calibration.py: the slope it fits, and its report."""

from __future__ import annotations

import io
import json
import math
import random

from bench.calibration import Sample, fitted_slope, main


def test_the_fitted_slope_is_the_one_the_outcomes_were_drawn_with() -> None:
    rng = random.Random(7)
    points = []
    for _ in range(20000):
        chance = rng.uniform(0.02, 0.98)
        logit = math.log(chance / (1.0 - chance))
        held = rng.random() < 1.0 / (1.0 + math.exp(-0.5 * logit))
        points.append(Sample(chance, held, 40))
    slope = fitted_slope(points)
    assert slope is not None
    assert abs(slope - 0.5) < 0.05


def test_too_few_flags_fit_nothing() -> None:
    assert fitted_slope([Sample(0.7, True, 10)] * 10) is None


def test_the_report_gives_each_tenth_of_chance_and_the_fits() -> None:
    out = io.StringIO()
    assert main(["--games", "2", "--json"], out) == 0
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    tenths = [r for r in records if "chance" in r]
    fits = [r["fit"] for r in records if "fit" in r]
    assert fits == ["whole game", "deck 30+", "deck 15-29", "deck 0-14"]
    assert sum(r["flags"] for r in tenths) == next(r["flags"] for r in records if "fit" in r)
    assert all(0.0 <= r["held"] <= 1.0 for r in tenths)
