"""One file hasher (issue 42): a file's sha256 comes from core/file_fingerprint.py (cached per file version and
checked for a file rewritten while it was read), never from a loop of our own."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HASHER = ROOT / "core" / "file_fingerprint.py"


def hand_written_file_hashes(path: Path) -> list[str]:
    """``file:line`` of every ``hashlib.sha256()`` fed block by block, or given a file's bytes read whole."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in sorted(ast.walk(tree), key=lambda node: getattr(node, "lineno", 0)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "sha256"
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "hashlib"):
            continue
        reads_a_file = any(isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute)
                           and inner.func.attr in ("read_bytes", "read") for arg in node.args for inner in ast.walk(arg))
        if not node.args or reads_a_file:
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_no_file_is_hashed_but_by_the_one_hasher():
    files = sorted((ROOT / "core").rglob("*.py")) + sorted((ROOT / "desktop").rglob("*.py"))
    assert [where for path in files if path != HASHER for where in hand_written_file_hashes(path)] == []


def test_a_hand_written_hash_of_a_file_is_found(tmp_path, monkeypatch):
    source = tmp_path / "core" / "mine.py"
    source.parent.mkdir()
    source.write_text("import hashlib\n"
                      "def a(p):\n    return hashlib.sha256(p.read_bytes()).hexdigest()\n"
                      "def b(h):\n    d = hashlib.sha256()\n    d.update(h.read(1 << 20))\n"
                      "def c(text):\n    return hashlib.sha256(text.encode()).hexdigest()\n", encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert hand_written_file_hashes(source) == ["core/mine.py:3", "core/mine.py:5"]
