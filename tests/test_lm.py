"""The KenLM wrapper and lmplz training, checked against an independent ARPA back-off scorer."""

import subprocess
import sys

import pytest
from conftest import toy_corpus

from parastudio.core.engine.lm.language_model import LanguageModel


def read_arpa(path):
    """n-gram -> (log10 p, log10 backoff) from an ARPA file."""
    grams, order = {}, 0
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            line = line.strip()
            if line.startswith("\\") and line.endswith("-grams:"):
                order = int(line[1:].split("-")[0])
                continue
            if not line or line.startswith("\\") or line.startswith("ngram ") or order == 0:
                continue
            fields = line.split("\t")
            words = tuple(fields[1].split())
            grams[words] = (float(fields[0]), float(fields[2]) if len(fields) > 2 else 0.0)
    return grams


def arpa_sentence_log10(grams, order, sentence):
    """Katz-style back-off exactly as the ARPA format defines it."""
    words = ["<s>"] + sentence.split() + ["</s>"]
    total = 0.0
    for i in range(1, len(words)):
        context = tuple(words[max(0, i - order + 1) : i])
        word = words[i]
        backoff = 0.0
        while True:
            gram = context + (word,)
            if gram in grams:
                total += grams[gram][0] + backoff
                break
            if not context:
                total += grams[("<unk>",)][0] + backoff
                break
            backoff += grams.get(context, (0.0, 0.0))[1]
            context = context[1:]
    return total


SENTENCES = ["the dog runs after the young cat", "a small house near the garden", "zebra unknown words here",
             "the the the", ""]


def test_binary_and_arpa_agree_and_match_an_independent_scorer(tiny_lm):
    binary = LanguageModel(tiny_lm["binary"])
    arpa = LanguageModel(tiny_lm["arpa"])
    grams = read_arpa(tiny_lm["arpa"])
    assert binary.order == 3
    for sentence in SENTENCES + toy_corpus(seed=99, sentences=30):
        expected = arpa_sentence_log10(grams, 3, sentence)
        assert binary.score(sentence) == pytest.approx(expected, abs=1e-4)  # probing stores floats
        assert arpa.score(sentence) == pytest.approx(expected, abs=1e-4)


def test_word_scores_sum_to_sentence_score_and_flag_oov(tiny_lm):
    lm = LanguageModel(tiny_lm["binary"])
    words = lm.word_scores("the zebra runs")
    assert [w.word for w in words] == ["the", "zebra", "runs", "</s>"]
    assert [w.oov for w in words] == [False, True, False, False]
    assert sum(w.log10_prob for w in words) == pytest.approx(lm.score("the zebra runs"))
    assert lm.score(["the", "zebra", "runs"]) == lm.score("the  zebra runs")


def test_incremental_states_equal_whole_sentence_scores(tiny_lm):
    lm = LanguageModel(tiny_lm["binary"])
    state = lm.begin_state()
    total, state = lm.advance_phrase(state, "the dog runs after".split())
    total += lm.end(state)
    assert total == pytest.approx(lm.score("the dog runs after"), abs=1e-5)  # kenlm sums in float32
    assert lm.score("the dog", bos=False, eos=False) < 0


def test_cache_counts_hits(tiny_lm):
    lm = LanguageModel(tiny_lm["binary"], cache_size=2)
    lm.score("a b")
    lm.score("a b")
    lm.score("c d")
    lm.score("e f")  # evicts "a b"
    lm.score("a b")
    assert (lm.cache_hits, lm.cache_misses) == (1, 4)


def test_bad_model_path_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="language model file not found"):
        LanguageModel(tmp_path / "missing.bin")
    junk = tmp_path / "junk.bin"
    junk.write_text("not a model")
    with pytest.raises(ValueError, match=r"junk.bin:1: expected an ARPA model .* or a KenLM binary"):
        LanguageModel(junk)


def test_cli_lm_score_and_train(tiny_lm, tmp_path):
    lines = "the dog runs\na small house\n"
    result = subprocess.run([sys.executable, "-m", "parastudio", "lm", "score", str(tiny_lm["binary"])], input=lines,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    lm = LanguageModel(tiny_lm["binary"])
    assert [float(x) for x in result.stdout.split()] == [lm.score("the dog runs"), lm.score("a small house")]

    out = tmp_path / "cli.bin"
    trained = subprocess.run([sys.executable, "-m", "parastudio", "lm", "train", str(tiny_lm["corpus"]), "--order", "2",
                              "-o", str(out), "--discount-fallback"], capture_output=True, text=True)
    assert trained.returncode == 0, trained.stderr
    assert LanguageModel(out).order == 2


def test_with_and_without_the_cache_every_spelling_of_a_sentence_scores_as_the_independent_scorer(tiny_lm):
    grams = read_arpa(tiny_lm["arpa"])
    cached, uncached = LanguageModel(tiny_lm["binary"]), LanguageModel(tiny_lm["binary"], cache_size=0)
    for sentence in SENTENCES + toy_corpus(seed=5, sentences=20):
        expected = arpa_sentence_log10(grams, 3, sentence)
        spaced = "  " + sentence.replace(" ", " \t ") + "\n"
        for spelling in (sentence, spaced, sentence.split()):
            for lm in (cached, uncached, cached):  # the second cached call answers from the cache
                assert lm.score(spelling) == pytest.approx(expected, abs=1e-4)
        assert uncached.score(sentence, bos=False, eos=False) == cached.score(sentence.split(), bos=False, eos=False)
    assert uncached.cache_hits == 0 and cached.cache_hits > 0


def test_lmplz_refusing_a_corpus_is_one_line_with_our_option_named(tmp_path):
    """lmplz's reason, without its progress bar or the C++ source line, and with the option as we spell it."""
    corpus = tmp_path / "tiny.txt"
    corpus.write_text("a b\n", encoding="utf-8")
    failed = subprocess.run([sys.executable, "-m", "parastudio", "lm", "train", str(corpus), "--order", "5", "-o",
                             str(tmp_path / "tiny.bin")], capture_output=True, text=True)
    assert failed.returncode == 1 and len(failed.stderr.strip().splitlines()) == 1, failed.stderr
    assert failed.stderr.startswith("parastudio: error: lmplz failed") and "Kneser-Ney discounts" in failed.stderr
    assert "--discount-fallback" in failed.stderr and " threw " not in failed.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny.txt"]
