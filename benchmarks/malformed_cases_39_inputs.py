"""Issue 39's held-out set, the families of what a user types or hands over (``malformed_cases_39.py`` runs them):

* sizes: lines just past the documented limits (1,000 tokens for ``generate`` and ``truescore``, 1 MiB a line)
  and long lines below them, to generate, truescore, patterns extract, suggest, table stats, lm score, imports;
* names: annotator, system and study names with zero-width characters, bidi controls, a soft hyphen, fullwidth
  letters, other look-alikes, NFC beside NFD, case variants: one name or refused (in a file, ``file:line``); bidi
  controls in a study's data shown escaped on a terminal by every reading command;
* judging values: ESA spans past the candidate's end, negative, huge, reversed, spans on a DA or preference row, DA
  scores 101 / -1 / NaN / 1e2, a preference naming a third system, through ``import-judgments`` and
  ``merge-package``: refused with the line, the study unchanged;
* provenance: ``reproduce`` of params naming files outside the folder (named before it runs; /etc/passwd,
  /dev/zero, a FIFO, /proc/self/environ never read into a message or waited on), NaN and absurd options,
  ``--processes`` 0 / -1 / NaN / 100000.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

from malformed_cases import JUDGMENTS, Case, CaseBuilder, _python_core
from malformed_cases_39 import _write, add, candidate_ids, count_rows, judged_study

BIDI = re.compile(rb"\xe2\x80[\xaa-\xae\x8e\x8f]|\xe2\x81[\xa6-\xa9]|\xd8\x9c")  # U+202A-E, 200E-F, 2066-9, 061C


def _tokens(count: int, word: str = "dog") -> str:
    return " ".join([word] * count)


def _size_cases(builder: CaseBuilder, base: Path) -> None:
    t, lm = str(builder.table), str(builder.arpa)
    mib = 1 << 20
    generate = ["generate", "--system", "beam", "--table", t, "--lm", lm]
    for label, line, expect in [("tokens-1000", _tokens(1000), "accept"),
                                ("tokens-1001", _tokens(1001), "refuse-line"),
                                ("tokens-100000", _tokens(100_000), "refuse-line"),
                                ("emoji-tokens-1001", _tokens(1001, "\U0001f600"), "refuse-line"),
                                ("one-token-900-kib", "x" * (900 << 10), "any"),
                                ("one-token-past-1-mib", "x" * (mib + 1), "refuse-line"),
                                ("ideographic-spaces-2000", "\u3000".join(["dog"] * 2000), "any")]:
        data = _write(base / f"generate-{label}.txt", f"the dog runs\n{line}\nthe cat sleeps\n")
        add(builder, "sizes", f"generate-stdin/{label}", generate, expect, base, stdin=data,
            exit_code=2 if expect != "accept" else None, time_limit=30.0)
        if label in ("tokens-1001", "one-token-past-1-mib", "tokens-1000"):
            add(builder, "sizes", f"lm-score-stdin/{label}", ["lm", "score", lm], "any" if "tokens" in label
                else "refuse-line", base, stdin=data, exit_code=2, time_limit=30.0)
            extract = _write(base / f"extract-{label}.txt", f"take it into consideration\n{line}\n")
            add(builder, "sizes", f"patterns-extract/{label}", ["patterns", "extract", str(extract)],
                "refuse-line" if "mib" in label else "any", base, exit_code=2, time_limit=30.0)
    reference = _write(base / "reference-1001.txt", f"the beast runs\n{_tokens(1001)}\n")
    add(builder, "sizes", "generate-reference/tokens-1001", ["generate", "--system", "spg-similarity", "--table", t,
                                                             "--lm", lm, "--reference", str(reference)], "any", base,
        stdin=builder.sentences, exit_code=2, time_limit=30.0)
    add(builder, "sizes", "patterns-extract-stdin/tokens-20000", ["patterns", "extract", "-"], "any", base,
        stdin_data=(_tokens(20_000, "word") + "\n").encode(), exit_code=2, time_limit=30.0)
    for label, source, target, expect in [("source-1001", _tokens(1001), "the beast", "refuse"),
                                          ("target-1001", "the dog", _tokens(1001), "refuse"),
                                          ("both-1000", _tokens(1000), _tokens(1000), "accept"),
                                          ("source-one-token-100k", "x" * 100_000, "the beast", "any")]:
        add(builder, "sizes", f"truescore/{label}", ["truescore", "--table", t, "--lm", lm, "--source", source,
                                                    "--target", target], expect, base, exit_code=2, time_limit=30.0)
    for label, argv, expect in [("text-100k-characters", ["--text", "x" * 100_000], "any"),
                                ("text-1001-tokens", ["--text", _tokens(1001, "word")], "any"),
                                ("span-past-the-end", ["--span", "0", "1000000"], "refuse")]:
        span = [] if "--span" in argv else ["--span", "0", "1"]  # a text that matches nothing: any status
        add(builder, "sizes", f"suggest/{label}", ["suggest", "--sentence", "0", *span, *argv], expect, base,
            exit_code=2 if expect == "refuse" else None, time_limit=30.0)
    long_rule = _write(base / "table-phrase-2000.txt", f"{_tokens(2000)} ||| {_tokens(2000, 'hound')} ||| 0.5\n"
                       + builder.table.read_text(encoding="utf-8"))
    huge_rule = _write(base / "table-line-past-1-mib.txt", builder.table.read_text(encoding="utf-8")
                       + f"{'x' * (mib + 1)} ||| y ||| 0.5\n")
    add(builder, "sizes", "table-stats/phrase-2000-tokens", ["table", "stats", str(long_rule)], "accept", base)
    add(builder, "sizes", "table-stats/line-past-1-mib", ["table", "stats", str(huge_rule)], "refuse-line", base,
        exit_code=2)
    add(builder, "sizes", "truescore/table-phrase-2000-tokens", ["truescore", "--table", str(long_rule), "--source",
                                                                 "the dog runs", "--target", "the beast runs"],
        "accept", base, time_limit=30.0)
    study = base / "study.sqlite"
    shutil.copy(builder.empty_study, study)
    for label, text in [("text-past-1-mib", "x" * (mib + 1)), ("text-5000-tokens", _tokens(5000))]:
        items = _write(base / f"candidates-{label}.jsonl", json.dumps(
            {"sentence_id": 0, "system": "beam", "text": text, "source": "the dog runs"}) + "\n")
        own = base / f"study-{label}.sqlite"
        shutil.copy(builder.empty_study, own)
        add(builder, "sizes", f"import-candidates/{label}", ["study", "import-candidates", str(items), "--db",
                                                             str(own)], "refuse-line" if "mib" in label else "any",
            base, exit_code=2, untouched=[own] if "mib" in label else [])
    judged = base / "judged.sqlite"
    shutil.copy(builder.items_study, judged)
    comment = _write(base / "comment-past-1-mib.csv", "item,annotator,criterion,value,comment\n"
                     f"1,ann1,fluency,yes,{'x' * (mib + 1)}\n")
    add(builder, "sizes", "import-judgments/comment-past-1-mib", ["study", "import-judgments", str(comment), "--db",
                                                                  str(judged)], "refuse-line", base, exit_code=2,
        untouched=[judged])


# (label, the name the study already knows, the other spelling, what it is)
NAMES = [(label, "ann1", variant, "invisible") for label, variant in [
    ("zero-width-space", "ann\u200b1"), ("zero-width-non-joiner", "ann\u200c1"), ("zero-width-joiner", "ann\u200d1"),
    ("word-joiner", "ann\u20601"), ("bom-inside", "ann\ufeff1"), ("soft-hyphen", "ann\u00ad1"),
    ("right-to-left-override", "ann\u202e1"), ("left-to-right-isolate", "ann\u20661"),
    ("right-to-left-mark", "ann1\u200f"), ("arabic-letter-mark", "ann\u061c1"), ("tab-inside", "ann\t1")]]
NAMES += [(label, "ann1", variant, "look-alike") for label, variant in [
    ("fullwidth", "\uff41\uff4e\uff4e\uff11"), ("fullwidth-one-letter", "\uff41nn1"), ("upper-case", "ANN1"),
    ("title-case", "Ann1"), ("superscript-one", "ann\u00b9"), ("circled-one", "ann\u2460"),
    ("mathematical-bold", "\U0001d41ann1")]]
NAMES += [("nfd-beside-nfc", "zo\u00eb", "zoe\u0308", "same"), ("angstrom-sign", "\u00c5sa", "\u212bsa", "same"),
          ("hangul-jamo", "\ud55c", "\u1112\u1161\u11ab", "same"), ("trailing-space", "ann1", "ann1 ", "same")]


def _one_row(study: Path, table: str, before: int):
    """After the run: never two rows for the two spellings of one name (the study had ``before``)."""
    def check() -> str:
        rows = count_rows(study, table)
        return "" if rows <= before + 1 else f"{rows - before} {table} rows for one name"
    return check


def _csv_cell(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _name_cases(builder: CaseBuilder, base: Path, core: Path) -> None:
    study = base / "two-systems.sqlite"
    _python_core("study", "create", "s39", "--db", str(study), "--criteria", "fluency", cwd=base, core=core)
    items = _write(base / "items.jsonl", "".join(json.dumps({"sentence_id": i, "system": s, "text": f"{s} {i} runs",
                                                             "source": f"source {i}"}) + "\n"
                                                 for i in range(3) for s in ("beam", "mcpg")))
    _python_core("study", "import-candidates", str(items), "--db", str(study), cwd=base, core=core)
    first, second = candidate_ids(study)[:2]
    templates = {}
    for known in {known for _, known, _, _ in NAMES}:
        templates[known] = base / f"study-named-{len(templates)}.sqlite"
        _python_core("study", "create", known, "--db", str(templates[known]), cwd=base, core=core)
    judged = judged_study(base / "judged.sqlite", base, core)
    for label, known, variant, kind in NAMES:
        folder = base / label
        folder.mkdir()
        refusal = dict(exit_code=2)
        own = folder / "judgments.sqlite"
        shutil.copy(study, own)
        rows = _write(folder / "judgments.csv", f"item,annotator,criterion,value\n{first},{_csv_cell(known)},"
                      f"fluency,yes\n{second},{_csv_cell(variant)},fluency,no\n")
        add(builder, "names", f"import-judgments/{label}", ["study", "import-judgments", str(rows), "--db", str(own)],
            "same-or-refuse-line", folder, post=_one_row(own, "annotator", 0), **refusal)
        assigned = folder / "assigned.sqlite"
        shutil.copy(study, assigned)
        add(builder, "names", f"assign/{label}", ["study", "assign", "--db", str(assigned), "--annotators",
                                                  f"{known},{variant}"], "any", folder,
            post=_one_row(assigned, "annotator", 0), **refusal)
        systems = folder / "systems.sqlite"
        shutil.copy(builder.empty_study, systems)
        candidates = _write(folder / "systems.jsonl", "".join(json.dumps(
            {"sentence_id": i, "system": name, "text": f"text {i}", "source": f"source {i}"}) + "\n"
            for i, name in enumerate((known, variant))))
        add(builder, "names", f"import-candidates-system/{label}", ["study", "import-candidates", str(candidates),
                                                                    "--db", str(systems)], "same-or-refuse-line",
            folder, post=_one_row(systems, "system", 0), **refusal)
        csv_rows = JUDGMENTS.replace("ann1", "\x00").replace("\x00", _csv_cell(known), 2).replace(
            "\x00", _csv_cell(variant))
        clean = _write(folder / "agreement-clean.csv", JUDGMENTS.replace("ann1", _csv_cell(known)))
        spelled = _write(folder / "agreement.csv", csv_rows)
        add(builder, "names", f"agreement-csv/{label}", ["agreement", str(spelled), "--bootstrap", "0", "--json"],
            "same-or-refuse-line", folder, baseline_argv=["agreement", str(clean), "--bootstrap", "0", "--json"],
            **refusal)
        named = folder / "named.sqlite"
        shutil.copy(templates[known], named)
        if kind != "invisible" or label in ("zero-width-space", "right-to-left-override", "soft-hyphen"):
            add(builder, "names", f"study-create/{label}", ["study", "create", variant, "--db", str(named)],
                "refuse", folder, untouched=[named])  # a name taken: any status, one line
        if known == "ann1" and label in ("zero-width-space", "right-to-left-override", "soft-hyphen", "fullwidth",
                                         "upper-case", "superscript-one"):
            package = folder / "package.sqlite"
            add(builder, "names", f"export-package/{label}", ["study", "export-package", "--db", str(judged),
                                                              "--annotator", variant, "-o", str(package)], "any",
                folder, post=_one_row(judged, "annotator", 1))  # no such annotator: any status, one line
    _bidi_display_cases(builder, base, core)


def _bidi_display_cases(builder: CaseBuilder, base: Path, core: Path) -> None:
    """Bidi controls in a study's data (texts, a comment; an annotator's name another program wrote) are shown
    escaped on a terminal: the base runner's terminal cases, with a check for the controls its pattern lacks."""
    study = base / "bidi.sqlite"
    _python_core("study", "create", "s39", "--db", str(study), "--criteria", "fluency", cwd=base, core=core)
    items = _write(base / "bidi.jsonl", "".join(json.dumps(
        {"sentence_id": i, "system": system, "text": f"{system} \u202etxet\u202c {i} \u2066x\u2069",
         "source": f"source \u200f{i}\u061c"}) + "\n" for i in range(3) for system in ("beam", "mcpg")))
    _python_core("study", "import-candidates", str(items), "--db", str(study), cwd=base, core=core)
    _python_core("study", "assign", "--db", str(study), "--annotators", "ann1,ann2", cwd=base, core=core)
    rows = "".join(f"{item},{who},fluency,yes,note \u202eeton\n" for item in candidate_ids(study)
                   for who in ("ann1", "ann2"))
    judgments = _write(base / "bidi.csv", "item,annotator,criterion,value,comment\n" + rows)
    _python_core("study", "import-judgments", str(judgments), "--db", str(study), cwd=base, core=core)
    renamed = base / "bidi-name.sqlite"
    shutil.copy(study, renamed)
    connection = sqlite3.connect(renamed)
    connection.execute("UPDATE annotator SET name = 'ann\u202e2' WHERE name = 'ann2'")
    connection.commit()
    connection.close()

    def no_bidi(output: bytes) -> str:
        found = BIDI.search(output)
        return f"raw bidi control printed: {found.group()!r}" if found else ""

    for db, what in ((study, "in-data"), (renamed, "in-an-annotator-name")):
        s = str(db)
        for command, argv in [("progress", ["study", "progress", "--db", s]), ("items", ["study", "items", s]),
                              ("qc", ["study", "qc", "--db", s]), ("inspect", ["inspect", s]),
                              ("status", ["study", "status", s]),
                              ("export-judgments", ["study", "export-judgments", "--db", s])]:
            case = Case(f"i39/names/bidi-{what}/{command}", "issue39", argv, base, "any-no-controls", issue=39,
                        kind="names", check=no_bidi, untouched=[db])
            builder.cases.append(case)


def _values_study(base: Path, core: Path) -> tuple[Path, list[int]]:
    study = base / "values.sqlite"
    _python_core("study", "create", "v39", "--db", str(study), "--criteria", "esa,da,preference", cwd=base,
                 core=core)
    items = _write(base / "values.jsonl", "".join(json.dumps(
        {"sentence_id": i, "system": s, "text": f"{s} {i} runs fast today", "source": f"the source {i} runs"}) + "\n"
        for i in range(4) for s in ("beam", "mcpg", "spg")))
    _python_core("study", "import-candidates", str(items), "--db", str(study), cwd=base, core=core)
    _python_core("study", "assign", "--db", str(study), "--annotators", "ann1", cwd=base, core=core)
    connection = sqlite3.connect(study)
    pair = connection.execute("SELECT id FROM preference_pair WHERE left_system = 'beam' AND right_system = 'mcpg' "
                              "ORDER BY id").fetchone()[0]
    connection.close()
    return study, [candidate_ids(study)[0], pair]


def _spans(start, end, severity: str = "major") -> str:
    return f'[{{"start": {start}, "end": {end}, "severity": "{severity}"}}]'


def _value_cases(builder: CaseBuilder, base: Path, core: Path) -> None:
    study, (item, pair) = _values_study(base, core)
    # (label, criterion, value, text); the candidate has five words
    bad = [("esa-span-past-the-end", "esa", "50", _spans(3, 9)), ("esa-span-negative", "esa", "50", _spans(-1, 2)),
           ("esa-span-huge", "esa", "50", _spans(0, 10 ** 18)), ("esa-span-1e400", "esa", "50", _spans(0, "1e400")),
           ("esa-span-reversed", "esa", "50", _spans(4, 2)), ("esa-span-fraction", "esa", "50", _spans(0.5, 2)),
           ("esa-severity-unknown", "esa", "50", _spans(0, 1, "catastrophic")),
           ("esa-spans-not-json", "esa", "50", "[{start: 0"), ("esa-score-101", "esa", "101", _spans(0, 1)),
           ("spans-on-a-da-row", "da", "50", _spans(0, 1)), ("spans-on-a-preference-row", "preference", "left",
                                                               _spans(0, 1)),
           ("da-101", "da", "101", ""), ("da-minus-1", "da", "-1", ""), ("da-nan", "da", "NaN", ""),
           ("da-1e2", "da", "1e2", ""), ("da-50.5", "da", "50.5", ""), ("da-fullwidth-50", "da", "\uff15\uff10", ""),
           ("da-no-break-space-50", "da", "\u00a050", ""),
           ("preference-third-system", "preference", "spg", ""), ("preference-left-and-right", "preference",
                                                                    "left,right", ""),
           ("preference-on-a-candidate", "preference-candidate", "left", ""),
           ("pair-that-does-not-exist", "preference-missing", "left", "")]
    for label, criterion, value, text in bad:
        folder = base / label
        folder.mkdir()
        own = folder / "study.sqlite"
        shutil.copy(study, own)
        target = {"esa": item, "da": item, "preference": f"pair-{pair}", "preference-candidate": item,
                  "preference-missing": "pair-9999"}[criterion]
        rows = _write(folder / "judgments.csv", "item,annotator,criterion,value,text\n"
                      f"{target},ann1,{criterion.split('-')[0]},{_csv_cell(value)},{_csv_cell(text)}\n")
        spelled = {"da-1e2": "100", "da-no-break-space-50": "50"}.get(label)  # the same number, spelled so
        add(builder, "values", f"import-judgments/{label}", ["study", "import-judgments", str(rows), "--db",
                                                             str(own)], "same-or-refuse-line" if spelled else
            "refuse-line", folder, exit_code=2, untouched=[] if spelled else [own],
            post=_stored_value(own, spelled) if spelled else None)
    master_template, package = _judged_package(base, study, item, pair, core)
    for label, criterion, value, text in bad:
        if criterion not in ("esa", "da", "preference"):
            continue
        folder = base / f"merge-{label}"
        folder.mkdir()
        master, own = folder / "master.sqlite", folder / "package.sqlite"
        shutil.copy(master_template, master)
        shutil.copy(package, own)
        connection = sqlite3.connect(own)
        connection.execute("UPDATE judgment SET value = ?, text = ? WHERE criterion_id = (SELECT id FROM criterion "
                           "WHERE name = ?)", (value, text or None, criterion))
        connection.commit()
        connection.close()
        add(builder, "values", f"merge-package/{label}", ["study", "merge-package", str(own), "--db", str(master)],
            "any" if label == "da-1e2" else "refuse", folder, exit_code=2,
            untouched=[] if label == "da-1e2" else [master],
            post=_stored_value(master, "100") if label == "da-1e2" else None)


def _stored_value(study: Path, wanted: str):
    def check() -> str:
        connection = sqlite3.connect(f"file:{study}?mode=ro", uri=True)
        values = [row[0] for row in connection.execute("SELECT value FROM judgment WHERE criterion_id = (SELECT id "
                                                       "FROM criterion WHERE name = 'da')")]
        connection.close()
        return "" if values in ([], [wanted]) else f"stored {values} for {wanted}"
    return check


def _judged_package(base: Path, study: Path, item: int, pair: int, core: Path) -> tuple[Path, Path]:
    """A copy of the study and ann1's package, answered once on each criterion (the merge cases alter them)."""
    master = base / "master.sqlite"
    shutil.copy(study, master)
    package = base / "package.sqlite"
    _python_core("study", "export-package", "--db", str(master), "--annotator", "ann1", "-o", str(package), cwd=base,
                 core=core)
    answers = _write(base / "answers.csv", "item,annotator,criterion,value,text\n"
                     f"{item},ann1,esa,50,{_csv_cell(_spans(0, 1, 'minor'))}\n{item},ann1,da,40,\n"
                     f"pair-{pair},ann1,preference,left,\n")
    _python_core("study", "import-judgments", str(answers), "--db", str(package), cwd=base, core=core)
    return master, package


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _provenance_cases(builder: CaseBuilder, base: Path, core: Path) -> None:
    run, outside = base / "run", base / "outside"
    run.mkdir()
    outside.mkdir()
    table, lm = run / "table.txt", run / "lm.arpa"
    shutil.copy(builder.table, table)
    shutil.copy(builder.arpa, lm)
    shutil.copy(builder.table, outside / "table.txt")
    recorded = run / "recorded.jsonl"
    with open(builder.sentences, "rb") as sentences:
        subprocess.run([sys.executable, "-m", "parastudio", "generate", "--system", "beam", "--table", str(table), "--lm",
                        str(lm), "--json", "--nbest", "2", "-o", str(recorded)], cwd=run, stdin=sentences, check=True,
                       capture_output=True, env={**os.environ, "PYTHONPATH": str(core)})
    lines = [json.loads(line) for line in recorded.read_text(encoding="utf-8").splitlines()]
    os.mkfifo(run / "fifo")
    os.symlink(outside / "table.txt", run / "link.txt")
    passwd = Path("/etc/passwd")

    def variant(label: str, change) -> Path:
        path = run / f"{label}.jsonl"
        changed = []
        for line in lines:
            copy = json.loads(json.dumps(line))
            change(copy["params"])
            changed.append(json.dumps(copy))
        text = "\n".join(changed) + "\n"
        path.write_text(text.replace('"__1e400__"', "1e400"), encoding="utf-8")
        return path

    def table_at(path: str, digest: str | None = None):
        def change(params):
            params["inputs"]["tables"][0]["path"] = path
            if digest:
                params["inputs"]["tables"][0]["sha256"] = digest
        return change

    outside_table = str(outside / "table.txt")
    for label, change, expect, extra in [
        ("table-outside-absolute", table_at(outside_table), "accept", {"warns": ((outside_table, "outside"),)}),
        ("table-outside-relative", table_at("../outside/table.txt"), "accept",
         {"warns": (("outside/table.txt", "outside"),)}),
        ("table-symlink-to-outside", table_at(str(run / "link.txt")), "accept", {"warns": (("outside",),)}),
        ("etc-passwd", table_at(str(passwd), _sha256(passwd)), "refuse", {"secrets": ("root:x:0:0", "/bin/bash"),
                                                                          "mentions": (("/etc/passwd",),)}),
        ("dev-zero", table_at("/dev/zero", "0" * 64), "refuse", {"time_limit": 15.0}),
        ("fifo-nobody-writes", table_at(str(run / "fifo")), "refuse", {"time_limit": 15.0}),
        ("proc-self-environ", table_at("/proc/self/environ"), "refuse",
         {"secrets": ("H39-ENV-SECRET",), "env": {"H39_TOKEN": "H39-ENV-SECRET"}}),
    ]:
        add(builder, "provenance", f"reproduce-inputs/{label}", ["reproduce", str(variant(label, change))], expect,
            base, exit_code=None if expect == "accept" else 2, **extra)

    def option(*path_and_value):
        *path, value = path_and_value

        def change(params):
            target = params
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = value
        return change

    for label, change in [("stack-size-nan", option("decoder", "stack_size", float("nan"))),
                          ("stack-size-text", option("decoder", "stack_size", "200")),
                          ("stack-size-negative", option("decoder", "stack_size", -1)),
                          ("stack-size-1e30", option("decoder", "stack_size", 10 ** 30)),
                          ("nbest-nan", option("nbest", float("nan"))), ("nbest-zero", option("nbest", 0)),
                          ("nbest-1e400", option("nbest", "__1e400__")),
                          ("beam-threshold-nan", option("decoder", "beam_threshold", float("nan"))),
                          ("beam-threshold-2", option("decoder", "beam_threshold", 2.0)),
                          ("alpha-lm-infinity", option("decoder", "alpha_lm", float("inf"))),
                          ("system-unknown", option("system", "teleport")),
                          ("table-format-unknown", option("table_loading", "format", "exe"))]:
        add(builder, "provenance", f"reproduce-options/{label}", ["reproduce", str(variant(label, change))],
            "refuse-line", base, exit_code=2)
    t, lm_path = str(builder.table), str(builder.arpa)
    for value in ("0", "-1", "nan", "two", "1e3", "2.5"):  # never a huge count: a fork bomb on a shared machine
        expect = "refuse"
        add(builder, "provenance", f"reproduce-processes/{value}", ["reproduce", str(recorded), "--processes", value],
            expect, base, exit_code=2, time_limit=30.0)
        add(builder, "provenance", f"generate-processes/{value}", ["generate", "--system", "beam", "--table", t,
                                                                   "--lm", lm_path, "--processes", value], expect,
            base, exit_code=2, stdin=builder.sentences, time_limit=30.0)


def build_input_cases(builder: CaseBuilder, core: Path) -> None:
    """This module's families and ``malformed_cases_39_limits.py``'s, under the builder's directory."""
    from malformed_cases_39_limits import build_limit_cases

    for family, build in [("sizes", lambda b, d: _size_cases(b, d)),
                          ("names", lambda b, d: _name_cases(b, d, core)),
                          ("values", lambda b, d: _value_cases(b, d, core)),
                          ("provenance", lambda b, d: _provenance_cases(b, d, core))]:
        base = builder.directory / family
        base.mkdir(parents=True, exist_ok=True)
        build(builder, base)
    build_limit_cases(builder, core)
