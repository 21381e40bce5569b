"""``parastudio experiment seed001-approaches`` on the demo's first round-trip cases: Fig. 4.2 and the feedback
table recomputed from seed001-approaches.jsonl.gz with plain Python (issue 23, Deliver 5)."""

from __future__ import annotations

import pytest

from parastudio.core.cli import main
from parastudio.core.demo import demo_files
from parastudio.core.experiments.per_sentence import read_per_sentence

DEMO = demo_files()
pytestmark = pytest.mark.skipif(not (DEMO.roundtrip_cases.is_file() and DEMO.roundtrip_graph.is_file()),
                                reason="the bundled round-trip cases are missing")
CASES = 12


def test_fig_4_2_and_feedback_recomputed_from_the_per_case_file(tmp_path):
    out = tmp_path / "results"
    assert main(["experiment", "seed001-approaches", "--cases", "roundtrip", "--limit", str(CASES),
                 "--processes", "1", "--out", str(out)]) == 0
    markdown = (out / "seed001-approaches.md").read_text(encoding="utf-8")
    header, records = read_per_sentence(out / "seed001-approaches.jsonl.gz")
    assert header["inputs"]["cases"][0]["path"].endswith("testcases-roundtrip.jsonl")
    assert "`seed001-approaches.jsonl.gz`" in markdown
    figure = markdown.split("### Fig. 4.2")[1].split("###")[0]
    plain = [r for r in records if not r["feedback"] and r["reading"] == "chosen"]
    approaches = list(dict.fromkeys(r["approach"] for r in plain))
    assert len(approaches) == 12  # the ten and the two diagnostic rows
    for approach in approaches:
        rows = [r for r in plain if r["approach"] == approach]
        assert len(rows) == CASES and len({r["case"] for r in rows}) == CASES
        wins = sum(r["success"] for r in rows)
        times = sorted(r["seconds"] for r in rows)
        label = approach if approach.startswith("approach-") and "," not in approach and " " not in approach \
            else f"*{approach}* (diagnostic)"
        line = next(line for line in figure.splitlines() if line.startswith(f"| {label} |"))
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[2:4] == [str(wins), f"{100 * wins / CASES:.1f} %"]
        assert cells[6] == f"{1000 * times[min(len(times) - 1, int(0.95 * len(times)))]:.1f}"
    feedback_table = markdown.split("### §5.2: with feedback")[1].split("###")[0]
    for approach in ("approach-1", "approach-10"):
        without = sum(r["success"] for r in plain if r["approach"] == approach)
        with_feedback = sum(r["success"] for r in records if r["feedback"] and r["approach"] == approach)
        line = next(line for line in feedback_table.splitlines() if line.startswith(f"| {approach} |"))
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[1:3] == [f"{without} ({100 * without / CASES:.1f} %)",
                              f"{with_feedback} ({100 * with_feedback / CASES:.1f} %)"]
    assert any(r["success"] for r in records)  # something to count


def test_by_length_ties_and_other_readings_recomputed_from_the_per_case_file(tmp_path):
    out = tmp_path / "results"
    assert main(["experiment", "seed001-approaches", "--cases", "roundtrip", "--limit", str(CASES),
                 "--processes", "1", "--out", str(out)]) == 0
    markdown = (out / "seed001-approaches.md").read_text(encoding="utf-8")
    _, records = read_per_sentence(out / "seed001-approaches.jsonl.gz")
    chosen = [r for r in records if not r["feedback"] and r["reading"] == "chosen"]

    def row(section: str, label: str) -> list[str]:
        table = markdown.split(section)[1].split("###")[0]
        line = next(line for line in table.splitlines() if line.startswith(f"| {label} |"))
        return [c.strip() for c in line.strip("|").split("|")][1:]

    groups = [(1, 1), (2, 2), (3, 3), (4, 4), (5, 10_000)]
    for approach in ("approach-1", "approach-10"):
        rows = [r for r in chosen if r["approach"] == approach]
        per = [sum(r["success"] for r in rows if low <= r["length"] <= high) for low, high in groups]
        cells = row("### Fig. 4.2 by selection length", approach)
        assert [int(c.split()[0]) for c in cells[:5]] == per and int(cells[5]) == sum(per)
        ties = row("### Ties at the top-5 cut", approach)
        assert int(ties[1]) == sum(r["tie_at_cut"] for r in rows)
        assert int(ties[2]) == sum(r["tie_at_cut"] and r["success"] for r in rows)
    # Approach 1 has SDSF and no FWPF: the printed reading of SDSF runs it, NLTK's list leaves it "same".
    other = [r for r in records if r["reading"] == "SDSF as printed" and r["approach"] == "approach-1"]
    assert len(other) == CASES
    readings = row("### The other readings", "approach-1")
    assert readings[1].split()[0] == str(sum(r["success"] for r in other)) and readings[2] == "same"
