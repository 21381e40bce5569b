"""Held-out malformed inputs of kinds no earlier list names (issue 22's Done-when), for ``malformed_inputs.py``.

Kept apart from ``tests/`` and from the kinds of ``malformed_cases.py`` and ``malformed_cases_22.py``; every
case runs the real CLI in a subprocess. Seven families:

* filesystem: a Unix socket, a character device that reads as nothing (``mknod`` 1,3 in a temp folder), an
  unreadable file and a path through a file, over every command's inputs;
* pipes: a named pipe fed with the clean bytes, bash's ``<(...)`` (``/dev/fd/N``), a folder as standard input;
* outputs: ``-o`` naming an input through a symlink, a hard link, ``./`` or ``dir/..``; a missing or read-only
  folder; a named pipe being read; a device that is full or discards; a folder; a path through a file;
* encodings: UTF-16 with either BOM, Latin-1, overlong UTF-8, an encoded surrogate, lines ended by CR alone,
  mixed CRLF/LF, Unicode line breaks that Python's ``splitlines`` would split on (U+0085, U+2028), bidi and
  zero-width controls;
* sizes: a CSV row of 10^6 columns, numbers past a double (1e309), underflowing to 0 (1e-400), ids past 2^63,
  JSON nested 100,000 deep in the remaining JSON readers;
* store states: a study locked by another process, a read-only study file, a truncated study, another program's
  database that happens to have a ``study`` table, an empty file given to every study command, a WAL left
  behind (its answers must be read), a garbage ``-wal``/``-journal`` beside a study, an in-memory URL;
* injection: escape sequences in file names (error messages), in annotator, system and study names and texts
  shown by every study command, SQL metacharacters and path-like names stored as they are, CSV formulas that
  begin with a tab or carriage return.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sqlite3
import stat
from pathlib import Path

from malformed_cases import (
    CANDIDATES,
    JUDGMENTS,
    PHRASE_TABLE,
    TABLE,
    Case,
    CaseBuilder,
    _on_line_2,
    _python_core,
    candidate_line,
)

ATTACK = "\x1b]0;pwned\x07\x1b[2J\x9b31m"
DEEP = 100_000
PATTERN_TABLE = ("take [NN_1] into consideration ||| consider [NN_1] ||| 0.5 0.5 ||| 0 -0.69 -0.69 -0.69 ||| p\n"
                 "make [NN_1] clear ||| clarify [NN_1] ||| 0.4 0.4 ||| 0 -0.9 -0.9 -0.9 ||| p\n")
GRAPH = ("0 hyp=0 stack=0\n"
         "0 hyp=1 stack=1 back=0 score=-1 transition=-1 forward=2 fscore=-2 covered=0-0 out=the\n"
         "0 hyp=2 stack=2 back=1 score=-2 transition=-1 forward=-1 fscore=0 covered=1-1 out=dog\n")


def _write(path: Path, data: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def _case(builder: CaseBuilder, family: str, name: str, argv: list[str], expect: str, directory: Path,
          **extra) -> Case:
    case = Case(f"held-out/{family}/{name}", f"held-out-{family}", argv, directory, expect, issue=22, kind=family,
                **extra)
    builder.cases.append(case)
    return case


def _slot_case(builder: CaseBuilder, slot, family: str, defect: str, expect: str, path: Path | None = None,
               data: bytes | None = None, **extra) -> Case:
    """A case of issue 18's slot (its clean run is the baseline) on an input made here: ``data`` written to
    the slot's file, or ``path`` (a pipe, a device) given in its place."""
    case_dir = builder.directory / f"held-out-{slot.name}--{defect}"
    case_dir.mkdir(parents=True, exist_ok=True)
    if path is None:
        path = _write(case_dir / ("input" + slot.suffix), data)
    if slot.setup:
        slot.setup(case_dir)
    stdin = extra.pop("stdin", path if slot.stdin and "stdin_data" not in extra else slot.stdin_file)
    case = Case(f"held-out/{family}/{slot.name}/{defect}", slot.name, slot.argv(path, case_dir), case_dir, expect,
                stdin=stdin, output_file=case_dir / slot.output if slot.output else None,
                input_path=None if slot.stdin else path, issue=22, kind=family, **extra)
    builder.cases.append(case)
    return case


def _reading_commands(builder: CaseBuilder, base: Path, study: Path) -> dict:
    """Every command's input slot, as a function of the path given (the other inputs clean)."""
    t, lm = str(builder.table), str(builder.arpa)
    return {
        "table-stats": lambda p: ["table", "stats", p],
        "table-binarize": lambda p: ["table", "binarize", p],
        "truescore-table": lambda p: ["truescore", "--table", p, "--source", "the dog", "--target", "the beast"],
        "generate-table": lambda p: ["generate", "--system", "beam", "--table", p, "--lm", lm],
        "generate-lm": lambda p: ["generate", "--system", "beam", "--table", t, "--lm", p],
        "lm-score": lambda p: ["lm", "score", p],
        "lm-train": lambda p: ["lm", "train", p, "--order", "2", "-o", str(base / "never.bin")],
        "pivot": lambda p: ["pivot", p, "-o", str(base / "never.txt")],
        "agreement": lambda p: ["agreement", p],
        "signtest": lambda p: ["signtest", p, "--system-a", "beam", "--system-b", "mcpg"],
        "report": lambda p: ["report", p],
        "inspect": lambda p: ["inspect", p],
        "import-candidates": lambda p: ["study", "import-candidates", p, "--db", str(study)],
        "import-judgments": lambda p: ["study", "import-judgments", p, "--db", str(study)],
        "study-progress": lambda p: ["study", "progress", "--db", p],
        "export-devset": lambda p: ["export-devset", p, "-o", str(base / "never.jsonl")],
        "reproduce": lambda p: ["reproduce", p],
        "judgment-predictor": lambda p: ["judgment-predictor", "--devset", p],
        "generate-weights": lambda p: ["generate", "--system", "beam", "--table", t, "--lm", lm, "--weights", p],
        "autoeval-approaches": lambda p: ["autoeval", "--approaches", p],
        "patterns-stats": lambda p: ["patterns", "stats", p],
        "patterns-extract": lambda p: ["patterns", "extract", p],
        "graph-load": lambda p: ["graph", "load", p, "-o", str(base / "never.sqlite")],
        "table-prune-list": lambda p: ["table", "prune", t, "--list", p, "-o", str(base / "never-pruned.txt")],
    }


def _filesystem_cases(builder: CaseBuilder, base: Path) -> None:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(base / "a-socket"))  # left bound: the path stays a socket while the cases run
    builder.keep_alive.append(server)
    empty_device = base / "empty-device"
    os.mknod(empty_device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # reads as end of file at once
    unreadable = _write(base / "unreadable.txt", TABLE)
    unreadable.chmod(0)
    through_a_file = base / "unreadable.txt" / "inside.txt"
    for command in _reading_commands(builder, base, base / "study.sqlite"):
        for kind, path, extra in (("unix-socket", base / "a-socket", {}),
                                  ("empty-character-device", empty_device, {"kept_kinds": [empty_device]}),
                                  ("unreadable-file", unreadable, {"honour_permissions": True}),
                                  ("path-through-a-file", through_a_file, {})):
            own = base / f"{command}-{kind}"  # its own study and outputs: an accepted empty input may write them
            own.mkdir()
            study = own / "study.sqlite"
            shutil.copy(builder.items_study, study)
            argv = _reading_commands(builder, own, study)[command]
            expect = "any" if kind == "empty-character-device" else "refuse"
            never = [] if expect == "any" else [own / name for name in ("never.bin", "never.txt", "never.jsonl",
                                                                       "never.sqlite", "never-pruned.txt")]
            _case(builder, "filesystem", f"{command}/{kind}", argv(str(path)), expect, base,
                  stdin=builder.sentences, untouched=[] if expect == "any" else [study], must_not_exist=never, **extra)


def _pipe_cases(builder: CaseBuilder, base: Path) -> None:
    for slot in builder.slots():
        clean = slot.clean.encode()
        if slot.stdin:  # standard input a pipe (not a file), and a folder
            _slot_case(builder, slot, "pipes", "stdin-a-pipe", "same", data=b"", stdin=None, stdin_data=clean)
            _slot_case(builder, slot, "pipes", "stdin-a-folder", "refuse", data=b"", stdin=base)
            continue
        case_dir = builder.directory / f"held-out-{slot.name}--fifo"
        case_dir.mkdir(parents=True, exist_ok=True)
        fifo = case_dir / ("input" + slot.suffix)
        os.mkfifo(fifo)
        _slot_case(builder, slot, "pipes", "fifo", "same-or-refuse", path=fifo, feed={fifo: clean})
        _slot_case(builder, slot, "pipes", "dev-fd", "same-or-refuse", path=Path("/dev/fd/{FD}"), fd_input=clean)
    for name, argv, data in [
        ("lm-train-corpus-fifo", lambda p: ["lm", "train", p, "--order", "2", "-o", str(base / "lm.bin"),
                                            "--discount-fallback"], b"the dog runs\nthe cat sleeps\n" * 20),
        ("patterns-stats-fifo", lambda p: ["patterns", "stats", p], PATTERN_TABLE.encode()),
        ("patterns-extract-fifo", lambda p: ["patterns", "extract", p], b"take the matter into consideration\n"),
        ("graph-load-fifo", lambda p: ["graph", "load", p, "-o", str(base / "graphs.sqlite")], GRAPH.encode()),
        ("table-prune-list-fifo", lambda p: ["table", "prune", str(builder.table), "--list", p, "-o",
                                             str(base / "pruned.txt")], b"runs ||| sprints\n"),
    ]:
        fifo = base / f"{name}.in"
        os.mkfifo(fifo)
        _case(builder, "pipes", name, argv(str(fifo)), "any", base, feed={fifo: data})
        _case(builder, "pipes", name.replace("fifo", "dev-fd"), argv("/dev/fd/{FD}"), "any", base, fd_input=data)
    _case(builder, "pipes", "patterns-extract-stdin-dash", ["patterns", "extract", "-"], "accept", base,
          stdin_data=b"take the matter into consideration\n")
    _case(builder, "pipes", "patterns-extract-stdin-folder", ["patterns", "extract", "-"], "refuse", base,
          stdin=base)


def _writer_inputs(builder: CaseBuilder, folder: Path, core: Path) -> None:
    """The inputs of every writing command, made once in ``folder`` (each case copies them: a writer that is
    taken may write its input, as ``export-package`` records the package in its study)."""
    judged = folder / "judged.sqlite"
    shutil.copy(builder.items_study, judged)
    _python_core("study", "import-judgments", str(_write(folder / "judgments.csv", JUDGMENTS)), "--db", str(judged),
                 cwd=folder, core=core)
    _python_core("study", "assign", "--db", str(judged), "--annotators", "ann3", cwd=folder, core=core)
    _write(folder / "phrases.txt", PHRASE_TABLE)
    _write(folder / "table.txt", TABLE)
    _write(folder / "prune.txt", "runs ||| sprints\n")
    _write(folder / "corpus.txt", "the dog runs\nthe cat sleeps\n" * 20)
    _write(folder / "patterns.txt", PATTERN_TABLE)
    _write(folder / "graph.txt", GRAPH)


def _writers(folder: Path) -> dict:
    """Each writing command over the inputs in ``folder``: (the input -o must not replace, argv given -o)."""
    judged, phrases, table, prune, corpus, patterns, graph = (folder / name for name in (
        "judged.sqlite", "phrases.txt", "table.txt", "prune.txt", "corpus.txt", "patterns.txt", "graph.txt"))
    return {
        "pivot": (phrases, lambda o: ["pivot", str(phrases), "-o", o]),
        "table-prune": (table, lambda o: ["table", "prune", str(table), "--list", str(prune), "-o", o]),
        "lm-train": (corpus, lambda o: ["lm", "train", str(corpus), "--order", "2", "--discount-fallback", "-o", o]),
        "export-devset": (judged, lambda o: ["export-devset", str(judged), "-o", o]),
        "export-judgments": (judged, lambda o: ["study", "export-judgments", "--db", str(judged), "-o", o]),
        "export-scores": (judged, lambda o: ["study", "export-scores", str(judged), "--criterion", "fluency",
                                             "-o", o]),
        "study-items": (judged, lambda o: ["study", "items", str(judged), "-o", o]),
        "export-package": (judged, lambda o: ["study", "export-package", "--db", str(judged), "--annotator", "ann3",
                                              "-o", o]),
        "patterns-rescore": (patterns, lambda o: ["patterns", "rescore", str(patterns), "--mle", "-o", o]),
        "graph-load": (graph, lambda o: ["graph", "load", str(graph), "-o", o]),
    }


def _output_cases(builder: CaseBuilder, base: Path, core: Path) -> None:
    full = base / "full-device"
    os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))  # every write: ENOSPC
    discard = base / "discarding-device"
    os.mknod(discard, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    template = base / "inputs"
    template.mkdir()
    _writer_inputs(builder, template, core)
    for name in _writers(template):
        for kind in ("symlink-to-input", "hardlink-to-input", "dot-slash-input", "dot-dot-input", "missing-folder",
                     "read-only-folder", "fifo-being-read", "full-device", "discarding-device", "a-folder",
                     "through-a-file"):
            own = base / f"{name}-{kind}"
            shutil.copytree(template, own)
            source, argv = _writers(own)[name]
            relative = os.path.relpath(source, own)
            expect, extra = "refuse", {}
            if kind == "symlink-to-input":
                os.symlink(source, own / "link")
                output, extra = str(own / "link"), {"kept_kinds": [own / "link"]}
            elif kind == "hardlink-to-input":
                os.link(source, own / "hardlink")
                output = str(own / "hardlink")
            elif kind == "dot-slash-input":
                output = "./" + relative
            elif kind == "dot-dot-input":
                (own / "sub").mkdir()
                output = f"sub/../{relative}"
            elif kind == "missing-folder":  # the writers make the folders an output names (core.textio)
                output, expect = str(own / "new-folder" / "out"), "accept"
            elif kind == "read-only-folder":
                (own / "read-only").mkdir(mode=0o555)
                output = str(own / "read-only" / "out")
                extra = {"honour_permissions": True, "must_not_exist": [own / "read-only" / "out"]}
            elif kind == "fifo-being-read":
                os.mkfifo(own / "out.fifo")
                output, expect = str(own / "out.fifo"), "accept"
                extra = {"drain": [own / "out.fifo"], "kept_kinds": [own / "out.fifo"]}
            elif kind == "full-device":
                output, extra = str(full), {"kept_kinds": [full]}
            elif kind == "discarding-device":
                output, expect, extra = str(discard), "accept", {"kept_kinds": [discard]}
            elif kind == "a-folder":
                (own / "folder").mkdir()
                output, extra = str(own / "folder"), {"kept_kinds": [own / "folder"]}
                if name == "export-devset":
                    expect = "any"  # --format hf writes a folder; JSONL into a folder is refused
            else:
                output = str(source) + "/out"
            untouched = [] if expect == "accept" and name == "export-package" else [source]
            _case(builder, "outputs", f"{name}/{kind}", argv(output), expect, own, untouched=untouched, **extra)


def _encoding_cases(builder: CaseBuilder) -> None:
    for slot in builder.slots():
        clean = slot.clean
        lines = clean.split("\n")
        second = lines[1]
        for defect, data, expect in [
            ("utf16le-bom", b"\xff\xfe" + clean.encode("utf-16-le"), "refuse-line"),
            ("utf16be-bom", b"\xfe\xff" + clean.encode("utf-16-be"), "refuse-line"),
            ("latin1-whole-file", clean.replace(second, second + " caf\u00e9").encode("latin-1"), "refuse-line"),
            ("overlong-utf8", _on_line_2(clean.encode(), b"\xc0\xaf"), "refuse-line"),
            ("encoded-surrogate", _on_line_2(clean.encode(), b"\xed\xa0\x80"), "refuse-line"),
            ("cr-only-line-ends", clean.replace("\n", "\r").encode(), "same-or-refuse"),
            ("mixed-line-ends", clean.replace("\n", "\r\n", 1).encode(), "same"),
            ("next-line-u0085", _on_line_2(clean.encode(), "\u0085".encode(), at=3), "any-no-controls"),
            ("line-separator-u2028", _on_line_2(clean.encode(), "\u2028".encode(), at=3), "any-no-controls"),
            ("bidi-zero-width", _on_line_2(clean.encode(), "\u202e\u200b\u2066".encode(), at=3), "any-no-controls"),
        ]:
            _slot_case(builder, slot, "encodings", defect, expect, data=data)


def _size_cases(builder: CaseBuilder, base: Path) -> None:
    study = base / "study.sqlite"
    shutil.copy(builder.empty_study, study)
    judged = base / "judged.sqlite"
    shutil.copy(builder.items_study, judged)
    wide = _write(base / "wide.csv", "item,annotator,criterion,value" + "," * 1_000_000 + "\n1,a,fluency,yes\n")
    wide_row = _write(base / "wide-row.csv", JUDGMENTS.replace("1,ann2,fluency,yes", "1,ann2,fluency,yes"
                                                               + ",x" * 500_000, 1))
    for name, argv, expect in [  # a million empty header cells (a spreadsheet's padding): taken
            ("agreement-million-empty-columns", ["agreement", str(wide)], "any"),
            ("report-half-million-fields", ["report", str(wide_row)], "refuse-line"),
            ("import-judgments-half-million-fields", ["study", "import-judgments", str(wide_row), "--db", str(judged)],
             "refuse-line")]:
        _case(builder, "sizes", name, argv, expect, base, untouched=[judged])
    first = CANDIDATES.split("\n")[0] + "\n"
    numbers = {
        "model-score-1e309": candidate_line(1, model_score="1e309", source='"the cat sleeps"', derivation="null",
                                            text='"the kitten sleeps"'),
        "true-score-minus-1e309": candidate_line(1, true_score="-1e309", source='"the cat sleeps"',
                                                 derivation="null", text='"the kitten sleeps"'),
        "sentence-id-2-to-the-70": candidate_line(2 ** 70, derivation="null"),
        "sentence-id-float": candidate_line("1.0", derivation="null", source='"the cat sleeps"'),
        "sentence-id-negative-zero": candidate_line("-0", derivation="null", source='"the cat sleeps"'),
        "rank-1e3": candidate_line(1, rank="1e3", derivation="null", source='"the cat sleeps"'),
        "derivation-nested-100000": candidate_line(1, derivation="[" * DEEP + "]" * DEEP,
                                                   source='"the cat sleeps"'),
        "params-nested-100000": first.replace('"params": {"table": "t"}', '"params": ' + "[" * DEEP + "]" * DEEP),
    }
    for name, line in numbers.items():
        data = (first + line) if not name.startswith("params") else line
        path = _write(base / f"{name}.jsonl", data)
        if name.startswith("sentence-id"):  # ids are kept as the text they are: 2^70 is an id like another
            own = base / f"study-{name}.sqlite"
            shutil.copy(builder.empty_study, own)
            _case(builder, "sizes", f"import-candidates/{name}", ["study", "import-candidates", str(path), "--db",
                                                                 str(own)], "any", base)
            continue
        _case(builder, "sizes", f"import-candidates/{name}", ["study", "import-candidates", str(path), "--db",
                                                             str(study)], "refuse-line", base, untouched=[study])
    deep = _write(base / "deep.jsonl", "[" * DEEP + "]" * DEEP + "\n")
    for name, argv in [("reproduce-nested-100000", ["reproduce", str(deep)]),
                       ("judgment-predictor-nested-100000", ["judgment-predictor", "--devset", str(deep)]),
                       ("autoeval-cases-nested-100000", ["autoeval", "--cases", str(deep), "--graph",
                                                         str(_write(base / "graph.txt", GRAPH))])]:
        _case(builder, "sizes", name, argv, "refuse-line", base)
    for name, value in {"1e309": "1e309", "1e-400": "1e-400", "hex-float": "0x1p-3", "underscored": "0.1_5",
                        "arabic-digits": "\u0660.\u0665", "fullwidth-digits": "\uff10.\uff15"}.items():
        table = _write(base / f"table-{name}.txt", TABLE.replace("the dog ||| the hound ||| 0.1",
                                                                 f"the dog ||| the hound ||| {value}"))
        _case(builder, "sizes", f"table-stats/prob-{name}", ["table", "stats", str(table)], "refuse-line", base)
        judgments = _write(base / f"judgments-{name}.csv", JUDGMENTS.replace("1,ann2,fluency,yes",
                                                                             f"1,ann2,fluency,{value}"))
        # A label is a word: "1e-400" or "0x1p-3" is a label of its own, as "yes" is; never read as a number.
        _case(builder, "sizes", f"agreement/value-{name}", ["agreement", str(judgments)], "any", base)
    for name, item in {"item-2-to-the-70": str(2 ** 70), "item-arabic-digit": "\u0661",
                       "item-fullwidth-digit": "\uff11", "item-plus-sign": "+1"}.items():
        judgments = _write(base / f"judgments-{name}.csv", JUDGMENTS.replace("1,ann2,fluency,yes",
                                                                             f"{item},ann2,fluency,yes"))
        _case(builder, "sizes", f"import-judgments/{name}", ["study", "import-judgments", str(judgments), "--db",
                                                             str(judged)], "refuse-line", base, untouched=[judged])


HOLD_LOCK = ("import sqlite3, sys, time\nconnection = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
             "connection.execute('BEGIN EXCLUSIVE')\nprint('ready', flush=True)\ntime.sleep(600)\n")


def _store_state_cases(builder: CaseBuilder, base: Path, core: Path) -> None:
    judged = base / "judged.sqlite"
    shutil.copy(builder.items_study, judged)
    _python_core("study", "import-judgments", str(_write(base / "judgments.csv", JUDGMENTS)), "--db", str(judged),
                 cwd=base, core=core)
    more = _write(base / "more.csv", "item,annotator,criterion,value\n1,ann9,fluency,no\n")
    locked = base / "locked.sqlite"
    shutil.copy(judged, locked)
    read_only = base / "read-only.sqlite"
    shutil.copy(judged, read_only)
    read_only.chmod(0o444)
    truncated = _write(base / "truncated.sqlite", judged.read_bytes()[: len(judged.read_bytes()) // 2])
    header_only = _write(base / "header-only.sqlite", judged.read_bytes()[:100])
    other_app = base / "other-app.sqlite"  # another program's database with a table named as ours
    connection = sqlite3.connect(other_app)
    connection.execute("CREATE TABLE study (id INTEGER PRIMARY KEY, title TEXT, year INTEGER)")
    connection.execute("INSERT INTO study VALUES (1, 'sleep study', 2020)")
    connection.commit()
    connection.close()
    empty = _write(base / "empty.db", b"")
    wal_left = base / "wal-left" / "study.sqlite"  # a study whose last answers are still in its -wal
    wal_left.parent.mkdir()
    shutil.copy(judged, wal_left)
    connection = sqlite3.connect(wal_left)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA wal_autocheckpoint=0")
    connection.commit()
    writer = sqlite3.connect(wal_left)
    writer.execute("UPDATE annotator SET name = 'judge-from-the-wal' WHERE name = 'ann2'")
    writer.commit()
    shutil.copy(wal_left, base / "wal-copy.sqlite")
    shutil.copy(f"{wal_left}-wal", base / "wal-copy.sqlite-wal")  # copied while the log holds the change
    writer.close()
    connection.close()
    wal_copy = base / "wal-copy.sqlite"
    garbage_wal = base / "garbage-wal.sqlite"
    shutil.copy(judged, garbage_wal)
    _write(Path(f"{garbage_wal}-wal"), bytes(range(256)) * 64)
    garbage_journal = base / "garbage-journal.sqlite"
    shutil.copy(judged, garbage_journal)
    _write(Path(f"{garbage_journal}-journal"), bytes(range(256)) * 64)
    folder_wal = base / "folder-wal.sqlite"
    shutil.copy(judged, folder_wal)
    Path(f"{folder_wal}-wal").mkdir()

    def reads(db: Path) -> list:
        return [("progress", ["study", "progress", "--db", str(db)]),
                ("report", ["report", str(db), "--bootstrap", "0"]),
                ("export-judgments", ["study", "export-judgments", "--db", str(db)]),
                ("inspect", ["inspect", str(db)]),
                ("export-devset", ["export-devset", str(db), "-o", str(base / "dev.jsonl")])]

    def writes(db: Path) -> list:
        return [("import-judgments", ["study", "import-judgments", str(more), "--db", str(db)]),
                ("import-candidates", ["study", "import-candidates", str(builder.candidates_no_source), "--db",
                                       str(db), "--sources", str(builder.sentences)]),
                ("assign", ["study", "assign", "--db", str(db), "--annotators", "ann7"])]

    for state, db, read_expect, write_expect, extra in [
        ("locked", locked, "any", "refuse", {"holder": [HOLD_LOCK, str(locked)], "time_limit": 150.0}),
        ("read-only-file", read_only, "accept", "refuse", {"honour_permissions": True}),
        ("truncated-half", truncated, "refuse", "refuse", {}),
        ("header-only", header_only, "refuse", "refuse", {}),
        ("other-app-study-table", other_app, "refuse", "refuse", {}),
        ("empty-file", empty, "refuse", "refuse", {}),
        ("garbage-wal-beside", garbage_wal, "any", "any", {}),
        ("garbage-journal-beside", garbage_journal, "any", "any", {}),
        ("folder-named-wal", folder_wal, "refuse", "refuse", {}),
    ]:
        for command, argv in [*reads(db), *writes(db)]:
            expect = write_expect if (command, argv) in writes(db) else read_expect
            own, options = db, dict(extra)
            if state == "locked":  # its own copy and its own holder: two holders of one file would wait on each other
                own = base / f"locked-{command}.sqlite"
                shutil.copy(db, own)
                argv = [str(own) if part == str(db) else part for part in argv]
                options["holder"] = [HOLD_LOCK, str(own)]
            keep = [own] if state not in ("garbage-wal-beside", "garbage-journal-beside") and expect != "any" else []
            _case(builder, "store-states", f"{state}/{command}", argv, expect, base, store=True, untouched=keep,
                  **options)
    _case(builder, "store-states", "wal-left-behind/export-judgments", ["study", "export-judgments", "--db",
                                                                        str(wal_copy)], "accept", base, store=True,
          check=lambda out: "" if b"judge-from-the-wal" in out else "the answers in the -wal were not read")
    for label, url in (("sqlite-colon-slash-slash", "sqlite://"), ("sqlite-memory", "sqlite:///:memory:")):
        for command, argv in [("import-judgments", ["study", "import-judgments", str(more), "--db", url]),
                              ("create", ["study", "create", "s", "--db", url])]:
            _case(builder, "store-states", f"in-memory-url/{label}/{command}", argv, "refuse", base, store=True)
    _case(builder, "store-states", "unknown-dialect", ["study", "progress", "--db", "mysql://u:p@127.0.0.1/s"],
          "refuse", base, store=True)


def _injection_cases(builder: CaseBuilder, base: Path, core: Path) -> None:
    missing = base / f"no{ATTACK}such.txt"
    for name, argv in [("table-stats", ["table", "stats", str(missing)]),
                       ("report", ["report", str(missing)]),
                       ("agreement", ["agreement", str(missing)]),
                       ("lm-score", ["lm", "score", str(missing)]),
                       ("study-progress", ["study", "progress", "--db", str(missing)]),
                       ("patterns-extract", ["patterns", "extract", str(missing)]),
                       ("reproduce", ["reproduce", str(missing)]),
                       ("pivot-output", ["pivot", str(_write(base / "phrases.txt", PHRASE_TABLE)), "-o",
                                         str(base / f"no{ATTACK}dir" / "out.txt")])]:
        _case(builder, "injection", f"escape-in-file-name/{name}", argv,
              "any-no-controls" if name == "pivot-output" else "refuse-no-controls", base)  # -o makes its folder
    study = base / "attack.sqlite"
    # Names with control characters are refused at the door now (issue 39), so another program writes them in:
    # what is stored must still never reach a terminal raw.
    _python_core("study", "create", "s", "--db", str(study), "--criteria", "fluency", cwd=base, core=core)
    candidates = _write(base / "attack.jsonl", "".join(
        json.dumps({"sentence_id": i, "system": f"sys{i % 2}", "text": f"text {i}{ATTACK}",
                    "source": f"source {i}{ATTACK}"}) + "\n" for i in range(4)))
    _python_core("study", "import-candidates", str(candidates), "--db", str(study), cwd=base, core=core)
    judgments = _write(base / "attack.csv", "item,annotator,criterion,value,comment\n" + "".join(
        f"{i},{who},fluency,{value},note{ATTACK}\n" for i in range(1, 5)
        for who, value in (("judge1", "yes"), ("judge2", "no" if i % 2 else "yes"))))
    _python_core("study", "import-judgments", str(judgments), "--db", str(study), cwd=base, core=core)
    connection = sqlite3.connect(study)
    with connection:
        connection.execute("UPDATE study SET name = ?", (f"s{ATTACK}",))
        connection.execute("UPDATE system SET name = 'sys' || ? || substr(name, 4)", (ATTACK,))
        connection.execute("UPDATE annotator SET name = 'judge' || ? WHERE name = 'judge1'", (ATTACK,))
    connection.close()
    _python_core("study", "assign", "--db", str(study), "--annotators", "judge3", cwd=base, core=core)
    s = str(study)
    for name, argv in [("progress", ["study", "progress", "--db", s]),
                       ("qc", ["study", "qc", "--db", s]),
                       ("status", ["study", "status", s]),
                       ("items", ["study", "items", s]),
                       ("export-judgments", ["study", "export-judgments", "--db", s]),
                       ("export-scores", ["study", "export-scores", s, "--criterion", "fluency"]),
                       ("report", ["report", s, "--bootstrap", "0"]),
                       ("inspect", ["inspect", s]),
                       ("inspect-rules", ["inspect-rules", s]),
                       ("agreement", ["agreement", s]),
                       ("signtest", ["signtest", s, "--system-a", f"sys{ATTACK}0", "--system-b", f"sys{ATTACK}1",
                                     "--criterion", "fluency"]),
                       ("export-devset-stdout", ["export-devset", s, "-o", "-"]),
                       ("export-judgments-jsonl", ["study", "export-judgments", "--db", s, "--format", "jsonl"])]:
        _case(builder, "injection", f"escapes-in-a-study/{name}", argv, "any-no-controls", base, untouched=[study])
    sql = base / "sql.sqlite"
    shutil.copy(builder.items_study, sql)
    sneaky = "ann'); DROP TABLE judgment;--"
    names = _write(base / "sql.csv", JUDGMENTS.replace("ann2", f'"{sneaky}"').replace("ann1", "../../etc/passwd"))
    _case(builder, "injection", "sql-and-path-names/import-judgments", ["study", "import-judgments", str(names),
                                                                       "--db", str(sql)], "accept", base)
    _case(builder, "injection", "sql-and-path-names/export-judgments", ["study", "export-judgments", "--db",
                                                                         str(sql)], "any", base,
          check=lambda out: "" if sneaky.encode() in out or not out else "the name was not kept as it is")
    cells = ["\t=1+2", "\r=1+2", " =1+2", "\uff1d1+2", "=1+2", "-1e5", "+5"]
    formulas = base / "formulas.csv"
    _write(formulas, "item,annotator,criterion,value\n" + "".join(
        f'{i},"{cell}",fluency,yes\n{i},plain,fluency,no\n' for i, cell in enumerate(cells, 1)))
    formula_study = base / "formulas.sqlite"
    _python_core("study", "create", "s", "--db", str(formula_study), "--criteria", "fluency", cwd=base, core=core)
    _python_core("study", "import-candidates", str(_write(base / "formula-items.jsonl", "".join(
        json.dumps({"sentence_id": i, "system": "s", "text": cell, "source": f"src {i}"}) + "\n"
        for i, cell in enumerate(cells)))), "--db", str(formula_study), cwd=base, core=core)
    for name, argv in [("report-csv", ["report", str(formulas), "--bootstrap", "0", "--format", "csv"]),
                       ("items-csv", ["study", "items", str(formula_study), "--format", "csv"]),
                       ("inspect-csv", ["inspect", str(formula_study), "--format", "csv"])]:
        _case(builder, "injection", f"formula-starts/{name}", argv, "any", base,
              check=lambda out: "" if not _formula_like(out) else "a formula cell left: " + _formula_like(out))


def _formula_like(data: bytes) -> str:
    import csv
    import io
    for row in csv.reader(io.StringIO(data.decode("utf-8", "replace"), newline="")):
        for cell in row:
            if cell.startswith(("=", "+", "-", "@", "\t", "\r")):
                try:
                    float(cell)
                except ValueError:
                    return repr(cell)
    return ""


def build_held_out_cases(builder: CaseBuilder, core: Path) -> None:
    """The held-out cases (module docstring), written under the builder's directory."""
    for family, build in [("filesystem", lambda b, d: _filesystem_cases(b, d)),
                          ("pipes", lambda b, d: _pipe_cases(b, d)),
                          ("outputs", lambda b, d: _output_cases(b, d, core)),
                          ("encodings", lambda b, d: _encoding_cases(b)),
                          ("sizes", lambda b, d: _size_cases(b, d)),
                          ("store-states", lambda b, d: _store_state_cases(b, d, core)),
                          ("injection", lambda b, d: _injection_cases(b, d, core))]:
        base = builder.directory / f"held-out-{family}"
        base.mkdir(parents=True, exist_ok=True)
        build(builder, base)
