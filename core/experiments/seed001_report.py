"""The results file of :mod:`core.experiments.seed001_approaches`: Fig. 4.2, Fig. 4.3, §5.2 and the sign tests."""

from __future__ import annotations

import statistics
from collections import Counter
from pathlib import Path

from parastudio.core.engine.decoders.cat.approaches import (
    APPROACHES,
    PAPER_CASES,
    PAPER_FEEDBACK_SUCCESSES,
    PAPER_SUCCESSES,
)
from parastudio.core.experiments.per_sentence import markdown_note
from parastudio.core.experiments.seed001_accounting import (
    DEPARTURES,
    by_selection_length,
    readings_table,
    stage_table,
    tie_line,
    ties_table,
)
from parastudio.core.experiments.seed001_independent import comparison, independent_note, independent_rows, match_counts
from parastudio.core.experiments.seed001_per_case import (
    PER_SENTENCE,
    set_commands,
    set_inputs,
    set_settings,
    write_per_sentence_file,
)
from parastudio.core.experiments.seed001_variants import diagnostic_approaches
from parastudio.core.stats.significance import PairwiseTests
from parastudio.core.textio import atomic_output

LENGTH_GROUPS = ((1, 1), (2, 2), (3, 3), (4, 4), (5, 6), (7, 10), (11, 10_000))
FATES = ("shown", "ranked", "the selection itself", "dropped by", "not among K best", "not retrieved", "not in graph",
         "not aligned")


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "–"


def _fate_group(fate: str | None) -> str:
    fate = fate or ""
    for group in FATES:
        if fate.startswith(group):
            return group
    return fate or "?"


def _group_label(low: int, high: int) -> str:
    return str(low) if low == high else (f"{low}+" if high >= 10_000 else f"{low}-{high}")


def fig_4_2(result: dict) -> list[str]:
    cases = len(result["cases"])
    lines = [f"| approach | stages | successes of {cases} | share | paper, of {PAPER_CASES:,} | paper share | "
             "p95 ms |", "| --- | --- | --- | --- | --- | --- | --- |"]
    approaches = {**APPROACHES, **diagnostic_approaches()}
    for name, rows in result["results"].items():
        approach = approaches[name]
        stages = " / ".join(" ".join(n) or "–" for n in (approach.partial_filters, approach.score_functions,
                                                             approach.filters, approach.sorters))
        wins = sum(r.success for r in rows)
        paper = PAPER_SUCCESSES.get(name)
        times = sorted(r.seconds for r in rows)
        p95 = 1000 * times[min(len(times) - 1, int(0.95 * len(times)))] if times else 0.0
        label = name if name in APPROACHES else f"*{name}* (diagnostic)"
        lines.append(f"| {label} | {stages} | {wins} | {_percent(wins, cases)} | {paper if paper else ''} | "
                     f"{_percent(paper, PAPER_CASES) if paper else ''} | {p95:.1f} |")
    return lines


def fates_table(result: dict) -> list[str]:
    lines = ["| approach | " + " | ".join(FATES) + " |", "|---" * (len(FATES) + 1) + "|"]
    for name, rows in result["results"].items():
        counts = Counter(_fate_group(r.fate) for r in rows)
        lines.append(f"| {name} | " + " | ".join(str(counts.get(f, 0)) for f in FATES) + " |")
    return lines


def by_length_table(result: dict) -> list[str]:
    header = [_group_label(*g) for g in LENGTH_GROUPS]
    lines = ["| approach | " + " | ".join(header) + " |", "|---" * (len(header) + 1) + "|"]
    counts = [sum(1 for c in result["cases"] if low <= c.length <= high) for low, high in LENGTH_GROUPS]
    lines.append("| cases | " + " | ".join(str(n) for n in counts) + " |")
    for name, rows in result["results"].items():
        cells = []
        for (low, high), n in zip(LENGTH_GROUPS, counts):
            wins = sum(r.success for r in rows if low <= r.case.length <= high)
            cells.append(_percent(wins, n))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def why_paragraph(result: dict) -> list[str]:
    """Whether approach 10 beats approach 1 here, and where the difference comes from, in this run's figures."""
    from parastudio.core.engine.decoders.cat.function_words import content_words

    one, ten = result["results"].get("approach-1"), result["results"].get("approach-10")
    if not one or not ten:
        return []
    cases = len(result["cases"])
    fates_one = Counter(_fate_group(r.fate) for r in one)
    fates_ten = Counter(_fate_group(r.fate) for r in ten)
    wins_one, wins_ten = sum(r.success for r in one), sum(r.success for r in ten)
    dropped = [r for r in ten if (r.fate or "").startswith("dropped by FWPF")]
    # "dropped by" also holds the later filters (PTRF, FNRF, SBRF): the partial filters' losses are apart.
    partial = sum(1 for r in ten if (r.fate or "").split(" (")[0] in
                  {f"dropped by {stage}" for stage in APPROACHES["approach-10"].partial_filters})
    later = fates_ten["dropped by"] - partial
    function_only = sum(1 for r in dropped if not content_words(r.case.gold))
    lost_before = fates_one["not in graph"] + fates_one["not retrieved"]
    verdict = "beats" if wins_ten > wins_one else "does not beat"
    spellable = result.get("spellable")
    table_line = [] if not spellable else [
        f"- The translation table can spell {sum(spellable.values())} golds ({_percent(sum(spellable.values()), cases)}) "
        "from the selection's source words (any monotone segmentation): what a decoder could at best put in "
        "the graph. The rest of this list is about the graph, not the data."]
    return [f"Approach 10 {verdict} approach 1 on this set ({wins_ten} against {wins_one} of {cases}; the paper: 691 "
            "against 135). Where the cases go:", "", *table_line,
            f"- {fates_one['not in graph']} golds ({_percent(fates_one['not in graph'], cases)}) are in no chain of "
            f"hypotheses of the graph inside the selection's coverage, and {fates_one['not retrieved']} more "
            f"({_percent(fates_one['not retrieved'], cases)}) are in the graph but not on the spans §3.4.2's retrieval "
            f"queries: {lost_before} cases ({_percent(lost_before, cases)}) no approach can solve with these graphs, the "
            "same for all ten.",
            f"- In approaches 2 to 10 a partial filter drops the gold in {partial} cases, {len(dropped)} "
            "of them FWPF: the gold differs from a better-scored partial of its span only in function words "
            f"(\"the cattle\" against \"cattle\"), as FWPF's definition has it; {function_only} of those golds are "
            "function words only (\"he\", \"but\", \"had\"). The round trip changes function words often; how often "
            "the thesis's own cases did was not measured here, so no claim is made that they did less."
            + (f" In approach 10, SBRF drops {later} more after ranking." if later else ""),
            f"- The sorters can only reorder what the filters leave: in approach 10 the gold is a suggestion beyond the "
            f"top 5 in {fates_ten['ranked']} cases, so LMBS and CDBS have that many to win; in approach 1, "
            f"{fates_one['ranked']}.", tie_line(one, ten), DEPARTURES, ""]



def feedback_table(result: dict) -> list[str]:
    cases = len(result["cases"])
    lines = ["| approach | without feedback | with feedback (§5.2) | paper without | paper with |",
             "| --- | --- | --- | --- | --- |"]
    for name, rows in result["feedback"].items():
        plain = sum(r.success for r in result["results"][name])
        wins = sum(r.success for r in rows)
        lines.append(f"| {name} | {plain} ({_percent(plain, cases)}) | {wins} ({_percent(wins, cases)}) | "
                     f"{PAPER_SUCCESSES[name]} | {PAPER_FEEDBACK_SUCCESSES[name]} |")
    return lines


# Seed 001 §4.1.2 compares the approaches with exact sign tests at 0.05; Holm's correction over all pairs is ours.
SIGN_TESTS = PairwiseTests("sign", "holm")


def sign_tests(result: dict) -> tuple[list[str], list]:
    """The pairwise sign-test table, described and signed by :data:`SIGN_TESTS`, the object that computes it."""
    scores = {name: {r.case.id: float(r.success) for r in rows}
              for name, rows in result["results"].items() if name in APPROACHES}
    comparisons = SIGN_TESTS.compare(scores)
    names = list(scores)
    p = {(c.system_a, c.system_b): c for c in comparisons}
    short = [n.replace("approach-", "") for n in names]
    cases = len({case for by_case in scores.values() for case in by_case})
    settings = SIGN_TESTS.settings()
    lines = [f"Sign test per pair over cases ({settings['test']}, ties {settings['ties']}): p, with `*` where "
             f"p < 0.05 (the paper's criterion) and `†` where the p adjusted by {settings['correction']} < 0.05 over "
             f"the {len(comparisons)} pairs. Signature: "
             f"`{SIGN_TESTS.signature(cases, 0, unit='case', score='success-in-top-5')}`.", "",
             "| | " + " | ".join(short) + " |", "|---" * (len(names) + 1) + "|"]
    for a in names:
        cells = []
        for b in names:
            comparison = p.get((a, b)) or p.get((b, a))
            if comparison is None:
                cells.append("")
                continue
            mark = ("*" if comparison.p_value < 0.05 else "") + ("†" if comparison.p_holm < 0.05 else "")
            cells.append(f"{comparison.p_value:.2g}{mark}")
        lines.append(f"| {a.replace('approach-', '')} | " + " | ".join(cells) + " |")
    return lines + ["", compare_with_paper(comparisons)], comparisons


# Seed 001 §4.1.2: at 0.05 only these pairs were not significantly different; every other pair was.
PAPER_NOT_DIFFERENT = (("approach-2", "approach-3"), ("approach-4", "approach-6"))


def compare_with_paper(comparisons) -> str:
    """One sentence setting our pairwise sign tests beside the paper's finding."""
    different = {frozenset((c.system_a, c.system_b)) for c in comparisons if c.p_value < 0.05}
    names = list(dict.fromkeys(n for c in comparisons for n in (c.system_a, c.system_b)))
    paper = ("Seed 001 (§4.1.2, p < 0.05) found every pair of approaches significantly different except 2–3 and "
             "4–6. ")
    if not comparisons:
        return paper.strip()
    if not different:
        return paper + "Here no pair differs (p ≥ 0.05 for all)."
    # The approaches that differ from every other one, and whether the rest are indistinguishable among themselves.
    apart = [n for n in names if all(frozenset((n, m)) in different for m in names if m != n)]
    rest = [n for n in names if n not in apart]
    among_rest = [c for c in comparisons if c.system_a in rest and c.system_b in rest]
    short = ", ".join(n.replace("approach-", "") for n in apart)
    if apart and among_rest and not any(frozenset((c.system_a, c.system_b)) in different for c in among_rest):
        low = min(c.p_value for c in among_rest)
        why = (": on these cases the filters, scores and sorters beyond approach 1 change which cases succeed "
               "too rarely for a sign test to separate them") if apart == ["approach-1"] else ""
        return (paper + f"Here only the pairs with approach {short} differ; approaches "
                f"{', '.join(n.replace('approach-', '') for n in rest)} are indistinguishable from one another "
                f"(p ≥ {low:.2g}){why}.")
    same = sorted(f"{c.system_a.replace('approach-', '')}–{c.system_b.replace('approach-', '')}"
                  for c in comparisons if frozenset((c.system_a, c.system_b)) not in different)
    return paper + f"Here {len(different)} of {len(comparisons)} pairs differ; not different: {', '.join(same)}."


def samples(result: dict, count: int = 6) -> list[str]:
    """Cases where approach 1 and 10 differ first, then others: sentence, span, gold, both lists."""
    one, ten = result["results"].get("approach-1", []), result["results"].get("approach-10", [])
    pairs = list(zip(one, ten))
    pairs.sort(key=lambda pair: (pair[0].success == pair[1].success, pair[0].case.length))
    lines = []
    for first, last in pairs[:count]:
        case = first.case
        words = list(case.sentence)
        selection = " ".join(words[case.span[0]:case.span[1]])
        lines.append(f"- `{case.id}`: …{' '.join(words[max(0, case.span[0] - 4):case.span[0]])} "
                     f"**{selection}** {' '.join(words[case.span[1]:case.span[1] + 4])}… — gold "
                     f"“{' '.join(case.gold)}”")
        for label, row in (("approach 1", first), ("approach 10", last)):
            shown = "; ".join(row.shown) or "(none)"
            lines.append(f"  - {label} ({'success' if row.success else row.fate}): {shown}")
    return lines


def plot(sets: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    columns = min(len(sets), 3)  # wider than three panels and a page shows them too small to read
    rows_of_panels = -(-len(sets) // columns)
    figure, axes = plt.subplots(rows_of_panels, columns, figsize=(6.5 * columns, 4.2 * rows_of_panels),
                                squeeze=False)
    for axis in axes.flat[len(sets):]:
        axis.set_visible(False)
    for axis, result in zip(axes.flat, sets):
        counts = [sum(1 for c in result["cases"] if low <= c.length <= high) for low, high in LENGTH_GROUPS]
        labels = [f"{_group_label(*g)}\nn={n}" for g, n in zip(LENGTH_GROUPS, counts)]
        for name in ("approach-1", "approach-4", "approach-7", "approach-10", "approach-10, all spans"):
            rows = result["results"].get(name)
            if not rows:
                continue
            rates = [100 * sum(r.success for r in rows if low <= r.case.length <= high) / n if n else 0
                     for (low, high), n in zip(LENGTH_GROUPS, counts)]
            axis.plot(labels, rates, marker="o", label=name, linestyle="--" if "," in name else "-")
        axis.set_title(result["name"])
        axis.set_xlabel("selected phrase length (tokens); n = cases")
        axis.set_ylabel("cases solved in the top 5 (%)")
        axis.grid(alpha=0.3)
        axis.legend(fontsize=7)
    figure.suptitle("Success by phrase length (seed 001 Fig. 4.3)")
    figure.tight_layout()
    with atomic_output(path, "wb", encoding=None) as handle:
        figure.savefig(handle, format="png", dpi=110, metadata={"Software": None})
    plt.close(figure)


def moses_section(moses: dict | None) -> list[str]:
    if not moses:
        return []
    lines = ["## A real Moses search graph", "",
             f"The Moses decoder (built from moses-smt/mosesdecoder, never shipped; settings in "
             f"`tests/data/moses/README.md`) translated the round trip's {moses['sentences']} Spanish test sentences "
             f"with our model and stack size; its graph (`{moses['graph']}`, {moses['hypotheses']:,} lines, natural-log "
             f"scores) loaded into a store in {moses['load_seconds']:.1f} s, with its own `-report-segmentation` "
             f"output. Its 1-best is our 1-best, word for word, for {moses['same_one_best']} of {moses['sentences']} "
             "sentences. The bundled cases asked of both graphs:", "",
             "| approach | successes, our graph | successes, Moses' graph | identical top-5 lists | errors |",
             "| --- | --- | --- | --- | --- |"]
    for name, row in moses["rows"].items():
        lines.append(f"| {name} | {row['ours']} | {row['moses']} | {row['same_lists']} of {moses['cases']} | "
                     f"{row['moses_errors']} |")
    lines += ["", "The lists differ where the two decoders kept different hypotheses at stack 10 (pruning among equal "
              "scores) and where FSM paths tie; the scores' base does not matter (SDSF is a ratio, BFSF a string "
              "distance, LMSF and LMBS use our LM).", ""]
    return lines


def graph_note(sets: list[dict]) -> list[str]:
    """Which graphs each set's figures stand on, against the thesis's stack 5,000 with 100 options (§4.1.1)."""
    from parastudio.core.evaldata.translation_stages import ROUNDTRIP

    if not sets:
        return []
    lines = ["**Graph size.** Rustamli's graphs were decoded at stack 5,000 with 100 translation options per span "
             "(§4.1.1). Each set below says which graphs it stands on:", ""]
    for result in sets:
        size = set_settings(result)
        if size is None:
            lines.append(f"- {result['name']}: the data build's `roundtrip` stage (or the bundled demo's), stack "
                         f"{ROUNDTRIP['second_pass_stack']} with {ROUNDTRIP['option_limit']} options per span"
                         + ("." if "demo" in result["name"] else
                            " (rebuilt by `parastudio data build --stages roundtrip` after the stages it reads)."))
        else:
            lines.append(f"- {result['name']}: stack {size['stack']} with {size['options']} options per span, "
                         f"{every_nth(size['every'])} of the part ({size['sentences']} of "
                         f"{size['of_sentences']}), decoded again by `benchmarks/decode_thesis_graphs.py` with the "
                         f"build's table and LM ({size['decode_seconds'] / 60:.0f} minutes of decoding summed over "
                         f"{_shards(size['processes'])}, {size['peak_mb']:.0f} MB peak, graph "
                         f"{size['graph_mb']:.0f} MB gzip)"
                         + (", its round-trip cases made from this graph's 1-best as the build makes them from its "
                            "own." if "roundtrip" in size else ".")
                         + f" Rebuilt (not committed: {size['graph_mb']:.0f} MB) by {decode_commands(result, size)}.")
    if any((set_settings(result) or {}).get("stack", 0) >= 200 for result in sets):
        lines += ["", "Stack 200 with 100 options stands in for the thesis's size: our decoder's graph stops growing "
                  "above stack 1,000 (recombination keeps the stacks below 1,000 hypotheses), and on the sentences "
                  "measured stacks 1,000 and 5,000 hold no gold that stack 200 does not (`docs/BENCHMARKS.md`, "
                  "\"Seed 001: larger stacks measured\")."]
    lines += ["", "`docs/BENCHMARKS.md` (\"Seed 001: round-trip graphs toward the thesis's size\") measures stacks "
              "1,000 and 5,000 on a few sentences: what the thesis's size would cost here and whether the counts "
              "still move.", ""]
    return lines


def _shards(count: int) -> str:
    """How the decoding was split (``settings.json``'s ``processes`` counts the shards, each its own process)."""
    return "1 process" if count == 1 else f"{count} shards, one process each"


def decode_commands(result: dict, size: dict) -> str:
    """The commands that decode a larger set's graph again into ``--graphs``' folder (its shards, then the merge)."""
    part = "test" if "(test," in result["name"] else "dev"
    common = (f"python3 benchmarks/decode_thesis_graphs.py --part {part} --every {size['every']} --stack "
              f"{size['stack']} --options {size['options']}" + (" --direct" if result["name"].startswith("webkjv")
                                                                 else "") + " --out DIR")
    shards = size["processes"]
    if shards == 1:
        return f"`{common}`"
    return " and ".join(f"`{common} --shard {i}/{shards}`" for i in range(shards)) + \
        f" (one process each), then `{common} --merge {shards}`"


def made_by(sets: list[dict], command: str, seconds: float, then: str) -> list[str]:
    """The command that made the file, or, for sets run separately (``--save-sets``), each set's command and the
    one that joined them (``--from-sets``)."""
    commands = set_commands(sets, command)
    if set(commands.values()) == {command}:
        return [f"Made by `{command}` in {seconds / 60:.1f} minutes. {then}"]
    lines = ["Made by one command per set, each run beside the others and saving its sets (`--save-sets`):", ""]
    for result in sets:
        count = result.get("shards", {}).get("of", 1)
        shards = f" summed over {count} shards" if count > 1 else ""
        minutes = f" ({result['elapsed'] / 60:.1f} minutes{shards})" if "elapsed" in result else ""
        lines.append(f"- {result['name']}: `{commands[result['name']]}`{minutes}")
    return lines + ["", f"then written into this file by `{command}`. {then}"]


def lm_names(header: dict) -> str:
    """The LM file the sets ran with (each set's, where they differ)."""
    names = list(dict.fromkeys(Path(lm["path"]).name for lm in header["inputs"]["lm"] if lm))
    return ", ".join(f"`{name}`" for name in names) or "none"


def every_nth(n: int) -> str:
    return "every sentence" if n == 1 else f"every {n}{ {2: 'nd', 3: 'rd'}.get(n, 'th')} sentence"


def write_report(sets: list[dict], out: Path, *, command: str, lm: Path, seconds: float,
                 moses: dict | None = None, independent: list[dict] = ()) -> list[Path]:
    """The results file, its plot and per-case records; ``independent``: the counter's files
    (:func:`core.experiments.seed001_independent.read_counter_file`), each shown beside the set it counted."""
    recorded = [set_inputs(result, lm) for result in sets]  # older sets' files are hashed here, once
    counts = match_counts(sets, recorded, list(independent)) if independent else {}
    out.mkdir(parents=True, exist_ok=True)
    markdown, png = out / "seed001-approaches.md", out / "seed001-approaches.png"
    plot(sets, png)
    header = write_per_sentence_file(sets, out, command=command, recorded=recorded)
    lines = ["# Seed 001: the ten approaches on round-trip test cases (Fig. 4.2, 4.3, §5.2)", "",
             *made_by(sets, command, seconds, f"LM for LMSF and LMBS: {lm_names(header)}."), "",
             "**Units.** A case is one difference between an original English verse and its round trip (or the KJV "
             "wording, for the WEB-KJV set); a *success* is a case whose gold words (lowercase, punctuation removed, "
             "as PTPF removes it from every suggestion) are exactly one of the top 5 suggestions. Shares are of the "
             "set's cases. Times are milliseconds per request on this 2-core machine, two requests at a time.", "",
             "**True by construction.** The selection itself is never a suggestion (Fig. 4.4 shows it apart), and a "
             "case's gold always differs from its selection, so no case succeeds by echoing the input. A round-trip "
             "case's sentence is its graph's 1-best, so its selection aligns exactly; a WEB-KJV case's sentence is "
             "another translation, aligned by the fuzzy aligner. The diagnostic rows are not the paper's approaches.",
             "", *graph_note(sets)]
    for result in sets:
        cases = result["cases"]
        record = counts.get(result["name"])
        counted, differences = comparison(result, record) if record else (None, [])
        lengths = [c.length for c in cases]
        lines += [f"## {result['name']}: {len(cases)} cases", "",
                  f"Cases from `{Path(result['cases_file']).name}`, graphs from `{Path(result['graph']).name}`; "
                  f"phrase length mean {statistics.mean(lengths):.1f} tokens, median {statistics.median(lengths):g}.",
                  "", "### Fig. 4.2: successes per approach", "", *fig_4_2(result), "", *why_paragraph(result),
                  "### Where each gold was lost (first stage that lost it)", "", *fates_table(result), "",
                  "### Stage counts: golds that survive each stage", "",
                  "Each count is of the golds that passed that stage and every one before it (a success passes "
                  "all); *spellable by the table* is apart: whether the Spanish -> English table can spell the "
                  "gold from the selection's source words at all.", "",
                  *stage_table(result, counted and (lambda columns, counted=counted: independent_rows(counted, columns))), "",
                  *independent_note(result, record, differences),
                  "### Fig. 4.2 by selection length (tokens; the thesis's queries are 2-3 words)", "",
                  "Successes (share of the group's cases); the italic rows are golds spellable by the table, in the "
                  "graph and retrieved (approach 1's retrieval, §3.4.2, the same for the ten).", "",
                  *by_selection_length(result), "",
                  "### Ties at the top-5 cut", "",
                  "A tie at the cut: the 5th and 6th suggestions have exactly equal scores on the key the list was "
                  "sorted by (`tie_order` then decides, not spelling); the last column is the successes had every "
                  "such tie been broken the other way.", "", *ties_table(result), "",
                  "### The other readings", "",
                  "Ours: SDSF as its text describes it (`min(|s| / (2 |t|), 1)`: higher when the target's step costs "
                  "less), FWPF and FNRF with the closed-class function words. The others: Equation 3.7 as the "
                  "extracted letters print it (`min(|t| / (2 |s|), 1)`), and NLTK's 2013 English stopword list "
                  "(127 words) that §3.4.4.1 names. Successes and, in brackets, golds FWPF drops; \"same\": the "
                  "reading does not touch that approach's stages.", "", *readings_table(result), "",
                  "### Fig. 4.3: success by phrase length", "", f"![success by length]({png.name})", "",
                  *by_length_table(result), ""]
        if result["feedback"]:
            lines += ["### §5.2: with feedback", "", *feedback_table(result), ""]
        table, _ = sign_tests(result)
        lines += ["### Sign tests between the approaches", "", *table, "",
                  "### Sample outputs (approach 1 against approach 10; cases where they differ first)", "",
                  *samples(result), ""]
    lines += moses_section(moses)
    lines += ["## Fig. 4.5: the manual evaluation", "",
              "Fig. 4.5 (per approach and judge, the cases whose chosen paraphrase was an offered option, and the "
              "unified score) comes from judges, not from this run: a choice study (`parastudio study create NAME "
              "--criteria choice`, 4 judges per task by default; tasks with their approach as `system`, e.g. sent "
              "from the Suggestions screen), judged with preview-then-Accept and §4.2.1's auto-skip, then "
              "`parastudio report STUDY.sqlite --format md` (its `seed001_fig4_5` table, the paper's figures in its "
              "note; `docs/CLI.md`, \"Choice studies\"). `tests/test_choice_tasks_fig45.py` and "
              "`tests/test_choice_auto_skip.py` check it end to end.", ""]
    lines += [markdown_note(PER_SENTENCE, header, "one case under one approach, with or without feedback"), ""]
    with atomic_output(markdown) as handle:
        handle.write("\n".join(lines) + "\n")
    return [markdown, png, out / PER_SENTENCE]
