"""The compiled MCPG core's faster paths against their references (issue 24, speed at eta = 100,000).

* the selection's argmax, four actions at a time with AVX and one at a time, against search.py's numpy
  select (NaN, ties, signed zeros, lengths around multiples of four);
* the true score's dynamic program (rules found by their first target word, cells marked by a per-call stamp
  instead of cleared) called on many targets in turn, shorter and longer than the source, against
  finals.py's best_rules_log10.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import WORDS
from hypothesis import assume, given
from hypothesis import strategies as st
from test_mcpg_incremental import fixture_ok, lm, random_case, random_free_sequence  # noqa: F401 (lm is a fixture)

from parastudio.core.engine.decoders.mcpg import FAITHFUL, SearchInputs, TreeSearch, native
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Rule

pytestmark = pytest.mark.skipif(not native.available(), reason="the compiled MCPG core is not built")

NAN = float("nan")
# Values that meet each other (ties, both zeros) and the selection's edge cases, besides any float in range.
REWARDS = st.one_of(st.sampled_from([0.0, -0.0, 0.25, 0.5, 1.0]), st.floats(0.0, 1.0))
SPREADS = st.one_of(st.sampled_from([0.0, -0.0, -1e-17, 0.25, NAN]), st.floats(-1e-12, 0.3))
COUNTS = st.one_of(st.sampled_from([1.0, 2.0, 3.0]), st.integers(1, 10**6).map(float))


def numpy_select(count, spread, q, rave, visits, k):
    """search.py's select on given statistics (spread = reward_squares / count - mean * mean)."""
    count, spread, q, rave = (np.array(v, dtype=float) for v in (count, spread, q, rave))
    log_n = math.log(visits) if visits > 1 else 0.0
    beta = math.sqrt(k / (3.0 * visits + k))
    q_rave = np.where(np.isnan(rave), q, rave)
    variance = spread + np.sqrt(2.0 * log_n / count)
    with np.errstate(invalid="ignore"):
        index = (1.0 - beta) * q + beta * q_rave + np.sqrt(log_n / count * np.minimum(0.25, variance))
    return int(np.argmax(index))


@fixture_ok(400)
@given(st.integers(1, 37).flatmap(lambda n: st.tuples(*(st.lists(s, min_size=n, max_size=n) for s in (
           COUNTS, SPREADS, REWARDS, st.one_of(st.just(NAN), REWARDS))))),
       st.one_of(st.sampled_from([1, 2, 3]), st.integers(1, 10**7)), st.sampled_from([0.0, 1.0, 1000.0, 0.37]))
def test_selection_argmax_is_numpys_both_ways(arrays, visits, k):
    count, spread, q, rave = arrays
    expected = numpy_select(count, spread, q, rave, visits, k)
    for vectorised in (True, False):
        assert native._mcpg_core.select_argmax(count, spread, q, rave, visits, k, vectorised) == expected


@fixture_ok(60)
@given(st.integers(0, 10**6), st.booleans())
def test_true_score_over_many_targets_in_turn(seed, deletions):
    """One core scores 40 targets one after another (reachable ones and random words, 1 to 2n + 2 long, some
    asked twice): each the same bits as best_rules_log10, whatever was scored before it."""
    rng, source, table = random_case(seed, words=5, length=(2, 12), rules=30)
    if deletions:  # more rules with an empty target (found by their own key, not by a first word)
        table = ParaphraseTable([*table, *(Rule(source[i:i + 1], (), 0.2) for i in range(0, len(source), 2))])
    search = TreeSearch(SearchInputs(source, table, None, options=FAITHFUL))
    space = search.space
    assume(len(space) > 0)
    compiled = native.NativeSearch(search, 10, 10)
    targets = []
    for _ in range(20):
        targets.append(space.sentence(random_free_sequence(rng, space)))
        targets.append(tuple(rng.choice(WORDS[:5]) for _ in range(rng.randint(1, 2 * len(source) + 2))))
    targets += rng.sample(targets, 5)
    for target in targets:
        ids = compiled.to_ids(target)
        assert compiled.core.true_rules_log10(ids).hex() == search.finals.true_rules_log10(target).hex()

