"""The beam search's cost per verse, commit by commit (issue 40, Deliver 1: where the regression came in).

Each commit is checked out in a worktree of its own under ``--work``, its compiled cores built in place
(``setup.py build_ext --inplace``), the same filtered text table binarized by that commit's own code (the
binary format changed between commits), and the first ``--verses`` sentences decoded after loading,
``prepare()`` and a warm-up sentence, as that commit's ``bench_vs_moses.py`` worker decodes them. Two figures per
commit: instructions per verse (callgrind's Ir of a run decoding the verses minus a run decoding none: the
machine's load does not move it) and CPU milliseconds per verse (``time.process_time``, best of ``--rounds``
interleaved runs, each in a fresh process), with a hash of the 1-best outputs, which should not change.

    python3 benchmarks/bisect_beam.py --table FILTERED.txt f8be201 371f679 142a0c7 ... HEAD
        [--input evaldata/demo/test.en] [--stack 200] [--nbest 1] [--verses 100] [--rounds 3] [--work DIR]

``FILTERED.txt`` is a table filtered to the input, as ``bench_vs_moses.py`` writes it (its ``--work`` folder).
Needs git, a C++ compiler and valgrind. Prints a table; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Run inside a commit's worktree: that commit's own modules, whatever their layout then.
MEASURE = r'''
import hashlib, json, os, sys, time
folder, table_path, lm, source, stack, nbest, verses, binarize = sys.argv[1:9]
os.chdir(folder)
sys.path.insert(0, folder)
if os.path.isfile(os.path.join(folder, "parastudio", "__init__.py")):
    from parastudio.core.engine.decoders.beam_decoder import BeamDecoder, DecoderSettings
    from parastudio.core.engine.lm.language_model import LanguageModel
    from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
elif os.path.isfile(os.path.join(folder, "core", "engine", "decoders", "beam_decoder.py")):
    from core.engine.decoders.beam_decoder import BeamDecoder, DecoderSettings
    from core.engine.lm.language_model import LanguageModel
    from core.engine.tables.paraphrase_table import ParaphraseTable
else:
    from core.engine.beam_decoder import BeamDecoder, DecoderSettings
    from core.engine.lm import LanguageModel
    from core.engine.paraphrase_table import ParaphraseTable
if binarize == "1":
    ParaphraseTable.binarize(table_path)
    sys.exit(0)
stack, nbest, verses = int(stack), int(nbest), int(verses)
sentences = [tuple(line.split()) for line in open(source, encoding="utf-8")]
warm_up, sentences = sentences[0], sentences[:verses]
decoder = BeamDecoder(ParaphraseTable.load(table_path), LanguageModel(lm), DecoderSettings(stack_size=stack),
                      core="compiled")
decoder.prepare()
decoder.decode(warm_up).nbest(nbest)
started = time.process_time()
outputs = [(lambda entries: entries[0].text if entries else "")(decoder.decode(s).nbest(nbest)) for s in sentences]
cpu = time.process_time() - started
print(json.dumps({"cpu_ms_per_verse": 1000 * cpu / max(1, len(sentences)), "core": decoder.core,
                  "best_sha256": hashlib.sha256("\n".join(outputs).encode()).hexdigest()}))
'''


def _run(command: list[str], **options) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True, **options)


def prepare_commit(commit: str, args: argparse.Namespace) -> Path:
    """A worktree of ``commit`` with its cores built and the table binarized by its own code."""
    folder = Path(args.work) / commit
    if not folder.exists():
        done = _run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(folder), commit])
        if done.returncode != 0:
            raise SystemExit(f"{commit}: git worktree add failed: {done.stderr.strip()}")
    if not any(folder.glob("core/engine/_*core*.so")):
        built = _run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=folder)
        if built.returncode != 0:
            raise SystemExit(f"{commit}: the cores did not build:\n{built.stderr[-2000:]}")
    table = folder / "filtered.txt"
    if not table.exists():
        shutil.copyfile(args.table, table)
        _measure(folder, args, verses=0, binarize=True)
    return folder


def _measure(folder: Path, args: argparse.Namespace, *, verses: int, binarize: bool = False,
             callgrind: bool = False) -> tuple[dict, int | None]:
    command = [sys.executable, "-c", MEASURE, str(folder), str(folder / "filtered.txt"), str(Path(args.lm).resolve()),
               str(Path(args.input).resolve()), str(args.stack), str(args.nbest), str(verses), "1" if binarize else "0"]
    if callgrind:
        command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command]
    done = _run(command)
    if done.returncode != 0:
        raise SystemExit(f"{folder.name}: the measurement failed:\n{done.stderr[-2000:]}")
    instructions = None
    if callgrind:
        found = re.search(r"Collected : (\d+)", done.stderr)
        instructions = int(found.group(1)) if found else None
    line = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "{}"
    return json.loads(line), instructions


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("commits", nargs="+", help="commits, oldest first")
    parser.add_argument("--table", required=True, help="the text table filtered to the input (bench_vs_moses.py)")
    parser.add_argument("--input", default=str(ROOT / "evaldata" / "demo" / "test.en"))
    parser.add_argument("--lm", default=str(ROOT / "evaldata" / "demo" / "lm.bin"))
    parser.add_argument("--stack", type=int, default=200)
    parser.add_argument("--nbest", type=int, default=1)
    parser.add_argument("--verses", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved CPU-time runs per commit")
    parser.add_argument("--work", default=str(Path(os.environ.get("TMPDIR", "/tmp")) / "parastudio-bisect-beam"))
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is needed for the instruction counts (apt-get install valgrind)")
    Path(args.work).mkdir(parents=True, exist_ok=True)
    folders = {commit: prepare_commit(commit, args) for commit in args.commits}
    rows = {}
    for commit, folder in folders.items():
        full, with_verses = _measure(folder, args, verses=args.verses, callgrind=True)
        _, without = _measure(folder, args, verses=0, callgrind=True)
        per_verse = (with_verses - without) / args.verses if None not in (with_verses, without) else float("nan")
        rows[commit] = {"instructions": per_verse, "sha": full.get("best_sha256", "")[:12], "core": full.get("core"),
                        "cpu": []}
    for round_number in range(args.rounds):  # interleaved: odd rounds in order, even rounds reversed
        order = list(folders) if round_number % 2 == 0 else list(reversed(folders))
        for commit in order:
            rows[commit]["cpu"].append(_measure(folders[commit], args, verses=args.verses)[0]["cpu_ms_per_verse"])
    print(f"stack {args.stack}, {args.nbest}-best, the first {args.verses} verses of {args.input}, table {args.table}")
    print("| commit | subject | instructions per verse | change | CPU ms per verse (best of "
          f"{args.rounds}) | 1-best sha256 |\n| --- | --- | --- | --- | --- | --- |")
    previous = None
    for commit, row in rows.items():
        subject = _run(["git", "-C", str(ROOT), "log", "-1", "--format=%s", commit]).stdout.strip()[:60]
        change = f"{100 * (row['instructions'] - previous) / previous:+.1f} %" if previous else ""
        print(f"| {commit[:8]} | {subject} | {row['instructions'] / 1e6:.3f} M | {change} | {min(row['cpu']):.2f} | "
              f"{row['sha']} |")
        previous = row["instructions"]
    return 0


if __name__ == "__main__":
    sys.exit(main())
