"""A rating matrix built from integer codes equals the one built from the strings they code."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from parastudio.core.stats.agreement import RatingMatrix, _factorize


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["u3", "u1", "ü", "u2", "", "u10"]), max_size=40))
def test_values_are_numbered_in_order_of_first_appearance(values):
    distinct, codes = _factorize(values)
    expected = list(dict.fromkeys(values))
    assert distinct == expected
    assert [expected[c] for c in codes] == values


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_the_matrix_from_codes_equals_the_matrix_from_strings(data):
    cells = data.draw(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 2)), unique=True, max_size=21))
    labels = [data.draw(st.sampled_from(["1", "2", "3", "5"])) for _ in cells]
    units = [f"item{u}" for u, _ in cells]
    annotators = [f"judge{a}" for _, a in cells]
    from_strings = RatingMatrix.from_judgments(units, annotators, labels)
    unit_ids, unit_codes = _factorize(units)
    annotator_ids, annotator_codes = _factorize(annotators)
    label_ids, label_codes = _factorize(labels)
    from_codes = RatingMatrix.from_codes(unit_ids, unit_codes, annotator_ids, annotator_codes, label_ids, label_codes)
    assert from_codes.unit_ids == from_strings.unit_ids
    assert from_codes.annotator_ids == from_strings.annotator_ids
    assert from_codes.categories == from_strings.categories
    assert np.array_equal(from_codes.codes, from_strings.codes)
    assert np.array_equal(from_codes.source_rows, from_strings.source_rows)
    assert (from_codes.category_values is None) == (from_strings.category_values is None)
