"""Lazy k-best paths of the beam decoder's lattice (core.engine.decoders.kbest) against brute force, with tied tables."""

import math

import pytest
from conftest import WORDS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parastudio.core.engine.decoders.beam_decoder import BeamDecoder, DecoderSettings
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Rule

UNPRUNED = DecoderSettings(stack_size=10**9, beam_threshold=0.0, option_limit=None, nbest_factor=10**6)


@pytest.fixture(scope="module")
def lm(tiny_lm):
    return LanguageModel(tiny_lm["binary"])


@st.composite
def tied_tables(draw):
    """A sentence and a table full of ties: duplicated rules, pass-through rules, equal probabilities."""
    source = tuple(draw(st.lists(st.sampled_from(WORDS[:5]), min_size=1, max_size=5)))
    table = ParaphraseTable()
    for _ in range(draw(st.integers(0, 10))):
        start = draw(st.integers(0, len(source) - 1))
        end = draw(st.integers(start + 1, min(len(source), start + 3)))
        span = source[start:end]
        target = draw(st.one_of(st.just(span), st.lists(st.sampled_from(WORDS[:5]), min_size=1, max_size=2)
                                .map(tuple)))
        prob = draw(st.sampled_from([1.0, 0.5, 0.5, 0.25]))
        for _ in range(draw(st.integers(1, 3))):  # the same rule, listed again
            table.add(Rule(span, target, prob))
    table.sort()
    return source, table


def lattice_paths(result):
    """Every path of the lattice, root to final stack, as (score, edges): the brute-force oracle."""
    paths = []

    def walk(node, suffix):
        if node is result.root:
            paths.append((sum(edge.transition for edge in suffix), tuple(suffix)))
            return
        for edge in (node, *node.arcs):
            walk(edge.back, [edge, *suffix])

    for final in result.final_stack:
        walk(final, [])
    return paths


def is_lattice_path(result, edges):
    """Edges chain from the root to a final winner through winners (an edge's node is its winner, or itself)."""
    node = result.root
    for edge in edges:
        if edge.back is not node:
            return False
        node = edge.winner or edge
    return any(node is final for final in result.final_stack)


def bound(paths_tried, source):
    """Entries a lazy k-best may store: a few per node along each path tried (module docstring of kbest)."""
    return 5 * paths_tried * (len(source) + 2)


# "python": the reference k-best of core.engine.decoders.kbest; "compiled": the C++ core's, which "auto" picks when built.
CORES = ["python", "compiled"]


@pytest.mark.parametrize("core", CORES)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=tied_tables(), k=st.integers(1, 40), pruned=st.booleans(), with_lm=st.booleans())
def test_k_best_paths_are_the_top_of_a_brute_force_enumeration(lm, core, case, k, pruned, with_lm):
    source, table = case
    decoder_settings = DecoderSettings(stack_size=2, beam_threshold=1e-2) if pruned else UNPRUNED
    result = BeamDecoder(table, lm if with_lm else None, decoder_settings, core=core).decode(source)
    everything = lattice_paths(result)
    extractor = result.paths()
    found = []
    for i in range(k):
        path = extractor.path(i)
        if path is None:
            break
        found.append(path)
    assert len(found) == min(k, len(everything))
    assert extractor.entries <= bound(k, source)
    scores = [score for score, _ in found]
    assert scores == sorted(scores, reverse=True)
    expected = sorted((score for score, _ in everything), reverse=True)[: len(found)]
    assert scores == pytest.approx(expected, abs=1e-9)
    assert len({tuple(map(id, edges)) for _, edges in found}) == len(found)  # no path twice
    for score, edges in found:
        assert is_lattice_path(result, edges)
        assert score == pytest.approx(sum(edge.transition for edge in edges), abs=1e-9)
    if len(found) == len(everything):
        assert {tuple(map(id, e)) for _, e in found} == {tuple(map(id, e)) for _, e in everything}


@pytest.mark.parametrize("core", CORES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=tied_tables(), n=st.integers(1, 15))
def test_distinct_nbest_is_the_best_path_of_each_of_the_best_strings(lm, core, case, n):
    source, table = case
    result = BeamDecoder(table, lm, UNPRUNED, core=core).decode(source)
    best_of: dict[tuple[str, ...], float] = {}
    for score, edges in lattice_paths(result):
        tokens = tuple(w for edge in edges for w in edge.option.target)
        best_of[tokens] = max(score, best_of.get(tokens, -math.inf))
    entries = result.nbest(n)
    assert len(entries) == min(n, len(best_of))
    assert len({e.tokens for e in entries}) == len(entries)
    assert [e.score for e in entries] == pytest.approx(sorted(best_of.values(), reverse=True)[: len(entries)],
                                                       abs=1e-9)
    for entry in entries:
        assert entry.score == pytest.approx(best_of[entry.tokens], abs=1e-9)


def test_a_table_with_its_own_identity_rules_decodes_in_bounded_memory():
    """Issue 17, defect 1: pass-through rules for every word and word pair tie ~1.3 million paths.

    Without an LM every path scores 0 and every hypothesis of a stack
    recombines, so the lattice holds Fibonacci(31) tied paths of one string; a
    best-first search over partial paths pushed millions of them. The lazy
    k-best tries ``n * nbest_factor`` paths, each costing a few entries per word.
    """
    source = tuple((WORDS * 2)[:30])
    table = ParaphraseTable()
    for i in range(len(source)):
        table.add(Rule(source[i:i + 1], source[i:i + 1], 1.0))
        table.add(Rule(source[i:i + 1], source[i:i + 1], 1.0))  # listed twice
        table.add(Rule(source[i:i + 2], source[i:i + 2], 1.0))
    table.sort()
    result = BeamDecoder(table, None).decode(source)
    # Paths by dynamic programming over the lattice: as many as tilings of 30 words by 1- and 2-word pieces.
    count = {id(result.root): 1}
    for stack in result.stacks[1:]:
        for winner in stack:
            count[id(winner)] = sum(count[id(edge.back)] for edge in (winner, *winner.arcs))
    assert sum(count[id(h)] for h in result.final_stack) == 1_346_269  # Fibonacci(31)
    extractor = result.paths()
    entries = result.nbest(100, paths=extractor)
    assert [e.tokens for e in entries] == [source] and entries[0].score == 0.0
    tried = 100 * result.settings.nbest_factor
    assert extractor.entries <= bound(tried, source)
    one = result.paths()
    assert result.nbest(1, paths=one)[0].tokens == source
    assert one.entries <= bound(1, source)
