"""The results file of :mod:`core.experiments.mcpg_vs_beam`: per-system summaries, the Markdown table, the plot."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from parastudio.core.experiments.mcpg_vs_beam_results import (
    LOG_BASE_NOTE,
    MODES,
    NBEST,
    PAPER_TRUE_OVER_TRANSLATOR,
    PAPER_VS_MOSES,
    PER_SENTENCE,
    PROFILES,
    SAMPLES,
    SCORE_TOLERANCE,
    STACK_SIZE,
    DifferenceStats,
    MCPGSystem,
    SearchSettings,
    SentenceResult,
    core_of,
    difference_stats,
)
from parastudio.core.experiments.per_sentence import markdown_note, run_provenance, write_per_sentence
from parastudio.core.experiments.provenance import inputs_line
from parastudio.core.textio import atomic_output


@dataclass(frozen=True)
class SystemSummary:
    system: MCPGSystem
    vs_best: DifferenceStats
    vs_paraphrase: DifferenceStats
    mean_seconds: float
    outputs: int
    vs_best_where_paraphrase: DifferenceStats  # vs the beam 1-best, sentences where it is not the source


def summarize(results: Sequence[SentenceResult], systems: Sequence[MCPGSystem]) -> list[SystemSummary]:
    best = [r.beam_best for r in results]
    paraphrase = [r.beam_best_paraphrase for r in results]
    best_if_paraphrase = [None if r.beam_best_is_source else r.beam_best for r in results]
    summaries = []
    for system in systems:
        scores = [r.scores.get(system) for r in results]
        seconds = [r.seconds[system] for r in results if system in r.seconds]
        summaries.append(SystemSummary(
            system, difference_stats(scores, best), difference_stats(scores, paraphrase),
            statistics.fmean(seconds) if seconds else math.nan, sum(s is not None for s in scores),
            difference_stats(scores, best_if_paraphrase)))
    return summaries


def true_over_translator(results: Sequence[SentenceResult], profile: str) -> DifferenceStats | None:
    """Seed 000's "boost": true-score MCPG minus translator MCPG, same profile."""
    true_system, translator = MCPGSystem("true-score", profile), MCPGSystem("translator", profile)
    if not any(true_system in r.scores for r in results) or not any(translator in r.scores for r in results):
        return None
    return difference_stats([r.scores.get(true_system) for r in results], [r.scores.get(translator) for r in results])


def _stats_cell(stats: DifferenceStats) -> str:
    if not stats.count:
        return "n/a"
    return f"{stats.mean:+.3f} ± {stats.sd:.3f}"


def _share_cell(stats: DifferenceStats) -> str:
    if not stats.count:
        return "n/a"
    return f"{100 * stats.share_at_least:.1f} % ({stats.at_least} / {stats.count})"


def _paper_cell(mode: str) -> str:
    """The paper's figure converted to log10 under :data:`LOG_BASE_NOTE`'s assumption (natural logs)."""
    mean, sd = PAPER_VS_MOSES[mode]
    return f"{mean / math.log(10):+.2f} ± {sd / math.log(10):.2f}"


def _eta_cell(results: Sequence[SentenceResult], system: MCPGSystem) -> str:
    """Commits per sentence and the mean eta (episodes before a commit) they had."""
    commits = [r.commits[system] for r in results if system in r.commits]
    etas = [eta for sentence in commits for eta in sentence]
    if not etas:
        return "0 commits"
    return f"{statistics.fmean(len(c) for c in commits):.1f} commits, η ≈ {statistics.fmean(etas):,.0f}"


def _faithful_sentence(results: Sequence[SentenceResult], systems: Sequence[MCPGSystem]) -> str:
    """How many decisions the faithful search made of the bound D (one per word, plus stop in true-score mode)."""
    parts = []
    for system in systems:
        timed = [r for r in results if system in r.commits] if system.profile == "faithful" else []
        if not timed:
            continue
        extra = 1 if system.mode == "true-score" else 0
        parts.append(f"{system.label}: {statistics.fmean(len(r.commits[system]) for r in timed):.1f} decisions "
                     f"per sentence of at most D ≈ {statistics.fmean(len(r.source) + extra for r in timed):.1f}, "
                     f"{statistics.fmean(r.seconds[system] for r in timed):.2f} s")
    if not parts:
        return ""
    return ("**Where the faithful search stops.** " + "; ".join(parts) + ". Stopping is the seeds' algorithm: the "
            "best root action is \"definitely applied\" (seed 003 §3) and, once that action is stop, the state is "
            "final and the search returns without restarting. True-score searches commit stop after a few "
            "decisions; translator searches can only stop once every word is covered, so they make nearly D.")


def _polish_sentence(summaries: Sequence[SystemSummary]) -> str:
    """Which share of the tuned profile's result its polish brings (tuned against tuned-no-polish)."""
    by_system = {summary.system: summary for summary in summaries}
    parts = []
    for mode in MODES:
        tuned, bare = by_system.get(MCPGSystem(mode, "tuned")), by_system.get(MCPGSystem(mode, "tuned-no-polish"))
        faithful = by_system.get(MCPGSystem(mode, "faithful"))
        if tuned is None or bare is None or not tuned.vs_best.count or not bare.vs_best.count:
            continue
        text = (f"{mode}: without the polish {bare.vs_best.mean:+.3f} log10 against the beam "
                f"({bare.vs_best.at_least} / {bare.vs_best.count} at least equal), with it {tuned.vs_best.mean:+.3f} "
                f"({tuned.vs_best.at_least} / {tuned.vs_best.count})")
        if faithful is not None and faithful.vs_best.count:
            gap = tuned.vs_best.mean - faithful.vs_best.mean
            if gap > SCORE_TOLERANCE:
                share = (tuned.vs_best.mean - bare.vs_best.mean) / gap
                text += f"; of the tuned profile's gain over the faithful one, {100 * share:.0f} % comes from the polish"
        parts.append(text)
    if not parts:
        return ""
    return ("**The polish.** After its search the tuned profile hill-climbs on its best finals "
            "(`core/engine/decoders/mcpg/polish.py`); the row \"tuned-no-polish\" is the same search without it. "
            + "; ".join(parts) + ".")


def _samples(results: Sequence[SentenceResult], systems: Sequence[MCPGSystem], count: int = SAMPLES) -> list[str]:
    """The first, the median and the worst sentence for the faithful true-score row, every system's output."""
    if not results:
        return []
    probe = next((s for s in systems if s.profile == "faithful"), systems[0] if systems else None)
    scored = [i for i, r in enumerate(results) if r.beam_best is not None and r.scores.get(probe) is not None]
    if not scored:
        return []
    by_gap = sorted(scored, key=lambda i: results[i].scores[probe] - results[i].beam_best)
    picks = list(dict.fromkeys([scored[0], by_gap[len(by_gap) // 2], by_gap[0]]))[:count]
    lines = ["## Sample outputs", "",
             f"Sentence {', '.join(str(i + 1) for i in picks)} (the first, the median and the worst difference of "
             f"{probe.label}); true scores in log10.", ""]
    for index in picks:
        result = results[index]
        lines += [f"**Sentence {index + 1}.** source: {' '.join(result.source)}", "",
                  f"- beam 1-best ({result.beam_best:.3f}): {result.beam_text}"]
        for system in systems:
            score, text = result.scores.get(system), result.texts.get(system)
            lines.append(f"- {system.label} ({'no output' if score is None else f'{score:.3f}'}): {text or ''}")
        lines.append("")
    return lines


PER_SENTENCE_FIELDS = {
    "sentence_id": "generate's sentence_id: the sentence's number in the input, from 0 (the line number minus 1)",
    "system": "\"beam decoder\" or \"MCPG <mode>, <profile>\" (a row of the table)",
    "output": "the system's 1-best (the beam's: its distinct n-best reranked by true score); null: no output",
    "true_score": "the output's exact true score, log10; null: no output",
    "beam_best": "the beam 1-best's true score on this sentence, log10 (the reference of \"vs beam 1-best\")",
    "beam_best_is_source": "whether the beam 1-best is the source sentence itself",
    "beam_best_paraphrase": "the best true score of a beam output other than the source, log10 (the reference "
                            "of \"vs beam's best output ≠ source\"); null: none",
    "seconds": "seconds of one core the system took on this sentence (the beam: its 100-best)",
    "episodes_per_decision": "MCPG: the episodes before each committed root action (η, by count), in order; "
                             "null for the beam",
    "episodes": "MCPG: the episodes the tree search ran (polish excluded); null for the beam",
    "cut": "MCPG: whether the time cap stopped the search before its count; null for the beam",
}


def per_sentence_records(results: Sequence[SentenceResult], systems: Sequence[MCPGSystem]) -> list[dict]:
    """One record per sentence and system, the beam decoder first (:data:`PER_SENTENCE_FIELDS`)."""
    records = []
    for index, result in enumerate(results):
        shared = {"beam_best": result.beam_best, "beam_best_is_source": result.beam_best_is_source,
                  "beam_best_paraphrase": result.beam_best_paraphrase}
        records.append({"sentence_id": index, "system": "beam decoder", "output": result.beam_text,
                        "true_score": result.beam_best, **shared, "seconds": result.beam_seconds,
                        "episodes_per_decision": None, "episodes": None, "cut": None})
        for system in systems:
            records.append({"sentence_id": index, "system": system.label, "output": result.texts.get(system),
                            "true_score": result.scores.get(system), **shared,
                            "seconds": result.seconds.get(system),
                            "episodes_per_decision": result.commits.get(system),
                            "episodes": result.episodes.get(system), "cut": result.cut.get(system)})
    return records


def write_per_sentence_file(path: Path, results: Sequence[SentenceResult], systems: Sequence[MCPGSystem],
                            command: str, inputs: dict, search: SearchSettings) -> dict:
    """Write ``mcpg-vs-beam.jsonl``; returns its header."""
    header = run_provenance("mcpg-vs-beam", command, inputs, PER_SENTENCE_FIELDS,
                        episodes_per_step={p: search.eta_of(p) for p in sorted({s.profile for s in systems})},
                        max_episodes={p: search.max_episodes_of(p) for p in sorted({s.profile for s in systems})},
                        time_cap=search.time_budget)
    write_per_sentence(path, header, per_sentence_records(results, systems))
    return header


def _count_sentence(results: Sequence[SentenceResult], systems: Sequence[MCPGSystem],
                    search: SearchSettings) -> str:
    etas = sorted({search.eta_of(s.profile) for s in systems})
    cut = sum(1 for r in results for s in systems if r.cut.get(s))
    cap = (f"a cap of {search.time_budget:g} s per search, which cut {cut} of {len(results) * len(systems)} "
           "searches (those are flagged `cut` in the per-sentence file)" if search.time_budget is not None
           else "no time cap")
    tuned = [p for p in PROFILES if any(s.profile == p for s in systems) and search.max_episodes_of(p)]
    restarts = (f" The tuned profiles restart from the source until {search.max_episodes_of(tuned[0]):,} "
                "episodes in all, then polish (the row without the polish skips that)." if tuned else "")
    return (f"**η by count.** MCPG commits a root action every η = {' / '.join(f'{e:,}' for e in etas)} "
            "episodes, a count, not a clock (`core/engine/decoders/mcpg/options.py`), so these figures are the same on any "
            f"machine and under any load (only the seconds change); {cap}. The paper's η is 100,000 (seed 000 §4.2). "
            + _search_sentence(systems, search) + restarts)


def _search_sentence(systems: Sequence[MCPGSystem], search: SearchSettings) -> str:
    """Which search ran each row: the compiled core or the Python reference (the same finals, other seconds)."""
    ran = {system: core_of(system, search.core) for system in systems}
    compiled = [s for s in systems if ran[s] == "native"]
    if len(compiled) == len(systems):
        return "Every MCPG row ran the compiled search (`--core native`, `core/engine/native/mcpg_core.cpp`)."
    if not compiled:
        return "Every MCPG row ran the Python search (`--core python`, the reference; the compiled one finds the " \
               "same finals faster)."
    return (f"The compiled search (`--core native`) ran {', '.join(s.label for s in compiled)}; the Python search "
            "ran the others (a setting the compiled core does not take).")


def _limit_sentence(results: Sequence[SentenceResult], systems: Sequence[MCPGSystem],
                    input_sentences: int | None) -> list[str]:
    """Say so when the run took only the first sentences of its input, and what a sentence cost."""
    if input_sentences is None or len(results) >= input_sentences:
        return []
    seconds = sum(r.seconds.get(s, 0.0) for r in results for s in systems) / len(results) if results else 0.0
    return [f"**Fewer sentences.** This run takes the first {len(results)} of the input's {input_sentences} "
            f"sentences (`--limit`) to keep the run short: the {len(systems)} MCPG searches took {seconds:.0f} s "
            "per sentence here (wall clock, at the load below). The figures are by count, so a run on all of them is the same "
            "command without `--limit`.", ""]


def _partial_sentence(results: Sequence[SentenceResult], systems: Sequence[MCPGSystem]) -> list[str]:
    """Say which systems searched fewer sentences than the run has (a long run reported from its records)."""
    parts = [f"{system.label} on {searched} of {len(results)}" for system in systems
             if (searched := sum(system in r.seconds for r in results)) < len(results)]
    if not parts:
        return []
    return ["**Partial run.** Not every search finished before the run was stopped (`--records`, reported with "
            f"`--recorded-only`): {'; '.join(parts)} sentences were searched. The other sentences count as "
            "\"missing\" in those rows (column \"outputs\"); every mean is over the sentences searched.", ""]


def write_markdown(path: Path, results: Sequence[SentenceResult], systems: Sequence[MCPGSystem],
                   provenance: dict, search: SearchSettings, per_sentence: dict | None = None,
                   input_sentences: int | None = None) -> None:
    summaries = summarize(results, systems)
    provenance = dict(provenance)
    command = provenance.pop("command", "python -m core.experiments.mcpg_vs_beam")
    n = len(results)
    source_best = sum(r.beam_best_is_source for r in results)
    beam_seconds = statistics.fmean(r.beam_seconds for r in results) if results else math.nan
    paper_mean, paper_sd = PAPER_TRUE_OVER_TRANSLATOR
    lines = [
        "# Seed 000 §4 / seed 003 §5: MCPG against the beam decoder (1-best true scores)",
        "",
        "**Units.** Every score and difference below is a log10 true score (KenLM's base); the paper's figures are "
        "converted to log10 from natural logs (see *Log base*). Times are wall-clock seconds on this machine at the "
        "load given under *Machine* (MCPG on one core).",
        "",
        "**By construction.** Each output's score is its exact true score (`core.engine.model.truescore`, tested "
        "against a brute force), so a difference measures the search, not the scorer. Nothing else in the tables "
        "holds by construction: MCPG never outputs the source (seed 003 §2), which the column \"vs beam's best "
        "output ≠ source\" accounts for.",
        "",
        f"Reproduces Chevelu et al. (COLING 2010) §4.2-4.3 on our held-out test set ({n} sentences): the 1-best "
        f"of our beam decoder (our MOSES: `core.engine.decoders.beam_decoder`, stack {STACK_SIZE}, distinct {NBEST}-best reranked "
        f"by true score), and of MCPG (`core.engine.decoders.mcpg`) in \"true-score\" and \"translator\" mode. Differences "
        "are system minus beam per sentence (negative: MCPG below the beam); mean ± population standard deviation "
        "over sentences. MCPG runs on one core, seed = sentence index.",
        "",
        _count_sentence(results, systems, search),
        "",
        *_limit_sentence(results, systems, input_sentences),
        *_partial_sentence(results, systems),
        inputs_line(provenance),
        "",
        f"Command: `{command}`",
        "",
        _machine_note(),
        "",
        "| system | paper, vs MOSES | vs beam 1-best | MCPG ≥ beam 1-best "
        "| vs beam's best output ≠ source | MCPG ≥ that | outputs | commits per sentence, mean η | s / sentence |",
        "|---|---|---|---|---|---|---|---|---|",
        f"| beam decoder (reference) | | 0 | | | | {n} / {n} | | {beam_seconds:.2f} (100-best) |",
    ]
    for summary in summaries:
        lines.append(
            f"| {summary.system.label} | {_paper_cell(summary.system.mode)} | {_stats_cell(summary.vs_best)} "
            f"| {_share_cell(summary.vs_best)} | {_stats_cell(summary.vs_paraphrase)} "
            f"| {_share_cell(summary.vs_paraphrase)} | {summary.outputs} / {n} | {_eta_cell(results, summary.system)} "
            f"| {summary.mean_seconds:.2f} |")
    boosts = [(profile, true_over_translator(results, profile)) for profile in PROFILES]
    boosts = [(profile, boost) for profile, boost in boosts if boost is not None]
    if boosts:
        lines += [
            "",
            "Gain of true-score over translator MCPG (seed 000 §4.3: \"the boost of performance gained by using "
            "true scores\"), per sentence true(true-score MCPG) − true(translator MCPG):",
            "",
            "| profile | paper | ours | true-score ≥ translator |",
            "|---|---|---|---|",
        ]
        for profile, boost in boosts:
            lines.append(f"| {profile} | {paper_mean / math.log(10):+.2f} ± {paper_sd / math.log(10):.2f} "
                         f"| {_stats_cell(boost)} | {_share_cell(boost)} |")
    lines += [
        "",
        f"The beam's 1-best is the source sentence itself for {source_best} of {n} sentences: our decoder's "
        "identity options have probability 1, and MCPG never outputs the source (seed 003 §2: the root state is "
        "not final). The column \"vs beam's best output ≠ source\" compares with the best paraphrase proper in "
        "the beam's list. A sentence where a side has no output is left out of that column (\"outputs\").",
        "",
        _polish_sentence(summaries),
        "",
        _faithful_sentence(results, systems),
        "",
        _bar_sentence(summaries),
        "",
        "**Log base.** " + LOG_BASE_NOTE + " As printed in the paper (its base): true-score MCPG vs MOSES "
        f"{PAPER_VS_MOSES['true-score'][0]:+.2f} ± {PAPER_VS_MOSES['true-score'][1]:.2f}, translator "
        f"{PAPER_VS_MOSES['translator'][0]:+.2f} ± {PAPER_VS_MOSES['translator'][1]:.2f}, gain "
        f"{paper_mean:+.2f} ± {paper_sd:.2f}.",
        "",
        "Figure: `mcpg-vs-beam.png` (left: true scores per sentence ordered by the beam's, like the paper's "
        "Fig. 3; right: the differences to the beam 1-best per system, points over a box plot).",
        "",
    ]
    if per_sentence is not None:
        lines += [markdown_note(PER_SENTENCE, per_sentence, "one sentence under one system (the beam decoder's "
                                "row first)"), ""]
    lines += _samples(results, systems)
    with atomic_output(path) as out:
        out.write("\n".join(lines).rstrip("\n") + "\n")


def _machine_note() -> str:
    """The machine's load when the file was written: budgets are wall-clock, so load costs episodes."""
    import os

    try:
        loads = os.getloadavg()
    except OSError:
        return ""
    return (f"**Machine.** {os.cpu_count()} cores; load average when this file was written (1, 5, 15 min): "
            f"{loads[0]:.1f}, {loads[1]:.1f}, {loads[2]:.1f}. The load changes only the seconds below, not the "
            "scores (MCPG runs by count).")


def _bar_sentence(summaries: Sequence[SystemSummary]) -> str:
    """The issue's bar: MCPG reaching the beam 1-best on average at <= 2 s per sentence."""
    parts = []
    for summary in summaries:
        stats = summary.vs_best
        if summary.system.mode != "true-score" or not stats.count:
            continue
        verdict = "reaches" if stats.mean >= -SCORE_TOLERANCE else "stays below"
        text = (f"{summary.system.label} {verdict} the beam 1-best on average ({stats.mean:+.3f} log10, "
                f"{stats.at_least} / {stats.count} at least equal, {summary.mean_seconds:.2f} s per sentence)")
        proper = summary.vs_best_where_paraphrase
        if proper.count < stats.count and proper.count:
            verdict = "reaches" if proper.mean >= -SCORE_TOLERANCE else "stays below"
            text += (f"; on the {proper.count} sentences whose beam 1-best is a paraphrase, not the source, it "
                     f"{verdict} it ({proper.mean:+.3f}, {proper.at_least} / {proper.count}), and against the "
                     f"beam's best paraphrase on all sentences it is at {summary.vs_paraphrase.mean:+.3f} "
                     f"({summary.vs_paraphrase.at_least} / {summary.vs_paraphrase.count})")
        parts.append(text)
    if not parts:
        return ""
    return ("Target (issue 6: the beam's 1-best or better on average at ≤ 2 s per sentence; the seconds are "
            "this machine's, at the load above): " + "; ".join(parts) + ".")


def write_plot(path: Path, results: Sequence[SentenceResult], systems: Sequence[MCPGSystem]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    order = sorted((i for i, r in enumerate(results) if r.beam_best is not None),
                   key=lambda i: -results[i].beam_best)
    xs = list(range(1, len(order) + 1))
    left.plot(xs, [results[i].beam_best for i in order], color="black", linewidth=2, label="beam (stack 200)")
    for index, system in enumerate(systems):
        ys = [results[i].scores.get(system) for i in order]
        left.plot(xs, [math.nan if y is None else y for y in ys], marker=".", linewidth=0.8, label=system.label,
                  color=f"C{index}")
    left.xaxis.get_major_locator().set_params(integer=True)
    left.set_xlabel("sentence (ordered by the beam's true score)")
    left.set_ylabel("1-best true score (log10)")
    left.set_title("1-best true scores (seed 000, Fig. 3)")
    left.grid(alpha=0.3)
    left.legend(fontsize=8)
    # One row per system: the per-sentence differences as points over a box plot (scales differ too much
    # between profiles for overlaid histograms to be readable).
    rows = [[r.scores[system] - r.beam_best for r in results
             if r.scores.get(system) is not None and r.beam_best is not None] for system in systems]
    shown = [(index, system, row) for index, (system, row) in enumerate(zip(systems, rows)) if row]
    if shown:
        # Matplotlib 3.10 renamed vert=False to orientation="horizontal".
        version = tuple(int(part) for part in matplotlib.__version__.split(".")[:2])
        horizontal = {"orientation": "horizontal"} if version >= (3, 10) else {"vert": False}
        right.boxplot([row for _, _, row in shown], widths=0.5, showfliers=False, medianprops={"color": "black"},
                      **horizontal)
        for position, (index, _, row) in enumerate(shown, start=1):
            jitter = [position + 0.3 * ((k * 0.618) % 1.0 - 0.5) for k in range(len(row))]
            right.plot(row, jitter, linestyle="none", marker=".", alpha=0.6, color=f"C{index}")
        right.set_yticks(range(1, len(shown) + 1), [system.label for _, system, _ in shown], fontsize=8)
    right.axvline(0.0, color="black", linewidth=1)
    right.set_xlabel("MCPG − beam 1-best (log10 true score)")
    right.set_title("Differences to the beam, per sentence")
    right.grid(alpha=0.3)
    figure.tight_layout()
    with atomic_output(path, "wb") as out:
        figure.savefig(out, format="png", dpi=120, metadata={"Software": None})
    plt.close(figure)
