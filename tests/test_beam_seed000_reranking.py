"""Seed 000 §3 reproduction: tau_A against a worked example and scipy, and the pipeline end to end."""


import pytest
from conftest import EXAMPLE1_RULES, toy_corpus
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import kendalltau

from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Rule
from parastudio.core.experiments import seed000_reranking as experiment


def test_tau_a_worked_examples():
    # Decoder order a, b, c with true scores 3, 1, 2: (a,b) and (a,c) preserved, (b,c) inverted.
    assert experiment.kendall_tau_a([3, 1, 2]) == pytest.approx(1 / 3)
    assert experiment.kendall_tau_a([5, 4, 3, 2]) == 1.0
    assert experiment.kendall_tau_a([1, 2, 3, 4]) == -1.0
    # A tie counts in neither n_p nor n_i, and tau_A keeps n(n-1)/2 as the denominator.
    assert experiment.kendall_tau_a([2, 2, 1]) == pytest.approx(2 / 3)


@given(st.permutations(range(12)))
def test_tau_a_equals_scipy_without_ties(permutation):
    scores = [float(x) for x in permutation]
    decoder_positions = list(range(len(scores)))
    # decoder order: position 0 is the best, so compare with descending positions
    expected = kendalltau([-p for p in decoder_positions], scores).statistic
    assert experiment.kendall_tau_a(scores) == pytest.approx(expected)


def test_rerank_statistics_on_a_hand_made_list():
    rerank = experiment.SentenceRerank(decoder_scores=[-1.0, -2.0, -3.0, -4.0], true_scores=[-1.0, -0.5, -3.0, -4.0])
    assert rerank.changed() == [False, True, False, False]
    assert rerank.reranked() == [1, 0, 2, 3]
    assert rerank.old_best_new_rank() == 2 and rerank.new_best_old_rank() == 2
    assert not rerank.best_still_optimal()
    tied = experiment.SentenceRerank([-1.0, -2.0], [-1.0, -1.0 + 1e-6])
    assert tied.reranked() == [0, 1] and tied.best_still_optimal()


def test_pipeline_writes_markdown_and_png(tiny_lm, tmp_path):
    lm = LanguageModel(tiny_lm["binary"])
    rules = EXAMPLE1_RULES + [("runs", "walks", 0.5), ("dog", "beast", 0.3), ("after", "before", 0.2),
                              ("sees", "finds", 0.4), ("big", "old", 0.3), ("house", "garden", 0.2)]
    table = ParaphraseTable(Rule(tuple(s.split()), tuple(t.split()), p) for s, t, p in rules)
    table.sort()
    sentences = [s.split() for s in toy_corpus(seed=11, sentences=6)] + ["the dog runs after the young cat".split()]
    reports = experiment.run(table, lm, sentences, stack_sizes=(2, 50), nbest=5, processes=1, progress=False)
    assert [r.stack_size for r in reports] == [2, 50]
    for report in reports:
        for sentence in report.sentences:
            assert sentence.decoder_scores == sorted(sentence.decoder_scores, reverse=True)
            # the true score is a max over derivations: never below the decoder's path score
            assert all(t >= d - 1e-4 for d, t in zip(sentence.decoder_scores, sentence.true_scores))
    # Without pruning the lattice holds every derivation: the n-best is the true-score order exactly.
    exhaustive = experiment.run(table, lm, sentences, stack_sizes=(10**6,), nbest=5, processes=1, progress=False,
                                beam_threshold=0.0)[0]
    assert experiment.summary(exhaustive)["changed_share"] == 0.0
    assert experiment.summary(exhaustive)["not_optimal_share"] == 0.0
    assert all(mean == 1.0 for mean, _, _ in exhaustive.tau_by_length(range(2, 6)).values())
    lengths = list(range(2, 6))
    experiment.write_markdown(tmp_path / "r.md", reports, {"table": "toy"}, lengths)
    experiment.write_plot(tmp_path / "r.png", reports, lengths)
    text = (tmp_path / "r.md").read_text()
    assert "| 1-best no longer optimal | 18 % |" in text and "stack 50" in text
    # One unit: the paper's ln gap is converted to log10, and the process count is the one that ran.
    assert "| 2.56 ± 1.95 (ln: 5.9 ± 4.5) |" in text and "(1 process)" in text and "**Units.**" in text
    assert "## Samples" in text
    assert (tmp_path / "r.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_table_filtered_to_the_input_keeps_exactly_the_matching_rules(tmp_path):
    import gzip

    path = tmp_path / "table.gz"
    with gzip.open(path, "wt") as out:
        out.write("the dog ||| the beast ||| 0.8 0.1\nthe cat ||| the kitten ||| 0.7 0.1\n"
                  "dog ||| hound ||| 0.5 0.2\nhouse ||| home ||| 0.4 0.3\n")
    table = ParaphraseTable.load_for(path, [["the", "dog", "runs"]])
    assert sorted((" ".join(r.source), " ".join(r.target)) for r in table) == [("dog", "hound"), ("the dog", "the beast")]
    assert table.source_path == str(path)
