"""Without the SWORD texts, `parastudio data build` says exactly what to install (SWORD_PATH points at no modules)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from parastudio.core.evaldata import sword_extract

TEXT_PACKAGES = ["sword-text-web", "sword-text-kjv", "sword-text-sparv"]


def test_empty_sword_path_counts_the_text_packages_as_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("SWORD_PATH", str(tmp_path))
    missing = sword_extract.missing_packages()
    assert missing[:3] == TEXT_PACKAGES
    with pytest.raises(sword_extract.SwordUnavailable) as raised:
        sword_extract.ensure_packages(install=False)
    message = str(raised.value)
    assert sword_extract.install_command(missing) in message
    assert str(tmp_path / "mods.d") in message


def test_a_module_in_sword_path_is_found(tmp_path, monkeypatch):
    (tmp_path / "mods.d").mkdir()
    (tmp_path / "mods.d" / "engkjv2006eb.conf").write_text("[engKJV2006eb]\nVersion=14.3\n", encoding="utf-8")
    monkeypatch.setenv("SWORD_PATH", str(tmp_path))
    missing = sword_extract.missing_packages()
    if sword_extract.debian_package_version("sword-text-kjv") is not None:
        assert "sword-text-kjv" not in missing
    assert "sword-text-web" in missing and "sword-text-sparv" in missing
    assert sword_extract.module_info("engKJV2006eb").version == "14.3"


def test_cli_prints_the_apt_get_line_and_fails(tmp_path):
    environment = {**os.environ, "SWORD_PATH": str(tmp_path / "no-modules")}
    result = subprocess.run(
        [sys.executable, "-m", "parastudio", "data", "build", "--out", str(tmp_path / "out"), "--stages", "extract",
         "--no-install"],
        capture_output=True, text=True, env=environment, timeout=120,
    )
    assert result.returncode == 1
    prefix = "" if os.geteuid() == 0 else "sudo "
    expected = f"{prefix}apt-get install -y {' '.join(TEXT_PACKAGES)}"
    assert any(line.strip().startswith(expected) for line in result.stderr.splitlines()), result.stderr
    assert not (tmp_path / "out" / "build" / "corpus" / "verses.jsonl").exists()
