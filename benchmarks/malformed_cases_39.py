"""Issue 39's held-out set ("Nothing lost, altered or misreported, round three"): kinds no earlier list names.

Run it (about 8 minutes on 2 cores: 609 cases; each case is capped by its own time limit, a hang is one over it):

    python benchmarks/malformed_inputs.py --issue 39 --list     # one line per case, then the tally per family
    python benchmarks/malformed_inputs.py --issue 39 --only i39/servers --list

Every case runs the real CLI in a subprocess (``malformed_run_39.py`` runs and classes it). The expectation of
each was written from what a demanding user wants, before looking at what the code does:

* study-insides: a study file another program changed with sqlite3 (its version table emptied, doubled, older or
  dropped; a table or a column dropped; ``criterion.levels``, ``study.settings`` or ``references`` not JSON; a time
  ``yesterday``; an answer off the scale; rows pointing nowhere; the judgment table dropped) through every reading
  command: one line naming the study file and the problem, exit 2, the file byte for byte as it was (``study
  check``: exit 1 and the problem named); ``study progress`` never prints 100% of a study without judgments;
* servers: a PostgreSQL URL whose server accepts and never answers (given up within the 10 s connect timeout),
  ports outside 1-65535, ``@ # / ? : %`` and spaces in a password, an unknown host, a connection file: one line,
  exit 2, and no piece of the password in any output;
* signals: Ctrl+C (SIGINT to the process group, or to the command alone, or twice) and SIGTERM sent once a long
  command has started (generate with worker processes, pivot, table binarize, study import, lm train, agreement):
  exit 130 / 143, one line, no traceback, no output, temporary or worker process left; SIGKILL, then the same
  command again: it ends well and leaves no temporary (``malformed_cases_39_inputs.py`` holds the other families:
  sizes, names, judging values, provenance, numbers, closed descriptors and full disks).

Controls: each reading command on the unchanged study, expected to be taken (a broken case shows there).
"""

from __future__ import annotations

import json
import shutil
import signal
import socket
import sqlite3
import threading
from pathlib import Path

from malformed_cases import CaseBuilder, _python_core
from malformed_run_39 import Case39, Interrupt

DEMO = Path(__file__).resolve().parent.parent / "evaldata" / "demo"
SYSTEMS = ("beam", "mcpg")


def _write(path: Path, data: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def add(builder: CaseBuilder, family: str, name: str, argv: list[str], expect: str, directory: Path,
        **extra) -> Case39:
    """One case of issue 39, named ``i39/FAMILY/NAME``."""
    case = Case39(f"i39/{family}/{name}", "issue39", argv, directory, expect, issue=39, kind=family, **extra)
    builder.cases.append(case)
    return case


def candidates_jsonl(sentences: int, systems=SYSTEMS, words: str = "runs fast today") -> str:
    return "".join(json.dumps({"sentence_id": i, "system": system, "text": f"{system} {i} {words}",
                               "source": f"the source {i} {words}"}) + "\n"
                   for i in range(sentences) for system in systems)


def candidate_ids(study: Path) -> list[int]:
    connection = sqlite3.connect(f"file:{study}?mode=ro", uri=True)
    ids = [row[0] for row in connection.execute("SELECT id FROM candidate ORDER BY id")]
    connection.close()
    return ids


def count_rows(study: Path, table: str) -> int:
    connection = sqlite3.connect(f"file:{study}?mode=ro", uri=True)
    try:
        return connection.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
    finally:
        connection.close()


def judged_study(path: Path, work: Path, core: Path, sentences: int = 6) -> Path:
    """A fluency study of two systems, assigned to ann1 and ann2, every item judged by both."""
    _python_core("study", "create", "s39", "--db", str(path), "--criteria", "fluency", cwd=work, core=core)
    items = _write(work / f"{path.stem}-items.jsonl", candidates_jsonl(sentences))
    _python_core("study", "import-candidates", str(items), "--db", str(path), cwd=work, core=core)
    _python_core("study", "assign", "--db", str(path), "--annotators", "ann1,ann2", cwd=work, core=core)
    rows = "".join(f"{item},ann1,fluency,{'yes' if item % 2 else 'no'}\n{item},ann2,fluency,"
                   f"{'yes' if item % 3 else 'no'}\n" for item in candidate_ids(path))
    judgments = _write(work / f"{path.stem}-judgments.csv", "item,annotator,criterion,value\n" + rows)
    _python_core("study", "import-judgments", str(judgments), "--db", str(path), cwd=work, core=core)
    return path


def reading_commands(study: Path, out: Path) -> dict[str, list[str]]:
    s = str(study)
    return {
        "progress": ["study", "progress", "--db", s],
        "items": ["study", "items", s],
        "qc": ["study", "qc", "--db", s],
        "export-judgments": ["study", "export-judgments", "--db", s],
        "agreement": ["agreement", s, "--bootstrap", "0"],
        "report": ["report", s, "--bootstrap", "0"],
        "inspect": ["inspect", s],
        "export-devset": ["export-devset", s, "-o", str(out)],
    }


# (what another program did, its SQL, the words one of which names the problem)
ALTERATIONS = [
    ("version-emptied", "DELETE FROM alembic_version", ("alembic_version", "version", "revision")),
    ("version-doubled", "INSERT INTO alembic_version VALUES ('0006')", ("alembic_version", "version", "revision")),
    ("version-older", "UPDATE alembic_version SET version_num = '0006'", ("upgrade",)),
    ("version-table-dropped", "DROP TABLE alembic_version", ("alembic_version", "version", "revision")),
    ("table-dropped", "DROP TABLE candidate_system", ("candidate_system",)),
    ("column-dropped", "ALTER TABLE judgment DROP COLUMN comment", ("comment",)),
    ("levels-not-json", "UPDATE criterion SET levels = 'yes,no'", ("levels",)),
    ("levels-not-a-list", "UPDATE criterion SET levels = '42'", ("levels",)),
    ("settings-not-json", "UPDATE study SET settings = '{\"seed\": '", ("settings",)),
    ("references-not-json", "UPDATE source_sentence SET \"references\" = '[unclosed'", ("references",)),
    ("time-yesterday", "UPDATE judgment SET answered_at = 'yesterday' WHERE id = (SELECT MIN(id) FROM judgment)",
     ("answered_at",)),
    ("value-off-scale", "UPDATE judgment SET value = 'maybe' WHERE id = (SELECT MIN(id) FROM judgment)",
     ("maybe", "scale")),
    ("assignment-missing-candidate", "UPDATE assignment SET candidate_id = 9999 WHERE id = "
     "(SELECT MIN(id) FROM assignment)", ("candidate",)),
    ("judgment-missing-annotator", "UPDATE judgment SET annotator_id = 999 WHERE id = (SELECT MIN(id) FROM judgment)",
     ("annotator",)),
    ("judgment-table-dropped", "DROP TABLE judgment", ("judgment",)),
]


def _altered(study: Path, folder: Path, name: str, sql: str) -> Path:
    path = folder / f"{name}.sqlite"
    shutil.copy(study, path)
    connection = sqlite3.connect(path)
    connection.execute(sql)
    connection.commit()
    connection.close()
    return path


def _study_insides_cases(builder: CaseBuilder, base: Path, core: Path) -> None:
    study = judged_study(base / "judged.sqlite", base, core)
    more = _write(base / "more.csv", f"item,annotator,criterion,value\n{candidate_ids(study)[0]},ann3,fluency,no\n")
    for command, argv in reading_commands(study, base / "clean-dev.jsonl").items():
        add(builder, "controls", f"clean-study/{command}", argv, "accept", base, untouched=[study])
    add(builder, "controls", "clean-study/check", ["study", "check", "--db", str(study)], "accept", base,
        untouched=[study])
    for name, sql, words in ALTERATIONS:
        folder = base / name
        folder.mkdir()
        altered = _altered(study, folder, name, sql)
        naming = ((altered.name,), words)
        never = folder / "dev.jsonl"
        for command, argv in reading_commands(altered, never).items():
            add(builder, "study-insides", f"{name}/{command}", argv, "refuse", folder, untouched=[altered],
                exit_code=2, mentions=naming, must_not_exist=[never],
                stdout_must_not=("100%", "100.0%") if command == "progress" else ())
        add(builder, "study-insides", f"{name}/import-judgments", ["study", "import-judgments", str(more), "--db",
                                                                   str(altered)], "refuse", folder,
            untouched=[altered], exit_code=2, mentions=naming)
        add(builder, "study-insides", f"{name}/check", ["study", "check", "--db", str(altered)], "refuse", folder,
            untouched=[altered], exit_code=1, mentions=(words,), one_line=False)


class SilentServer:
    """A TCP listener that accepts every connection and never says a word (a server hung, a firewall's tarpit)."""

    def __init__(self):
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(64)
        self.port = self.socket.getsockname()[1]
        self.held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:
                return
            self.held.append(connection)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _server_cases(builder: CaseBuilder, base: Path) -> None:
    silent = SilentServer()
    builder.keep_alive.append(silent)
    closed = free_port()  # nothing listens there: connection refused at once
    judgments = _write(base / "judgments.csv", "item,annotator,criterion,value\n1,ann1,fluency,yes\n")

    def url(password: str, where: str = f"127.0.0.1:{closed}") -> str:
        return f"postgresql+psycopg://judge:{password}@{where}/studies"

    # (label, URL, pieces of the password no output may hold, words one of each group the message must hold)
    urls = [
        ("silent-listener", url("Quiet-Secret-7", f"127.0.0.1:{silent.port}"), ("Quiet-Secret-7",),
         (("time", "answer", "respond"),)),
        ("port-99999", url("Port-Secret-7", "127.0.0.1:99999"), ("Port-Secret-7",), (("99999",),)),
        ("port-0", url("Port-Secret-7", "127.0.0.1:0"), ("Port-Secret-7",), (("port",),)),
        ("port-65536", url("Port-Secret-7", "127.0.0.1:65536"), ("Port-Secret-7",), (("65536",),)),
        ("port-not-a-number", url("Port-Secret-7", "127.0.0.1:five"), ("Port-Secret-7",), (("port",),)),
        ("at-in-password", url("Hunter2@Secret9"), ("Hunter2", "Secret9"), ()),
        ("hash-in-password", url("Fragment#Secret9"), ("Fragment", "Secret9"), ()),
        ("slash-in-password", url("Slash/Secret9"), ("Slash", "Secret9"), ()),
        ("question-in-password", url("Query?Secret9"), ("Query", "Secret9"), ()),
        ("colon-in-password", url("Colon:Secret9"), ("Colon", "Secret9"), ()),
        ("bad-percent-escape", url("Pct%zzSecret9"), ("Pct%zz", "Secret9"), ()),
        ("percent-encoded-at", url("Hunter2%40Secret9"), ("Hunter2", "Secret9"), ()),
        ("space-in-password", url("Space Secret9"), ("Space Secret9", "Secret9"), ()),
        ("unknown-host", url("Host-Secret-7", "no-such-host.invalid"), ("Host-Secret-7",),
         (("no-such-host.invalid",),)),
    ]
    for label, target in (("connection-file-silent", f"127.0.0.1:{silent.port}"),
                          ("connection-file-port-99999", "127.0.0.1:99999")):
        toml = _write(base / f"{label}.toml", f'url = "{url("File-Secret-7", target)}"\nstudy = "s"\n')
        toml.chmod(0o600)
        urls.append((label, str(toml), ("File-Secret-7",), ()))
    for label, target, secrets, mentions in urls:
        limit = 15.0 if "silent" in label or "unknown" in label else 10.0  # the 10 s connect timeout, and a start
        commands = [("progress", ["study", "progress", "--db", target]),
                    ("create", ["study", "create", "s", "--db", target]),
                    ("report", ["report", target, "--bootstrap", "0"]),
                    ("import-judgments", ["study", "import-judgments", str(judgments), "--db", target]),
                    ("inspect", ["inspect", target]),
                    ("check", ["study", "check", "--db", target])]
        for command, argv in commands[:3] if "silent" in label else commands[:4]:  # each silent one waits 10 s
            add(builder, "servers", f"{label}/{command}", argv, "refuse", base, exit_code=2, secrets=secrets,
                mentions=mentions, time_limit=limit)


def _signal_inputs(base: Path, core: Path) -> dict[str, Path]:
    """The long commands' inputs, made once: each lasts seconds, so a signal finds it at work."""
    import random

    noise = random.Random(39)
    words, foreign = [f"w{i}" for i in range(3000)], [f"f{i}" for i in range(3000)]
    lines = []
    for _ in range(300_000):
        e = " ".join(noise.choice(words) for _ in range(noise.randint(1, 3)))
        f = " ".join(noise.choice(foreign) for _ in range(noise.randint(1, 2)))
        lines.append(f"{e} ||| {f} ||| " + " ".join(f"0.{noise.randint(1, 9)}" for _ in range(4)) + "\n")
    made = {"bilingual": _write(base / "bilingual.txt", "".join(lines)),
            "bilingual-small": _write(base / "bilingual-small.txt", "".join(lines[:30_000])),
            "corpus": _write(base / "corpus.txt", "".join(" ".join(noise.choice(words) for _ in range(12)) + "\n"
                                                          for _ in range(200_000))),
            "candidates": _write(base / "candidates.jsonl", "".join(
                json.dumps({"sentence_id": i // 2, "system": SYSTEMS[i % 2], "text": f"cand {i} " + " ".join(
                    noise.choice(words) for _ in range(8)), "source": f"source {i // 2}"}) + "\n"
                for i in range(30_000))),
            "sentences": _write(base / "sentences-8000.txt", (DEMO / "test.en").read_text(encoding="utf-8") * 80),
            "few": _write(base / "sentences-6.txt", "".join((DEMO / "test.en").read_text(
                encoding="utf-8").splitlines(keepends=True)[:6])),
            "empty-study": base / "empty.sqlite", "big-study": base / "big.sqlite"}
    _python_core("study", "create", "s", "--db", str(made["empty-study"]), "--criteria", "fluency", cwd=base,
                 core=core)
    shutil.copy(made["empty-study"], made["big-study"])
    _python_core("study", "import-candidates", str(made["candidates"]), "--db", str(made["big-study"]), cwd=base,
                 core=core)
    made["judgments"] = _write(base / "judgments.csv", "item,annotator,criterion,value\n" + "".join(
        f"{item},ann1,fluency,{'yes' if item % 3 else 'no'}\n" for item in candidate_ids(made["big-study"])))
    made["judgments-small"] = _write(base / "judgments-small.csv", "".join(
        made["judgments"].read_text(encoding="utf-8").splitlines(keepends=True)[:3001]))
    made["judged"] = judged_study(base / "judged.sqlite", base, core)
    return made


def _counted(study: Path, table: str, allowed: tuple[int, ...]):
    """A check after the run: the table's rows are all or none of what the command adds (never a part)."""
    def check() -> str:
        try:
            rows = count_rows(study, table)
        except sqlite3.Error as error:
            return f"the study no longer opens: {error}"
        return "" if rows in allowed else f"{rows} {table} rows: neither before ({allowed[0]}) nor all ({allowed[-1]})"
    return check


def _signal_cases(builder: CaseBuilder, base: Path, core: Path) -> None:
    made = _signal_inputs(base, core)
    table, lm = str(DEMO / "paraphrase-table.gz"), str(DEMO / "lm.bin")
    rows = count_rows(made["big-study"], "candidate")
    # (command, argv given the case folder, standard input, start condition, what it writes, after-run check)
    commands = {
        "generate-beam-processes-2": (lambda d: ["generate", "--system", "beam", "--table", table, "--lm", lm,
                                                 "--processes", "2", "-o", str(d / "out.txt")],
                                      made["sentences"], dict(cpu=1.0, children=1), "out.txt"),
        "generate-mcpg-processes-2": (lambda d: ["generate", "--system", "mcpg-true", "--table", table, "--lm", lm,
                                                 "--processes", "2"], made["few"], dict(cpu=1.5), None),
        "pivot": (lambda d: ["pivot", str(made["bilingual"]), "-o", str(d / "para.txt")], None, dict(cpu=2.0),
                  "para.txt"),
        "table-binarize": (lambda d: ["table", "binarize", str(d / "table.gz")], None, dict(cpu=2.0),
                           "table.gz.pstable"),  # the demo's table (20 s); killed: the small one (2 s)
        "import-candidates": (lambda d: ["study", "import-candidates", str(made["candidates"]), "--db",
                                         str(d / "study.sqlite")], None, dict(cpu=1.5), None),
        "import-judgments": (lambda d: ["study", "import-judgments", str(made["judgments"]), "--db",
                                        str(d / "study.sqlite")], None, dict(cpu=1.5), None),
        "lm-train": (lambda d: ["lm", "train", str(made["corpus"]), "--order", "3", "--discount-fallback", "-o",
                                str(d / "lm.bin")], None, dict(cpu=0.8, children=1), "lm.bin"),
        "agreement-bootstrap": (lambda d: ["agreement", str(made["judged"]), "--bootstrap", "20000000"], None,
                                dict(cpu=1.5), None),
    }
    ways = {"sigint-group": Interrupt(signal.SIGINT), "sigint-command-only": Interrupt(signal.SIGINT, group=False),
            "sigint-twice": Interrupt(signal.SIGINT, twice=True),
            "sigterm-command-only": Interrupt(signal.SIGTERM, group=False),
            "sigkill-then-again": Interrupt(signal.SIGKILL)}
    for command, (argv, stdin, start, output) in commands.items():
        for way, interrupt in ways.items():
            if way == "sigkill-then-again" and output is None and "import" not in command:
                continue  # nothing written: nothing a second run could clean up
            folder = base / f"{command}-{way}"
            folder.mkdir()
            if command == "table-binarize":
                shutil.copy(DEMO / ("paraphrase-table.gz" if way != "sigkill-then-again" else
                                    "rv-web.test.phrase-table.gz"), folder / "table.gz")
            post = None
            if command == "import-candidates":
                shutil.copy(made["empty-study"], folder / "study.sqlite")
                post = _counted(folder / "study.sqlite", "candidate", (0, rows))
            elif command == "import-judgments":
                shutil.copy(made["big-study"], folder / "study.sqlite")
                post = _counted(folder / "study.sqlite", "judgment", (0, rows))
                if way == "sigkill-then-again":  # a whole import of 30,000 answers takes 30 s: 3,000 again
                    post = _counted(folder / "study.sqlite", "judgment", (3000,))
            cpu = 1.0 if command == "table-binarize" and way == "sigkill-then-again" else start["cpu"]
            interrupt = Interrupt(interrupt.signum, interrupt.group, cpu, start.get("children", 0), interrupt.twice)
            extra = dict(interrupt=interrupt, stdin=stdin, watch=(folder,), post=post, time_limit=60.0)
            if way == "sigkill-then-again":
                again = argv(folder)
                if command == "generate-beam-processes-2":
                    extra["rerun_stdin"] = DEMO / "test.en"
                elif command in ("pivot", "import-judgments"):
                    small = {str(made["bilingual"]): made["bilingual-small"], str(made["judgments"]):
                             made["judgments-small"]}
                    again = [str(small.get(part, part)) for part in again]
                add(builder, "signals", f"{command}/{way}", argv(folder), "accept", folder, rerun=again,
                    allowed_new=(output,) if output else (), **extra)
            else:
                add(builder, "signals", f"{command}/{way}", argv(folder), "signal", folder,
                    exit_code=130 if interrupt.signum == signal.SIGINT else 143, **extra)


def build_cases_39(directory: Path, core: Path) -> list:
    """Issue 39's held-out cases (this module's and ``malformed_cases_39_inputs.py``'s), written under
    ``directory``."""
    from malformed_cases_39_inputs import build_input_cases  # the other families, beside this list

    builder = CaseBuilder(directory / "issue39", core)
    for family, build in [("study-insides", lambda b, d: _study_insides_cases(b, d, core)),
                          ("servers", lambda b, d: _server_cases(b, d)),
                          ("signals", lambda b, d: _signal_cases(b, d, core))]:
        base = builder.directory / family
        base.mkdir(parents=True, exist_ok=True)
        build(builder, base)
    build_input_cases(builder, core)
    return builder.cases
