"""Issue 22's new kinds of malformed input for ``malformed_inputs.py``: filesystem objects, unicode, size,
store states, injection, and inputs that used to be taken silently with a changed result.

* filesystem objects: a symlink loop, a dangling symlink and a directory where a file is read, over the
  commands' inputs (tables, LMs, CSVs, candidates, studies, dev sets, weights, corpora);
* unicode: a byte-order mark inside a file (not at its start) over the text slots, a non-UTF-8
  approaches TOML, blank lines for ``patterns extract``;
* size: JSON and TOML nested 100,000 deep, a rank past SQLite's integers;
* store states: a study in a read-only folder (read: accepted; written: refused), a new study there, an
  unreachable PostgreSQL server, a mistyped ``sqlite+pysqlite:///`` URL, a symlink loop as a study;
* silent changes: a sentence id given two sources, ``merge-package`` of an answer off the scale,
  ``table prune`` of each of issue 18's bad rules, ``lm train`` on non-text, pattern pairs with other slots;
* injection: escape sequences in names and texts, and inside line 2 of each of issue 18's 14 text inputs
  (taken or refused, the output must hold no raw control character), and spreadsheet formulas in cells
  (every CSV export must quote them).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

from malformed_cases import (
    CANDIDATES,
    JUDGMENTS,
    TABLE,
    Case,
    CaseBuilder,
    _on_line_2,
    _python_core,
    _replace_line_2,
    candidate_line,
)

DEEP = 100_000
ATTACK = "\x1b]0;pwned\x07\x1b[2J\x9b31m\x7f\x08"  # window title, clear screen, C1 CSI, DEL, backspace
FORMULAS = ['=HYPERLINK("http://evil.example/","x")', "+cmd|' /C calc'!A0", "@SUM(A1:A9)", "-2+3+cmd|x"]
PATTERN_PAIR = "take [NN_1] into consideration ||| consider [NN_1] ||| 0.5 0.5 ||| 0 -0.69 -0.69 -0.69 ||| p\n"


def _write(path: Path, data: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)
    return path


def _case(builder: CaseBuilder, group: str, name: str, argv: list[str], expect: str, directory: Path, **extra) -> Case:
    case = Case(f"{group}/{name}", group, argv, directory, expect, issue=22, kind=group, **extra)
    builder.cases.append(case)
    return case


def _filesystem_cases(builder: CaseBuilder, base: Path) -> None:
    loop, dangling, folder = base / "loop", base / "dangling", base / "a-folder"
    os.symlink(base / "loop-back", loop)
    os.symlink(loop, base / "loop-back")
    os.symlink(base / "nowhere", dangling)
    folder.mkdir()
    t, lm, sentences = str(builder.table), str(builder.arpa), builder.sentences
    study = base / "study.sqlite"
    shutil.copy(builder.items_study, study)
    commands = {
        "table-stats": lambda p: ["table", "stats", p],
        "truescore-table": lambda p: ["truescore", "--table", p, "--source", "the dog", "--target", "the beast"],
        "generate-table": lambda p: ["generate", "--system", "beam", "--table", p, "--lm", lm],
        "generate-lm": lambda p: ["generate", "--system", "beam", "--table", t, "--lm", p],
        "lm-score": lambda p: ["lm", "score", p],
        "lm-train": lambda p: ["lm", "train", p, "--order", "2", "-o", str(base / "never.bin")],
        "pivot": lambda p: ["pivot", p, "-o", str(base / "never.txt")],
        "agreement": lambda p: ["agreement", p],
        "report": lambda p: ["report", p],
        "import-candidates": lambda p: ["study", "import-candidates", p, "--db", str(study)],
        "import-judgments": lambda p: ["study", "import-judgments", p, "--db", str(study)],
        "study-progress": lambda p: ["study", "progress", "--db", p],
        "export-devset": lambda p: ["export-devset", p, "-o", str(base / "never.jsonl")],
        "tune-devset": lambda p: ["tune", "--devset", p, "--system", "spg", "-o", str(base / "never.json"),
                                  "--table", t, "--lm", lm],
        "generate-weights": lambda p: ["generate", "--system", "beam", "--table", t, "--lm", lm, "--weights", p],
        "autoeval-approaches": lambda p: ["autoeval", "--approaches", p],
        "patterns-stats": lambda p: ["patterns", "stats", p],
    }
    for command, argv in commands.items():
        for kind, path in (("symlink-loop", loop), ("dangling-symlink", dangling), ("directory", folder)):
            _case(builder, "filesystem", f"{command}/{kind}", argv(str(path)), "refuse", base, stdin=sentences,
                  untouched=[study], must_not_exist=[base / "never.bin", base / "never.txt", base / "never.jsonl",
                                                     base / "never.json"])


def _unicode_and_size_cases(builder: CaseBuilder, base: Path) -> None:
    for slot in builder.slots():  # a BOM where two files were pasted together: line 2
        clean = slot.clean.encode()
        case = builder.add(slot, "bom-inside", _replace_line_2(clean, b"\xef\xbb\xbf" + clean.split(b"\n")[1]),
                           "refuse-line")
        case.issue, case.kind = 22, "unicode-size"
    approaches = _write(base / "latin1.toml", b'[approach.x]\nfilters = ["caf\xe9"]\n')
    deep_toml = _write(base / "deep.toml", "[approach.x]\nfilters = " + "[" * DEEP + "]" * DEEP + "\n")
    deep_json = _write(base / "deep.json", '{"format": "x",\n "weights": ' + "[" * DEEP + "]" * DEEP + "}\n")
    deep_devset = _write(base / "deep.jsonl", "\n" + "[" * DEEP + "]" * DEEP + "\n")
    t, lm = str(builder.table), str(builder.arpa)
    for name, argv in {
        "approaches-not-utf8": ["autoeval", "--approaches", str(approaches), "--approach", "x"],
        "approaches-nested-100000": ["autoeval", "--approaches", str(deep_toml), "--approach", "x"],
        "weights-nested-100000": ["generate", "--system", "beam", "--table", t, "--lm", lm, "--weights",
                                  str(deep_json)],
        "devset-nested-100000": ["tune", "--devset", str(deep_devset), "--system", "spg", "-o",
                                 str(base / "w.json"), "--table", t, "--lm", lm],
        "cases-nested-100000": ["autoeval", "--cases", str(deep_devset), "--graph", str(deep_devset)],
    }.items():
        _case(builder, "unicode-size", name, argv, "refuse-line", base, stdin=builder.sentences)
    study = base / "rank.sqlite"
    shutil.copy(builder.empty_study, study)
    big_rank = _write(base / "big-rank.jsonl", CANDIDATES.split("\n")[0] + "\n"
                      + candidate_line(1, '"the kitten sleeps"', rank=str(2 ** 63), derivation="null",
                                       source='"the cat sleeps"'))
    _case(builder, "unicode-size", "rank-past-sqlite-integers", ["study", "import-candidates", str(big_rank), "--db",
                                                                 str(study)], "refuse-line", base, untouched=[study])
    blank = _write(base / "blank-lines.txt", "the dog runs\n\n   \nthe cat sleeps\n")
    _case(builder, "unicode-size", "patterns-extract-blank-lines", ["patterns", "extract", str(blank)], "accept", base)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _store_state_cases(builder: CaseBuilder, base: Path) -> None:
    archive = base / "archive"  # a study in a folder this process may not write (run without root's overrides)
    archive.mkdir()
    shutil.copy(builder.items_study, archive / "study.sqlite")
    judged = _write(base / "judgments.csv", JUDGMENTS)
    archive.chmod(0o555)
    shown = str(archive / "study.sqlite")
    for name, argv, expect in [
        ("read-only-folder-progress", ["study", "progress", "--db", shown], "accept"),
        ("read-only-folder-report", ["report", shown, "--bootstrap", "0"], "accept"),
        ("read-only-folder-export-judgments", ["study", "export-judgments", "--db", shown], "accept"),
        ("read-only-folder-export-devset", ["export-devset", shown, "-o", str(base / "dev.jsonl")], "accept"),
        ("read-only-folder-import-judgments", ["study", "import-judgments", str(judged), "--db", shown], "refuse"),
        ("read-only-folder-create", ["study", "create", "s", "--db", str(archive / "new.sqlite")], "refuse"),
    ]:
        _case(builder, "store-state", name, argv, expect, base, store=True, honour_permissions=True,
              untouched=[archive / "study.sqlite"], must_not_exist=[archive / "new.sqlite",
                                                                   archive / "study.sqlite-wal"])
    mistyped = base / "typo.sqlite"
    port = _free_port()
    loop = base / "study-loop"
    os.symlink(loop, loop)
    for name, argv, absent in [
        ("unreachable-postgresql", ["study", "progress", "--db",
                                    f"postgresql+psycopg://judge:secret@127.0.0.1:{port}/studies"], []),
        ("mistyped-sqlite-driver-url", ["study", "progress", "--db", f"sqlite+pysqlite:///{mistyped}"], [mistyped]),
        ("study-symlink-loop", ["study", "progress", "--db", str(loop)], []),
    ]:
        _case(builder, "store-state", name, argv, "refuse", base, store=True, must_not_exist=absent)


def _package(builder: CaseBuilder, base: Path, core: Path) -> tuple[Path, Path]:
    master = base / "master.sqlite"
    _python_core("study", "create", "s", "--db", str(master), "--criteria", "fluency", cwd=base, core=core)
    items = _write(base / "items.jsonl", CANDIDATES)
    _python_core("study", "import-candidates", str(items), "--db", str(master), cwd=base, core=core)
    _python_core("study", "assign", "--db", str(master), "--annotators", "ann", cwd=base, core=core)
    package = base / "ann.pkg"
    _python_core("study", "export-package", "--db", str(master), "--annotator", "ann", "-o", str(package),
                 cwd=base, core=core)
    # The judge answers in the package; then another program writes an answer off the yes/no scale over it.
    judge = ("import sys\nfrom core.store import operations as ops\nfrom core.store.database import open_database\n"
             "with open_database(sys.argv[1]) as db:\n    who = ops.find_annotator(db, ops.find_study(db), 'ann')\n"
             "    ops.record_judgment(db, ops.next_item(db, who).assignment_id, 'yes')\n")
    subprocess.run([sys.executable, "-c", judge, str(package)], check=True, capture_output=True,
                   env={**os.environ, "PYTHONPATH": str(core)})
    connection = sqlite3.connect(package)
    connection.execute("UPDATE judgment SET value = 'maybe'")
    connection.commit()
    connection.close()
    return master, package


def _silent_change_cases(builder: CaseBuilder, base: Path, core: Path) -> None:
    study = base / "study.sqlite"
    shutil.copy(builder.empty_study, study)
    two_sources = _write(base / "two-sources.jsonl", candidate_line(0, derivation="null")
                         + candidate_line(0, '"a cat naps"', derivation="null", source='"the cat sleeps"'))
    _case(builder, "silent-change", "sentence-id-with-two-sources", ["study", "import-candidates", str(two_sources),
                                                                     "--db", str(study)], "refuse-line", base,
          untouched=[study])
    try:
        master, package = _package(builder, base, core)
    except Exception as error:  # noqa: BLE001 - an older checkout (--core) whose schema differs: no such case
        print(f"(merge-package case left out: {error})")
    else:
        # A package is a SQLite file: its refusal names the table and row (study check), not a line.
        _case(builder, "silent-change", "merge-package-off-scale", ["study", "merge-package", str(package), "--db",
                                                                    str(master)], "refuse", base,
              untouched=[master])
    prune_list = _write(base / "prune.txt", "runs ||| sprints\n")
    bad_rules = {"prob-nan": "the dog ||| the hound ||| nan", "prob-inf": "the dog ||| the hound ||| inf",
                 "prob-1e400": "the dog ||| the hound ||| 1e400", "prob-not-a-number": "the dog ||| the hound ||| high",
                 "two-fields": "the dog ||| the hound", "empty-phrase": "the dog |||  ||| 0.1",
                 "no-score": "the dog ||| the hound ||| "}
    for name, rule in bad_rules.items():
        table = _write(base / f"prune-{name}.txt", TABLE.replace("the dog ||| the hound ||| 0.1", rule))
        output = base / f"pruned-{name}.txt"
        _case(builder, "silent-change", f"table-prune/{name}", ["table", "prune", str(table), "--list",
                                                                str(prune_list), "-o", str(output)],
              "refuse-line", base, must_not_exist=[output])
    for name, data in {"not-utf8": b"the dog runs\nthe caf\xe9 sleeps\n", "nul": b"the dog runs\nthe\x00cat\n",
                       "binary": bytes(range(256)) * 16}.items():
        corpus = _write(base / f"corpus-{name}.txt", data)
        output = base / f"lm-{name}.bin"
        _case(builder, "silent-change", f"lm-train/{name}", ["lm", "train", str(corpus), "--order", "2", "-o",
                                                             str(output), "--discount-fallback"], "refuse-line", base,
              must_not_exist=[output])
    for name, pair in {"other-slot": PATTERN_PAIR.replace("consider [NN_1]", "consider [NN_2]"),
                       "slot-on-one-side": PATTERN_PAIR.replace("into consideration", "into [NN_2]"),
                       "no-slot": PATTERN_PAIR.replace("[NN_1]", "it")}.items():
        table = _write(base / f"patterns-{name}.txt", PATTERN_PAIR + pair)
        _case(builder, "silent-change", f"pattern-table/{name}", ["patterns", "stats", str(table)], "refuse-line",
              base)


def _injection_cases(builder: CaseBuilder, base: Path, core: Path) -> None:
    for slot in builder.slots():  # escape sequences inside line 2 of each text input: taken or refused, never obeyed
        case = builder.add(slot, "escape-sequences", _on_line_2(slot.clean.encode(), ATTACK.encode()),
                           "any-no-controls")
        case.issue, case.kind = 22, "injection"
    named = _write(base / "names.csv", JUDGMENTS.replace("ann2", "ann" + ATTACK))
    table = _write(base / "table.txt", f"the dog ||| the be{ATTACK}ast ||| 0.9\n")
    for name, argv, stdin in [
        ("report-names", ["report", str(named), "--bootstrap", "0"], None),
        ("agreement-names", ["agreement", str(named), "--bootstrap", "0"], None),
        ("generate-texts", ["generate", "--system", "beam", "--table", str(table), "--lm", str(builder.arpa),
                            "--exclude-source"], builder.sentences),
        ("error-message-quotes-a-line", ["table", "stats", str(_write(base / "bad.txt", f"a {ATTACK}\n"))], None),
    ]:
        # A name holding control characters is refused at the door since issue 39 (in words with no raw control).
        refused = "error" in name or name.endswith("-names")
        _case(builder, "injection", f"terminal/{name}", argv, "refuse-no-controls" if refused
              else "accept-no-controls", base, stdin=stdin)
    study = base / "formulas.sqlite"
    _python_core("study", "create", "s", "--db", str(study), "--criteria", "fluency", cwd=base, core=core)
    candidates = _write(base / "formulas.jsonl", "".join(
        json.dumps({"sentence_id": i, "system": "@sys", "text": text, "source": f"source {i}"}) + "\n"
        for i, text in enumerate(FORMULAS)))
    _python_core("study", "import-candidates", str(candidates), "--db", str(study), cwd=base, core=core)
    judgments = _write(base / "formula-judgments.csv", "item,annotator,criterion,value,comment\n" + "".join(
        f"{i},{who},fluency,yes,=1+2\n" for i in range(1, len(FORMULAS) + 1) for who in ("@judge", "-3.5")))
    _python_core("study", "import-judgments", str(judgments), "--db", str(study), cwd=base, core=core)
    for name, argv, output in [
        ("export-judgments", ["study", "export-judgments", "--db", str(study)], None),
        ("items", ["study", "items", str(study), "--format", "csv"], None),
        ("export-scores", ["study", "export-scores", str(study), "--criterion", "fluency"], None),
        ("inspect", ["inspect", str(study), "--format", "csv"], None),
        ("report", ["report", str(study), "--bootstrap", "0", "--format", "csv"], None),
        ("export-devset", ["export-devset", str(study), "--format", "csv", "-o", str(base / "dev.csv")],
         base / "dev.csv"),
    ]:
        _case(builder, "injection", f"csv-formulas/{name}", argv, "accept-csv-safe", base, untouched=[study],
              output_file=output)


def build_cases_22(builder: CaseBuilder, core: Path) -> None:
    """Issue 22's cases (module docstring), written under the builder's directory."""
    groups = {"filesystem": _filesystem_cases, "unicode-size": _unicode_and_size_cases,
              "store-state": _store_state_cases}
    for name, build in groups.items():
        base = builder.directory / f"issue22-{name}"
        base.mkdir(parents=True, exist_ok=True)
        build(builder, base)
    for name, build in {"silent-change": _silent_change_cases, "injection": _injection_cases}.items():
        base = builder.directory / f"issue22-{name}"
        base.mkdir(parents=True, exist_ok=True)
        build(builder, base, core)

