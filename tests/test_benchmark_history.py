"""benchmarks/history.py: figures per commit, compared with the previous landed commit's (issue 40, Deliver 4)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def history():
    spec = importlib.util.spec_from_file_location("bench_history", ROOT / "benchmarks" / "history.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _entry(history, commit: str, speed: float, memory: float, *, machine: str = "m1", changed: bool = False,
           measured: str = "2026-12-07T00:00:00+00:00") -> dict:
    return {"benchmark": "bench_x", "commit": commit, "changed": changed, "measured": measured,
            "machine": {"id": machine, "cpu": "a CPU", "cpus": 2}, "settings": {"stack": 200},
            "figures": {"speed": history.figure(speed, "sentences/CPU s", history.HIGHER),
                        "memory": history.figure(memory, "MiB", history.LOWER)}}


def _write(folder: Path, entries: list[dict], tail: str = "") -> None:
    folder.mkdir(exist_ok=True)
    (folder / "bench_x.jsonl").write_text("".join(json.dumps(e) + "\n" for e in entries) + tail, encoding="utf-8")


def test_the_newest_commit_is_compared_with_the_previous_landed_one_and_a_fall_is_marked(history, tmp_path, capsys):
    order = {"c3": 0, "c2": 1, "c1": 2}  # main's first-parent history, newest first
    # Written out of order: the history's order, not the file's, decides which is previous.
    _write(tmp_path, [_entry(history, "c3", 400.0, 100.0), _entry(history, "c1", 999.0, 1.0),
                      _entry(history, "c2", 500.0, 100.0)])
    assert history.main(["--folder", str(tmp_path)], order=order) == 0
    out = capsys.readouterr().out
    assert "c2 -> c3" in out
    speed = next(line for line in out.splitlines() if line.strip().startswith("speed"))
    assert "-20.0 %" in speed and "<- worse" in speed
    memory = next(line for line in out.splitlines() if line.strip().startswith("memory"))
    assert "+0.0 %" in memory and "worse" not in memory
    assert "1 figure(s) worse" in out


def test_lower_is_better_figures_and_the_threshold(history, tmp_path, capsys):
    _write(tmp_path, [_entry(history, "c1", 500.0, 100.0), _entry(history, "c2", 510.0, 104.0)])
    history.main(["--folder", str(tmp_path)], order={"c2": 0, "c1": 1})
    out = capsys.readouterr().out
    assert "<- worse" not in out  # memory grew 4 %: under the default 5 %
    history.main(["--folder", str(tmp_path), "--threshold", "3"], order={"c2": 0, "c1": 1})
    memory = next(line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("memory"))
    assert "+4.0 %" in memory and "<- worse" in memory


def test_other_machines_and_settings_are_never_compared(history, tmp_path, capsys):
    other_settings = _entry(history, "c1", 100.0, 1.0)
    other_settings["settings"] = {"stack": 5}
    _write(tmp_path, [_entry(history, "c1", 500.0, 100.0), _entry(history, "c2", 250.0, 100.0, machine="m2"),
                      other_settings])
    history.main(["--folder", str(tmp_path)], order={"c2": 0, "c1": 1})
    out = capsys.readouterr().out
    assert "->" not in out and out.count("one record, nothing to compare with yet") == 3


def test_a_changed_work_tree_is_compared_with_its_landed_commit_and_repeats_give_their_median(history, tmp_path,
                                                                                               capsys):
    entries = [_entry(history, "c2", 500.0, 100.0), _entry(history, "c1", 520.0, 100.0),
               _entry(history, "c2", 300.0, 100.0, changed=True, measured="2026-12-07T01:00:00+00:00"),
               _entry(history, "c2", 600.0, 100.0, changed=True, measured="2026-12-07T02:00:00+00:00"),
               _entry(history, "c2", 640.0, 100.0, changed=True, measured="2026-12-07T03:00:00+00:00")]
    _write(tmp_path, entries)
    history.main(["--folder", str(tmp_path), "--all"], order={"c2": 0, "c1": 1})
    out = capsys.readouterr().out
    assert "c1 -> c2  " in out and "c2 -> c2 + changes" in out
    changed = out.split("c2 -> c2 + changes", 1)[1]
    speed = next(line for line in changed.splitlines() if line.strip().startswith("speed"))
    assert "600" in speed and "+20.0 %" in speed  # the median of 300, 600, 640 against 500


def test_a_line_cut_short_is_named_and_skipped(history, tmp_path, capsys):
    _write(tmp_path, [_entry(history, "c1", 500.0, 100.0), _entry(history, "c2", 450.0, 100.0)],
           tail='{"benchmark": "bench_x", "commit": "c3", "figu')
    history.main(["--folder", str(tmp_path)], order={"c3": 0, "c2": 1, "c1": 2})
    captured = capsys.readouterr()
    assert f"{tmp_path / 'bench_x.jsonl'}:3: expected one JSON record per line" in captured.err
    assert "c1 -> c2" in captured.out


def test_a_record_names_the_commit_the_machine_and_the_settings(history, tmp_path):
    path = history.record("bench_y", {"stack": 200, "input_sha256": "ab"},
                          {"speed": history.figure(3.5, "sentences/s", history.HIGHER)}, folder=tmp_path)
    entry = json.loads(path.read_text(encoding="utf-8"))
    assert entry["benchmark"] == "bench_y" and entry["settings"] == {"stack": 200, "input_sha256": "ab"}
    assert entry["figures"]["speed"] == {"value": 3.5, "unit": "sentences/s", "better": "higher"}
    assert len(entry["commit"]) == 40 and isinstance(entry["changed"], bool)
    assert entry["machine"]["cpus"] >= 1 and len(entry["machine"]["id"]) == 12
    with pytest.raises(ValueError):
        history.figure(1.0, "s", "faster")
