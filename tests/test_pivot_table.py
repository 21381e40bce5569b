"""Pivot paraphrase table: DuckDB SQL against a pure-Python reference (seed 000 §3.1)."""

from __future__ import annotations

import gzip
import math
import random
import sqlite3
from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from parastudio.core.errors import InputFormatError
from parastudio.core.tablebuild.pivot import pivot_table
from parastudio.core.tablebuild.pivot_sql import PIVOT_SQL, PORTABLE_SQL_FUNCTIONS, render_pivot_sql, sql_function_names

# ---------------------------------------------------------------- reference


def reference_pivot(lines, *, min_prob=1e-5, max_pivot=200, top=20, reverse=False):
    """Straightforward Python version of the pivot, written from the definition.

    Returns [(e1, e2, p(e2|e1), h1, h2, h3, h4)] in output order.
    """
    clusters = defaultdict(list)
    for line in lines:
        first, second, scores = line.split(" ||| ")[:3]
        s = [float(v) for v in scores.split()]
        if reverse:  # first field is the pivot f, second the phrase e
            e, f = second, first
            p_f_e, lex_f_e, p_e_f, lex_e_f = s[0], s[1], s[2], s[3]
        else:  # first field is e: s1 = p(e|f), s3 = p(f|e)
            e, f = first, second
            p_e_f, lex_e_f, p_f_e, lex_f_e = s[0], s[1], s[2], s[3]
        lw_e_f = lex_e_f ** (1 / len(e.split()))
        lw_f_e = lex_f_e ** (1 / len(f.split()))
        clusters[f].append((e, p_e_f, p_f_e, lw_e_f, lw_f_e))
    sums = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    for _f, members in clusters.items():
        if len(members) > max_pivot:
            continue
        for e1, p_e1_f, p_f_e1, lw_e1_f, lw_f_e1 in members:
            for e2, p_e2_f, p_f_e2, lw_e2_f, lw_f_e2 in members:
                if e1 == e2:
                    continue
                acc = sums[(e1, e2)]
                acc[0] += p_f_e1 * p_e2_f
                acc[1] += p_f_e2 * p_e1_f
                acc[2] += lw_f_e1 * lw_e2_f
                acc[3] += lw_f_e2 * lw_e1_f
    by_source = defaultdict(list)
    for (e1, e2), (prob, back, lw_forth, lw_back) in sums.items():
        if prob >= min_prob:
            by_source[e1].append((e2, prob, math.log(prob), math.log(back), math.log(lw_forth), math.log(lw_back)))
    result = []
    for e1 in sorted(by_source):
        ranked = sorted(by_source[e1], key=lambda item: (-item[1], item[0]))[:top]
        result.extend((e1, *item) for item in ranked)
    return result


def read_output(path: Path):
    opener = gzip.open if str(path).endswith(".gz") else open
    rows = []
    with opener(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            e1, e2, scores = line.rstrip("\n").split(" ||| ")
            rows.append((e1, e2, *[float(v) for v in scores.split()]))
    return rows


def assert_same(actual, expected, tolerance=1e-9):
    assert [(row[0], row[1]) for row in actual] == [(row[0], row[1]) for row in expected]
    for got, want in zip(actual, expected):
        for a, b in zip(got[2:], want[2:]):
            assert abs(a - b) <= tolerance * max(1.0, abs(b)), (got, want)


def write_table(path: Path, lines):
    text = "".join(line + "\n" for line in lines)
    if str(path).endswith(".gz"):
        with gzip.open(path, "wt", encoding="utf-8") as handle:
            handle.write(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------- hand-worked

HAND_TABLE = [
    # e ||| f ||| p(e|f) lex(e|f) p(f|e) lex(f|e)
    "the house ||| la casa ||| 0.5 0.4 0.8 0.3 ||| 0-0 1-1 ||| 10 8 5",
    "the home ||| la casa ||| 0.5 0.3 0.2 0.2 ||| 0-0 1-1 ||| 10 2 2",
    "the house ||| el hogar ||| 0.3 0.3 0.2 0.2 ||| 0-0 1-1 ||| 4 5 1",
    "the home ||| el hogar ||| 0.7 0.5 0.8 0.6 ||| 0-0 1-1 ||| 4 5 3",
]


def test_hand_worked_probabilities_and_features(tmp_path):
    table = write_table(tmp_path / "t.txt", HAND_TABLE)
    stats = pivot_table(table, tmp_path / "p.txt")
    rows = read_output(tmp_path / "p.txt")
    # p(home|house) = p(casa|house) p(home|casa) + p(hogar|house) p(home|hogar) = .8*.5 + .2*.7
    # p(house|home) = .2*.5 + .8*.3
    assert [(r[0], r[1]) for r in rows] == [("the home", "the house"), ("the house", "the home")]
    home, house = rows
    assert house[2] == pytest.approx(0.54, abs=1e-12)
    assert home[2] == pytest.approx(0.34, abs=1e-12)
    assert house[3] == pytest.approx(math.log(0.54))  # h1 = ln p(e2|e1)
    assert house[4] == pytest.approx(math.log(0.34))  # h2 = ln p(e1|e2)
    # h3: LW(x|y) = lex(x|y)^(1/|x|); both phrases have 2 words
    lw = math.sqrt(0.3) * math.sqrt(0.3) + math.sqrt(0.2) * math.sqrt(0.5)
    assert house[5] == pytest.approx(math.log(lw))
    assert stats["phrase_pairs_in"] == 4 and stats["paraphrase_pairs_out"] == 2
    assert_same(rows, reference_pivot(HAND_TABLE))


def test_reverse_reads_the_other_columns(tmp_path):
    # Swap fields and the column pairs: same bilingual table seen from the pivot side.
    flipped = []
    for line in HAND_TABLE:
        e, f, scores, align, counts = line.split(" ||| ")
        s = scores.split()
        flipped.append(f"{f} ||| {e} ||| {s[2]} {s[3]} {s[0]} {s[1]} ||| {align} ||| {counts}")
    write_table(tmp_path / "t.txt", HAND_TABLE)
    write_table(tmp_path / "r.txt.gz", flipped)
    pivot_table(tmp_path / "t.txt", tmp_path / "a.txt")
    pivot_table(tmp_path / "r.txt.gz", tmp_path / "b.txt.gz", reverse=True)
    assert read_output(tmp_path / "a.txt") == read_output(tmp_path / "b.txt.gz")


def test_pivot_cluster_larger_than_tau_is_dropped_and_equal_to_tau_kept(tmp_path):
    lines = [f"w{i} ||| big ||| 0.25 0.5 0.25 0.5" for i in range(4)]
    lines += [f"v{i} ||| small ||| 0.5 0.5 0.5 0.5" for i in range(3)]
    table = write_table(tmp_path / "t.txt", lines)
    stats = pivot_table(table, tmp_path / "p.txt", max_pivot=3)
    rows = read_output(tmp_path / "p.txt")
    assert {r[0] for r in rows} == {"v0", "v1", "v2"}
    assert stats["pivot_clusters_dropped"] == 1
    pivot_table(table, tmp_path / "q.txt", max_pivot=4)
    assert {r[0] for r in read_output(tmp_path / "q.txt")} == {"v0", "v1", "v2", "w0", "w1", "w2", "w3"}


def test_min_prob_keeps_equal_and_drops_below(tmp_path):
    lines = ["a ||| x ||| 0.5 0.5 0.5 0.5", "b ||| x ||| 0.25 0.5 0.5 0.5", "c ||| x ||| 0.125 0.5 0.5 0.5"]
    table = write_table(tmp_path / "t.txt", lines)
    pivot_table(table, tmp_path / "p.txt", min_prob=0.125, features=False)
    rows = read_output(tmp_path / "p.txt")
    # p(b|a) = .5*.25 = .125 kept; p(c|a) = .0625 dropped
    assert ("a", "b", 0.125) in rows and not any(r[:2] == ("a", "c") for r in rows)
    assert all(len(r) == 3 for r in rows)


def test_top_kappa_breaks_ties_by_e2(tmp_path):
    lines = ["src ||| x ||| 0.5 0.5 1.0 0.5"] + [f"{name} ||| x ||| 0.25 0.5 0.5 0.5" for name in "dcba"]
    table = write_table(tmp_path / "t.txt", lines)
    pivot_table(table, tmp_path / "p.txt", top=2)
    rows = [r for r in read_output(tmp_path / "p.txt") if r[0] == "src"]
    assert [r[1] for r in rows] == ["a", "b"]


def test_identity_pairs_are_never_output(tmp_path):
    table = write_table(tmp_path / "t.txt", HAND_TABLE)
    pivot_table(table, tmp_path / "p.txt", min_prob=0.0)
    assert all(r[0] != r[1] for r in read_output(tmp_path / "p.txt"))


def test_excluded_pairs_are_left_out_and_counted(tmp_path):
    """``exclude`` (a prune list from rule blame) drops exactly its pairs that the pivot produced, and says how
    many; a pair it names that the pivot never produced counts for nothing."""
    table = write_table(tmp_path / "t.txt", HAND_TABLE)
    stats = pivot_table(table, tmp_path / "p.txt", exclude={("the house", "the home"), ("the house", "a shed")})
    assert [(r[0], r[1]) for r in read_output(tmp_path / "p.txt")] == [("the home", "the house")]
    assert stats["pairs_pruned"] == 1 and stats["paraphrase_pairs_out"] == 1


def test_the_timings_are_parts_of_the_call(tmp_path):
    """Each stage's seconds are a part of the whole call's time: non-negative, and together at most the time the
    caller measured around the call (a bound, not a speed: it holds on any machine, loaded or not)."""
    import time

    table = write_table(tmp_path / "t.txt", HAND_TABLE)
    began = time.perf_counter()
    stats = pivot_table(table, tmp_path / "p.txt")
    elapsed = time.perf_counter() - began
    assert stats["timings"] and all(seconds >= 0 for seconds in stats["timings"].values())
    assert stats["seconds"] == pytest.approx(sum(stats["timings"].values()))
    assert stats["seconds"] <= elapsed


def test_bad_line_names_file_and_line(tmp_path):
    table = write_table(tmp_path / "t.txt", HAND_TABLE[:2] + ["a ||| b ||| 0.5 oops 0.5 0.5"])
    with pytest.raises(InputFormatError) as raised:
        pivot_table(table, tmp_path / "p.txt")
    assert f"{table}:3:" in str(raised.value)
    assert not (tmp_path / "p.txt").exists()
    short = write_table(tmp_path / "s.txt", ["a ||| b ||| 0.5 0.5"])
    with pytest.raises(InputFormatError, match=":1:"):
        pivot_table(short, tmp_path / "p.txt")
    missing = write_table(tmp_path / "m.txt", ["a ||| b"])
    with pytest.raises(InputFormatError, match=":1:"):
        pivot_table(missing, tmp_path / "p.txt")



# A score as Python's float() reads it but no table tool writes it: the line's defect, named (issue 39).
SPOILED_SCORES = ["0.3_0", "0.3\u00a0", "\u00a00.3", "0x1", "\uff10.3", "0.\u0663", "0.3\u3000"]
# Spellings of 0.3 that Moses writes or reads: the clean table's bytes.
SAME_SCORES = ["+0.3", "3E-1", "0.3\t", "\t0.3", ".3", "0.30"]


@pytest.mark.parametrize("score", SPOILED_SCORES)
def test_a_score_python_would_have_read_is_refused_with_its_line(tmp_path, score):
    from parastudio.core.tablebuild.pivot_loglinear import pivot_features

    table = write_table(tmp_path / "t.txt", [HAND_TABLE[0], HAND_TABLE[2].replace("0.3", score, 1)])
    assert "x" in score or float(score) == 0.3  # what Python itself reads (and float.fromhex the hex)
    with pytest.raises(InputFormatError, match=f"^{table}:2: expected a Moses phrase-table line"):
        pivot_table(table, tmp_path / "p.txt")
    with pytest.raises(InputFormatError, match=f"^{table}:2: "):  # seed 002's reader loads it the same way
        pivot_features(table, [("the house", "the home")])
    assert not (tmp_path / "p.txt").exists()


@pytest.mark.parametrize("score", SAME_SCORES)
def test_a_score_spelt_as_table_tools_write_it_gives_the_same_table(tmp_path, score):
    clean = write_table(tmp_path / "clean.txt", HAND_TABLE)
    spelt = write_table(tmp_path / "spelt.txt", [HAND_TABLE[0], HAND_TABLE[1], HAND_TABLE[2].replace("0.3", score, 1),
                                                 HAND_TABLE[3]])
    pivot_table(clean, tmp_path / "clean.out")
    pivot_table(spelt, tmp_path / "spelt.out")
    assert (tmp_path / "spelt.out").read_bytes() == (tmp_path / "clean.out").read_bytes()


SCORE_CHARACTERS = st.sampled_from(list("0123456789.+-eE_x ") + ["\t", "\u00a0", "\uff11", "\u0661", "nan", "inf"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(SCORE_CHARACTERS, min_size=1, max_size=12).map("".join))
@example("0.3_0")  # what DuckDB's TRY_CAST takes too
@example("0.3\u00a0")  # what DuckDB's \s does not cut at but str.split() did
def test_duckdb_and_the_line_parser_agree_on_every_score_field(tmp_path, field):
    """DuckDB loads the table and the line parser names its bad line (and is Spark's loader): a line only one
    of them refuses would be refused without its line, or accepted by one engine and not the other."""
    from parastudio.core.errors import InputFileError
    from parastudio.core.tablebuild.pivot import parse_phrase_table_line

    line = f"the house ||| la casa ||| 0.5 0.4 {field} 0.3"
    table = write_table(tmp_path / "t.txt", [HAND_TABLE[1], line])
    accepted = parse_phrase_table_line(line) is not None
    try:
        pivot_table(table, tmp_path / "p.txt")
        loaded = True
    except InputFormatError as error:
        assert str(error).startswith(f"{table}:2: "), error
        loaded = False
    except InputFileError as error:  # DuckDB refused what the line parser took: no line to name
        raise AssertionError(f"{field!r}: {error}") from None
    assert loaded == accepted, field


# ---------------------------------------------------------------- property tests

DYADIC = st.integers(min_value=1, max_value=16).map(lambda k: k / 16)  # exact in binary: no tie ambiguity
WORDS = st.sampled_from(["a", "b", "c", "d", "a b", "b c", "c d a", "é", "Z"])
PIVOTS = st.sampled_from(["x", "y", "z", "x y", "w"])


@st.composite
def phrase_tables(draw):
    pairs = draw(st.lists(st.tuples(WORDS, PIVOTS), min_size=1, max_size=25, unique=True))
    return [
        f"{e} ||| {f} ||| {draw(DYADIC)} {draw(DYADIC)} {draw(DYADIC)} {draw(DYADIC)} ||| 0-0 ||| 1 1 1"
        for e, f in pairs
    ]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    table=phrase_tables(),
    min_prob=st.sampled_from([0.0, 1e-5, 1 / 64, 1 / 8]),
    max_pivot=st.integers(min_value=1, max_value=6),
    top=st.integers(min_value=1, max_value=5),
    reverse=st.booleans(),
)
def test_duckdb_agrees_with_reference(tmp_path, table, min_prob, max_pivot, top, reverse):
    path = write_table(tmp_path / "t.txt", table)
    pivot_table(path, tmp_path / "p.txt", min_prob=min_prob, max_pivot=max_pivot, top=top, reverse=reverse)
    expected = reference_pivot(table, min_prob=min_prob, max_pivot=max_pivot, top=top, reverse=reverse)
    assert_same(read_output(tmp_path / "p.txt"), expected)


def test_random_real_valued_table_agrees_to_1e9(tmp_path):
    rng = random.Random(7)
    vocabulary = [" ".join(rng.choice("abcdefgh") for _ in range(rng.randint(1, 3))) for _ in range(120)]
    pivots = [f"p{i}" for i in range(40)]
    pairs = {(rng.choice(vocabulary), rng.choice(pivots)) for _ in range(900)}
    table = [
        f"{e} ||| {f} ||| {rng.random() or 0.5} {rng.random() or 0.5} {rng.random() or 0.5} {rng.random() or 0.5}"
        for e, f in sorted(pairs)
    ]
    path = write_table(tmp_path / "t.txt.gz", table)
    pivot_table(path, tmp_path / "p.txt.gz", max_pivot=30, top=7)
    assert_same(read_output(tmp_path / "p.txt.gz"), reference_pivot(table, max_pivot=30, top=7))


# ---------------------------------------------------------------- portability of the SQL


def test_core_query_calls_only_portable_functions():
    # The ordered sums are the one engine-specific piece, spelt by render_pivot_sql's ordered_sum.
    assert sql_function_names(PIVOT_SQL) <= PORTABLE_SQL_FUNCTIONS
    duckdb_only = ["::", "QUALIFY", "EXCLUDE", "GROUP BY ALL", "ORDER BY ALL", "LIST", "STRUCT", "ARG_MAX",
                   "STRING_SPLIT", "REGEXP", "READ_CSV", "$", "?", "ILIKE", "USING SAMPLE", "COLUMNS("]
    upper = PIVOT_SQL.upper()
    for token in duckdb_only:
        assert token not in upper, token


def test_core_query_runs_unchanged_on_sqlite(tmp_path):
    """A second engine (SQLite) runs the very same SQL text, its sums spelt as plain SUMs, and agrees."""
    table = write_table(tmp_path / "t.txt", HAND_TABLE)
    pivot_table(table, tmp_path / "p.txt", min_prob=0.0)
    connection = sqlite3.connect(":memory:")
    connection.execute(
        "CREATE TABLE phrase_pairs (e TEXT, f TEXT, p_e_given_f REAL, p_f_given_e REAL, lw_e_given_f REAL, lw_f_given_e REAL)"
    )
    for line in HAND_TABLE:
        e, f, scores = line.split(" ||| ")[:3]
        s = [float(v) for v in scores.split()]
        connection.execute(
            "INSERT INTO phrase_pairs VALUES (?, ?, ?, ?, ?, ?)",
            (e, f, s[0], s[2], s[1] ** (1 / len(e.split())), s[3] ** (1 / len(f.split()))),
        )
    query = render_pivot_sql(min_prob=0.0, max_pivot=200, top=20, ordered_sum=lambda term: f"SUM({term})")
    rows = [(e1, e2, prob, *(math.log(value) for value in (prob, back, lw_forth, lw_back)))
            for e1, e2, prob, back, lw_forth, lw_back in connection.execute(query).fetchall()]
    assert_same(rows, read_output(tmp_path / "p.txt"))


def test_render_rejects_bad_parameters():
    with pytest.raises(ValueError):
        render_pivot_sql(min_prob=float("nan"), max_pivot=200, top=20)
    with pytest.raises(ValueError):
        render_pivot_sql(min_prob=1e-5, max_pivot=0, top=20)
    with pytest.raises(ValueError):
        render_pivot_sql(min_prob=1e-5, max_pivot=200, top=2.5)


def test_a_missing_phrase_table_is_refused_naming_the_phrase_table(tmp_path):
    """Said in the table's words before DuckDB starts (not the system's "No such file or directory"); nothing is
    written."""
    with pytest.raises(FileNotFoundError, match=r"^\S*missing\.txt: phrase table not found$"):
        pivot_table(tmp_path / "missing.txt", tmp_path / "out.txt")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("threads", [0, -2, True, 2.0, "2"])
def test_threads_that_are_not_a_positive_whole_number_are_refused(tmp_path, threads):
    table = write_table(tmp_path / "phrases.txt", HAND_TABLE)
    with pytest.raises(ValueError, match="threads must be a positive integer"):
        pivot_table(table, tmp_path / "out.txt", threads=threads)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["phrases.txt"]


def test_duckdb_works_beside_the_output_or_in_the_temp_dir_given(tmp_path):
    """Its spill goes to the output's disk unless told (docs/CLI.md, pivot: "beside the output or in
    --temp-dir"); seen while it runs, through its progress reports; removed at the end."""
    table = write_table(tmp_path / "phrases.txt", HAND_TABLE)
    output = tmp_path / "out" / "pairs.txt"
    output.parent.mkdir()
    for temp_dir in (None, tmp_path / "work"):
        work = temp_dir or output.parent
        seen = []

        def progress(done, total, message="", seen=seen, work=work):
            seen.append((len(list(output.parent.glob(".pivot-*"))), len(list(work.glob(".pivot-*")))))

        pivot_table(table, output, temp_directory=temp_dir, progress=progress)
        assert seen and set(seen) == {(0 if temp_dir else 1, 1)}
        assert not list(output.parent.glob(".pivot-*")) and not list(work.glob(".pivot-*"))
