"""The cases of ``malformed_inputs.py``: issue 18's list of causes over every command that reads a file.

Counted as the issue counts them, per (command, input) pair, a *slot*:

* 14 text slots (table stats, truescore --table, generate --table, generate's
  standard input, generate --reference, pivot, agreement, signtest, report,
  import-candidates JSONL, CSV and --sources, import-judgments, lm score's
  standard input) x 9 byte-level defects (not UTF-8, random bytes named .gz, a
  truncated gzip (files only: 12), empty, BOM, CRLF, NUL, a 10 MB line, 2.6
  million tokens on one line): 124;
* 3 LM slots (truescore --lm, generate --lm, lm score) x 13 defects of ARPA
  and KenLM binary files: 39;
* 4 table slots x 10 bad rules (probability above 1, 0, negative, NaN,
  infinite, 1e400, not a number, two fields, an empty phrase, a TSV line in a
  Moses table): 40;
* 3 judgment slots x 10 bad rows (NaN, inf, negative, NUL in the value, a
  control character, no header, no value column, a short row, a duplicate, an
  unterminated quote): 30; signtest's scores x 5: 5;
* candidates: 12 bad JSONL records, 2 bad CSVs: 14;
* 2 outputs to a terminal that cannot show them: 2;

254 in all; then 13 study-store cases (another program's SQLite file, a text file, a
mistyped path, a study of a newer schema, a damaged study file (twice), an empty file).
Issue 22's kinds are in ``malformed_cases_22.py``.
"""

from __future__ import annotations

import gzip
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
DEMO_LM = ROOT / "evaldata" / "demo" / "lm.bin"


@dataclass
class Case:
    name: str
    slot: str
    argv: list[str]
    directory: Path
    expect: str  # refuse-line | refuse | accept | same (accepted with the clean input's output); issue 22:
    # accept-no-controls / refuse-no-controls / any-no-controls (taken or clearly refused, no raw control character
    # printed), accept-csv-safe (no formula cell)
    stdin: Path | None = None
    env: dict = field(default_factory=dict)
    store: bool = False
    untouched: list[Path] = field(default_factory=list)
    must_not_exist: list[Path] = field(default_factory=list)
    output_file: Path | None = None
    input_path: Path | None = None
    is_baseline: bool = False
    baseline: bytes | None = None
    issue: int = 18  # the issue whose list the case comes from (22: malformed_cases_22.py)
    kind: str = ""  # issue 22's kind of input: filesystem, unicode-size, store-state, silent-change, injection
    honour_permissions: bool = False  # run without root's right to write anything (a read-only folder)
    # The held-out kinds (malformed_cases_held_out.py): standard input as a pipe of these bytes; a pipe named
    # /dev/fd/N ("{FD}" in argv) carrying these bytes; named pipes fed with bytes or drained while the command
    # runs; a process (Python source, arguments) that holds a study's lock while it runs; paths whose kind
    # (device, FIFO, symlink) must stay; a check of an accepted output (a wrong answer in words, or "").
    stdin_data: bytes | None = None
    fd_input: bytes | None = None
    feed: dict = field(default_factory=dict)
    drain: list[Path] = field(default_factory=list)
    holder: list[str] | None = None
    kept_kinds: list[Path] = field(default_factory=list)
    check: Callable[[bytes], str] | None = None
    terminal: bool = False  # standard output and error on a pseudo-terminal
    time_limit: float | None = None  # a longer limit than --timeout (a locked study is waited for, then refused)

    @property
    def on_terminal(self) -> bool:
        """A case that checks for raw control characters runs on a terminal: only a terminal gets them escaped."""
        return self.terminal or self.expect.endswith("no-controls")

    def output_of(self, stdout: bytes) -> bytes:
        data = (self.output_file.read_bytes() if self.output_file.exists() else b"<no output>") \
            if self.output_file else stdout
        if self.input_path is not None:
            data = data.replace(str(self.input_path).encode(), b"INPUT")
        data = re.sub(rb'"seconds": [-+.0-9e]+', b'"seconds": _', data)  # what a run took is not its output
        # Provenance names each input by its bytes: a BOM or CRLF copy is other bytes with the same candidates.
        return re.sub(rb'"sha256": "[0-9a-f]{64}", "bytes": [0-9]+', b'"sha256": _, "bytes": _', data)


TABLE = ("the dog ||| the beast ||| 0.8\nthe dog ||| the hound ||| 0.1\nruns ||| sprints ||| 0.5\n"
         "the ||| a ||| 0.3\ncat ||| kitten ||| 0.4\n")
PHRASE_TABLE = ("the dog ||| le chien ||| 0.5 0.4 0.6 0.3\nthe hound ||| le chien ||| 0.3 0.2 0.2 0.1\n"
                "runs ||| court ||| 0.7 0.6 0.5 0.4\nsprints ||| court ||| 0.2 0.1 0.3 0.2\n"
                "cat ||| chat ||| 0.9 0.8 0.9 0.7\nkitten ||| chat ||| 0.1 0.1 0.1 0.1\n")
SENTENCES = "the dog runs\nthe cat sleeps\n"
REFERENCES = "the beast runs\nthe kitten sleeps\n"
JUDGMENTS = "item,annotator,criterion,value\n" + "".join(
    f"{item},{annotator},fluency,{value}\n" for item, annotator, value in [
        (1, "ann1", "yes"), (1, "ann2", "yes"), (2, "ann1", "no"), (2, "ann2", "yes"),
        (3, "ann1", "no"), (3, "ann2", "no"), (4, "ann1", "yes"), (4, "ann2", "yes")])
SCORES = "item,system,score\n" + "".join(f"{i},{s},{v}\n" for i, (a, b) in enumerate(
    [(1, 0), (1, 1), (0, 1), (1, 0), (1, 0), (2, 1)]) for s, v in (("beam", a), ("mcpg", b)))
ARPA = ("\\data\\\nngram 1=7\nngram 2=5\n\n\\1-grams:\n-1.0\t<unk>\t0\n0\t<s>\t-0.3\n-0.7\t</s>\t0\n"
        "-0.5\tthe\t-0.3\n-0.6\tdog\t-0.2\n-0.8\tbeast\t-0.2\n-0.9\truns\t-0.1\n\n\\2-grams:\n-0.2\t<s> the\n"
        "-0.3\tthe dog\n-0.4\tthe beast\n-0.2\tdog runs\n-0.1\truns </s>\n\n\\end\\\n")


def _segment(src, tgt, source, target, p, identity):
    return (f'{{"src": [{src[0]}, {src[1]}], "tgt": [{tgt[0]}, {tgt[1]}], "source": "{source}", '
            f'"target": "{target}", "p": {p}, "identity": {str(identity).lower()}}}')


DERIVATION_0 = "[" + _segment((0, 2), (0, 2), "the dog", "the beast", 0.8, False) + ", " + \
    _segment((2, 3), (2, 3), "runs", "runs", 1.0, True) + "]"
DERIVATION_1 = "[" + _segment((0, 1), (0, 1), "the", "the", 1.0, True) + ", " + \
    _segment((1, 2), (1, 2), "cat", "kitten", 0.4, False) + ", " + \
    _segment((2, 3), (2, 3), "sleeps", "sleeps", 1.0, True) + "]"


def candidate_line(sentence_id=0, text='"the beast runs"', rank="1", model_score="-1.5", true_score="-1.4",
                   derivation=DERIVATION_0, source='"the dog runs"', system='"beam"') -> str:
    fields = [f'"sentence_id": {sentence_id}', f'"system": {system}', f'"rank": {rank}', f'"text": {text}',
              f'"model_score": {model_score}', f'"true_score": {true_score}', f'"derivation": {derivation}',
              '"params": {"table": "t"}']
    if source is not None:
        fields.append(f'"source": {source}')
    return "{" + ", ".join(fields) + "}\n"


CANDIDATES = candidate_line() + candidate_line(1, '"the kitten sleeps"', derivation=DERIVATION_1,
                                               source='"the cat sleeps"')
CANDIDATES_NO_SOURCE = candidate_line(source=None) + candidate_line(
    1, '"the kitten sleeps"', derivation=DERIVATION_1, source=None)
CANDIDATES_CSV = ("item,source,candidate,system\n0,the dog runs,the beast runs,beam\n"
                  "1,the cat sleeps,the kitten sleeps,beam\n")


def _python_core(*argv: str, cwd: Path, core: Path) -> None:
    subprocess.run([sys.executable, "-m", "parastudio", *argv], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "PYTHONPATH": str(core)})


@dataclass
class Slot:
    """One (command, input) pair: how to run the command on an input file."""

    name: str
    clean: str
    suffix: str
    argv: Callable[[Path, Path], list[str]]  # (input, case directory) -> arguments
    stdin: bool = False
    setup: Callable[[Path], None] | None = None
    output: str | None = None
    empty: str = "accept"  # what an empty input should get
    stdin_file: Path | None = None  # standard input when the input under test is another file


class CaseBuilder:
    def __init__(self, directory: Path, core: Path):
        self.directory = directory
        self.fixtures = directory / "fixtures"
        self.fixtures.mkdir(parents=True, exist_ok=True)
        self.cases: list[Case] = []
        self.keep_alive: list = []  # objects whose files must stay while the cases run (a bound socket)
        self.table = self._fixture("table.txt", TABLE)
        self.arpa = self._fixture("lm.arpa", ARPA)
        self.sentences = self._fixture("sentences.txt", SENTENCES)
        self.candidates_no_source = self._fixture("candidates-no-source.jsonl", CANDIDATES_NO_SOURCE)
        self.empty_study = self.fixtures / "empty-study.sqlite"
        self.items_study = self.fixtures / "items-study.sqlite"
        # The study files are made by the checkout under test: an older one may not open a newer schema.
        _python_core("study", "create", "s", "--db", str(self.empty_study), "--criteria", "fluency",
                     cwd=self.fixtures, core=core)
        shutil.copy(self.empty_study, self.items_study)
        items = self._fixture("items.jsonl", CANDIDATES + candidate_line(0, '"the hound runs"', derivation="null")
                              + candidate_line(1, '"a cat sleeps"', derivation="null", source='"the cat sleeps"'))
        _python_core("study", "import-candidates", str(items), "--db", str(self.items_study), cwd=self.fixtures,
                     core=core)

    def _fixture(self, name: str, text: str) -> Path:
        path = self.fixtures / name
        path.write_text(text, encoding="utf-8")
        return path

    def _study(self, template: Path) -> Callable[[Path], None]:
        return lambda case_dir: shutil.copy(template, case_dir / "study.sqlite")

    def slots(self) -> list[Slot]:
        t, lm = str(self.table), str(self.arpa)
        generate = ["generate", "--system", "beam", "--lm", lm, "--nbest", "2", "--json"]
        return [
            Slot("table-stats", TABLE, ".txt", lambda p, d: ["table", "stats", str(p)]),
            Slot("truescore-table", TABLE, ".txt", lambda p, d: [
                "truescore", "--table", str(p), "--source", "the dog runs", "--target", "the beast runs", "--json"]),
            Slot("generate-table", TABLE, ".txt", lambda p, d: [*generate, "--table", str(p)],
                 stdin_file=self.sentences),
            Slot("generate-stdin", SENTENCES, ".txt", lambda p, d: [*generate, "--table", t], stdin=True),
            Slot("generate-reference", REFERENCES, ".txt", lambda p, d: [
                "generate", "--system", "spg-similarity", "--table", t, "--lm", lm, "--json", "--reference", str(p)],
                empty="refuse", stdin_file=self.sentences),
            Slot("pivot", PHRASE_TABLE, ".txt", lambda p, d: ["pivot", str(p), "-o", str(d / "para.txt")],
                 output="para.txt"),
            Slot("agreement", JUDGMENTS, ".csv", lambda p, d: ["agreement", str(p), "--bootstrap", "20", "--json"],
                 empty="refuse-line"),
            Slot("signtest", SCORES, ".csv", lambda p, d: ["signtest", str(p), "--system-a", "beam", "--system-b",
                                                            "mcpg", "--json"], empty="refuse-line"),
            Slot("report", JUDGMENTS, ".csv", lambda p, d: ["report", str(p), "--bootstrap", "0"],
                 empty="refuse-line"),
            Slot("import-candidates-jsonl", CANDIDATES, ".jsonl", lambda p, d: [
                "study", "import-candidates", str(p), "--db", str(d / "study.sqlite")],
                setup=self._study(self.empty_study)),
            Slot("import-candidates-csv", CANDIDATES_CSV, ".csv", lambda p, d: [
                "study", "import-candidates", str(p), "--db", str(d / "study.sqlite")],
                setup=self._study(self.empty_study), empty="refuse-line"),
            Slot("import-candidates-sources", SENTENCES, ".txt", lambda p, d: [
                "study", "import-candidates", str(self.candidates_no_source), "--db", str(d / "study.sqlite"),
                "--sources", str(p)], setup=self._study(self.empty_study), empty="refuse-line"),
            Slot("import-judgments", JUDGMENTS, ".csv", lambda p, d: [
                "study", "import-judgments", str(p), "--db", str(d / "study.sqlite")],
                setup=self._study(self.items_study), empty="refuse-line"),
            Slot("lm-score-stdin", SENTENCES, ".txt", lambda p, d: ["lm", "score", lm], stdin=True),
        ]

    def add(self, slot: Slot, defect: str, data: bytes, expect: str, *, suffix: str | None = None,
            env: dict | None = None, baseline: bool = False) -> Case:
        case_dir = self.directory / f"{slot.name}--{defect}"
        case_dir.mkdir(parents=True, exist_ok=True)
        path = case_dir / ("input" + (suffix or slot.suffix))
        path.write_bytes(data)
        if slot.setup:
            slot.setup(case_dir)
        case = Case(f"{slot.name}/{defect}", slot.name, slot.argv(path, case_dir), case_dir, expect,
                    stdin=path if slot.stdin else slot.stdin_file, env=env or {},
                    output_file=case_dir / slot.output if slot.output else None,
                    input_path=None if slot.stdin else path, is_baseline=baseline)
        self.cases.append(case)
        return case


def _on_line_2(data: bytes, insert: bytes, at: int = 1) -> bytes:
    """``insert`` placed ``at`` bytes into the second line."""
    lines = data.split(b"\n")
    lines[1] = lines[1][:at] + insert + lines[1][at:]
    return b"\n".join(lines)


def _new_line_2(data: bytes, line: bytes) -> bytes:
    first, _, rest = data.partition(b"\n")
    return first + b"\n" + line + b"\n" + rest


def _replace_line_2(data: bytes, line: bytes) -> bytes:
    lines = data.split(b"\n")
    lines[1] = line
    return b"\n".join(lines)


def _text_slot_cases(builder: CaseBuilder, rng: random.Random) -> None:
    noise = bytes(rng.randrange(256) for _ in range(4096))
    ten_mb = b"x" * (10 << 20)
    tokens = b"a " * 2_600_000
    for slot in builder.slots():
        clean = slot.clean.encode()
        builder.add(slot, "clean", clean, "accept", baseline=True)
        builder.add(slot, "not-utf8", _on_line_2(clean, b"\xe9"), "refuse-line")
        builder.add(slot, "random-bytes-gz", noise, "refuse-line", suffix=slot.suffix + ".gz")
        if not slot.stdin:
            compressed = gzip.compress(clean * 40, mtime=0)
            builder.add(slot, "truncated-gzip", compressed[: len(compressed) // 2], "refuse-line",
                        suffix=slot.suffix + ".gz")
        builder.add(slot, "empty", b"", slot.empty)
        builder.add(slot, "bom", b"\xef\xbb\xbf" + clean, "same")
        builder.add(slot, "crlf", clean.replace(b"\n", b"\r\n"), "same")
        builder.add(slot, "nul", _on_line_2(clean, b"\x00"), "refuse-line")
        builder.add(slot, "10mb-line", _new_line_2(clean, ten_mb), "refuse-line")
        builder.add(slot, "2.6m-tokens", _new_line_2(clean, tokens), "refuse-line")


def _lm_cases(builder: CaseBuilder, rng: random.Random) -> None:
    t = str(builder.table)
    arpa = ARPA.encode()
    binary = DEMO_LM.read_bytes()
    slots = [
        Slot("truescore-lm", "", "", lambda p, d: ["truescore", "--table", t, "--lm", str(p), "--source",
                                                    "the dog runs", "--target", "the beast runs", "--json"]),
        Slot("generate-lm", "", "", lambda p, d: ["generate", "--system", "beam", "--table", t, "--lm", str(p),
                                                   "--json"]),
        Slot("lm-score", "", "", lambda p, d: ["lm", "score", str(p)]),
    ]
    defects = [
        ("clean-arpa", arpa, ".arpa", "accept"),
        ("arpa-count-too-high", arpa.replace(b"ngram 2=5", b"ngram 2=6"), ".arpa", "refuse-line"),
        ("arpa-count-too-low", arpa.replace(b"ngram 1=7", b"ngram 1=6"), ".arpa", "refuse-line"),
        ("arpa-nan", arpa.replace(b"-0.5\tthe", b"nan\tthe"), ".arpa", "refuse-line"),
        ("arpa-positive-log10p", arpa.replace(b"-0.6\tdog", b"0.6\tdog"), ".arpa", "refuse-line"),
        ("arpa-no-end", arpa[: arpa.index(b"\\2-grams:")], ".arpa", "refuse-line"),
        ("arpa-not-utf8", arpa.replace(b"beast", b"b\xe9ast"), ".arpa", "refuse-line"),
        ("arpa-crlf", arpa.replace(b"\n", b"\r\n"), ".arpa", "same"),
        ("arpa-bom", b"\xef\xbb\xbf" + arpa, ".arpa", "refuse-line"),
        ("binary-cut-50pc", binary[: len(binary) // 2], ".bin", "refuse"),
        ("binary-cut-to-200-bytes", binary[:200], ".bin", "refuse"),
        ("binary-cut-1pc", binary[: len(binary) * 99 // 100], ".bin", "refuse"),
        ("empty", b"", ".bin", "refuse"),
        ("random-bytes", bytes(rng.randrange(256) for _ in range(4096)), ".bin", "refuse"),
    ]
    for slot in slots:
        if slot.name != "truescore-lm":
            slot.stdin_file = builder.sentences
        for defect, data, suffix, expect in defects:
            builder.add(slot, defect, data, expect, suffix=suffix, baseline=defect == "clean-arpa")


def _table_rule_cases(builder: CaseBuilder) -> None:
    moses = {"prob-above-1": b"the dog ||| the hound ||| 1.5", "prob-zero": b"the dog ||| the hound ||| 0",
             "prob-negative": b"the dog ||| the hound ||| -0.2", "prob-nan": b"the dog ||| the hound ||| nan",
             "prob-inf": b"the dog ||| the hound ||| inf", "prob-1e400": b"the dog ||| the hound ||| 1e400",
             "prob-not-a-number": b"the dog ||| the hound ||| high", "two-fields": b"the dog ||| the hound",
             "empty-phrase": b"the dog |||  ||| 0.1", "tsv-line": b"the dog\tthe hound\t0.1"}
    pivot = {name: line.replace(b"the hound", b"le chien") + (b" 0.5 0.5 0.5" if name not in (
        "two-fields", "tsv-line") else b"") for name, line in moses.items()}
    pivot["tsv-line"] = b"the dog\tle chien\t0.5 0.5 0.5 0.5"
    for slot in builder.slots():
        if slot.name not in ("table-stats", "truescore-table", "generate-table", "pivot"):
            continue
        lines = pivot if slot.name == "pivot" else moses
        for name, line in lines.items():
            builder.add(slot, name, _replace_line_2(slot.clean.encode(), line), "refuse-line")


def _csv_row_cases(builder: CaseBuilder) -> None:
    judgment_rows = {"value-nan": b"1,ann2,fluency,nan", "value-inf": b"1,ann2,fluency,inf",
                     "value-negative": b"1,ann2,fluency,-1", "value-nul": b"1,ann2,fluency,y\x00es",
                     "value-control-char": b"1,ann2,fluency,y\x01es", "short-row": b"1,ann2",
                     "unterminated-quote": b'1,ann2,fluency,"yes'}
    for slot in builder.slots():
        if slot.name not in ("agreement", "report", "import-judgments"):
            continue
        clean = slot.clean.encode()
        for name, row in judgment_rows.items():
            builder.add(slot, name, _replace_line_2(clean, row), "refuse-line")
        builder.add(slot, "no-header", clean.partition(b"\n")[2], "refuse-line")
        builder.add(slot, "no-value-column", clean.replace(b",value\n", b",verdict\n", 1), "refuse-line")
        duplicate = _new_line_2(clean, b"1,ann1,fluency,yes")
        builder.add(slot, "duplicate-judgment", duplicate,
                    "accept" if slot.name == "import-judgments" else "refuse-line")
    signtest = next(slot for slot in builder.slots() if slot.name == "signtest")
    clean = signtest.clean.encode()
    for name, row in {"score-nan": b"0,beam,nan", "score-inf": b"0,beam,inf", "score-not-a-number": b"0,beam,good",
                      "duplicate-score": b"0,mcpg,0"}.items():
        builder.add(signtest, name, _replace_line_2(clean, row), "refuse-line")
    builder.add(signtest, "no-header", clean.partition(b"\n")[2], "refuse-line")


def _candidate_cases(builder: CaseBuilder) -> None:
    jsonl = next(slot for slot in builder.slots() if slot.name == "import-candidates-jsonl")
    first = candidate_line()
    bad = {
        "model-score-nan": candidate_line(1, model_score="NaN", source='"the cat sleeps"'),
        "true-score-infinite": candidate_line(1, true_score="Infinity", source='"the cat sleeps"'),
        "rank-negative": candidate_line(1, rank="-1", source='"the cat sleeps"'),
        "rank-zero": candidate_line(1, rank="0", source='"the cat sleeps"'),
        "rank-fractional": candidate_line(1, rank="1.5", source='"the cat sleeps"'),
        "text-is-object": candidate_line(1, text='{"words": "the kitten"}', derivation="null",
                                         source='"the cat sleeps"'),
        "derivation-garbage": candidate_line(1, derivation='[{"src": "x", "tgt": 3}]', source='"the cat sleeps"'),
        "derivation-not-covering": candidate_line(1, '"the kitten sleeps soundly"', derivation=DERIVATION_1,
                                                  source='"the cat sleeps"'),
        "not-json": "{sentence_id: 1, text: the kitten sleeps}\n",
        "json-array": '[1, "beam", "the kitten sleeps"]\n',
        "missing-text": '{"sentence_id": 1, "system": "beam", "source": "the cat sleeps"}\n',
        "no-source": candidate_line(7, source=None),
    }
    for name, line in bad.items():
        builder.add(jsonl, name, (first + line).encode(), "refuse-line")
    csv_slot = next(slot for slot in builder.slots() if slot.name == "import-candidates-csv")
    clean = csv_slot.clean.encode()
    builder.add(csv_slot, "no-header", clean.partition(b"\n")[2], "refuse-line")
    builder.add(csv_slot, "unterminated-quote", _replace_line_2(clean, b'0,"the dog runs,the beast runs,beam'),
                "refuse-line")


def _terminal_cases(builder: CaseBuilder) -> None:
    ascii_terminal = {"PYTHONIOENCODING": "ascii"}
    table = builder._fixture("table-accents.txt", TABLE + "caf\u00e9 ||| coffee-house ||| 0.5\n")
    slot = Slot("generate-ascii-terminal", "", ".txt", lambda p, d: [
        "generate", "--system", "beam", "--table", str(table), "--lm", str(builder.arpa)], stdin=True)
    builder.add(slot, "accented-text", "the caf\u00e9 runs\n".encode(), "accept", env=ascii_terminal)
    slot = Slot("report-ascii-terminal", "", ".csv", lambda p, d: ["report", str(p), "--bootstrap", "0"])
    builder.add(slot, "accented-names", JUDGMENTS.replace("ann2", "zo\u00eb").encode(), "accept", env=ascii_terminal)


def _store_cases(builder: CaseBuilder) -> None:
    base = builder.directory / "store"
    base.mkdir(exist_ok=True)
    foreign = base / "contacts.sqlite"
    connection = sqlite3.connect(foreign)
    connection.execute("CREATE TABLE contacts (name TEXT, phone TEXT)")
    connection.execute("INSERT INTO contacts VALUES ('Ada', '555')")
    connection.commit()
    connection.close()
    notes = base / "notes.txt"
    notes.write_text("not a database\n", encoding="utf-8")
    companions = [Path(f"{foreign}{suffix}") for suffix in ("-wal", "-shm", "-journal")]
    mistyped = base / "stduy.sqlite"
    newer = base / "newer.sqlite"  # a study written by a later version: a schema revision we do not know
    shutil.copy(builder.empty_study, newer)
    connection = sqlite3.connect(newer)
    connection.execute("UPDATE alembic_version SET version_num = '9999_from_the_future'")
    connection.commit()
    connection.close()
    damaged = base / "damaged.sqlite"  # pages 2 and 3 (the version table's) overwritten with noise
    shutil.copy(builder.empty_study, damaged)
    data = bytearray(damaged.read_bytes())
    page_size = int.from_bytes(data[16:18], "big")
    data[page_size:3 * page_size] = bytes(random.Random(18).randrange(256) for _ in range(2 * page_size))
    damaged.write_bytes(bytes(data))
    deep = base / "damaged-deep.sqlite"  # the study table's root page overwritten: opening succeeds, a query fails
    shutil.copy(builder.empty_study, deep)
    connection = sqlite3.connect(deep)
    root = connection.execute("SELECT rootpage FROM sqlite_master WHERE name = 'study'").fetchone()[0]
    connection.close()
    data = bytearray(deep.read_bytes())
    data[(root - 1) * page_size:root * page_size] = bytes(random.Random(18).randrange(256) for _ in range(page_size))
    deep.write_bytes(bytes(data))
    empty = base / "empty.sqlite"
    empty.write_bytes(b"")
    for name, argv, untouched, absent in [
        ("progress-foreign-sqlite", ["study", "progress", "--db", str(foreign)], [foreign], companions),
        ("import-into-foreign-sqlite", ["study", "import-candidates", str(builder.candidates_no_source), "--db",
                                        str(foreign), "--sources", str(builder.sentences)], [foreign], companions),
        ("report-foreign-sqlite", ["report", str(foreign)], [foreign], companions),
        ("signtest-foreign-sqlite", ["signtest", str(foreign), "--system-a", "a", "--system-b", "b",
                                     "--criterion", "fluency"], [foreign], companions),
        ("progress-text-file", ["study", "progress", "--db", str(notes)], [notes], []),
        ("progress-mistyped-path", ["study", "progress", "--db", str(mistyped)], [], [mistyped]),
        ("export-judgments-mistyped-path", ["study", "export-judgments", "--db", str(mistyped)], [], [mistyped]),
        ("progress-newer-schema", ["study", "progress", "--db", str(newer)], [newer], []),
        ("import-into-newer-schema", ["study", "import-candidates", str(builder.candidates_no_source), "--db",
                                      str(newer), "--sources", str(builder.sentences)], [newer], []),
        ("progress-damaged-study", ["study", "progress", "--db", str(damaged)], [damaged], []),
        ("report-damaged-study", ["report", str(damaged)], [damaged], []),
        ("report-damaged-study-table", ["report", str(deep)], [deep], []),
        ("progress-empty-file", ["study", "progress", "--db", str(empty)], [empty], []),
    ]:
        builder.cases.append(Case(f"store/{name}", "store", argv, base, "refuse", store=True, untouched=untouched,
                                  must_not_exist=absent))


def build_cases(directory: Path, core: Path = ROOT) -> list[Case]:
    """Write every input under ``directory`` and return the cases (clean baselines first in their slot);
    ``core``: the checkout whose CLI makes the study files."""
    rng = random.Random(18)
    builder = CaseBuilder(directory, core)
    _text_slot_cases(builder, rng)
    _lm_cases(builder, rng)
    _table_rule_cases(builder)
    _csv_row_cases(builder)
    _candidate_cases(builder)
    _terminal_cases(builder)
    _store_cases(builder)
    from malformed_cases_22 import build_cases_22  # issue 22's kinds, beside this list

    build_cases_22(builder, core)
    from malformed_cases_held_out import build_held_out_cases  # the held-out kinds, apart from tests/

    build_held_out_cases(builder, core)
    return builder.cases
