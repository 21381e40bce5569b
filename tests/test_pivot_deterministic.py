"""The pivot is the same bytes on every core and under any memory limit (issue 25, Deliver 1).

The contract (``core/tablebuild/pivot_sql.py``): each sum adds its terms left to right from 0.0 in
ascending order, rows come in a total order, and the logs are made by the one Python writer. These tests
check the bytes across threads and spilling on a synthetic Zipfian table, the values against an
independent Python pivot summed in that order (exactly) and against math.fsum (to 1e-12), and DuckDB's
ordered sum against Python's left fold.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import math
import operator
import os
import random
from collections import defaultdict
from pathlib import Path

import duckdb
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from zipf_phrase_table import write_zipf_phrase_table

from parastudio.core.cli import main
from parastudio.core.tablebuild.pivot import pivot_table
from parastudio.core.tablebuild.pivot_sql import duckdb_ordered_sum
from parastudio.core.tablebuild.pivot_writer import write_pivot_rows

# Big enough that DuckDB spills under SPILL_LIMIT with one thread (checked in the test), small enough to
# pivot in a few seconds: 20,000 rules give ~50,000 output pairs, 12,000 of them summed over 3+ pivots.
ZIPF_RULES = 20_000
SPILL_LIMIT = "96MB"


def ordered_sum(terms) -> float:
    """The contract's sum: ascending terms added left to right from 0.0 (a plain loop, not Kahan)."""
    return functools.reduce(operator.add, sorted(terms), 0.0)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def zipf_table(tmp_path_factory) -> Path:
    return write_zipf_phrase_table(tmp_path_factory.mktemp("zipf") / "rules.txt", ZIPF_RULES, seed=3)


@pytest.fixture(scope="module")
def one_thread_in_memory(zipf_table, tmp_path_factory) -> tuple[Path, dict]:
    output = tmp_path_factory.mktemp("reference") / "para.txt"
    stats = pivot_table(zipf_table, output, threads=1, memory_limit="4GB")
    return output, stats


# ---------------------------------------------------------------- same bytes


@pytest.mark.parametrize("threads", sorted({os.cpu_count() or 1, 4}))
def test_output_is_the_same_bytes_on_every_core(zipf_table, one_thread_in_memory, tmp_path, threads):
    reference, reference_stats = one_thread_in_memory
    output = tmp_path / "para.txt"
    stats = pivot_table(zipf_table, output, threads=threads, memory_limit="4GB")
    assert stats["threads"] == threads and reference_stats["threads"] == 1
    assert stats["paraphrase_pairs_out"] == reference_stats["paraphrase_pairs_out"] > 10_000
    assert sha256(output) == sha256(reference)


def test_spilled_output_is_the_same_bytes_as_in_memory(zipf_table, one_thread_in_memory, tmp_path):
    reference, reference_stats = one_thread_in_memory
    output = tmp_path / "para.txt.gz"
    stats = pivot_table(zipf_table, output, threads=1, memory_limit=SPILL_LIMIT, temp_directory=tmp_path / "spill")
    # DuckDB's own profile of the query: it wrote temporary files under the limit, none without it.
    assert stats["spilled_bytes"] > 0 and stats["peak_temp_dir_bytes"] > 0
    assert reference_stats["spilled_bytes"] == 0
    assert gzip.decompress(output.read_bytes()) == reference.read_bytes()
    assert list((tmp_path / "spill").iterdir()) == []  # the work space is removed


def test_cli_defaults_to_every_core(zipf_table, one_thread_in_memory, tmp_path, capsys):
    output = tmp_path / "para.txt"
    assert main(["pivot", str(zipf_table), "-o", str(output), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["threads"] == (os.cpu_count() or 1)
    assert sha256(output) == sha256(one_thread_in_memory[0])


def test_cli_refuses_a_memory_limit_that_is_not_a_size(zipf_table, tmp_path, capsys):
    assert main(["pivot", str(zipf_table), "-o", str(tmp_path / "p.txt"), "--memory-limit", "lots"]) == 2
    assert "memory limit must be a size such as '512MB'" in capsys.readouterr().err
    assert not (tmp_path / "p.txt").exists()


# ---------------------------------------------------------------- the fixed order, exactly


def test_duckdb_ordered_sum_is_the_left_fold_of_the_sorted_terms():
    """Many groups of terms spanning magnitudes, on 4 threads: each sum equals Python's fold bit for bit."""
    rng = random.Random(11)
    rows = [(group, rng.random() * 10.0 ** rng.randint(-9, 0))
            for group in range(3000) for _ in range(rng.randint(1, 40))]
    rng.shuffle(rows)
    connection = duckdb.connect()
    connection.execute("SET threads = 4")
    connection.execute("CREATE TABLE terms (g INTEGER, x DOUBLE)")
    connection.executemany("INSERT INTO terms VALUES (?, ?)", rows)
    got = dict(connection.execute(f"SELECT g, {duckdb_ordered_sum('x')} FROM terms GROUP BY g").fetchall())
    by_group = defaultdict(list)
    for group, value in rows:
        by_group[group].append(value)
    expected = {group: ordered_sum(values) for group, values in by_group.items()}
    assert got == expected
    # The comparison has teeth: other orders (and exact summation) give other last bits for many groups.
    assert sum(functools.reduce(operator.add, values, 0.0) != expected[g] for g, values in by_group.items()) > 100
    assert sum(math.fsum(values) != expected[g] for g, values in by_group.items()) > 100


def test_three_pivots_are_added_smallest_first(tmp_path):
    # p(e2|e1) = 1.0*0.3 + 1.0*0.2 + 1.0*0.1, listed largest first: ascending order gives
    # (0.1 + 0.2) + 0.3 = 0.6000000000000001, while file order and math.fsum give 0.6.
    table = tmp_path / "t.txt"
    table.write_text("".join(f"e2 ||| {f} ||| {p} 0.5 0.5 0.5\ne1 ||| {f} ||| 0.5 0.5 1.0 0.5\n"
                             for f, p in (("x", 0.3), ("y", 0.2), ("z", 0.1))), encoding="utf-8")
    pivot_table(table, tmp_path / "p.txt", threads=1, features=False)
    lines = (tmp_path / "p.txt").read_text(encoding="utf-8").splitlines()
    expected = ordered_sum([0.3, 0.2, 0.1])
    assert expected != 0.3 + 0.2 + 0.1 and expected != math.fsum([0.3, 0.2, 0.1])
    assert lines[0] == f"e1 ||| e2 ||| {expected!r}"


def reference_pivot(lines, *, min_prob, max_pivot, top):
    """The pivot from its definition (seed 002 eq. 1; features as core.tablebuild.pivot documents them).

    Returns [(e1, e2, [terms of each of the four sums])] in output order, summing with ``ordered_sum``.
    """
    clusters = defaultdict(list)
    for line in lines:
        e, f, scores = line.split(" ||| ")[:3]
        p_e_f, lex_e_f, p_f_e, lex_f_e = (float(v) for v in scores.split()[:4])
        clusters[f].append((e, p_e_f, p_f_e, lex_e_f ** (1 / len(e.split())), lex_f_e ** (1 / len(f.split()))))
    terms = defaultdict(lambda: ([], [], [], []))
    for members in clusters.values():
        if len(members) > max_pivot:
            continue
        for e1, p_e1_f, p_f_e1, lw_e1_f, lw_f_e1 in members:
            for e2, p_e2_f, p_f_e2, lw_e2_f, lw_f_e2 in members:
                if e1 != e2:
                    for column, term in zip(terms[(e1, e2)], (p_f_e1 * p_e2_f, p_f_e2 * p_e1_f,
                                                               lw_f_e1 * lw_e2_f, lw_f_e2 * lw_e1_f)):
                        column.append(term)
    by_source = defaultdict(list)
    for (e1, e2), columns in terms.items():
        if ordered_sum(columns[0]) >= min_prob:
            by_source[e1].append((e2, columns))
    result = []
    for e1 in sorted(by_source):
        ranked = sorted(by_source[e1], key=lambda item: (-ordered_sum(item[1][0]), item[0]))[:top]
        result.extend((e1, e2, columns) for e2, columns in ranked)
    return result


# Values that are not dyadic, so the order of the additions shows in the last bits.
SCORES = st.sampled_from([0.1, 0.2, 0.3, 0.7, 1 / 3, 2 / 3, 0.05, 0.9, 0.123456789, 1e-3, 0.6180339887, 1.0])
WORDS = st.sampled_from(["a", "b", "c", "a b", "c d e", "é"])
PIVOTS = st.sampled_from(["x", "y", "z", "w", "x y", "v", "u"])


@st.composite
def phrase_tables(draw):
    pairs = draw(st.lists(st.tuples(WORDS, PIVOTS), min_size=2, max_size=30, unique=True))
    return [f"{e} ||| {f} ||| {draw(SCORES)} {draw(SCORES)} {draw(SCORES)} {draw(SCORES)}" for e, f in pairs]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(table=phrase_tables(), min_prob=st.sampled_from([0.0, 1e-5, 0.05]),
       max_pivot=st.integers(min_value=2, max_value=6), top=st.integers(min_value=1, max_value=5))
def test_values_equal_the_python_pivot_summed_in_the_same_order(tmp_path, table, min_prob, max_pivot, top):
    expected = reference_pivot(table, min_prob=min_prob, max_pivot=max_pivot, top=top)
    assume(expected)
    path = tmp_path / "t.txt"
    path.write_text("\n".join(table) + "\n", encoding="utf-8")
    pivot_table(path, tmp_path / "p.txt", min_prob=min_prob, max_pivot=max_pivot, top=top, threads=4)
    rows = [line.split(" ||| ") for line in (tmp_path / "p.txt").read_text(encoding="utf-8").splitlines()]
    assert [(e1, e2) for e1, e2, _ in rows] == [(e1, e2) for e1, e2, _ in expected]
    for (_, _, scores), (_, _, columns) in zip(rows, expected):
        prob, *features = (float(value) for value in scores.split())
        sums = [ordered_sum(column) for column in columns]
        assert [prob, *features] == [sums[0], *(math.log(value) for value in sums)]  # exactly
        for value, column in zip(sums, columns):
            assert abs(value - math.fsum(column)) <= 1e-12 * math.fsum(column)


# ---------------------------------------------------------------- the writer


def test_writer_refuses_rows_out_of_the_total_order(tmp_path):
    output = tmp_path / "p.txt"
    in_order = [("a", "b", 0.5, 0.5, 0.5, 0.5), ("a", "c", 0.5, 0.5, 0.5, 0.5), ("b", "a", 0.9, 0.5, 0.5, 0.5)]
    assert write_pivot_rows([in_order], output)["paraphrase_pairs_out"] == 3
    for broken in ([in_order[1], in_order[0]], [in_order[0], in_order[0]], [in_order[2], in_order[0]],
                   [in_order[0], ("a", "d", 0.75, 0.5, 0.5, 0.5)]):
        output.unlink(missing_ok=True)
        with pytest.raises(RuntimeError, match="total order"):
            write_pivot_rows([broken[:1], broken[1:]], output)
        assert not output.exists()
