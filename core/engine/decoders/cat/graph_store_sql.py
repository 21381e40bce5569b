"""The graph store's indexes and the queries that depend on them (:mod:`core.engine.decoders.cat.graph_store`)."""

from __future__ import annotations

from parastudio.core.engine.decoders.cat.graph_checks import HYPOTHESIS_ID_INDEX

# Built after loading: an index grown row by row is several times slower to build.
OUTPUT_INDEX = "hypothesis_output"
INDEXES = (HYPOTHESIS_ID_INDEX,
            "CREATE INDEX hypothesis_coverage ON hypothesis (sentence, covered_start, covered_end, score DESC)",
            # A span's outputs walked in the index, the best of each read in one step (_distinct_by_coverage). A
            # store made before it answers the same through a window over all the span's rows, about ten times
            # slower at stack 200 with 100 options; it adds about a third to a store's size.
            f"CREATE INDEX {OUTPUT_INDEX} ON hypothesis (sentence, covered_start, covered_end, out, score DESC, hyp)")

COLUMNS = "hyp, stack, back, score, transition, recombined, forward, fscore, covered_start, covered_end, out"

# The span's distinct outputs walked in the output index one seek at a time (SQLite has no skip scan for this),
# then the first entry of each (best score, then lowest id): about a hundred seeks instead of reading and
# ranking the span's thousand rows.
BEST_OF_EACH_OUTPUT = f"""
WITH RECURSIVE outputs(output) AS (
    SELECT (SELECT MIN(out) FROM hypothesis WHERE sentence = ?1 AND covered_start = ?2 AND covered_end = ?3)
    UNION ALL
    SELECT (SELECT MIN(out) FROM hypothesis WHERE sentence = ?1 AND covered_start = ?2 AND covered_end = ?3
            AND out > output)
    FROM outputs WHERE output IS NOT NULL)
SELECT {COLUMNS} FROM hypothesis WHERE rowid IN (
    SELECT (SELECT rowid FROM hypothesis INDEXED BY {OUTPUT_INDEX}
            WHERE sentence = ?1 AND covered_start = ?2 AND covered_end = ?3 AND out = output
            ORDER BY score DESC, hyp LIMIT 1)
    FROM outputs WHERE output IS NOT NULL)
ORDER BY score DESC, hyp"""
BEST_OF_EACH_OUTPUT_BY_WINDOW = (
    f"SELECT {COLUMNS} FROM (SELECT {COLUMNS}, ROW_NUMBER() OVER (PARTITION BY out ORDER BY score DESC, hyp) "
    "AS place FROM hypothesis WHERE sentence = ?1 AND covered_start = ?2 AND covered_end = ?3) WHERE place = 1 "
    "ORDER BY score DESC, hyp")
