"""Paraphrase patterns with POS slots (seed 002, Zhao et al. 2008): what a pattern is and how one matches a sentence.

* :mod:`.dependency_parse`: a sentence's dependency tree over the project's tokens;
* :mod:`.verb_groups`: spaCy's verb groups re-headed as the paper's parser heads them;
* :mod:`.slots`: the slot tokens (``[NN_1]``) and the paper's N/V/J tag sets;
* :mod:`.induction`: Algorithm 1 (seed 002 §3.2), the English patterns of a parsed sentence;
* :mod:`.spacy_parser`: parsing our tokens with spaCy (imported lazily);
* :mod:`.pattern_table`: a pattern paraphrase table, matched on a parsed sentence (seed 004's PT-4).

Building a table (Algorithm 2, counting, the log-linear features) is :mod:`core.tablebuild.patterns`.
"""
