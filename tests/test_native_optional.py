"""The compiled core is optional: an install that cannot build it goes on, and the Python search says so once."""

from __future__ import annotations

import subprocess
import sys
import tarfile
from pathlib import Path

from parastudio.core.engine.decoders import compiled_search

ROOT = Path(__file__).resolve().parents[1]


def _build_ext(tmp_path: Path, source: Path) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "PARASTUDIO_KENLM_SOURCE": str(source), "PARASTUDIO_CACHE": str(tmp_path / "cache"),
           "HOME": str(tmp_path)}
    return subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--build-lib", str(tmp_path / "lib"),
                           "--build-temp", str(tmp_path / "temp")], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)


def test_a_kenlm_archive_with_another_sha256_is_never_unpacked_and_the_build_goes_on_without_the_core(tmp_path):
    archive = tmp_path / "kenlm-0.3.0.tar.gz"
    member = tmp_path / "model.hh"
    member.write_text("// not kenlm\n")
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(member, arcname="kenlm-0.3.0/lm/model.hh")

    result = _build_ext(tmp_path, archive)

    assert result.returncode == 0, result.stderr
    assert "the compiled search cores were not built" in result.stderr  # the beam search's and MCPG's (issue 24)
    assert "expected the kenlm 0.3.0 source distribution with sha256" in result.stderr
    assert not list(tmp_path.rglob("cache/**/model.hh"))  # never unpacked
    assert not list(tmp_path.rglob("_search_cores*"))
    assert list(tmp_path.rglob("_truescore_core*"))  # it needs no KenLM


def test_a_missing_kenlm_source_is_a_warning_not_a_failed_install(tmp_path):
    result = _build_ext(tmp_path, tmp_path / "no-such-kenlm.tar.gz")

    assert result.returncode == 0, result.stderr
    assert "expected a kenlm source folder or archive" in result.stderr


def test_without_the_core_the_python_search_runs_and_says_so_once(monkeypatch, capsys):
    monkeypatch.setattr(compiled_search, "_beam_core", None)
    monkeypatch.delenv("PARASTUDIO_BEAM_CORE", raising=False)
    compiled_search._say_the_python_search_runs.cache_clear()

    assert compiled_search.wanted() is False
    assert compiled_search.wanted() is False

    assert capsys.readouterr().err.count("the compiled search core is not built") == 1
    compiled_search._say_the_python_search_runs.cache_clear()
