"""Seed 000 §3: how far the decoder's n-best order is from the true-score order.

Protocol (seed 000 §3.2-3.3): for each test sentence the decoder produces a
100-best *distinct* list; each entry gets its exact true score (Algorithm 1)
and the list is reranked by it. Reported:

* mean Kendall tau_A between the decoder order and the true-score order of
  the first ``L`` entries, for ``L = 2..100`` (their Fig. 1; 0.73 ± 0.41 at
  L = 5), over sentences with a full 100-best list (94 of 100 in the paper);
* the share of candidates whose score changes (32 %);
* the share of decoder 1-bests no longer optimal after reranking (18 %);
* the new rank of the old 1-best (2.0 ± 17.7, 6.8 ± 12.9 among those no
  longer optimal) and the old rank of the new 1-best (4.4 ± 12.1; 21.2 ± 23.5
  among changed ones, 67th at worst);
* the score gap between the 1st and the 100th entry (5.9 ± 4.5, Moses' natural log).

We add what the paper could not: the same at stack sizes 5, 20 and 200,
since the misordering comes from search errors (hypotheses pruned or
recombined away before their better derivation was found) and should shrink
as the beam widens.

Notation: tau_A = (n_p - n_i) / (n (n - 1) / 2), n_p pairs in the same order,
n_i inverted; a pair tied in true score counts in neither (seed 000 §3.2;
the PDF's formula is garbled, this is Kendall's 1938 tau_a it cites).

Each sentence's n-best scores per stack size go to ``seed000-reranking.jsonl.gz`` beside the Markdown
(:mod:`core.experiments.per_sentence`).

    python -m core.experiments.seed000_reranking [--table T --lm LM --input test.en] [--sentences 100]
"""

from __future__ import annotations

import argparse
import functools
import math
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from parastudio.core.code_identity import code_identity
from parastudio.core.engine.candidates.generation import generate_batches
from parastudio.core.engine.candidates.generation_options import BeamRunOptions
from parastudio.core.engine.candidates.generation_resources import GenerationResources
from parastudio.core.engine.decoders.decoder_types import DEFAULT_BEAM_THRESHOLD
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.experiments.per_sentence import markdown_note, run_provenance, write_per_sentence
from parastudio.core.experiments.provenance import inputs_line
from parastudio.core.progress import no_progress
from parastudio.core.terminal_bar import terminal_bar
from parastudio.core.textio import atomic_output, read_token_lines

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "evaldata" / "demo"
BUILD = ROOT / "evaldata" / "build"
RESULTS = ROOT / "evaldata" / "results"
STACK_SIZES = (5, 20, 200)
NBEST = 100
# Two scores closer than this are the same score (KenLM sums float32 terms).
SCORE_TOLERANCE = 1e-4
PER_SENTENCE = "seed000-reranking.jsonl.gz"
PER_SENTENCE_FIELDS = {
    "stack_size": "the decoder's stack size (a column of the table)",
    "sentence_id": "the sentence's number among the non-empty input lines, from 0 (generate's sentence_id on "
                   "those lines)",
    "decoder_scores": "the distinct n-best's decoder scores in decoder order, log10 (a list shorter than the "
                      "n-best size is not a full list and is left out of every row but the first)",
    "true_scores": "the same candidates' exact true scores, log10, in decoder order (\"changes\": more than "
                   "1e-4 from the decoder score; reranking sorts these, ties within 1e-4 in decoder order)",
}


def kendall_tau_a(decoder_order_scores: Sequence[float], tolerance: float = 0.0) -> float:
    """tau_A of a list given in decoder order against the order of ``decoder_order_scores`` (true scores).

    Entry ``i`` precedes ``j`` in the decoder order when ``i < j``; the pair is
    preserved when its true score is higher, inverted when lower, neither when tied.
    """
    n = len(decoder_order_scores)
    if n < 2:
        raise ValueError("tau_A needs at least two items")
    preserved = inverted = 0
    for i in range(n):
        a = decoder_order_scores[i]
        for j in range(i + 1, n):
            b = decoder_order_scores[j]
            if a - b > tolerance:
                preserved += 1
            elif b - a > tolerance:
                inverted += 1
    return (preserved - inverted) / (n * (n - 1) / 2)


def true_order(true_scores: Sequence[float], tolerance: float = SCORE_TOLERANCE) -> list[int]:
    """Decoder ranks (0-based) in true-score order; near-ties keep the decoder order (a stable rerank)."""

    def compare(i: int, j: int) -> int:
        difference = true_scores[i] - true_scores[j]
        if abs(difference) <= tolerance:
            return i - j
        return -1 if difference > 0 else 1

    return sorted(range(len(true_scores)), key=functools.cmp_to_key(compare))


@dataclass
class SentenceRerank:
    """One sentence's n-best list: decoder scores and true scores in decoder order."""

    decoder_scores: list[float]
    true_scores: list[float]
    texts: list[str] = field(default_factory=list)  # the candidates, in decoder order

    @property
    def size(self) -> int:
        return len(self.decoder_scores)

    def changed(self) -> list[bool]:
        return [abs(t - d) > SCORE_TOLERANCE for d, t in zip(self.decoder_scores, self.true_scores)]

    def reranked(self) -> list[int]:
        return true_order(self.true_scores)

    def old_best_new_rank(self) -> int:
        """1-based rank of the decoder's 1-best after reranking."""
        return self.reranked().index(0) + 1

    def new_best_old_rank(self) -> int:
        """1-based decoder rank of the true-score 1-best."""
        return self.reranked()[0] + 1

    def best_still_optimal(self) -> bool:
        return max(self.true_scores) - self.true_scores[0] <= SCORE_TOLERANCE


@dataclass
class StackReport:
    stack_size: int
    nbest: int = NBEST
    sentences: list[SentenceRerank] = field(default_factory=list)
    seconds: float = 0.0
    processes: int = 1

    def full(self) -> list[SentenceRerank]:
        """Sentences with a complete n-best list (the paper drops the others)."""
        return [s for s in self.sentences if s.size >= self.nbest]

    def tau_by_length(self, lengths: Sequence[int]) -> dict[int, tuple[float, float, int]]:
        """Mean, standard deviation and count of tau_A per n-best length, over sentences with a full list."""
        full = self.full()
        result = {}
        for length in lengths:
            taus = [kendall_tau_a(s.true_scores[:length], SCORE_TOLERANCE) for s in full]
            if taus:
                result[length] = (statistics.fmean(taus), _sd(taus), len(taus))
        return result


def _sd(values: Sequence[float]) -> float:
    return statistics.pstdev(values) if len(values) > 1 else 0.0


def _mean_sd(values: Sequence[float]) -> str:
    if not values:
        return "n/a"
    return f"{statistics.fmean(values):.2f} ± {_sd(values):.2f} (max {max(values)})"


def summary(report: StackReport) -> dict:
    full = report.full()
    candidates = [c for s in full for c in s.changed()]
    not_optimal = [s for s in full if not s.best_still_optimal()]
    return {
        "stack_size": report.stack_size,
        "sentences": len(report.sentences),
        "full_lists": len(full),
        "changed_share": sum(candidates) / len(candidates) if candidates else float("nan"),
        "not_optimal_share": len(not_optimal) / len(full) if full else float("nan"),
        "old_best_new_rank": [s.old_best_new_rank() for s in full],
        "old_best_new_rank_not_optimal": [s.old_best_new_rank() for s in not_optimal],
        "new_best_old_rank": [s.new_best_old_rank() for s in full],
        "new_best_old_rank_changed": [s.new_best_old_rank() for s in not_optimal],
        "gap_first_last": [s.decoder_scores[0] - s.decoder_scores[report.nbest - 1] for s in full],
        "seconds": report.seconds,
        "processes": report.processes,
    }


LN10 = math.log(10)


def effective_processes(processes: int | None, sentences: int) -> int:
    """How many processes ``generate_batches`` really uses for this many sentences."""
    import os

    from parastudio.core.engine.candidates.generation import PARALLEL_MIN_SENTENCES

    workers = processes if processes is not None else min(2, os.cpu_count() or 1)
    return workers if workers > 1 and sentences >= PARALLEL_MIN_SENTENCES else 1


def run(table: ParaphraseTable, lm: LanguageModel, sentences: Sequence[Sequence[str]],
        stack_sizes: Sequence[int] = STACK_SIZES, nbest: int = NBEST, processes: int | None = None,
        progress: bool = True, beam_threshold: float = DEFAULT_BEAM_THRESHOLD) -> list[StackReport]:
    reports = []
    for stack_size in stack_sizes:
        report = StackReport(stack_size, nbest)
        by_sentence: dict[int, SentenceRerank] = {}
        started = time.perf_counter()
        bar = None
        if progress:

            bar = terminal_bar(total=len(sentences), unit="sent", desc=f"stack {stack_size}")
        for sentence_id, candidates, _ in generate_batches(
            BeamRunOptions(nbest=nbest, stack_size=stack_size, beam_threshold=beam_threshold), sentences,
            GenerationResources((table,), lm), processes=processes,
            progress=(lambda done, total, message="", bar=bar: bar.update(done - bar.n)) if bar else no_progress,
        ):
            rerank = SentenceRerank([], [])
            for candidate in candidates:
                rerank.decoder_scores.append(candidate.model_score)
                # A decoder output is always reachable: its own derivation is a rule set.
                rerank.true_scores.append(candidate.true_score)
                rerank.texts.append(candidate.text)
            by_sentence[sentence_id] = rerank
        if bar:
            bar.close()
        report.seconds = time.perf_counter() - started
        report.processes = effective_processes(processes, len(sentences))
        report.sentences = [by_sentence[i] for i in sorted(by_sentence)]
        reports.append(report)
    return reports


def per_sentence_records(reports: Sequence[StackReport]) -> list[dict]:
    """One record per sentence and stack size (:data:`PER_SENTENCE_FIELDS`)."""
    return [{"stack_size": report.stack_size, "sentence_id": number, "decoder_scores": list(rerank.decoder_scores),
             "true_scores": list(rerank.true_scores)}
            for report in reports for number, rerank in enumerate(report.sentences)]


def write_markdown(path: Path, reports: Sequence[StackReport], provenance: dict, lengths: Sequence[int],
                   per_sentence: dict | None = None) -> None:
    summaries = [summary(r) for r in reports]
    taus = {r.stack_size: r.tau_by_length(lengths) for r in reports}
    n = reports[0].nbest
    provenance = dict(provenance)
    command = provenance.pop("command", "python -m core.experiments.seed000_reranking")
    lines = [
        "# Seed 000 §3: decoder n-best order vs true-score order",
        "",
        f"Reproduces Chevelu et al. (COLING 2010) §3 with our monotone beam decoder "
        f"(`core.engine.decoders.beam_decoder`, Moses settings: threshold 1e-5, 20 options per span, "
        f"α_Φ = α_LM = 1, α_W = 0) in place of MOSES. Each sentence's {n}-best distinct list is "
        f"reranked by the exact true score (Algorithm 1, `core.engine.model.truescore`).",
        "",
        "**Units.** Every score and score gap here is a base-10 log (log10 of a probability). The paper's "
        "MOSES scores are natural logs; its one such figure (the score gap) is converted here (÷ ln 10) and "
        "its ln value kept in brackets. τ_A and shares have no unit; times are wall-clock seconds.",
        "",
        "**True by construction.** A candidate's decoder score is the score of one of its derivations, so it "
        "is never above its true score (the best derivation's); with no pruning and no option limit the "
        "n-best order *is* the true-score order (τ_A = 1, tested). So every inversion counted below is a "
        "search error of the pruned decoder, which is what seed 000 §3 measures.",
        "",
        "Why the decoder can disagree with the true score at all: decoder and true score share one model "
        "(identity rules with probability 1 for every word, no reordering), and recombined hypotheses stay "
        "in the lattice as arcs, so a candidate's decoder score is below its true score only when its best "
        "derivation was pruned (histogram or threshold) or needs a rule outside the 20 options kept per span. "
        "Without pruning and option limit the n-best list is exactly the true-score ranking (tested). "
        "MOSES in the paper also reorders (distortion weight 10, not a ban) and scores known words only "
        "through the table's own self-paraphrase entries, so its model differs more from the true score's.",
        "",
        inputs_line(provenance),
        "",
        f"Command: `{command}`",
        "",
        "| | paper (MOSES) | " + " | ".join(f"stack {s['stack_size']}" for s in summaries) + " |",
        "|---|---|" + "---|" * len(summaries),
        f"| sentences with a full {n}-best list (the others are left out, as in the paper) | 94 / 100 | "
        + " | ".join(f"{s['full_lists']} / {s['sentences']}" for s in summaries) + " |",
        "| mean τ_A at 5-best | 0.73 ± 0.41 | "
        + " | ".join(_tau_cell(taus[s["stack_size"]], 5) for s in summaries) + " |",
        f"| mean τ_A at {n}-best | (Fig. 1) | "
        + " | ".join(_tau_cell(taus[s["stack_size"]], n) for s in summaries) + " |",
        "| candidates whose score changes | 32 % | "
        + " | ".join(_percent(s["changed_share"]) for s in summaries) + " |",
        "| 1-best no longer optimal | 18 % | "
        + " | ".join(_percent(s["not_optimal_share"]) for s in summaries) + " |",
        "| new rank of the old 1-best | 2.0 ± 17.7 (max 40) | "
        + " | ".join(_mean_sd(s["old_best_new_rank"]) for s in summaries) + " |",
        "| ... among those no longer optimal | 6.8 ± 12.9 | "
        + " | ".join(_mean_sd(s["old_best_new_rank_not_optimal"]) for s in summaries) + " |",
        "| old rank of the new 1-best | 4.4 ± 12.1 | "
        + " | ".join(_mean_sd(s["new_best_old_rank"]) for s in summaries) + " |",
        "| ... among changed 1-bests | 21.2 ± 23.5 (max 67) | "
        + " | ".join(_mean_sd(s["new_best_old_rank_changed"]) for s in summaries) + " |",
        f"| decoder score gap 1st - {n}th | {5.9 / LN10:.2f} ± {4.5 / LN10:.2f} (ln: 5.9 ± 4.5) | "
        + " | ".join(_mean_sd([round(g, 3) for g in s["gap_first_last"]]) for s in summaries) + " |",
        "| decoding + true scoring time | | " + " | ".join(
            f"{s['seconds']:.0f} s ({s['processes']} process{'es' if s['processes'] > 1 else ''})"
            for s in summaries) + " |",
        "",
        _widening_sentence(summaries, taus),
        "",
        "Standard deviations are population standard deviations over sentences. A pair tied in true "
        f"score (within {SCORE_TOLERANCE:g}) counts as neither preserved nor inverted. Figure: "
        "`seed000-reranking.png` (mean τ_A by n-best length, one line per stack size, like their Fig. 1).",
        "",
        "## Mean τ_A by n-best length",
        "",
        "| length | " + " | ".join(f"stack {s['stack_size']}" for s in summaries) + " |",
        "|---|" + "---|" * len(summaries),
    ]
    for length in (2, 3, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100):
        if length in lengths:
            lines.append(f"| {length} | " + " | ".join(_tau_cell(taus[s["stack_size"]], length)
                                                   for s in summaries) + " |")
    if per_sentence is not None:
        lines += ["", markdown_note(PER_SENTENCE, per_sentence, "one sentence's distinct n-best at one stack size")]
    lines += ["", *sample_lines(reports[0])]
    with atomic_output(path) as out:
        out.write("\n".join(lines) + "\n")


def sample_lines(report: StackReport, count: int = 3) -> list[str]:
    """A few sentences of the smallest stack whose 1-best is no longer optimal: old and new 1-best, with scores."""
    lines = [f"## Samples: the decoder's 1-best against the true-score 1-best (stack {report.stack_size})", ""]
    shown = 0
    for index, sentence in enumerate(report.sentences):
        if shown == count or not sentence.texts or sentence.best_still_optimal():
            continue
        new = sentence.reranked()[0]
        lines += [f"- sentence {index}: decoder 1-best (decoder {sentence.decoder_scores[0]:.3f}, true "
                  f"{sentence.true_scores[0]:.3f}): {sentence.texts[0]}",
                  f"  - true-score 1-best, decoder rank {new + 1} (decoder {sentence.decoder_scores[new]:.3f}, "
                  f"true {sentence.true_scores[new]:.3f}): {sentence.texts[new]}"]
        shown += 1
    if not shown:
        lines.append("Every 1-best is still optimal after reranking at this stack size.")
    return lines


def _percent(share: float) -> str:
    return "n/a" if share != share else f"{100 * share:.1f} %"


def _tau_cell(taus: dict, length: int) -> str:
    if length not in taus:
        return "n/a"
    mean, sd, _ = taus[length]
    return f"{mean:.3f} ± {sd:.2f}"


def _widening_sentence(summaries: list[dict], taus: dict) -> str:
    if len(summaries) < 2:
        return ""
    first, last = summaries[0], summaries[-1]
    parts = [
        f"From stack {first['stack_size']} to stack {last['stack_size']} the share of 1-bests no longer "
        f"optimal goes from {_percent(first['not_optimal_share'])} to {_percent(last['not_optimal_share'])}, "
        f"the share of changed scores from {_percent(first['changed_share'])} to {_percent(last['changed_share'])}"
    ]
    longest = max(taus[first["stack_size"]], default=None)
    a, b = taus[first["stack_size"]].get(longest), taus[last["stack_size"]].get(longest)
    if a and b:
        parts.append(f", and mean τ_A at {longest}-best from {a[0]:.3f} to {b[0]:.3f}")
    return "".join(parts) + "."


def write_plot(path: Path, reports: Sequence[StackReport], lengths: Sequence[int]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6.4, 4.0))
    for report in reports:
        taus = report.tau_by_length(lengths)
        xs = sorted(taus)
        axes.plot(xs, [taus[x][0] for x in xs], label=f"stack {report.stack_size} ({len(report.full())} sentences)")
    axes.set_xlabel("n-best paraphrase sequence size")
    axes.set_ylabel("mean Kendall τ_A")
    axes.set_title("Decoder order vs true-score order (seed 000, Fig. 1)")
    axes.grid(alpha=0.3)
    axes.legend()
    figure.tight_layout()
    with atomic_output(path, "wb") as out:
        figure.savefig(out, format="png", dpi=120, metadata={"Software": None})
    plt.close(figure)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m core.experiments.seed000_reranking",
                                     description="Seed 000 §3: rerank the beam decoder's 100-best by true score.")
    demo = (DEMO / "paraphrase-table.gz").exists()
    # Before the demo bundle exists, the full build's pivot table, 5-gram LM and test set.
    parser.add_argument("--table", default=str(DEMO / "paraphrase-table.gz" if demo else BUILD / "tables" / "paraphrase-table.gz"))
    parser.add_argument("--lm", default=str(DEMO / "lm.bin" if demo else BUILD / "lm" / "web.5gram.bin"))
    parser.add_argument("--input", default=str(DEMO / "test.en" if demo else BUILD / "corpus" / "test.web"),
                        help="tokenized sentences, one per line")
    parser.add_argument("--sentences", type=int, default=100, help="first N sentences of the input")
    parser.add_argument("--nbest", type=int, default=NBEST, help="distinct n-best size (paper: 100)")
    parser.add_argument("--stack-sizes", type=int, nargs="+", default=list(STACK_SIZES))
    parser.add_argument("--output-dir", default=str(RESULTS))
    parser.add_argument("--processes", type=int, default=None)
    args = parser.parse_args(argv)
    for label, value in (("table", args.table), ("LM", args.lm), ("input", args.input)):
        if not Path(value).is_file():
            print(f"error: {label} {value} not found", file=sys.stderr)
            return 1
    code_identity()  # read (and cached) now: the code that ran is the code as the run started
    lm = LanguageModel(args.lm)
    sentences = [tokens for tokens in read_token_lines(args.input) if tokens][: args.sentences]
    table = ParaphraseTable.load_for(args.table, sentences)
    reports = run(table, lm, sentences, args.stack_sizes, nbest=args.nbest, processes=args.processes)
    output = Path(args.output_dir)
    output.mkdir(parents=True, exist_ok=True)
    lengths = list(range(2, args.nbest + 1))
    command = " ".join(["python -m core.experiments.seed000_reranking", *(argv if argv is not None else sys.argv[1:])])
    provenance = {"command": command, "rules loaded": len(table), "table": args.table, "LM": args.lm, "input": f"{args.input} (first {len(sentences)})"}
    header = run_provenance("seed000-reranking", command, {"table": args.table, "lm": args.lm, "input": args.input},
                            PER_SENTENCE_FIELDS, nbest=args.nbest)
    write_per_sentence(output / PER_SENTENCE, header, per_sentence_records(reports))
    write_markdown(output / "seed000-reranking.md", reports, provenance, lengths, header)
    write_plot(output / "seed000-reranking.png", reports, lengths)
    print(f"wrote {output / 'seed000-reranking.md'} and seed000-reranking.png", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
