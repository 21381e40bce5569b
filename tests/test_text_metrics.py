"""BLEU, chrF and TER against sacrebleu called directly; iBLEU and the edit rate by hand (issue 43)."""

from __future__ import annotations

import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st

from parastudio.core.stats.text_metrics import MetricInput, TextMetrics, reference_streams, word_edit_rate

CASES = [
    MetricInput("the cat sat on a mat", "the cat sat on the mat", ("a cat sat on the mat", "the cat is on the mat")),
    MetricInput("dogs run fast", "the dogs run quickly", ("dogs are running fast",)),
    MetricInput("he said , \" lord , please don 't go . \"", "and said , \" my lord , please don 't go away . \"",
                ("and said , my lord , pass not away , i pray thee",)),
]
WORDS = st.lists(st.sampled_from("a b c d the cat dog sat on mat .".split()), min_size=1, max_size=12).map(" ".join)


@pytest.mark.parametrize("case", CASES)
def test_sentence_scores_are_sacrebleus(case):
    scores = TextMetrics().score(case)
    refs = list(case.references)
    assert scores["bleu"] == sacrebleu.sentence_bleu(case.text, refs).score
    assert scores["chrf"] == sacrebleu.sentence_chrf(case.text, refs).score
    assert scores["ter"] == sacrebleu.sentence_ter(case.text, refs).score
    assert scores["source_bleu"] == sacrebleu.sentence_bleu(case.text, [case.source]).score


def test_the_bleu_tokenizer_is_passed_to_sacrebleu():
    case = MetricInput("Hello,world", "hello , world", ("Hello, world",))
    assert TextMetrics(tokenize="none").score(case)["bleu"] == \
        sacrebleu.sentence_bleu(case.text, list(case.references), tokenize="none").score
    assert TextMetrics(tokenize="none").score(case)["bleu"] != TextMetrics().score(case)["bleu"]


@settings(max_examples=40, deadline=None)
@given(WORDS, WORDS, WORDS, st.floats(0, 1))
def test_ibleu_is_alpha_bleu_minus_the_rest_of_source_bleu(text, source, reference, alpha):
    scores = TextMetrics(alpha=alpha).score(MetricInput(text, source, (reference,)))
    bleu = sacrebleu.sentence_bleu(text, [reference]).score
    source_bleu = sacrebleu.sentence_bleu(text, [source]).score
    assert scores["ibleu"] == pytest.approx(alpha * bleu - (1 - alpha) * source_bleu, abs=1e-9)


def test_ibleu_by_hand():
    # The reference copied word for word, nothing of the source kept: BLEU 100, BLEU to the source 0.
    copied = TextMetrics(alpha=0.8).score(MetricInput("w x y z", "a b c d", ("w x y z",)))
    assert (copied["bleu"], copied["source_bleu"]) == (pytest.approx(100), pytest.approx(0))
    assert copied["ibleu"] == pytest.approx(80.0)
    # The source copied: iBLEU pays (1 - α) of its BLEU back.
    kept = TextMetrics(alpha=0.8).score(MetricInput("a b c d", "a b c d", ("w x y z",)))
    assert kept["ibleu"] == pytest.approx(0.8 * 0 - 0.2 * 100)


def test_edit_rate_by_hand():
    assert word_edit_rate("a b c", "a x c d") == pytest.approx(2 / 3)  # one substitution, one insertion
    assert word_edit_rate("a b c", "a b c") == 0.0
    assert word_edit_rate("", "a b") == 2.0  # over at least one word


def test_reference_metrics_are_none_without_references():
    scores = TextMetrics().score(MetricInput("a b", "a c"))
    assert [scores[name] for name in ("bleu", "chrf", "ter", "ibleu")] == [None] * 4
    assert scores["source_bleu"] == sacrebleu.sentence_bleu("a b", ["a c"]).score


def test_corpus_scores_are_sacrebleus_with_a_variable_number_of_references():
    metrics = TextMetrics(alpha=0.7)
    corpus = metrics.corpus(CASES)
    hypotheses = [c.text for c in CASES]
    streams = reference_streams([c.references for c in CASES])
    assert streams[1] == ["the cat is on the mat", None, None]  # sacrebleu leaves those out
    bleu = sacrebleu.corpus_bleu(hypotheses, streams).score
    assert corpus["bleu"] == pytest.approx(bleu, abs=1e-12)
    assert corpus["chrf"] == pytest.approx(sacrebleu.corpus_chrf(hypotheses, streams).score, abs=1e-12)
    assert corpus["ter"] == pytest.approx(sacrebleu.corpus_ter(hypotheses, streams).score, abs=1e-12)
    source_bleu = sacrebleu.corpus_bleu(hypotheses, [[c.source for c in CASES]]).score
    assert corpus["ibleu"] == pytest.approx(0.7 * bleu - 0.3 * source_bleu, abs=1e-12)
    assert corpus["edit_rate"] == pytest.approx(sum(word_edit_rate(c.source, c.text) for c in CASES) / 3)


def test_signatures_come_from_sacrebleus_objects():
    metrics = TextMetrics(tokenize="intl")
    sentence = sacrebleu.BLEU(effective_order=True, tokenize="intl")
    sentence.sentence_score("a b", ["a b"])
    assert metrics.signatures([1, 1])["bleu"] == sentence.get_signature().format()
    corpus = sacrebleu.BLEU(tokenize="intl")
    corpus.corpus_score([c.text for c in CASES], reference_streams([c.references for c in CASES]))
    assert metrics.signatures([2, 1, 1])["corpus_bleu"] == corpus.get_signature().format()
    assert "nrefs:var" in corpus.get_signature().format()
    chrf = sacrebleu.CHRF()
    chrf.sentence_score("a b", ["a b"])
    assert metrics.signatures([1])["chrf"] == chrf.get_signature().format()
    assert metrics.signatures([2, 1])["ter"].startswith("nrefs:var|")
    assert metrics.signatures([1])["ibleu"].startswith("alpha:0.9|bleu:nrefs:1|")
    assert "bleu" not in metrics.signatures([0, 0])  # no references: nothing to sign


def test_alpha_and_tokenizer_are_checked():
    with pytest.raises(ValueError):
        TextMetrics(alpha=1.5)
    with pytest.raises(ValueError):
        TextMetrics(tokenize="spaces")
