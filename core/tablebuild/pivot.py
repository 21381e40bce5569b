"""Paraphrase table by pivoting a bilingual phrase table (seed 000 §3.1, seed 002 §3.3).

Two phrases of language E linked to the same pivot phrase f of language F are
taken as paraphrases (Bannard and Callison-Burch 2005):

    p(e2|e1) = Σ_f p(e2|f) p(f|e1),   e2 ≠ e1            (seed 002 eq. 1)

The bilingual table is self-joined on the pivot phrase, as seed 000 §3.1
describes ("this process realizes a self-join of the bilingual translation
table"), and pruned with its three heuristics:

    τ (tau)   -> ``max_pivot``: pivot clusters (all E phrases linked to one f)
                 with more than τ phrases are dropped before the join;
    E         -> ``min_prob``: pairs with p(e2|e1) < E are dropped after summing;
    κ (kappa) -> ``top``: only the κ most probable e2 of each e1 are kept
                 (ties broken by e2, in code-point order, so output is stable).

Seed 000 fixes E = 1e-5, τ = 200, κ = 20; those are the defaults.

Which column is which. A Moses table line is ``A ||| B ||| s1 s2 s3 s4`` with
s1 = p(A|B), s2 = lex(A|B), s3 = p(B|A), s4 = lex(B|A): Moses calls the first
field "f", so its column order ``p(f|e) lex(f|e) p(e|f) lex(e|f)`` is
"first field given second" then "second given first". Hence:

* default (E is the first field, pivot F the second):
  p(e|f) = s1, lex(e|f) = s2, p(f|e) = s3, lex(f|e) = s4;
* ``reverse`` (pivot F first, E second):
  p(f|e) = s1, lex(f|e) = s2, p(e|f) = s3, lex(e|f) = s4.

Zhao et al.'s features (seed 002 eq. 3-6). The extracted formulas are garbled;
reconstructed here: eq. 3 is score(e2|e1) = Σ_c exp[Σ_i λ_i h_i(e1,e2,c)] with
h1 = log p(c|e1), h2 = log p(e2|c) (eq. 4: score_MLE = log p_MLE),
h3 = score_LW(c|e1), h4 = score_LW(e2|c), and eq. 5
score_LW(c|e) = (1/n) Σ_i log((1/|{j|(i,j)∈a}|) Σ_{(i,j)∈a} w(c_i|e_j)),
n = |c|: the log of Koehn et al.'s lexical weight lex(c|e) divided by the
length of c (footnote 3: "so as not to penalize long patterns").
Their features are per pivot c; a paraphrase table stores one row per pair, so
(as the issue asks, and as PPDB does for its pivoted features) we marginalise
each over the pivot and keep natural logs, as Zhao does:

    h1 = ln Σ_f p(e2|f) p(f|e1)          MLE, e1 -> e2   (= ln of column 1)
    h2 = ln Σ_f p(e1|f) p(f|e2)          MLE, e2 -> e1
    h3 = ln Σ_f LW(e2|f) LW(f|e1)        lexical weighting, e1 -> e2
    h4 = ln Σ_f LW(e1|f) LW(f|e2)        lexical weighting, e2 -> e1

where LW(x|y) = exp(score_LW(x|y)) = lex(x|y) ** (1/|x|). h2 and h4 are summed
over the same (τ-pruned) pivots as h1, before E and κ pruning.

Same bytes on every core. The query (:mod:`core.tablebuild.pivot_sql`) adds each sum's terms in a fixed
order (ascending, left to right) and returns rows in a total order; the logs and the text are made by the one
writer (:mod:`core.tablebuild.pivot_writer`). So the output is byte-identical for any ``threads`` and whether
or not DuckDB spills; the default is every core (``os.cpu_count()``).

Out of core: the table is loaded into an on-disk DuckDB database with a memory limit and a temp directory
(beside the output, whose disk must hold it anyway, or ``temp_directory``, e.g. the system's temp folder),
so joins, groups and sorts larger than memory spill to disk. What spilled is read from DuckDB's
profile of the query and returned in the stats (``spilled_bytes``, ``peak_temp_dir_bytes``). The join,
group-by and top-κ window are one portable SQL query that Spark SQL will also run; only loading and the
spelling of an ordered sum use DuckDB functions.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

from parastudio.core.errors import InputFileError, InputFormatError
from parastudio.core.number_text import DECIMAL_PATTERN, ascii_words, parse_decimal
from parastudio.core.output_files import FILE, resolve_output
from parastudio.core.progress import Progress, no_progress
from parastudio.core.tablebuild.pivot_sql import PHRASE_PAIRS_TABLE, render_pivot_sql
from parastudio.core.tablebuild.pivot_writer import SEPARATOR, write_pivot_rows
from parastudio.core.textio import missing_input, open_text_maybe_gzip, owner_is_gone, owner_tag, require_regular_file


def _default_memory_limit() -> str:
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return "2GB"
    # A third of RAM: the machine is shared with the GUI and other jobs.
    return f"{max(256, total // 3 // 2**20)}MB"


def _is_gzip(path: Path) -> bool:
    with open(path, "rb") as probe:
        return probe.read(2) == b"\x1f\x8b"


def parse_phrase_table_line(line: str) -> tuple[str, str, list[float]] | None:
    """Split one Moses line into (first, second, scores); None if malformed."""
    fields = line.rstrip("\n").split(SEPARATOR)
    if len(fields) < 3:
        return None
    first, second = fields[0].strip(), fields[1].strip()
    if not first or not second:
        return None
    try:  # as every reader of a table reads a number: '0.3_0' or a no-break space is the line's defect
        scores = [parse_decimal(value) for value in ascii_words(fields[2])]
    except ValueError:
        return None
    if len(scores) < 4 or not all(0.0 < value <= 1.0 + 1e-6 for value in scores[:4]):
        return None
    return first, second, scores


_EXPECTED_LINE = "a Moses phrase-table line 'A ||| B ||| p(A|B) lex(A|B) p(B|A) lex(B|A) ...' with four scores in (0, 1]"


def _first_bad_line(path: Path) -> InputFormatError | None:
    """The first line the checked reader or the line parser refuses (the reading layer names it), if any."""
    with open_text_maybe_gzip(path) as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            if parse_phrase_table_line(line) is None:
                return InputFormatError(str(path), number, _EXPECTED_LINE, line.rstrip("\n"))
    return None


def _refuse_input(path: Path, duckdb_error: Exception | None) -> Exception:
    """Why DuckDB could not load ``path``: a bad line; else DuckDB's own error, which is then not the input's
    (a full disk, no memory) and becomes an OSError in :func:`pivot_table`."""
    bad_line = _first_bad_line(path)
    if bad_line is not None:
        return bad_line
    if duckdb_error is not None:
        return duckdb_error
    return InputFileError(path, _EXPECTED_LINE, "a line DuckDB refused and the line parser did not")


# The scores as parse_phrase_table_line reads them: words cut at ASCII white space, each a number as table
# tools write it (core.number_text), so DuckDB's TRY_CAST, which also takes '0.3_0', decides nothing alone.
_SPACE = "[ \\t\\r\\n\\f\\v]"  # RE2's own escapes: DuckDB's string literal keeps the backslashes
_WORD = "[^ \\t\\r\\n\\f\\v]+"
_SCORE_FIELD = f"(?i){_SPACE}*(?:(?:{DECIMAL_PATTERN})(?:{_SPACE}+(?:{DECIMAL_PATTERN}))*)?{_SPACE}*"


def _load_sql(path: Path, *, reverse: bool) -> str:
    # DuckDB-specific loading (read_csv, string_split, list indexing): the file is
    # read as one column per line ('\x1f' never occurs in tokenized text) and
    # split on ' ||| '. Orientation maps Moses columns to p(e|f) etc. (see module doc).
    e_field, f_field = (2, 1) if reverse else (1, 2)
    p_e_given_f, lex_e_given_f, p_f_given_e, lex_f_given_e = (3, 4, 1, 2) if reverse else (1, 2, 3, 4)
    compression = "gzip" if _is_gzip(path) else "none"
    quoted = str(path).replace("'", "''")
    return f"""
CREATE TABLE raw_lines AS
SELECT string_split(line, ' ||| ') AS fields
FROM read_csv('{quoted}', columns = {{'line': 'VARCHAR'}}, header = false, delim = '\x1f',
              quote = '', escape = '', auto_detect = false, compression = '{compression}',
              strict_mode = false, null_padding = false)
WHERE line IS NOT NULL AND trim(line) <> '';

CREATE TABLE split_lines AS
SELECT trim(fields[{e_field}]) AS e,
       trim(fields[{f_field}]) AS f,
       len(fields) AS n_fields,
       regexp_full_match(fields[3], '{_SCORE_FIELD}') AS scores_are_numbers,
       regexp_extract_all(fields[3], '{_WORD}') AS scores
FROM raw_lines;

CREATE TABLE typed_lines AS
SELECT e, f, n_fields, len(scores) AS n_scores, scores_are_numbers,
       TRY_CAST(scores[{p_e_given_f}] AS DOUBLE) AS p_e_given_f,
       TRY_CAST(scores[{lex_e_given_f}] AS DOUBLE) AS lex_e_given_f,
       TRY_CAST(scores[{p_f_given_e}] AS DOUBLE) AS p_f_given_e,
       TRY_CAST(scores[{lex_f_given_e}] AS DOUBLE) AS lex_f_given_e
FROM split_lines;
DROP TABLE raw_lines;
DROP TABLE split_lines;
"""


# A NUL byte, and a byte-order mark past the file's start (DuckDB drops only the first), are refused as our
# text readers refuse them (DuckDB would keep them in a phrase).
_BAD_ROWS_SQL = """
SELECT COUNT(*) FROM typed_lines
WHERE n_fields < 3 OR n_scores < 4 OR NOT scores_are_numbers OR e IS NULL OR f IS NULL OR e = '' OR f = ''
   OR strpos(e, chr(0)) > 0 OR strpos(f, chr(0)) > 0 OR strpos(e, chr(65279)) > 0 OR strpos(f, chr(65279)) > 0
   OR NOT (p_e_given_f > 0 AND p_e_given_f <= 1.000001)
   OR NOT (lex_e_given_f > 0 AND lex_e_given_f <= 1.000001)
   OR NOT (p_f_given_e > 0 AND p_f_given_e <= 1.000001)
   OR NOT (lex_f_given_e > 0 AND lex_f_given_e <= 1.000001)
   OR p_e_given_f IS NULL OR lex_e_given_f IS NULL OR p_f_given_e IS NULL OR lex_f_given_e IS NULL
"""

_PHRASE_PAIRS_SQL = f"""
CREATE TABLE {PHRASE_PAIRS_TABLE} AS
SELECT e, f, p_e_given_f, p_f_given_e,
       power(lex_e_given_f, 1.0 / len(regexp_split_to_array(e, '\\s+'))) AS lw_e_given_f,
       power(lex_f_given_e, 1.0 / len(regexp_split_to_array(f, '\\s+'))) AS lw_f_given_e
FROM typed_lines;
DROP TABLE typed_lines;
"""


def _remove_stale_work(parent: Path) -> None:
    """DuckDB work folders of pivots killed before they could remove them (their process is gone)."""
    for entry in parent.glob(".pivot-*"):
        if entry.is_dir() and owner_is_gone(entry.name[len(".pivot-"):].rpartition(".")[0]):
            shutil.rmtree(entry, ignore_errors=True)


_MEMORY_LIMIT = re.compile(r"\s*\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KIB|MIB|GIB|TIB)\s*", re.IGNORECASE)


def check_memory_limit(memory_limit: str) -> str:
    """``memory_limit`` if DuckDB reads it as a size ('512MB', '1GB', '1.5GiB'), else ValueError."""
    if not isinstance(memory_limit, str) or not _MEMORY_LIMIT.fullmatch(memory_limit):
        raise ValueError(f"memory limit must be a size such as '512MB' or '4GB'; got {memory_limit!r}")
    return memory_limit.strip()


def _spill_figures(profile: Path) -> dict:
    """What the query spilled, from DuckDB's JSON profile ({} from a DuckDB that does not report it)."""
    try:
        system = json.loads(profile.read_text(encoding="utf-8")).get("system", {})
    except (OSError, ValueError, AttributeError):
        return {}
    names = {"spilled_bytes": "total_bytes_spilled", "peak_temp_dir_bytes": "peak_temp_dir_size",
             "peak_buffer_memory_bytes": "peak_buffer_memory"}
    return {ours: int(system[theirs]) for ours, theirs in names.items() if isinstance(system.get(theirs), (int, float))}


def pivot_table(
    phrase_table: Path,
    output: Path,
    *,
    min_prob: float = 1e-5,
    max_pivot: int = 200,
    top: int = 20,
    reverse: bool = False,
    features: bool = True,
    memory_limit: str | None = None,
    temp_directory: Path | None = None,
    threads: int | None = None,
    progress: Progress = no_progress,
    compresslevel: int = 6,
    exclude: set[tuple[str, str]] | None = None,
    inputs=(),
) -> dict:
    """Build a paraphrase table from a Moses phrase table; return stats and timings.

    Output lines are ``e1 ||| e2 ||| p(e2|e1) h1 h2 h3 h4`` (without the h
    columns when ``features`` is False), sorted by e1 then by descending
    probability then e2, written atomically (gzip when ``output`` ends in .gz).
    The bytes are the same for any ``threads`` (default: every core) and ``memory_limit``
    (default: a third of RAM; smaller spills more). ``compresslevel`` is
    the gzip level of a .gz output (6: about three times faster than 9, ~2% larger).
    ``exclude``: (e1, e2) pairs left out of the output (a prune list from rule blame). ``output`` may not be
    the phrase table or one of ``inputs`` (refused before any work).
    """
    import duckdb

    inputs = [phrase_table, *inputs]
    target = resolve_output(output, inputs)
    phrase_table, output = Path(phrase_table), Path(output)
    if not phrase_table.exists():
        raise missing_input(phrase_table, "phrase table")
    require_regular_file(phrase_table)  # DuckDB sniffs it, then reads it
    query = render_pivot_sql(min_prob=min_prob, max_pivot=max_pivot, top=top)
    threads = (os.cpu_count() or 1) if threads is None else threads
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads must be a positive integer; got {threads!r}")
    memory_limit = check_memory_limit(memory_limit) if memory_limit is not None else _default_memory_limit()
    timings: dict[str, float] = {}
    stats: dict = {
        "phrase_table": str(phrase_table),
        "output": str(output),
        "min_prob": float(min_prob),
        "max_pivot": int(max_pivot),
        "top": int(top),
        "reverse": bool(reverse),
        "features": bool(features),
        "threads": threads,
        "memory_limit": memory_limit,
    }
    # DuckDB's work beside the output (the same disk), or in the temporary folder for a device or a FIFO.
    work_parent = temp_directory or (target.path.parent if target.kind == FILE else Path(tempfile.gettempdir()))
    Path(work_parent).mkdir(parents=True, exist_ok=True)
    _remove_stale_work(Path(work_parent))
    work = Path(tempfile.mkdtemp(prefix=f".pivot-{owner_tag()}.", dir=work_parent))
    try:
        connection = duckdb.connect(str(work / "pivot.duckdb"))
        try:
            connection.execute(f"SET memory_limit = '{memory_limit}'")
            connection.execute(f"SET temp_directory = '{_quoted(work / 'spill')}'")
            connection.execute("SET preserve_insertion_order = false")
            connection.execute("SET enable_progress_bar = false")
            # Any number of threads gives the same bytes: the sums are ordered (pivot_sql.py).
            connection.execute(f"SET threads = {threads}")

            started = time.perf_counter()
            progress(0, None, "load")
            try:
                connection.execute(_load_sql(phrase_table, reverse=reverse))
            except duckdb.Error as error:
                raise _refuse_input(phrase_table, error) from None
            if connection.execute(_BAD_ROWS_SQL).fetchone()[0]:
                raise _refuse_input(phrase_table, None)
            connection.execute(_PHRASE_PAIRS_SQL)
            (
                stats["phrase_pairs_in"],
                stats["phrases_e"],
                stats["pivot_phrases"],
            ) = connection.execute(
                f"SELECT COUNT(*), COUNT(DISTINCT e), COUNT(DISTINCT f) FROM {PHRASE_PAIRS_TABLE}"
            ).fetchone()
            stats["pivot_clusters_dropped"] = connection.execute(
                f"SELECT COUNT(*) FROM (SELECT f FROM {PHRASE_PAIRS_TABLE} GROUP BY f HAVING COUNT(*) > {int(max_pivot)}) t"
            ).fetchone()[0]
            timings["load_seconds"] = time.perf_counter() - started
            progress(stats["phrase_pairs_in"], stats["phrase_pairs_in"], "load")

            # Join, rank and sort happen inside the query; rows stream out sorted to the one writer.
            started = time.perf_counter()
            progress(0, None, "pivot")
            profile = work / "pivot-profile.json"
            connection.execute("SET enable_profiling = 'json'")
            connection.execute(f"SET profiling_output = '{_quoted(profile)}'")
            cursor = connection.execute(query)
            stats.update(write_pivot_rows(iter(lambda: cursor.fetchmany(50_000), []), output, features=features,
                                          exclude=exclude, compresslevel=compresslevel, progress=progress,
                                          inputs=inputs))
            connection.execute("PRAGMA disable_profiling")  # ends the query, so its profile is written
            stats.update(_spill_figures(profile))
            timings["pivot_and_write_seconds"] = time.perf_counter() - started
        finally:
            connection.close()
    except duckdb.Error as error:  # not the input's fault (that is an InputFormatError): a full disk, most often
        raise OSError(errno.EIO, f"DuckDB could not pivot in its work space under {work_parent}: {error}") from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    stats["timings"] = timings
    stats["seconds"] = sum(timings.values())
    return stats


def _quoted(path: Path) -> str:
    return str(path).replace("'", "''")
