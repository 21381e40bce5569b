"""``mcpg-steered.md``: the tables, sign tests, verdict and samples of :mod:`core.experiments.mcpg_steered`."""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from parastudio.core.engine.model.judgment_model import FEATURES
from parastudio.core.experiments.mcpg_steered_results import PER_SENTENCE, SILVER, SYSTEMS, Output
from parastudio.core.experiments.per_sentence import markdown_note
from parastudio.core.experiments.silver_judges import RULE
from parastudio.core.stats.significance import PairwiseTests
from parastudio.core.textio import atomic_output

# The judges of the sign tests: (field of an output's values, how the report names it).
JUDGES = (("acceptable", "silver acceptable"), ("meaning", "silver meaning"), ("fluency", "silver fluency"),
          ("p_cross_validated", "predictor, cross-validated"), ("p_steering", "steering predictor (by construction)"))
STEERED, OTHERS = "mcpg-predictor", ("beam", "mcpg-true-score")
SAMPLES = 4


def scores_by_system(results: list[dict[str, Output]], name: str) -> dict[str, dict[int, float]]:
    """system -> verse -> the judged value (verses where the system has an output)."""
    return {system: {verse: outputs[system].values[name] for verse, outputs in enumerate(results)
                     if outputs[system].candidate is not None} for system in SYSTEMS}


def _mean(values) -> float | None:
    values = list(values)
    return statistics.fmean(values) if values else None


def _shown(value: float | None, digits: int = 3, percent: bool = False) -> str:
    if value is None:
        return "–"
    return f"{100 * value:.1f}" if percent else f"{value:.{digits}f}"


def sign_tests(results: list[dict[str, Output]]) -> dict[str, list]:
    test = PairwiseTests("sign", "holm")
    return {name: test.compare(scores_by_system(results, name)) for name, _ in JUDGES}


def verdict(tests: dict[str, list]) -> list[str]:
    """Plain sentences: does the steered system beat each other system on the independent judges?"""
    lines = []
    for name, label in JUDGES[:4]:
        for row in tests[name]:
            if STEERED not in (row.system_a, row.system_b):
                continue
            other = row.system_b if row.system_a == STEERED else row.system_a
            wins, losses = (row.wins_a, row.wins_b) if row.system_a == STEERED else (row.wins_b, row.wins_a)
            if row.p_holm < 0.05:
                outcome = "wins" if wins > losses else "loses"
            else:
                outcome = "does not win (no significant difference)" if wins >= losses else \
                    "does not win (it loses more verses than it wins, not significantly)"
            lines.append(f"- {label}: {STEERED} {outcome} against {other}: verses better {wins}, worse "
                         f"{losses}, tied {row.ties} (sign test p = {row.p_value:.3g}, Holm {row.p_holm:.3g}).")
    return lines


def what_it_changes(results: list[dict[str, Output]], steering) -> str:
    """The paragraph saying how much each system rewrites, which is what the silver rule and the predictor read."""
    done = {system: [outputs[system] for outputs in results if outputs[system].candidate is not None]
            for system in SYSTEMS}
    edit = {system: _mean(o.values["edit_rate"] for o in outputs) for system, outputs in done.items()}
    single = {system: sum(len(o.replacements) == 1 for o in outputs) for system, outputs in done.items()}
    coefficient = dict(zip(FEATURES, steering.coefficients))
    largest = max(FEATURES, key=lambda name: abs(coefficient[name]))
    less = edit[STEERED] is not None and all(edit[STEERED] < (edit[other] or 0.0) for other in OTHERS)
    mostly_single = single[STEERED] * 2 > len(done[STEERED])
    return (f"**What the steered outputs are.** They change {'less' if less else 'no less'}: edit rate "
            f"{_shown(edit[STEERED])} against {_shown(edit['beam'])} (beam) and {_shown(edit['mcpg-true-score'])} "
            f"(MCPG true score); {single[STEERED]} of its {len(done[STEERED])} outputs make a single replacement "
            f"(beam {single['beam']}, MCPG true score {single['mcpg-true-score']}). The steering predictor weighs "
            f"`edit_rate` {coefficient['edit_rate']:+.3f} log-odds per sd (its largest coefficient in size is "
            f"`{largest}`); the silver rule needs at least half of the replacements right for meaning and 80 % of "
            "the bigrams attested for fluency, which a small change passes more easily."
            + (" So steering finds what these judges accept, and that is mostly near-copies of the source with "
               "one rewrite; whether people would call them better paraphrases is not measured here."
               if less and mostly_single else ""))

def write_markdown(path: Path, sentences, references, results: list[dict[str, Output]], fitted: dict, judged: dict,
                   command: str, header: dict, args: argparse.Namespace, minutes: float) -> None:
    tests = sign_tests(results)
    verses = len(results)
    lines = ["# What the beam cannot do: MCPG steered by the judgment predictor (issue 24, item 5)", "",
             f"Made by `{command}` ({minutes:.1f} min on a shared 2-core machine; the figures depend only on the "
             "inputs and seeds).", "",
             "**Units.** Silver verdicts in percent of the verses with an output; predictor outputs are "
             "probabilities of acceptance (0 to 1); true scores in log10 (seed 000); edit rate in word edits per "
             "source word; sign tests count verses.", "",
             f"**What ran.** The demo's first {verses} verses (`evaldata/demo/test.en`). `beam`: the beam "
             f"decoder's 1-best that differs from the source (stack 200). `mcpg-true-score`: MCPG (profile "
             f"`{args.profile}`, eta {args.episodes_per_step:,} episodes per decision, seed = the verse's line) "
             "maximising the true score. `mcpg-predictor`: the same search, same seeds, maximising the judgment "
             "predictor's probability that judges accept the whole sentence (`--reward predictor`), a reward "
             "seed 003 §3 allows because MCPG scores only final states; no left-to-right beam can score "
             "such a global feature (edit rate, length) before the sentence ends.", "",
             "**The predictor.** A logistic regression over six features of a candidate (`lm`, `channel`, "
             "`true_score`, `length`, `edit_rate`, `rules`; `core/engine/model/judgment_model.py`) fitted on the demo "
             "study's dev set: its 200 beam candidates (2 per verse) judged by the scripted silver judges "
             f"(answers {judged}), label \"acceptable\" (meaning and fluency both yes). The steering predictor is "
             "fitted on all 200; the candidates' features are read from their true-score derivation.", "",
             f"**Judges.** (a) The silver rule, noise-free: {RULE}. It reads the KJV verse, never a model score. "
             f"(b) The predictor cross-validated over verses: {args.folds} folds (seeded shuffle), and each verse's "
             "outputs are judged by a predictor fitted only on the other folds' verses' items, so it never saw "
             "that verse's own judgments.", "",
             "**True by construction.** `mcpg-predictor` maximises the steering predictor, so its column "
             "\"p steering\" is high by construction (shown only for that reason). The cross-validated predictor "
             "has the same features and 4/5 of the same training items, so it is close to the steering predictor "
             "and still favours the steered system: it shows how much of the gain survives not having seen the "
             "verse, not an independent judgment. Only the silver rule is independent of the models; and the "
             "silver rule judges replacements, so fewer replacements mean fewer chances to be judged wrong.", "",
             "| system | outputs | silver meaning % | silver fluency % | silver acceptable % | p cross-validated "
             "| p steering | true score | edit rate | episodes |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for system in SYSTEMS:
        done = [outputs[system] for outputs in results if outputs[system].candidate is not None]
        mean = {name: _mean(o.values[name] for o in done)
                for name in (*SILVER, "p_cross_validated", "p_steering", "true_score", "edit_rate")}
        episodes = _mean(o.episodes for o in done) if system != "beam" else None
        lines.append(f"| {system} | {len(done)} | " + " | ".join(_shown(mean[n], percent=True) for n in SILVER)
                     + f" | {_shown(mean['p_cross_validated'])} | {_shown(mean['p_steering'])} | "
                     f"{_shown(mean['true_score'], 2)} | {_shown(mean['edit_rate'])} | "
                     f"{'–' if episodes is None else f'{episodes:,.0f}'} |")
    cut = sum(o.cut for outputs in results for o in outputs.values())
    lines += ["", f"Searches cut by the time cap: {cut}.", "", what_it_changes(results, fitted["steering"]), "",
              "## Does steering win?", "",
              "Read from the sign tests below (significant: Holm-corrected p < 0.05). The silver rule is the "
              "independent judge; the cross-validated predictor shares the steering predictor's features.", "",
              *verdict(tests), "",
              "## Sign tests", "",
              "Per judge, each pair of systems on the verses where both have an output; a verse counts for the "
              "system whose output the judge scores higher, ties are dropped; exact two-sided binomial test, "
              "Holm-corrected over the three pairs. Signature: "
              f"`{PairwiseTests('sign', 'holm').signature(verses, 1)}`.", "",
              "| judge | system A | system B | verses | A better | B better | ties | p | p (Holm) |",
              "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for name, label in JUDGES:
        for row in tests[name]:
            lines.append(f"| {label} | {row.system_a} | {row.system_b} | {row.n_items} | {row.wins_a} | "
                         f"{row.wins_b} | {row.ties} | {row.p_value:.3g} | {row.p_holm:.3g} |")
    lines += ["", "## Samples", "", "Verses where the three outputs differ, first ones (silver meaning/fluency, "
              "p cross-validated):", ""]
    shown = 0
    for verse, outputs in enumerate(results):
        texts = {system: outputs[system].candidate for system in SYSTEMS}
        if shown == SAMPLES or None in texts.values() or len(set(texts.values())) < len(SYSTEMS):
            continue
        shown += 1
        lines += [f"- verse {verse}: {' '.join(sentences[verse])}", f"  - KJV (the silver rule's reference): "
                  f"{references[verse]}"]
        for system in SYSTEMS:
            values = outputs[system].values
            lines.append(f"  - {system} ({'yes' if values['meaning'] else 'no'}/"
                         f"{'yes' if values['fluency'] else 'no'}, p = {values['p_cross_validated']:.2f}): "
                         f"{' '.join(texts[system])}")
    steering = fitted["steering"]
    lines += ["", "The steering predictor (log-odds per standard deviation): "
              + ", ".join(f"`{name}` {c:+.3f}" for name, c in zip(FEATURES, steering.coefficients))
              + f", intercept {steering.intercept:+.3f}.", "",
              markdown_note(PER_SENTENCE, header, "one verse under one system")]
    with atomic_output(path) as handle:
        handle.write("\n".join(lines) + "\n")

