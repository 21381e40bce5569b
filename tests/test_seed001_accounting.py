"""The results file's stage counts (issue 26, item 3) against an independent count on the bundled round-trip cases.

``benchmarks/seed001_independent_counts.py`` parses the graph text itself, finds the 1-best by back pointers,
aligns, retrieves and filters with its own code; the experiment's counts come from each case's traced fate.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from parastudio.core.demo import demo_files
from parastudio.core.engine.decoders.cat.approaches import APPROACHES
from parastudio.core.engine.decoders.cat.autoeval import evaluate, read_cases
from parastudio.core.engine.decoders.cat.graph_store import open_graph
from parastudio.core.experiments.seed001_accounting import stage_counts
from parastudio.core.experiments.seed001_approaches import spellable_cases

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


def test_the_results_files_explanation_states_the_independent_counts():
    """Every count in ``why_paragraph``'s prose that the independent counter can check equals it (issue 26: the
    results file's explanation agrees with independent counts). Approach 10 filters partials as approach 2 does
    (PTPF FWPF SDPF), so its losses to the partial filters are approach 2's in the independent count."""
    import re

    from parastudio.core.engine.lm.language_model import LanguageModel
    from parastudio.core.experiments.seed001_report import why_paragraph

    expected = independent()
    cases = read_cases(DEMO.roundtrip_cases)
    with open_graph(DEMO.roundtrip_graph) as store:
        results = {name: evaluate(store, cases, APPROACHES[name], lm=LanguageModel(DEMO.lm), explain=True).results
                   for name in ("approach-1", "approach-10")}
    prose = "\n".join(why_paragraph({"cases": cases, "results": results,
                                     "spellable": spellable_cases(DEMO.es_en_table, results["approach-1"])}))

    def stated(pattern: str) -> int:
        found = re.search(pattern, prose)
        assert found, pattern
        return int(found.group(1))

    one, two = expected["approach-1"], expected["approach-2"]
    assert stated(r"can spell (\d+) golds") == expected["spellable by the table"]
    assert stated(r"- (\d+) golds \([^)]*\) are in no chain") == one["not the selection"] - one["in graph"]
    assert stated(r"and (\d+) more \([^)]*\) are in the graph but not") == one["in graph"] - one["retrieved"]
    assert stated(r"drops the gold in (\d+) cases") == two["retrieved"] - two["after SDPF"]
    assert stated(r"drops the gold in \d+ cases, (\d+) of them FWPF") == two["after PTPF"] - two["after FWPF"]
    one_rows, ten_rows = results["approach-1"], results["approach-10"]
    assert stated(r"Tie order decides part of the comparison: (\d+) of approach 1's") == \
        sum(r.success for r in one_rows if r.tie_at_cut)
    assert stated(r"tie broken the other way approach 1 has (\d+)") == \
        sum(bool(r.success_with_ties_reversed) for r in one_rows)
    assert stated(r"and approach\s+10 (\d+) \(the ties table") == sum(bool(r.success_with_ties_reversed) for r in ten_rows)
    assert "monotone" in prose and "cube pruning" in prose and "news" not in prose
