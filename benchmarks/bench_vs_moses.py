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

    python benchmarks/bench_vs_moses.py [--limit 100] [--stack 200] [--nbest 1] [--moses PATH [--moses-ini INI]]

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
OPTION_LIMIT = 20


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
decoder = BeamDecoder(ParaphraseTable.load({table!r}), LanguageModel({lm!r}), DecoderSettings(stack_size={stack}),
                      core={core!r})
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


def compare_nbest(mine: list[list[tuple[str, float]]], theirs: list[list[tuple[str, float]]], n: int) -> None:
    """Identical lists, and rank by rank the model scores (nats) of ours against Moses'."""
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
    if not differences:
        return
    print(f"rank by rank (model score, nats; ranks both lists have): ours better on {better}, worse on {worse}, "
          f"tied within Moses' precision on {len(differences) - better - worse} of {len(differences)}; mean ours - Moses "
          f"{statistics.fmean(differences):+.4f}")
    print(f"  {'rank':>5} {'sentences':>9} {'mean ours':>10} {'mean Moses':>11} {'ours - Moses':>13}")
    for rank in sorted({0, 1, 4, 9, 24, 49, 74, n - 1} & set(by_rank)):
        ours, moses = by_rank[rank]
        print(f"  {rank + 1:>5} {len(ours):>9} {statistics.fmean(ours):>10.4f} {statistics.fmean(moses):>11.4f} "
              f"{statistics.fmean(ours) - statistics.fmean(moses):>+13.4f}")


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input", default=str(DEMO / "test.en"), help="tokenized sentences, one per line")
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
    args = parser.parse_args()

    from parastudio.core.engine.lm.language_model import LanguageModel
    from parastudio.core.textio import read_token_lines

    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    sentences = [tuple(s) for s in read_token_lines(args.input, args.limit)]
    table = Path(args.table) if args.table else default_table()
    started = time.perf_counter()
    filtered = filtered_table(table, sentences, work, Path(args.lm))
    print(f"input: {args.input} ({len(sentences)} sentences, "
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
                                   nbest=args.nbest, nbest_file=str(nbest_file))
        child = Child("ours", [sys.executable, "-c", script], ready_line=True, warm_up=warm_up)
        child.name = f"ours ({child.detail.split()[-1]})"
        child.nbest_file = nbest_file
        children.append(child)
    if args.moses:
        ini = Path(args.moses_ini) if args.moses_ini else write_moses_ini(
            work / "moses.ini", filtered, Path(args.lm).resolve(), LanguageModel(args.lm).order)
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
    if args.moses:
        ours, moses = children[0], children[-1]
        same = sum(a == b for a, b in zip(ours.outputs, moses.outputs))
        ratio = (len(sentences) / sum(ours.seconds)) / (len(sentences) / sum(moses.seconds))
        cpu_ratio = f"{moses.decode_cpu / ours.decode_cpu:.2f}" if min(ours.decode_cpu, moses.decode_cpu) >= 0.05 \
            else "-"
        print(f"ratio ours/Moses sentences/s: {ratio:.2f} decoding (wall), {cpu_ratio} "
              f"decoding (CPU), {moses.process_seconds / ours.process_seconds:.2f} whole process; peak memory "
              f"ours/Moses: {ours.peak / moses.peak:.2f}; identical 1-best: {same} / {len(sentences)}")
        if args.nbest > 1:
            # Both lists hold the warm-up sentence first: it is line 0, the timed sentences 1..n.
            mine = read_nbest(ours.nbest_file, len(sentences) + 1, math.log(10))[1:]
            theirs = read_nbest(moses.nbest_file, len(sentences) + 1)[1:]
            compare_nbest(mine, theirs, args.nbest)
        for index, (a, b) in enumerate(zip(ours.outputs, moses.outputs)):
            if a != b:
                print(f"  differs on sentence {index + 1}:\n    ours:  {a}\n    moses: {b}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
