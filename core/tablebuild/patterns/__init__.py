"""A pattern paraphrase table from a parsed, word-aligned bilingual corpus (seed 002 §3.2-3.4).

* :mod:`.pivot_patterns`: Algorithm 2, the aligned pivot pattern of an English pattern, and slot numbering;
* :mod:`.aligned_counts`: counts of aligned (English, pivot) patterns and their internal word alignments;
* :mod:`.features`: h1..h4 per pivot (Equations 4-6);
* :mod:`.scoring`: Equation 3 and Equation 1 as pure functions of the per-pivot features;
* :mod:`.pairing`: English patterns sharing a pivot paired, with their per-pivot features;
* :mod:`.table_file`: the pattern table format (docs/pattern-table.md), written and read;
* :mod:`.rescoring`: a table scored again under new weights and threshold.

The English patterns themselves (Algorithm 1) come from :mod:`core.engine.tables.patterns.induction`, which the
generation-time matcher shares; the build stage (:mod:`core.evaldata.pattern_stages`) joins the two. Here an
English pattern is only its elements: ``(position, None)`` for a word, ``(position, tag)`` for a slot.
"""
