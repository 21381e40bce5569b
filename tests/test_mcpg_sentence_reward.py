"""MCPG steered by a whole-sentence reward (issue 24, item 5): the reward is what the search maximises."""

import io
import itertools
import json
import math

import numpy as np
import pytest
from conftest import EXAMPLE1_RULES

from parastudio.core.engine.decoders.mcpg import generate_mcpg
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.model.derivation import apply_matches
from parastudio.core.engine.model.judgment_model import FEATURES, JudgmentModel, PredictorReward
from parastudio.core.engine.model.truescore import TrueScorer
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Rule
from parastudio.core.errors import InputFileError, InputFormatError

SOURCE = tuple("the dog runs after the young cat".split())


@pytest.fixture(scope="module")
def lm(tiny_lm):
    return LanguageModel(tiny_lm["binary"])


@pytest.fixture(scope="module")
def table():
    return ParaphraseTable(Rule(tuple(s.split()), tuple(t.split()), p) for s, t, p in EXAMPLE1_RULES)


def reachable_paraphrases(source, table):
    """Every sentence a non-empty set of disjoint rules makes from ``source``, except the source itself."""
    matches = [m for m in table.matches(source) if m.rule.target != m.rule.source]
    found = set()
    for size in range(1, len(matches) + 1):
        for subset in itertools.combinations(matches, size):
            try:
                target, _ = apply_matches(source, subset)
            except ValueError:
                continue
            if target != tuple(source):
                found.add(target)
    return found


def prefers_it(candidate, source):
    """A predictor-like reward that likes one word the true score does not lead to."""
    return 0.9 if "it" in candidate else 0.2


@pytest.mark.parametrize("profile", ["faithful", "tuned"])
def test_a_reward_that_prefers_a_word_steers_the_search_to_it(lm, table, profile):
    plain = generate_mcpg(SOURCE, table, lm, profile=profile, episodes_per_step=30, max_episodes=600)
    steered = generate_mcpg(SOURCE, table, lm, profile=profile, episodes_per_step=30, max_episodes=600,
                            sentence_reward=prefers_it)
    assert "it" not in plain[0][0]  # the true score leads elsewhere, so only the reward can bring "it"
    assert "it" in steered[0][0]
    assert steered[0][1] == 0.9  # the model score reported is the reward


def test_the_search_finds_the_reward_s_optimum_over_every_reachable_sentence(lm, table):
    # A reward that ranks sentences unlike the true score: fewer words first, then the LM (in (0, 1)).
    def shorter(candidate, source):
        return (1.0 + 10 ** (lm.score(tuple(candidate)) / 100)) / (2.0 * len(candidate))

    best = max(shorter(t, SOURCE) for t in reachable_paraphrases(SOURCE, table))
    found = generate_mcpg(SOURCE, table, lm, profile="faithful", episodes_per_step=200, sentence_reward=shorter)
    assert found[0][1] == pytest.approx(best, abs=1e-12)
    assert len(found[0][0]) < len(SOURCE)


def test_a_reward_outside_the_unit_interval_is_refused_not_clipped(lm, table):
    with pytest.raises(ValueError, match=r"gave 1\.5 .* expected a value in \[0, 1\]"):
        generate_mcpg(SOURCE, table, lm, profile="faithful", episodes_per_step=5, sentence_reward=lambda c, s: 1.5)
    with pytest.raises(ValueError, match="expected a value in"):
        generate_mcpg(SOURCE, table, lm, profile="faithful", episodes_per_step=5,
                      sentence_reward=lambda c, s: math.nan)


def test_the_compiled_core_and_translator_mode_refuse_a_sentence_reward(lm, table):
    with pytest.raises(ValueError, match="compiled MCPG core takes no whole-sentence reward"):
        generate_mcpg(SOURCE, table, lm, profile="faithful", core="native", sentence_reward=prefers_it)
    with pytest.raises(ValueError, match="true-score mode"):
        generate_mcpg(SOURCE, table, lm, mode="translator", profile="faithful", sentence_reward=prefers_it)


def test_the_judgment_model_is_scikit_learn_s_pipeline(tiny_lm):
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, len(FEATURES))) * [5, 2, 9, 4, 0.3, 2] + [-30, -3, -40, 20, 0.2, 3]
    y = (X[:, 4] + rng.normal(scale=0.2, size=80) < 0.2).astype(int)
    fitted = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X, y)
    scaler, logistic = fitted[0], fitted[1]
    report = {"criterion": "meaning", "intercept": float(logistic.intercept_[0]),
              "coefficients": dict(zip(FEATURES, map(float, logistic.coef_[0]))),
              "feature_means": dict(zip(FEATURES, map(float, scaler.mean_))),
              "feature_sds": dict(zip(FEATURES, map(float, scaler.scale_)))}
    model = JudgmentModel.from_report(report)
    expected = fitted.predict_proba(X)[:, 1]
    assert [model.probability(row) for row in X] == pytest.approx(expected, abs=1e-12)


def test_a_bad_predictor_file_names_the_file_and_what_was_expected(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"intercept": 1,\n  "coefficients": [}\n', encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"broken\.json:2: expected a judgment-predictor --json report"):
        JudgmentModel.read(broken)
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps({"intercept": 0.5, "coefficients": {"lm": 1.0}}), encoding="utf-8")
    with pytest.raises(InputFileError, match=r"partial\.json: expected a judgment-predictor --json report: "
                                             r"coefficients, feature_means and feature_sds"):
        JudgmentModel.read(partial)


def hand_made_predictor(path, **coefficients):
    """A predictor file as judgment-predictor --json writes one, with chosen coefficients (others 0)."""
    report = {"criterion": "acceptable", "intercept": 0.0, "signature": "hand-made",
              "coefficients": {name: coefficients.get(name, 0.0) for name in FEATURES},
              "feature_means": {name: 0.0 for name in FEATURES}, "feature_sds": {name: 1.0 for name in FEATURES}}
    path.write_text(json.dumps(report), encoding="utf-8")
    return path


def test_the_cli_steers_mcpg_by_the_predictor_and_records_it(tiny_lm, example1_table_path, tmp_path, capsys,
                                                              monkeypatch, lm, table):
    from parastudio.core.cli import main

    predictor = hand_made_predictor(tmp_path / "many.json", rules=2.0, lm=0.05)  # many rewrites
    common = ["generate", "--system", "mcpg-true", "--table", str(example1_table_path), "--lm", str(tiny_lm["binary"]),
              "--json", "--processes", "1", "--profile", "faithful", "--episodes-per-step", "200"]
    monkeypatch.setattr("sys.stdin", io.StringIO(" ".join(SOURCE) + "\n"))
    assert main([*common, "--reward", "predictor", "--predictor", str(predictor)]) == 0
    captured = capsys.readouterr()
    assert captured.err.count("runs in the Python MCPG search") == 1
    steered = json.loads(captured.out.splitlines()[0])
    model = JudgmentModel.read(predictor)
    reward = PredictorReward(model, TrueScorer(table, lm), lm)
    best = max(reward(t, SOURCE) for t in reachable_paraphrases(SOURCE, table))
    assert steered["model_score"] == pytest.approx(best, abs=1e-12)
    assert steered["model_score"] == pytest.approx(reward(steered["text"].split(), SOURCE), abs=1e-12)
    params = steered["params"]
    assert (params["reward"], params["core"]) == ("predictor", "python")
    assert params["inputs"]["predictor"]["signature"] == "hand-made" and params["inputs"]["predictor"]["sha256"]

    monkeypatch.setattr("sys.stdin", io.StringIO(" ".join(SOURCE) + "\n"))
    assert main(common) == 0
    plain = json.loads(capsys.readouterr().out.splitlines()[0])
    assert plain["text"] != steered["text"] and plain["params"]["reward"] == "true-score"


@pytest.mark.parametrize("extra, message", [
    (["--reward", "predictor", "--predictor", "MODEL", "--core", "native"], "cannot call a whole-sentence reward"),
    (["--reward", "predictor"], "--reward predictor and --predictor MODEL go together"),
    (["--predictor", "MODEL"], "--reward predictor and --predictor MODEL go together"),
])
def test_the_cli_refuses_a_predictor_it_cannot_honour(tiny_lm, example1_table_path, tmp_path, capsys, monkeypatch,
                                                      extra, message):
    from parastudio.core.cli import main

    extra = [str(hand_made_predictor(tmp_path / "m.json")) if e == "MODEL" else e for e in extra]
    monkeypatch.setattr("sys.stdin", io.StringIO(" ".join(SOURCE) + "\n"))
    assert main(["generate", "--system", "mcpg-true", "--table", str(example1_table_path), "--lm",
                 str(tiny_lm["binary"]), *extra]) == 2
    assert message in capsys.readouterr().err


# -- the predictor file as a reader (issue 18's fuzzing, for the new reader) -------------------------------------
from fuzz_support import damage, defects, fuzz_tests, time_limit  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_numbers = st.one_of(st.floats(-1e6, 1e6, allow_nan=False), st.sampled_from([math.nan, math.inf, 0.0, -0.0]))


@st.composite
def predictor_reports(draw):
    report = {"criterion": draw(st.sampled_from(["acceptable", "meaning"])), "intercept": draw(_numbers),
              "signature": "fuzz"}
    for key in ("coefficients", "feature_means", "feature_sds"):
        names = draw(st.one_of(st.just(list(FEATURES)), st.lists(st.sampled_from(FEATURES), unique=True,
                                                                 max_size=len(FEATURES))))
        values = st.one_of(st.floats(1e-3, 1e3), _numbers) if key == "feature_sds" else _numbers
        report[key] = {name: draw(values) for name in names}
    return report


def _predictor_files(example):
    import tempfile
    from pathlib import Path

    report, defect, where = example
    text = json.dumps(report, indent=2)
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "predictor.json"
        path.write_bytes(damage(text, defect, where))
        try:
            with time_limit():
                model = JudgmentModel.read(path)
        except InputFormatError as error:
            assert error.path == str(path) and 1 <= error.line_number <= text.count("\n") + 1 + 64
            return
        except InputFileError as error:
            assert error.path == str(path) and "judgment-predictor --json report" in str(error)
            return
    assert all(math.isfinite(v) for v in (*model.coefficients, *model.means, model.intercept))
    assert all(math.isfinite(s) and s > 0 for s in model.sds)
    assert 0.0 <= model.probability([0.0] * len(FEATURES)) <= 1.0
    if defect in ("none", "bom", "crlf", "gzip"):  # read as written
        assert model.coefficients == tuple(report["coefficients"][name] for name in FEATURES)
        assert model.sds == tuple(report["feature_sds"][name] for name in FEATURES)


test_predictor_files, test_predictor_files_thorough = fuzz_tests(
    st.tuples(predictor_reports(), defects, st.integers(0, 2000)), _predictor_files)
