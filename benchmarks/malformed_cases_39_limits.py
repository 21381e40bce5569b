"""Issue 39's held-out set, the last two families (``malformed_cases_39.py`` runs them):

* numbers: ``1_0``, a no-break space before or after, ``+1``, ``0x10``, ``inf``, ``1e400`` in the numbers of files
  (signtest scores, the probabilities of table stats, truescore, generate and pivot tables, ARPA log
  probabilities) and of command-line options: refused with the line (an option: one line, exit 2), or, for a
  spelling of the same number (``+1``, a no-break space), read as that number with the clean file's output;
* descriptors and limits: standard input, output or error closed (bash's ``<&-``, ``>&-``, ``2>&-``), an output
  past RLIMIT_FSIZE, a disk that fills (a tmpfs in a private mount namespace): a command that needs the closed
  descriptor refuses in one line, one that does not needs it not; a write that does not fit leaves no partial
  output, no temporary and the study as it was.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

from malformed_cases import ARPA, JUDGMENTS, PHRASE_TABLE, SCORES, TABLE, CaseBuilder
from malformed_cases_39 import DEMO, _write, add, count_rows, judged_study

NBSP = "\u00a0"


def _number_cases(builder: CaseBuilder, base: Path) -> None:
    t, lm = str(builder.table), str(builder.arpa)
    signtest_row = "0,beam,1\n"
    for label, value, expect in [("underscore", "1_0", "refuse-line"), ("no-break-space-before", NBSP + "1", "same"),
                                 ("no-break-space-after", "1" + NBSP, "same"), ("plus-sign", "+1", "same"),
                                 ("hex", "0x10", "refuse-line"), ("1e400", "1e400", "refuse-line")]:
        assert signtest_row in SCORES
        scores = _write(base / f"scores-{label}.csv", SCORES.replace(signtest_row, f"0,beam,{value}\n", 1))
        clean = _write(base / "scores-clean.csv", SCORES)
        argv = ["signtest", "{}", "--system-a", "beam", "--system-b", "mcpg", "--json"]
        _number_case(builder, base, f"signtest-score/{label}", argv, scores, clean, expect)
    rule = "the dog ||| the hound ||| 0.1"
    probabilities = [("underscore", "0.1_0", "refuse-line"), ("no-break-space-before", NBSP + "0.1", "same"),
                     ("no-break-space-after", "0.1" + NBSP, "same"), ("plus-sign", "+0.1", "same"),
                     ("hex", "0x10", "refuse-line")]
    for slot, argv, stdin in [("table-stats", ["table", "stats", "{}", "--json"], None),
                              ("truescore-table", ["truescore", "--table", "{}", "--source", "the dog runs",
                                                   "--target", "the hound runs", "--json"], None),
                              ("generate-table", ["generate", "--system", "beam", "--table", "{}", "--lm", lm,
                                                  "--nbest", "3", "--json"], builder.sentences)]:
        for label, value, expect in probabilities:
            table = _write(base / f"{slot}-{label}.txt", TABLE.replace(rule, rule.replace("0.1", value)))
            clean = _write(base / f"{slot}-clean.txt", TABLE)
            _number_case(builder, base, f"{slot}-probability/{label}", argv, table, clean, expect, stdin=stdin)
    pivot_rule = "the hound ||| le chien ||| 0.3 0.2 0.2 0.1"
    for label, value, expect in probabilities[:4] + [("hex", "0x1", "refuse-line")]:
        table = _write(base / f"pivot-{label}.txt", PHRASE_TABLE.replace(pivot_rule, pivot_rule.replace(
            "0.3", value.replace("0.1", "0.3"), 1)))
        clean = _write(base / "pivot-clean.txt", PHRASE_TABLE)
        argv = ["pivot", "{}", "-o", str(base / f"pivot-{label}.out"), "--json"]
        _number_case(builder, base, f"pivot-probability/{label}", argv, table, clean, expect)
    arpa_entry = "-0.5\tthe\t-0.3"
    for label, value, expect in [("underscore", "-0.5_0", "refuse-line"), ("no-break-space-before", NBSP + "-0.5",
                                                                             "same"),
                                 ("hex", "-0x1", "refuse-line"), ("1e400", "-1e400", "refuse-line"),
                                 ("minus-inf", "-inf", "any")]:
        model = _write(base / f"lm-{label}.arpa", ARPA.replace(arpa_entry, arpa_entry.replace("-0.5", value, 1)))
        clean = _write(base / "lm-clean.arpa", ARPA)
        _number_case(builder, base, f"arpa-log-probability/{label}", ["lm", "score", "{}"], model, clean, expect,
                     stdin=builder.sentences)
    judgments = _write(base / "judgments.csv", JUDGMENTS)
    options = [("generate-nbest", ["generate", "--system", "beam", "--table", t, "--lm", lm, "--json", "--nbest"],
                "2", builder.sentences),
               ("generate-stack-size", ["generate", "--system", "beam", "--table", t, "--lm", lm, "--json",
                                        "--stack-size"], "10", builder.sentences),
               ("agreement-bootstrap", ["agreement", str(judgments), "--json", "--bootstrap"], "20", None),
               ("agreement-seed", ["agreement", str(judgments), "--json", "--bootstrap", "20", "--seed"], "3", None),
               ("report-block", ["report", str(judgments), "--bootstrap", "0", "--block"], "2", None),
               ("pivot-top", ["pivot", str(_write(base / "phrases.txt", PHRASE_TABLE)), "-o",
                              str(base / "top.out"), "--json", "--top"], "2", None),
               ("pivot-min-prob", ["pivot", str(base / "phrases.txt"), "-o", str(base / "min.out"), "--json",
                                   "--min-prob"], "0.01", None),
               ("truescore-alpha-lm", ["truescore", "--table", t, "--lm", lm, "--source", "the dog runs", "--target",
                                       "the beast runs", "--json", "--alpha-lm"], "1", None)]
    for name, argv, clean, stdin in options:
        for label, value, expect in [("underscore", "1_0", "refuse"), ("no-break-space-before", NBSP + clean, "same"),
                                     ("plus-sign", "+" + clean, "same"), ("hex", "0x10", "refuse"),
                                     ("inf", "inf", "refuse"), ("1e400", "1e400", "refuse")]:
            add(builder, "numbers", f"option-{name}/{label}", [*argv, value], expect if expect != "same"
                else "same-or-refuse", base, exit_code=2, stdin=stdin, baseline_argv=[*argv, clean])


def _number_case(builder, base, name, argv, path, clean, expect, stdin=None) -> None:
    filled = [str(path) if part == "{}" else part for part in argv]
    baseline = [str(clean) if part == "{}" else part for part in argv]
    add(builder, "numbers", name, filled, {"same": "same-or-refuse-line"}.get(expect, expect), base, exit_code=2,
        stdin=stdin, baseline_argv=baseline, input_path=path)


def _descriptor_cases(builder: CaseBuilder, base: Path, core: Path) -> None:
    judged = judged_study(base / "judged.sqlite", base, core)
    t, lm = str(builder.table), str(builder.arpa)
    generate = ["generate", "--system", "beam", "--table", t, "--lm", lm, "--json"]
    bad_table = _write(base / "bad-table.txt", "the dog ||| the hound ||| high\n")
    s = str(judged)
    printers = {"table-stats": ["table", "stats", t], "study-progress": ["study", "progress", "--db", s],
                "report": ["report", s, "--bootstrap", "0"], "agreement": ["agreement", s, "--bootstrap", "0"],
                "export-judgments": ["study", "export-judgments", "--db", s], "items": ["study", "items", s],
                "inspect": ["inspect", s], "patterns-extract": ["patterns", "extract", str(_write(
                    base / "sentences.txt", "take the matter into consideration\n"))]}
    for name, argv in printers.items():
        add(builder, "descriptors", f"stdout-closed/{name}", argv, "refuse", base, close=(1,), untouched=[judged])
    add(builder, "descriptors", "stdout-closed/generate", generate, "refuse", base, close=(1,),
        stdin=builder.sentences)
    add(builder, "descriptors", "stdout-closed/lm-score", ["lm", "score", lm], "refuse", base, close=(1,),
        stdin=builder.sentences)
    before = count_rows(judged, "judgment")
    more = _write(base / "more.csv", "item,annotator,criterion,value\n1,ann3,fluency,yes\n2,ann3,fluency,no\n")
    clean_out = base / "clean-generate.jsonl"
    with open(builder.sentences, "rb") as sentences:
        subprocess.run([sys.executable, "-m", "parastudio", *generate, "-o", str(clean_out)], stdin=sentences, check=True,
                       capture_output=True, cwd=base, env={**os.environ, "PYTHONPATH": str(core)})
    for closed, label in (((1,), "stdout-closed"), ((0,), "stdin-closed"), ((2,), "stderr-closed")):
        own = base / f"{label}-import.sqlite"
        shutil.copy(judged, own)
        add(builder, "descriptors", f"{label}/import-judgments", ["study", "import-judgments", str(more), "--db",
                                                                  str(own)], "any", base, close=closed,
            post=_study_is(own, (before, before + 2)))
        out = base / f"{label}-generate.jsonl"
        add(builder, "descriptors", f"{label}/generate-to-a-file", [*generate, "-o", str(out)],
            "refuse" if closed == (0,) else "accept", base, close=closed, exit_code=2 if closed == (0,) else None,
            stdin=None if closed == (0,) else builder.sentences, post=_same_file(out, clean_out))
    for name, argv in [("generate", generate), ("lm-score", ["lm", "score", lm]),
                       ("patterns-extract-dash", ["patterns", "extract", "-"])]:
        add(builder, "descriptors", f"stdin-closed/{name}", argv, "refuse", base, close=(0,), exit_code=2)
    for name, argv in [("table-stats", ["table", "stats", t]), ("report", ["report", s, "--bootstrap", "0"])]:
        add(builder, "descriptors", f"stdin-closed/{name}", argv, "same-or-refuse", base, close=(0,),
            baseline_argv=argv, untouched=[judged])
    altered = base / "altered.sqlite"
    shutil.copy(judged, altered)
    connection = sqlite3.connect(altered)
    connection.execute("DELETE FROM alembic_version")
    connection.commit()
    connection.close()
    for name, argv in [("table-stats-bad-table", ["table", "stats", str(bad_table)]),
                       ("progress-altered-study", ["study", "progress", "--db", str(altered)]),
                       ("generate-bad-table", ["generate", "--system", "beam", "--table", str(bad_table), "--lm", lm])]:
        add(builder, "descriptors", f"stderr-closed/{name}", argv, "refuse", base, close=(2,), exit_code=2,
            stdin=builder.sentences, untouched=[altered])


def _study_is(study: Path, allowed: tuple[int, ...]):
    def check() -> str:
        connection = sqlite3.connect(f"file:{study}?mode=ro", uri=True)
        try:
            integrity = connection.execute("PRAGMA integrity_check").fetchall()
            rows = connection.execute("SELECT COUNT(*) FROM judgment").fetchone()[0]
        except Exception as error:  # noqa: BLE001 - what the command left is what is judged
            return f"the study no longer opens: {error}"
        finally:
            connection.close()
        if integrity != [("ok",)]:
            return f"integrity_check: {integrity[:2]}"
        return "" if rows in allowed else f"{rows} judgments, expected one of {allowed}"
    return check


def _same_file(path: Path, clean: Path):
    def check() -> str:
        if not path.exists():
            return ""  # refused: nothing written is right
        strip = re.compile(rb'"sha256": "[0-9a-f]{64}"|"path": "[^"]*"|"seconds": [-+.0-9e]+')
        return "" if strip.sub(b"", path.read_bytes()) == strip.sub(b"", clean.read_bytes()) else \
            "the output differs from a clean run's"
    return check


def _limit_cases(builder: CaseBuilder, base: Path, core: Path) -> None:
    judged = judged_study(base / "judged.sqlite", base, core)
    table, lm = str(DEMO / "paraphrase-table.gz"), str(DEMO / "lm.bin")
    corpus = _write(base / "corpus.txt", "".join(f"w{i % 97} w{i % 89} w{i % 83} w{i % 79} w{i % 7}\n"
                                                 for i in range(20_000)))
    phrases = _write(base / "phrases.txt", "".join(f"e{i} e{i % 50} ||| f{i % 300} ||| 0.5 0.4 0.6 0.3\n"
                                                   for i in range(20_000)))
    s = str(judged)
    writers = {  # name: (argv given the output, output name, RLIMIT_FSIZE)
        "generate": (lambda o: ["generate", "--system", "beam", "--table", table, "--lm", lm, "-o", o], "out.txt",
                     4096),
        "pivot": (lambda o: ["pivot", str(phrases), "-o", o], "para.txt", 65536),
        "lm-train": (lambda o: ["lm", "train", str(corpus), "--order", "3", "--discount-fallback", "-o", o],
                     "lm.bin", 65536),
        "export-judgments": (lambda o: ["study", "export-judgments", "--db", s, "-o", o], "judgments.csv", 256),
        "export-devset": (lambda o: ["export-devset", s, "-o", o], "dev.jsonl", 256),
        "report": (lambda o: ["report", s, "--bootstrap", "0", "-o", o], "report.md", 256),
        "items": (lambda o: ["study", "items", s, "-o", o], "items.txt", 128),
        "export-package": (lambda o: ["study", "export-package", "--db", s, "--annotator", "ann1", "-o", o],
                           "package.sqlite", 4096),
    }
    for name, (argv, output, limit) in writers.items():
        for state in ("new", "replacing"):
            folder = base / f"{name}-{state}"
            folder.mkdir()
            target = folder / output
            if state == "replacing":
                _write(target, "the earlier output, kept whole\n")
            add(builder, "limits", f"rlimit-fsize/{name}/{state}", argv(str(target)), "refuse", folder, fsize=limit,
                stdin=DEMO / "test.en", watch=(folder,), allowed_new=(), time_limit=60.0,
                untouched=[target] if state == "replacing" else [], must_not_exist=[] if state == "replacing"
                else [target])
    binarized = base / "binarize"
    binarized.mkdir()
    shutil.copy(DEMO / "rv-web.test.phrase-table.gz", binarized / "table.gz")
    add(builder, "limits", "rlimit-fsize/table-binarize", ["table", "binarize", str(binarized / "table.gz")],
        "refuse", binarized, fsize=1 << 20, watch=(binarized,), time_limit=60.0)
    created = base / "create"
    created.mkdir()
    add(builder, "limits", "rlimit-fsize/study-create", ["study", "create", "s", "--db", str(created / "new.sqlite")],
        "refuse", created, fsize=4096, watch=(created,))
    big = base / "big-import.sqlite"
    shutil.copy(judged, big)
    rows = count_rows(judged, "judgment")
    many = _write(base / "many.csv", "item,annotator,criterion,value,comment\n" + "".join(
        f"{item},judge{n},fluency,yes,{'x' * 2000}\n" for n in range(300) for item in (1, 2, 3)))
    add(builder, "limits", "rlimit-fsize/import-judgments", ["study", "import-judgments", str(many), "--db", str(big)],
        "refuse", base, fsize=big.stat().st_size + 8192, post=_study_is(big, (rows,)))
    _full_disk_cases(builder, base, judged, phrases)


def _full_disk_cases(builder: CaseBuilder, base: Path, judged: Path, phrases: Path) -> None:
    table, lm = str(DEMO / "paraphrase-table.gz"), str(DEMO / "lm.bin")
    count = ("study.sqlite", "SELECT COUNT(*) FROM judgment")
    sentences = _write(base / "sentences-100.txt", (DEMO / "test.en").read_text(encoding="utf-8"))
    for name, argv, copy, free, queries in [
        ("generate", ["generate", "--system", "beam", "--table", table, "--lm", lm, "-o", "out.txt"], [], 8192, []),
        ("pivot", ["pivot", str(phrases), "-o", "para.txt"], [], 65536, []),
        ("export-judgments", ["study", "export-judgments", "--db", "study.sqlite", "-o", "judgments.csv"],
         [(str(judged), "study.sqlite")], 0, [count]),
        ("import-judgments", ["study", "import-judgments", str(base / "many.csv"), "--db", "study.sqlite"],
         [(str(judged), "study.sqlite")], 0, [count]),
        ("study-create", ["study", "create", "s", "--db", "new.sqlite"], [], 0, []),
        ("export-package", ["study", "export-package", "--db", "study.sqlite", "--annotator", "ann1", "-o",
                            "package.sqlite"], [(str(judged), "study.sqlite")], 16384, [count]),
        ("table-binarize", ["table", "binarize", "table.gz"], [(str(DEMO / "rv-web.test.phrase-table.gz"),
                                                                "table.gz")], 65536, []),
    ]:
        mount = base / f"full-disk-{name}"
        mount.mkdir()
        spec = {"mount": str(mount), "size": 4 << 20, "copy": copy, "free": free, "before": queries,
                "unchanged": [copied for _, copied in copy if name in ("export-judgments", "table-binarize")],
                "stdin": str(sentences) if name == "generate" else None}
        add(builder, "limits", f"full-disk/{name}", argv, "refuse", base, full_disk=spec, time_limit=60.0)


def build_limit_cases(builder: CaseBuilder, core: Path) -> None:
    for family, build in [("numbers", lambda b, d: _number_cases(b, d)),
                          ("descriptors", lambda b, d: _descriptor_cases(b, d, core)),
                          ("limits", lambda b, d: _limit_cases(b, d, core))]:
        base = builder.directory / family
        base.mkdir(parents=True, exist_ok=True)
        build(builder, base)
