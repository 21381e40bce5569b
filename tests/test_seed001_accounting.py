"""The results file's stage counts (issue 26, item 3) against an independent count on the bundled round-trip cases.

``benchmarks/seed001_independent_counts.py`` parses the graph text itself, finds the 1-best by back pointers,
aligns, retrieves and filters with its own code; the experiment's counts come from each case's traced fate.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from core.demo import demo_files
from core.engine.cat.approaches import APPROACHES
from core.engine.cat.autoeval import evaluate, read_cases
from core.engine.cat.graph_store import open_graph
from core.experiments.seed001_accounting import stage_counts
from core.experiments.seed001_approaches import spellable_cases

DEMO = demo_files()
pytestmark = pytest.mark.skipif(not (DEMO.roundtrip_cases.is_file() and DEMO.es_en_table.is_file()),
                                reason="the bundled round-trip cases are missing")


def independent():
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "seed001_independent_counts.py"
    spec = importlib.util.spec_from_file_location("seed001_independent_counts", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.count(DEMO.roundtrip_cases, DEMO.roundtrip_graph, DEMO.es_en_table)


def test_stage_counts_through_the_partial_filters_equal_an_independent_count():
    expected = independent()
    cases = read_cases(DEMO.roundtrip_cases)
    with open_graph(DEMO.roundtrip_graph) as store:
        for name in ("approach-1", "approach-2"):
            rows = evaluate(store, cases, APPROACHES[name], lm=None, explain=True).results
            ours = stage_counts(rows, APPROACHES[name])
            assert {stage: ours[stage] for stage in expected[name]} == expected[name], name
            if name == "approach-1":
                spellable = spellable_cases(DEMO.es_en_table, rows)
    assert sum(spellable.values()) == expected["spellable by the table"]
    # Something is lost at every stage counted, so a stage that lost nothing would show.
    two = expected["approach-2"]
    assert two["cases"] > expected["spellable by the table"] > two["in graph"] > two["retrieved"] \
        > two["after FWPF"] > two["after SDPF"]
