"""The appraisal's ``confidence``: a chance bent on its log-odds, certainty kept."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.bots.appraisal import _tempered

chances = st.floats(min_value=0.0, max_value=1.0)
slopes = st.floats(min_value=0.05, max_value=1.0)


@given(chances, slopes)
def test_a_bent_chance_stays_a_chance_on_its_side_of_even_and_no_further_from_it(
    p: float, slope: float
) -> None:
    bent = _tempered(p, slope)
    assert 0.0 <= bent <= 1.0
    assert abs(bent - 0.5) <= abs(p - 0.5) + 1e-12
    assert (bent - 0.5) * (p - 0.5) >= 0.0


@given(st.floats(min_value=1e-6, max_value=1.0 - 1e-6), slopes)
def test_a_chance_and_its_complement_are_bent_alike(p: float, slope: float) -> None:
    assert abs(_tempered(1.0 - p, slope) - (1.0 - _tempered(p, slope))) < 1e-9


@given(chances, chances, slopes)
def test_bending_keeps_the_order_of_chances(p: float, q: float, slope: float) -> None:
    if p < q:
        assert _tempered(p, slope) <= _tempered(q, slope) + 1e-12


@given(slopes)
def test_certainty_and_even_chances_are_kept(slope: float) -> None:
    assert _tempered(0.0, slope) == 0.0
    assert _tempered(1.0, slope) == 1.0
    assert abs(_tempered(0.5, slope) - 0.5) < 1e-12
    assert abs(_tempered(0.9, 1.0) - 0.9) < 1e-12
