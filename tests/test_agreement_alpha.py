"""Krippendorff's alpha from one coincidence matrix equals the ``krippendorff`` package at every level."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from parastudio.core.stats.agreement import ALPHA_LEVELS, coincidences, krippendorff_alpha


@st.composite
def count_tables(draw):
    categories = draw(st.integers(2, 5))
    units = draw(st.integers(1, 25))
    counts = np.array(draw(st.lists(st.lists(st.integers(0, 4), min_size=categories, max_size=categories),
                                    min_size=units, max_size=units)))
    values = sorted(draw(st.lists(st.integers(-20, 20), min_size=categories, max_size=categories, unique=True)))
    return counts, np.array(values, dtype=float)


def package_alpha(counts, values, level):
    domain = np.arange(counts.shape[1]) if level == "nominal" else values
    with np.errstate(invalid="ignore", divide="ignore"):
        try:
            value = float(krippendorff.alpha(value_counts=counts, value_domain=domain, level_of_measurement=level))
        except ValueError:  # the package refuses data with no pairable unit or one value in use
            return None
    return value if math.isfinite(value) else None


@settings(max_examples=400, deadline=None)
@given(table=count_tables(), level=st.sampled_from(ALPHA_LEVELS))
def test_alpha_equals_the_krippendorff_package(table, level):
    counts, values = table
    assume((counts.sum(axis=1) >= 2).any())
    expected = package_alpha(counts, values, level)
    ours = krippendorff_alpha(counts, level, values)
    if expected is None:
        assert ours is None
    else:
        assert ours == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert krippendorff_alpha(counts, level, values, coincidence=coincidences(counts)) == ours


def test_the_coincidence_matrix_of_krippendorffs_own_example():
    # Krippendorff (2011), "Computing Krippendorff's alpha-reliability", the 4 x 12 example with missing values:
    # units as columns of values 1-5; here units x categories counts.
    data = [[1, 1, None, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
            [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [None, 5, 5, 5], [None, None, 1, 1], [None, None, 3, None]]
    counts = np.array([[row.count(value) for value in range(1, 6)] for row in data])
    o = coincidences(counts)
    assert o.sum() == pytest.approx(40)  # n: pairable values
    assert o[0, 0] == pytest.approx(7) and o[2, 2] == pytest.approx(8)  # worked out unit by unit
    assert krippendorff_alpha(counts, "nominal") == pytest.approx(0.743, abs=5e-4)
    assert krippendorff_alpha(counts, "interval", np.arange(1, 6, dtype=float)) == pytest.approx(0.849, abs=5e-4)
    assert krippendorff_alpha(counts, "ordinal", np.arange(1, 6, dtype=float)) == pytest.approx(0.815, abs=5e-4)
