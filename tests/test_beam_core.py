"""The compiled search core gives what the Python reference search gives: lattice, n-best lists, search graphs.

Issue 17: "a test decodes the same sentences with both and compares n-best
lists exactly". Exactly means equal floats, equal hypothesis numbers and
equal tie order, on hand-made tables full of ties (hypothesis), with and
without an LM, under tight pruning, and on real demo verses.
"""

from pathlib import Path

import pytest
from conftest import WORDS
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from parastudio.core.engine.decoders import compiled_search
from parastudio.core.engine.decoders.beam_decoder import BeamDecoder, DecoderSettings
from parastudio.core.engine.decoders.search_graph import search_graph_lines
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.model.scoring import ScoreWeights
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Rule
from parastudio.core.textio import read_token_lines

DEMO = Path(__file__).resolve().parents[1] / "evaldata" / "demo"



def test_the_compiled_core_is_built():
    """`pip install` builds it (setup.py); every test below needs it."""
    assert compiled_search.available()


@pytest.fixture(scope="module")
def lm(tiny_lm):
    return LanguageModel(tiny_lm["binary"])


def nbest_view(entries):
    return [(e.tokens, e.score, tuple((s.src_start, s.src_end, s.tgt_start, s.tgt_end, s.identity, s.rule)
                                      for s in e.segments), tuple(h.id for h in e.path)) for e in entries]


def assert_same_decoding(source, table, lm, decoder_settings, n=30):
    python = BeamDecoder(table, lm, decoder_settings, core="python").decode(source)
    compiled = BeamDecoder(table, lm, decoder_settings, core="compiled").decode(source)
    assert compiled.hypotheses_created == python.hypotheses_created
    assert compiled.future_costs == python.future_costs
    assert list(compiled.options.all()) == list(python.options.all())
    assert [[(h.id, h.score, h.transition, h.future_score) for h in stack] for stack in compiled.stacks] == \
        [[(h.id, h.score, h.transition, h.future_score) for h in stack] for stack in python.stacks]
    assert nbest_view(compiled.nbest(n)) == nbest_view(python.nbest(n))
    assert nbest_view(compiled.nbest(n, distinct=False)) == nbest_view(python.nbest(n, distinct=False))
    python_paths, compiled_paths = python.paths(), compiled.paths()
    for k in range(n):
        found_python, found_compiled = python_paths.path(k), compiled_paths.path(k)
        assert (found_python is None) == (found_compiled is None)
        if found_python is None:
            break
        assert found_compiled[0] == found_python[0]
        assert [h.id for h in found_compiled[1]] == [h.id for h in found_python[1]]
    assert compiled_paths.entries == python_paths.entries  # the same lazy k-best, step for step
    assert list(search_graph_lines(0, compiled)) == list(search_graph_lines(0, python))
    best_python, best_compiled = python.best(), compiled.best()
    assert (best_python is None) == (best_compiled is None)
    if best_python is not None:
        assert (best_compiled.id, best_compiled.score) == (best_python.id, best_python.score)


@st.composite
def tied_tables(draw):
    """A sentence and a table full of ties: duplicated rules, pass-through rules, equal probabilities."""
    source = tuple(draw(st.lists(st.sampled_from(WORDS[:6]), min_size=1, max_size=7)))
    table = ParaphraseTable()
    for _ in range(draw(st.integers(0, 14))):
        start = draw(st.integers(0, len(source) - 1))
        end = draw(st.integers(start + 1, min(len(source), start + 3)))
        span = source[start:end]
        target = draw(st.one_of(st.just(span), st.lists(st.sampled_from(WORDS[:8]), min_size=0, max_size=3)
                                .map(tuple)))
        prob = draw(st.sampled_from([1.0, 0.5, 0.5, 0.25, 0.01]))
        for _ in range(draw(st.integers(1, 2))):
            table.add(Rule(span, target, prob))
    table.sort()
    return source, table


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=tied_tables(), stack=st.sampled_from([1, 2, 3, 200]), threshold=st.sampled_from([0.0, 1e-5, 0.1]),
       limit=st.sampled_from([None, 1, 2, 20]), with_lm=st.booleans(), word_penalty=st.sampled_from([0.0, 0.5]))
def test_compiled_equals_python_on_tied_tables(lm, case, stack, threshold, limit, with_lm, word_penalty):
    source, table = case
    decoder_settings = DecoderSettings(stack_size=stack, beam_threshold=threshold, option_limit=limit,
                                       weights=ScoreWeights(word_penalty=word_penalty))
    assert_same_decoding(source, table, lm if with_lm else None, decoder_settings)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=tied_tables(), lm_weight=st.sampled_from([0.5, 2.0, -1.0]))
def test_compiled_equals_python_with_other_lm_weights(lm, case, lm_weight):
    """A negative LM weight switches off the LM bound that skips hopeless options: the two must still agree."""
    source, table = case
    assume(len(table) > 0)
    assert_same_decoding(source, table, lm, DecoderSettings(weights=ScoreWeights(lm=lm_weight)))


@pytest.fixture(scope="module")
def demo_case():
    sentences = read_token_lines(DEMO / "test.en", 6)
    table = ParaphraseTable.load_for(DEMO / "paraphrase-table.gz", sentences)
    return sentences, table, LanguageModel(DEMO / "lm.bin")


@pytest.mark.parametrize("stack", [5, 200])
def test_compiled_equals_python_on_demo_verses(demo_case, stack):
    sentences, table, demo_lm = demo_case
    for source in sentences[:3 if stack == 200 else 6]:
        assert_same_decoding(tuple(source), table, demo_lm, DecoderSettings(stack_size=stack), n=100)


def test_auto_uses_the_compiled_core_unless_told_not_to(lm, monkeypatch):
    table = ParaphraseTable([Rule(("a",), ("b",), 0.5)])
    assert BeamDecoder(table, lm).core == "compiled"
    monkeypatch.setenv("PARASTUDIO_BEAM_CORE", "python")
    assert BeamDecoder(table, lm).core == "python"
    with pytest.raises(ValueError, match="core must be"):
        BeamDecoder(table, lm, core="fast")


@pytest.mark.parametrize("mapped", [False, True], ids=["in memory", "binary table"])
def test_a_prepared_decoder_decodes_as_the_reference(demo_case, mapped, tmp_path):
    """prepare() scores every phrase up front and stops looking spans up in the table: nothing else changes.
    From a binary table it ranks and registers every phrase in C++ (ranked_many), without a Rule per row."""
    sentences, table, demo_lm = demo_case
    settings = DecoderSettings(stack_size=5)
    decoded_table = table
    if mapped:
        path = tmp_path / "table.txt"
        path.write_text("".join(f"{' '.join(r.source)} ||| {' '.join(r.target)} ||| {r.prob!r}\n" for r in table),
                        encoding="utf-8")
        ParaphraseTable.binarize(path)
        decoded_table = ParaphraseTable.load(path)
    prepared = BeamDecoder(decoded_table, demo_lm, settings, core="compiled")
    assert prepared.compiled.ranks_in_core is mapped
    prepared.prepare()
    reference = BeamDecoder(table, demo_lm, settings, core="python")
    for source in [*map(tuple, sentences), ("unseen", "words", *sentences[0][:5])]:
        assert nbest_view(prepared.decode(source).nbest(20)) == nbest_view(reference.decode(source).nbest(20))


def test_an_extension_built_from_older_sources_is_not_used(lm, monkeypatch):
    """After a pull that changed beam_core.cpp and before `pip install` rebuilt it, the Python search runs."""
    table = ParaphraseTable([Rule(("a",), ("b",), 0.5)])
    monkeypatch.setattr(compiled_search._beam_core, "INTERFACE", compiled_search.INTERFACE - 1)
    assert not compiled_search.available()
    assert BeamDecoder(table, lm).core == "python"
    with pytest.raises(RuntimeError, match="older sources"):
        BeamDecoder(table, lm, core="compiled")
