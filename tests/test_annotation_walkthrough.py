"""docs/ANNOTATION.md, "A study with judges on other machines": every command of the walk-through, run in
order on the real PostgreSQL server (issue 38). The logins and the database get a suffix of this run (they are
the server's, shared by every test); the judges' answers between opening the app and watching progress are
given by script, on each judge's own connection file."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from parastudio.core.cli import main
from parastudio.core.store import operations as ops
from parastudio.core.store.connection_file import read_connection_file
from parastudio.core.store.database import open_database

ROOT = Path(__file__).resolve().parent.parent
NAMES = ("researcher", "parastudy", "ann", "bob", "carol")


def walkthrough_lines() -> list[str]:
    text = (ROOT / "docs" / "ANNOTATION.md").read_text(encoding="utf-8")
    section = text.split("## A study with judges on other machines", 1)[1]
    block = section.split("```bash\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip() and not line.startswith("#")]


def as_postgres(command: str) -> None:
    assert command.startswith("sudo -u postgres ")
    done = subprocess.run(["su", "postgres", "-c", command[len("sudo -u postgres "):]], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def judge_by_script(connection_file: Path, answer) -> int:
    """A judge's answers on their own login, as the app would give them: ``answer(item)`` for each open item."""
    with open_database(read_connection_file(connection_file).url) as db:
        [member] = ops.connection_membership(db).values()
        given = 0
        while (item := ops.next_item(db, member.annotator_id)) is not None and given < 40:
            ops.record_judgment(db, item.assignment_id, answer(item, given))
            given += 1
        return given


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("su") is None, reason="the walk-through's first step runs "
                    "psql as the server's postgres user")
def test_every_command_of_the_walkthrough_runs(tmp_path, monkeypatch, capsys, postgres_url):
    tag = uuid.uuid4().hex[:6]
    renamed = {name: f"{name}_{tag}" for name in NAMES}
    (tmp_path / "evaldata").symlink_to(ROOT / "evaldata")
    monkeypatch.chdir(tmp_path)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT),
           "XDG_CONFIG_HOME": str(tmp_path / "config")}
    variables: dict[str, str] = {}
    ran = []
    try:
        for line in walkthrough_lines():
            line = re.sub(r"\b(" + "|".join(NAMES) + r")\b", lambda found: renamed[found.group(1)], line)
            for name, value in variables.items():
                line = line.replace(f"${name}", value)
            if line.startswith("sudo -u postgres "):
                as_postgres(line)
            elif re.fullmatch(r"[A-Z]+=\S+", line):
                name, value = line.split("=", 1)
                variables[name] = value
            elif line.startswith("parastudio app "):
                png = tmp_path / f"window-{len(ran)}.png"
                done = subprocess.run([sys.executable, "-m", "parastudio", *shlex.split(line)[1:], "--screenshot",
                                       str(png)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180)
                assert done.returncode == 0, done.stderr[-800:]
                assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
                password = read_connection_file(shlex.split(line)[-1]).url.split(":")[2].split("@")[0]
                assert password not in done.stdout + done.stderr
            else:
                assert line.startswith("parastudio ")
                assert main(shlex.split(line)[1:]) == 0, capsys.readouterr().err
                if " invite " in line:
                    assert (tmp_path / shlex.split(line)[-1]).stat().st_mode & 0o777 == 0o600
            ran.append(line)
            if line.startswith("parastudio app") and line.endswith(f"bob_{tag}.toml"):
                # The judges judge: ann says yes throughout; bob says no to every fifth item.
                assert judge_by_script(tmp_path / f"ann_{tag}.toml", lambda item, i: "yes") == 40
                assert judge_by_script(tmp_path / f"bob_{tag}.toml",
                                       lambda item, i: "no" if i % 5 == 0 else "yes") == 40
        out = capsys.readouterr().out
        assert f"ann_{tag}" in out and "judge" in out and "adjudicator" in out
        assert (tmp_path / "judgments.csv").read_text(encoding="utf-8").count("\n") == 81  # header + 80 answers
        # The adjudicator's own login reads the disagreements; ann's access has ended.
        with open_database(read_connection_file(tmp_path / f"carol_{tag}.toml").url) as carol:
            [study_id] = ops.connection_membership(carol)
            disagreements = ops.disagreements_for(carol, study_id, f"carol_{tag}")
        assert disagreements and all(set(d.labels.values()) == {"yes", "no"} for d in disagreements)
        with pytest.raises(Exception, match="password authentication failed|does not exist|not permitted"):
            open_database(read_connection_file(tmp_path / f"ann_{tag}.toml").url).close()
        assert len(ran) == len(walkthrough_lines())
    finally:
        drop = (f"DROP DATABASE IF EXISTS {renamed['parastudy']} WITH (FORCE)",
                *(f"DROP ROLE IF EXISTS {renamed[name]}" for name in ("ann", "bob", "carol", "researcher")))
        for statement in drop:
            subprocess.run(["su", "postgres", "-c", f'psql -qc "{statement}"'], capture_output=True, timeout=60)
