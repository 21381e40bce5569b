"""Our beam decoder against the real Moses decoder: sentences/s, peak memory, identical 1-best (and n-best) lists.

Both decoders run as child processes that read one tokenized sentence per line
on stdin and print its 1-best on stdout; the parent feeds them the same
sentence in turn (interleaved: the one that goes first alternates), so a
change in machine load hits both alike. Per sentence it measures the wall time
from writing the line to reading the 1-best, i.e. decoding only: each side has
loaded its models and answered one untimed warm-up sentence (the first of the
input) before the first timed one. "start s" is the time from starting the
process to that first answer; "process s" adds the timed sentences and the exit
(the whole process, without the time it waited for the other decoder).
"sent/CPU s" counts the sentences per second of the child's own CPU time while
decoding them (/proc/PID/stat), which other processes on a shared machine do
not disturb. Peak memory is each child's VmHWM at the end.

The setting is the one of issue 17: monotone, stack 200 (``--stack``), beam
threshold 1e-5, 20 options per span, one thread each, the pivot table filtered
to the input, the demo LM. The filtered table is written once (cached under
``--work``) with a pass-through rule ``w ||| w ||| 1`` for every input word:
Moses needs them to keep a word unchanged, as our identity options do (ours
merges them with its identity options, so both decode the same model). Ours
opens the table's binary form (``parastudio table binarize``, written with
it); Moses reads the text (PhraseDictionaryMemory), its own default. The
moses.ini weighs the table's probability and the LM by 1, the word penalty and
distortion by 0: Moses' scores are then ours times ln 10. With ``--nbest N``
both also write distinct N-best lists (Moses ``-n-best-list FILE N distinct``);
it prints how many lists are identical, how many hold the same strings with
the same scores rank by rank (within 1e-4 nats: Moses sums in single
precision, so entries whose scores tie may come in another order), and, rank
by rank, how often ours scores better or worse than Moses' entry of the same
rank and the mean model score (nats) at some ranks. Moses prints a sentence's 1-best
before it extracts its n-best list, so part of that work falls outside its
wall time per sentence (not outside its CPU time).

    python benchmarks/bench_vs_moses.py [--sets demo dev | --input FILE] [--limit 100] [--stack 200] [--nbest 1]
        [--moses PATH [--moses-ini INI]] [--record]

Two sets, measured one after the other and printed side by side at the end: ``demo``, the demo's 100 test
verses (the decoder's fixes were checked on them), and ``dev``, the first 100 verses of the data build's dev
split in its order (``evaldata/build/corpus/dev.web``, from ``parastudio data build``), which no fix was tuned
on. Each set gets the full table filtered to it.

``--record`` appends the figures to ``benchmarks/history/bench_vs_moses.jsonl`` with the commit, the machine and
the inputs by sha256; ``python3 benchmarks/history.py`` prints the change since the previous commit.

Without ``--moses`` it prints ours alone. ``--moses`` without ``--moses-ini``
writes a moses.ini for the filtered table next to it. Building Moses: see
docs/BENCHMARKS.md. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEMO = ROOT / "evaldata" / "demo"
FULL_TABLE = ROOT / "evaldata" / "build" / "tables" / "paraphrase-table.gz"
# The demo's test verses, and a second set no fix was tuned on: the data build's dev split (its first --limit).
SETS = {"demo": DEMO / "test.en", "dev": ROOT / "evaldata" / "build" / "corpus" / "dev.web"}
OPTION_LIMIT = 20
BEAM_THRESHOLD = 1e-5  # Moses' default -beam-threshold, ours too


def default_table() -> Path:
    return FULL_TABLE if FULL_TABLE.is_file() else DEMO / "paraphrase-table.gz"


def filtered_table(table: Path, sentences: list[tuple[str, ...]], work: Path, lm: Path) -> Path:
    """The rules whose source occurs in the input, one line per distinct (source, target), plus pass-through rules;
    per source phrase only those ours keeps (its 20 best by estimate, the pass-through rule beside them).

    Ours keeps a word's pass-through rule (its identity option) outside the 20 options per span; Moses counts it
    among them (``table-limit``). Kept to what ours uses, with ``table-limit`` one above, Moses has the same options.
    """
    from parastudio.core.engine.lm.language_model import LanguageModel
    from parastudio.core.engine.model.translation_options import OptionCache
    from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
    from parastudio.core.engine.tables.rules import Rule

    stat = table.stat()
    key = hashlib.sha256(("\n".join(" ".join(s) for s in sentences) + f"|{table.resolve()}|{stat.st_size}|"
                          f"{stat.st_mtime_ns}|{Path(lm).resolve()}|limited {OPTION_LIMIT}").encode()).hexdigest()[:16]
    path = work / f"filtered-{key}.txt"
    if path.is_file() and Path(str(path) + ".pstable").is_file():
        return path
    loaded = ParaphraseTable.load_for(table, sentences)
    best: dict[tuple[tuple[str, ...], tuple[str, ...]], float] = {}
    for source in sorted(loaded.sources()):
        for rule in loaded.rules_for(source):
            pair = (rule.source, rule.target)
            best[pair] = max(best.get(pair, 0.0), rule.prob)
    for sentence in sentences:
        for word in sentence:
            best[((word,), (word,))] = 1.0  # pass-through: probability 1, as our identity options
    merged = ParaphraseTable(Rule(source, target, prob) for (source, target), prob in sorted(best.items()))
    merged.sort()
    options = OptionCache(merged, LanguageModel(lm), limit=OPTION_LIMIT)
    kept = {(source, option.target) for source in merged.sources()
            for option in options.ranked(source, merged.rules_for(source))}
    temporary = path.with_suffix(".tmp")
    with open(temporary, "w", encoding="utf-8") as out:
        for (source, target), prob in sorted(best.items()):
            if (source, target) in kept or (len(source) == 1 and source == target):
                out.write(f"{' '.join(source)} ||| {' '.join(target)} ||| {prob!r}\n")
    os.replace(temporary, path)
    ParaphraseTable.binarize(path)  # ours opens its binary form (parastudio table binarize); Moses reads the text
    return path


def write_moses_ini(path: Path, table: Path, lm: Path, order: int) -> Path:
    path.write_text(f"""# Written by benchmarks/bench_vs_moses.py: our beam decoder's model for Moses.
[input-factors]
0

[mapping]
0 T 0

[distortion-limit]
0

[feature]
UnknownWordPenalty
WordPenalty
Distortion
PhraseDictionaryMemory name=TranslationModel0 num-features=1 path={table} input-factor=0 output-factor=0 table-limit={OPTION_LIMIT + 1}
KENLM name=LM0 factor=0 path={lm} order={order}

[weight]
UnknownWordPenalty0= 1
WordPenalty0= 0
Distortion0= 0
TranslationModel0= 1
LM0= 1
""", encoding="utf-8")
    return path


OUR_WORKER = """
import sys
sys.path.insert(0, {root!r})
from parastudio.core.engine.decoders.beam_decoder import BeamDecoder, DecoderSettings
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
decoder = BeamDecoder(ParaphraseTable.load({table!r}), LanguageModel({lm!r}),
                      DecoderSettings(stack_size={stack}, beam_threshold={threshold!r}), core={core!r})
decoder.prepare()  # options scored and ranked while loading, as Moses does with its table
print("ready", decoder.core, flush=True)
nbest = open({nbest_file!r}, "w", encoding="utf-8") if {nbest!r} > 1 else None
for number, line in enumerate(sys.stdin):
    entries = decoder.decode(tuple(line.split())).nbest({nbest!r})
    if nbest is not None:
        nbest.writelines(f"{{number}} ||| {{entry.text}} ||| {{entry.score!r}}\\n" for entry in entries)
    sys.stdout.write((entries[0].text if entries else "") + "\\n")
    sys.stdout.flush()
if nbest is not None:
    nbest.close()
"""


class Child:
    """A decoder process fed one sentence at a time."""

    def __init__(self, name: str, command: list[str], ready_line: bool, warm_up: str):
        self.name = name
        self.started = time.perf_counter()
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.detail = self.process.stdout.readline().strip() if ready_line else ""
        self.seconds: list[float] = []
        self.outputs: list[str] = []
        self.decode(warm_up)  # untimed: the first sentence of the input, again below
        self.seconds.clear()
        self.outputs.clear()
        self.start_seconds = time.perf_counter() - self.started
        self.start_cpu = self.cpu_seconds()
        self.decode_cpu = float("nan")
        self.process_seconds = float("nan")
        self.peak = float("nan")

    def decode(self, sentence: str) -> None:
        started = time.perf_counter()
        self.process.stdin.write(sentence + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        self.seconds.append(time.perf_counter() - started)
        if not line:
            raise SystemExit(f"{self.name} exited before answering")
        self.outputs.append(" ".join(line.split()))

    def cpu_seconds(self) -> float:
        """User + system CPU time so far (/proc/PID/stat): unlike wall time, untouched by other processes."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def peak_mib(self) -> float:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def close(self) -> None:
        self.peak = self.peak_mib()
        self.decode_cpu = self.cpu_seconds() - self.start_cpu
        started = time.perf_counter()
        self.process.stdin.close()
        self.process.wait(timeout=120)
        # Its own time only: the time it waited while the other decoder worked is not counted.
        self.process_seconds = self.start_seconds + sum(self.seconds) + time.perf_counter() - started


def read_nbest(path: Path, sentences: int, scale: float = 1.0) -> list[list[tuple[str, float]]]:
    """Per sentence, the n-best (string, score) pairs in order: lines 'id ||| text ||| ... ||| score' (Moses:
    features, then the total in nats) or 'id ||| text ||| score' (ours, log10: ``scale`` = ln 10 makes nats)."""
    lists: list[list[tuple[str, float]]] = [[] for _ in range(sentences)]
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            fields = line.split(" ||| ")
            lists[int(fields[0])].append((" ".join(fields[1].split()), scale * float(fields[-1])))
    return lists


def moses_tolerance(moses_score: float) -> float:
    """How far a score Moses printed may be from the exact one: Moses sums in single precision (1e-4 here at
    most, the issue's allowance) and prints six significant digits (-117.790: a unit of 0.001)."""
    printed_unit = 10.0 ** (math.floor(math.log10(abs(moses_score))) - 5) if moses_score else 0.0
    return 1e-4 + printed_unit


def same_up_to_ties(mine: list[tuple[str, float]], theirs: list[tuple[str, float]]) -> bool:
    """The same strings, and at every rank the same score within :func:`moses_tolerance`: the lists can then
    differ only in the order of entries whose scores tie."""
    return ({text for text, _ in mine} == {text for text, _ in theirs} and len(mine) == len(theirs)
            and all(abs(a - b) <= moses_tolerance(b) for (_, a), (_, b) in zip(mine, theirs)))


def compare_nbest(mine: list[list[tuple[str, float]]], theirs: list[list[tuple[str, float]]], n: int) -> dict:
    """Identical lists, and rank by rank the model scores (nats) of ours against Moses'; the figures to record."""
    import history

    identical = sum([t for t, _ in a] == [t for t, _ in b] for a, b in zip(mine, theirs))
    tied = sum(same_up_to_ties(a, b) for a, b in zip(mine, theirs))
    shared = statistics.fmean(len({t for t, _ in a} & {t for t, _ in b}) / max(1, len(b))
                              for a, b in zip(mine, theirs))
    print(f"identical {n}-best lists: {identical} / {len(theirs)}; the same up to the order of entries whose "
          f"scores tie (within Moses' precision, 1e-4 + its printed digits): {tied} / {len(theirs)}; "
          f"mean share of Moses' entries also in ours: {shared:.3f}; entries ours / Moses: {sum(map(len, mine))} / {sum(map(len, theirs))}")
    better = worse = 0
    differences: list[float] = []
    by_rank: dict[int, tuple[list[float], list[float]]] = {}
    for a, b in zip(mine, theirs):
        for rank, ((_, ours), (_, moses)) in enumerate(zip(a, b)):
            differences.append(ours - moses)
            better += ours > moses + moses_tolerance(moses)
            worse += ours < moses - moses_tolerance(moses)
            by_rank.setdefault(rank, ([], []))[0].append(ours)
            by_rank[rank][1].append(moses)
    figures = {f"identical {n}-best lists": history.figure(identical, f"of {len(theirs)}", history.HIGHER),
               f"{n}-best lists equal up to ties": history.figure(tied, f"of {len(theirs)}", history.HIGHER)}
    if not differences:
        return figures
    figures["ranks where ours scores worse than Moses"] = history.figure(worse, f"of {len(differences)}",
                                                                         history.LOWER)
    print(f"rank by rank (model score, nats; ranks both lists have): ours better on {better}, worse on {worse}, "
          f"tied within Moses' precision on {len(differences) - better - worse} of {len(differences)}; mean ours - Moses "
          f"{statistics.fmean(differences):+.4f}")
    print(f"  {'rank':>5} {'sentences':>9} {'mean ours':>10} {'mean Moses':>11} {'ours - Moses':>13}")
    for rank in sorted({0, 1, 4, 9, 24, 49, 74, n - 1} & set(by_rank)):
        ours, moses = by_rank[rank]
        print(f"  {rank + 1:>5} {len(ours):>9} {statistics.fmean(ours):>10.4f} {statistics.fmean(moses):>11.4f} "
              f"{statistics.fmean(ours) - statistics.fmean(moses):>+13.4f}")
    return figures


def our_figures(ours: Child, sentences: int) -> dict:
    import history

    figures = {"ours sentences per second (decoding, wall)": history.figure(sentences / sum(ours.seconds),
                                                                            "sentences/s", history.HIGHER),
               "ours peak memory": history.figure(ours.peak, "MiB", history.LOWER),
               "ours start": history.figure(ours.start_seconds, "s", history.LOWER)}
    if ours.decode_cpu >= 0.05:
        figures["ours sentences per CPU second (decoding)"] = history.figure(sentences / ours.decode_cpu,
                                                                             "sentences/CPU s", history.HIGHER)
    return figures


def moses_figures(ours: Child, moses: Child, sentences: int, same: int) -> dict:
    import history

    figures = {"identical 1-best": history.figure(same, f"of {sentences}", history.HIGHER),
               "ours/Moses decoding (wall)": history.figure(sum(moses.seconds) / sum(ours.seconds), "x",
                                                            history.HIGHER)}
    if min(ours.decode_cpu, moses.decode_cpu) >= 0.05:
        figures["ours/Moses decoding (CPU)"] = history.figure(moses.decode_cpu / ours.decode_cpu, "x",
                                                              history.HIGHER)
    return figures


def _ours_relaxed(filtered: Path, lm: str, sentences: list[str], stack: int, threshold: float, nbest: int,
                  work: Path) -> list[list[tuple[str, float]]]:
    """Our n-best lists of ``sentences`` decoded with other pruning settings (nats)."""
    nbest_file = work / f"nbest-ours-relaxed-{stack}-{threshold}.txt"
    script = OUR_WORKER.format(root=str(ROOT), table=str(filtered), lm=lm, stack=stack, core="auto",
                               nbest=max(2, nbest), nbest_file=str(nbest_file), threshold=threshold)
    child = Child("ours relaxed", [sys.executable, "-c", script], ready_line=True, warm_up=sentences[0])
    for sentence in sentences:
        child.decode(sentence)
    child.close()
    return read_nbest(nbest_file, len(sentences) + 1, math.log(10))[1:]


def explain_lists(mine: list[list[tuple[str, float]]], theirs: list[list[tuple[str, float]]], sentences: list[str],
                  relaxed) -> dict:
    """Why each list that is not equal to Moses' (up to ties) differs, in a word, and the count of each reason.

    A list where ours holds an entry Moses' list lacks that scores above Moses' last entry is one where Moses lost
    a better translation ("ours better": Moses pruned or recombined it away); one where Moses holds an entry ours
    lacks scoring above our last entry is one where ours lost it. For those, ours is decoded again with the beam
    threshold off (same stack), then with a stack ten times larger as well (``relaxed(threshold, factor)``): the
    first setting that finds Moses' entries names the cause ("beam threshold", "histogram pruning"); none finds
    them: "recombination or option set" (the hypothesis was merged, or its phrase never offered)."""
    differing = [i for i, (a, b) in enumerate(zip(mine, theirs)) if not same_up_to_ties(a, b)]
    reasons: dict[int, list[str]] = {}
    lost: list[int] = []
    for index in differing:
        a, b = mine[index], theirs[index]
        ours_texts, moses_texts = {t for t, _ in a}, {t for t, _ in b}
        reasons[index] = []
        if len(b) and any(t not in moses_texts and score > b[-1][1] + moses_tolerance(b[-1][1]) for t, score in a):
            reasons[index].append("ours better (Moses lost an entry ours has)")
        if len(a) and any(t not in ours_texts and score > a[-1][1] + moses_tolerance(score) for t, score in b):
            lost.append(index)
        if not reasons[index] and index not in lost:
            reasons[index].append("same entries, scores beyond Moses' precision or a shorter list")
    if lost:
        wanted = {index: {t for t, score in theirs[index] if t not in {x for x, _ in mine[index]}
                          and score > mine[index][-1][1] + moses_tolerance(score)} for index in lost}
        remaining = set(lost)
        for label, threshold, factor in (("beam threshold", 0.0, 1), ("histogram pruning (stack)", 0.0, 10)):
            if not remaining:
                break
            order = sorted(remaining)
            lists = relaxed([sentences[i] for i in order], threshold, factor)
            for index, entries in zip(order, lists):
                if wanted[index] <= {t for t, _ in entries}:
                    reasons[index].append(f"ours lost Moses' entries: {label}")
                    remaining.discard(index)
        for index in remaining:
            reasons[index].append("ours lost Moses' entries: recombination or option set")
    counts: dict[str, int] = {}
    for index in differing:
        for reason in reasons[index]:
            counts[reason] = counts.get(reason, 0) + 1
        print(f"  list {index + 1}: {'; '.join(reasons[index])}")
    print(f"lists not equal to Moses' up to ties: {len(differing)}; " +
          ", ".join(f"{reason}: {count}" for reason, count in sorted(counts.items())))
    import history

    return {"lists where ours holds a better entry than Moses": history.figure(
                sum(any(r.startswith("ours better") for r in reasons[i]) for i in differing), "lists", history.HIGHER),
            "lists where ours lost Moses' entries": history.figure(len(lost), "lists", history.LOWER)}


def report(children: list[Child], sentences: int) -> None:
    print(f"{'decoder':<18} {'sent/s':>8} {'median ms':>10} {'p95 ms':>8} {'sent/CPU s':>11} {'peak MiB':>9} "
          f"{'start s':>8} {'process s':>10}")
    for child in children:
        total = sum(child.seconds)
        ordered = sorted(child.seconds)
        p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
        # CPU time comes in clock ticks (10 ms): a run shorter than a few of them has no rate to show.
        per_cpu = f"{sentences / child.decode_cpu:.1f}" if child.decode_cpu >= 0.05 else "-"
        print(f"{child.name:<18} {sentences / total:>8.1f} {1000 * statistics.median(ordered):>10.2f} "
              f"{1000 * p95:>8.2f} {per_cpu:>11} {child.peak:>9.0f} "
              f"{child.start_seconds:>8.2f} {child.process_seconds:>10.2f}")


def sentence_sets(args: argparse.Namespace) -> list[tuple[str, Path]]:
    """(name, file) of each set to measure: ``--input`` alone when given, else the demo's test verses and the
    second set (the first ``--limit`` verses of the data build's dev split, in its order: verses no fix of the
    decoder was tuned on) when the build is there."""
    if args.input:
        return [(Path(args.input).name, Path(args.input))]
    chosen = []
    for name in args.sets:
        if not SETS[name].is_file():
            print(f"set {name}: {SETS[name]} not found (the dev verses come from `parastudio data build`); skipped")
            continue
        chosen.append((name, SETS[name]))
    return chosen


def measure_set(name: str, path: Path, args: argparse.Namespace) -> dict:
    """Both decoders over one set, interleaved; prints the set's report and returns its figures."""
    from parastudio.core.engine.lm.language_model import LanguageModel
    from parastudio.core.textio import read_token_lines

    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    sentences = [tuple(s) for s in read_token_lines(path, args.limit)]
    table = Path(args.table) if args.table else default_table()
    started = time.perf_counter()
    filtered = filtered_table(table, sentences, work, Path(args.lm))
    print(f"\n== set {name}: {path} (first {len(sentences)} sentences, "
          f"{statistics.fmean(len(s) for s in sentences):.1f} tokens on average)")
    print(f"table: {table} filtered to the input: {filtered} ({sum(1 for _ in open(filtered))} rules with "
          f"pass-through; {time.perf_counter() - started:.1f} s)")
    print(f"LM: {args.lm}; stack {args.stack}, beam threshold 1e-5, {OPTION_LIMIT} options per span, monotone, "
          f"{args.nbest}-best, one thread each")

    warm_up = " ".join(sentences[0])
    children = []
    for core in (["compiled", "python"] if args.python_core else ["auto"]):
        nbest_file = work / f"nbest-ours-{core}.txt"
        script = OUR_WORKER.format(root=str(ROOT), table=str(filtered), lm=args.lm, stack=args.stack, core=core,
                                   nbest=args.nbest, nbest_file=str(nbest_file), threshold=BEAM_THRESHOLD)
        child = Child("ours", [sys.executable, "-c", script], ready_line=True, warm_up=warm_up)
        child.name = f"ours ({child.detail.split()[-1]})"
        child.nbest_file = nbest_file
        children.append(child)
    ini = None
    if args.moses:
        ini = Path(args.moses_ini) if args.moses_ini else write_moses_ini(
            work / f"moses-{filtered.stem}.ini", filtered, Path(args.lm).resolve(), LanguageModel(args.lm).order)
        command = [args.moses, "-f", str(ini), "-threads", "1", "-stack", str(args.stack), "-v", "0"]
        nbest_file = work / "nbest-moses.txt"
        if args.nbest > 1:
            command += ["-n-best-list", str(nbest_file), str(args.nbest), "distinct"]
        moses = Child("moses", command, ready_line=False, warm_up=warm_up)
        moses.nbest_file = nbest_file
        children.append(moses)
    for index, sentence in enumerate(sentences):
        text = " ".join(sentence)
        for child in (children if index % 2 == 0 else list(reversed(children))):
            child.decode(text)
    for child in children:
        child.close()
    report(children, len(sentences))
    figures = our_figures(children[0], len(sentences))
    if args.moses:
        ours, moses = children[0], children[-1]
        same = sum(a == b for a, b in zip(ours.outputs, moses.outputs))
        ratio = (len(sentences) / sum(ours.seconds)) / (len(sentences) / sum(moses.seconds))
        cpu_ratio = f"{moses.decode_cpu / ours.decode_cpu:.2f}" if min(ours.decode_cpu, moses.decode_cpu) >= 0.05 \
            else "-"
        figures.update(moses_figures(ours, moses, len(sentences), same))
        print(f"ratio ours/Moses sentences/s: {ratio:.2f} decoding (wall), {cpu_ratio} "
              f"decoding (CPU), {moses.process_seconds / ours.process_seconds:.2f} whole process; peak memory "
              f"ours/Moses: {ours.peak / moses.peak:.2f}; identical 1-best: {same} / {len(sentences)}")
        if args.nbest > 1:
            # Both lists hold the warm-up sentence first: it is line 0, the timed sentences 1..n.
            mine = read_nbest(ours.nbest_file, len(sentences) + 1, math.log(10))[1:]
            theirs = read_nbest(moses.nbest_file, len(sentences) + 1)[1:]
            figures.update(compare_nbest(mine, theirs, args.nbest))

            def relaxed(texts: list[str], threshold: float, factor: int) -> list:
                return _ours_relaxed(filtered, args.lm, texts, args.stack * factor, threshold, args.nbest, work)

            figures.update(explain_lists(mine, theirs, [" ".join(s) for s in sentences], relaxed))
        for index, (a, b) in enumerate(zip(ours.outputs, moses.outputs)):
            if a != b:
                print(f"  differs on sentence {index + 1}:\n    ours:  {a}\n    moses: {b}")
    if args.rounds:
        figures.update(whole_process(name, sentences, filtered, args, ini))
    if args.record:
        import history

        settings = {"input": name, "input_sha256": history.file_sha256(path), "limit": len(sentences),
                    "stack": args.stack, "nbest": args.nbest, "table_sha256": history.file_sha256(filtered),
                    "lm_sha256": history.file_sha256(args.lm), "moses": bool(args.moses)}
        print(f"recorded in {history.record('bench_vs_moses', settings, figures)}")
    return figures


# Linux counts a process's peak memory from before its exec too: a child forked from this script (grown by the
# table filter and the lists) would report this script's size. A small launcher forks the command instead and
# reports its ``wait4`` figures: CPU seconds and peak KiB, on one line.
_LAUNCHER = """import os, sys
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_WRONLY)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime, usage.ru_maxrss)
"""


def _run_measured(command: list[str], stdin: Path) -> tuple[float, float]:
    """(CPU seconds user+sys, peak MiB) of one whole process and the processes it waited for (``wait4``), measured
    by :data:`_LAUNCHER`."""
    with open(stdin, "rb") as source:
        done = subprocess.run([sys.executable, "-c", _LAUNCHER, *command], stdin=source, capture_output=True,
                              text=True, cwd=ROOT, check=False)
    status, cpu, peak_kib = done.stdout.split()
    if int(status) != 0:
        raise SystemExit(f"{command[0]} exited with status {status}: {' '.join(command)}")
    return float(cpu), int(peak_kib) / 1024


def whole_process(name: str, sentences: list[tuple[str, ...]], filtered: Path, args: argparse.Namespace,
                  ini: Path | None) -> dict:
    """The whole ``parastudio generate`` (start-up, loading, every sentence, writing its list) against the whole
    Moses process on the same input, interleaved ``--rounds`` times: best CPU seconds and peak memory of each."""
    import history

    work = Path(args.work)
    source = work / f"input-{name}-{len(sentences)}.txt"
    source.write_text("".join(" ".join(s) + "\n" for s in sentences), encoding="utf-8")
    ours = [sys.executable, "-m", "parastudio", "generate", "--system", "beam", "--table", str(filtered), "--lm",
            args.lm, "--stack-size", str(args.stack), "--processes", "1", "--nbest", str(args.nbest)]
    commands = {"ours": ours}
    if ini is not None:
        moses = [args.moses, "-f", str(ini), "-threads", "1", "-stack", str(args.stack), "-v", "0"]
        if args.nbest > 1:
            moses += ["-n-best-list", str(work / "nbest-moses-whole.txt"), str(args.nbest), "distinct"]
        commands["Moses"] = moses
    runs: dict[str, list[tuple[float, float]]] = {key: [] for key in commands}
    for round_number in range(args.rounds):
        for key in (list(commands) if round_number % 2 == 0 else list(reversed(commands))):
            runs[key].append(_run_measured(commands[key], source))
    best = {key: min(cpu for cpu, _ in values) for key, values in runs.items()}
    peak = {key: max(mib for _, mib in values) for key, values in runs.items()}
    line = "; ".join(f"{key} {best[key]:.2f} CPU s (runs {', '.join(f'{c:.2f}' for c, _ in runs[key])}), peak "
                     f"{peak[key]:.0f} MiB" for key in commands)
    print(f"whole process, {len(sentences)} sentences, stack {args.stack}, {args.nbest}-best, best of "
          f"{args.rounds} interleaved: {line}")
    figures = {"ours whole process": history.figure(best["ours"], "CPU s", history.LOWER),
               "ours whole process peak memory": history.figure(peak["ours"], "MiB", history.LOWER)}
    if "Moses" in commands:
        print(f"  ours/Moses whole process: {best['Moses'] / best['ours']:.2f}x Moses' speed (CPU), peak memory "
              f"{peak['ours'] / peak['Moses']:.2f}x Moses'")
        figures["ours/Moses whole process (CPU)"] = history.figure(best["Moses"] / best["ours"], "x", history.HIGHER)
        figures["ours/Moses whole process peak memory"] = history.figure(peak["ours"] / peak["Moses"], "x",
                                                                         history.LOWER)
    return figures


def side_by_side(measured: dict[str, dict]) -> None:
    """Every figure of every set in one table: a claim holds on the demo verses and on the second set, or not."""
    names = list(measured)
    rows = list(dict.fromkeys(figure for figures in measured.values() for figure in figures))
    print(f"\n== side by side\n{'figure':<46}" + "".join(f"{name:>16}" for name in names))
    for row in rows:
        cells = []
        for name in names:
            entry = measured[name].get(row)
            cells.append(f"{entry['value']:>16.4g}" if entry else f"{'-':>16}")
        unit = next(measured[name][row]["unit"] for name in names if row in measured[name])
        print(f"{row:<46}" + "".join(cells) + f"  {unit}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", nargs="+", choices=sorted(SETS), default=["demo", "dev"],
                        help="the sentence sets to measure, side by side (default: demo and dev)")
    parser.add_argument("--input", default=None, help="tokenized sentences, one per line, instead of the sets")
    parser.add_argument("--limit", type=int, default=100, help="first N sentences (default 100)")
    parser.add_argument("--table", default=None, help="pivot table (default: evaldata/build's full table, "
                        "else the demo table)")
    parser.add_argument("--lm", default=str(DEMO / "lm.bin"))
    parser.add_argument("--stack", type=int, default=200)
    parser.add_argument("--nbest", type=int, default=1, help="also write and compare distinct N-best lists")
    parser.add_argument("--moses", help="path to a Moses binary (moses-cmd's moses)")
    parser.add_argument("--moses-ini", help="a moses.ini for the same model (default: written by this script)")
    parser.add_argument("--python-core", action="store_true", help="also run our decoder with the Python search")
    parser.add_argument("--work", default=str(Path(os.environ.get("TMPDIR", "/tmp")) / "parastudio-bench-vs-moses"))
    parser.add_argument("--record", action="store_true", help="append the figures to benchmarks/history/")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds of the whole-process rows "
                        "(parastudio generate against the moses binary; 0: none)")
    args = parser.parse_args()
    measured = {name: measure_set(name, path, args) for name, path in sentence_sets(args)}
    if len(measured) > 1:
        side_by_side(measured)
    return 0


if __name__ == "__main__":
    sys.exit(main())
