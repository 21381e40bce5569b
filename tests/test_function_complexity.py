"""One idea per function (issue 42): no function of ``core/`` or ``desktop/`` past a cyclomatic complexity of 30.

radon's own reader (``radon.complexity.cc_visit``) measures every function, method and nested function; a
function past the limit is named ``file:line function (complexity)`` so the message says where to split.
"""

from __future__ import annotations

from pathlib import Path

from radon.complexity import cc_visit

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 30


def _functions(blocks):
    """Every function radon found, methods and nested functions included (a class's own figure is its
    methods' sum, not a function). radon lists a class's methods beside the class too: each is yielded once."""
    seen = set()
    pending = list(blocks)
    while pending:
        block = pending.pop()
        if hasattr(block, "methods"):
            pending += block.methods + block.inner_classes
        elif (block.lineno, block.col_offset) not in seen:
            seen.add((block.lineno, block.col_offset))
            pending += block.closures
            yield block


def too_complex(paths, root: Path = ROOT, limit: int = LIMIT) -> list[str]:
    """``file:line function (complexity)`` for each function of ``paths`` over ``limit``."""
    found = []
    for path in sorted(paths):
        functions = sorted(_functions(cc_visit(path.read_text(encoding="utf-8"))), key=lambda f: f.lineno)
        for function in functions:
            if function.complexity > limit:
                name = f"{function.classname}.{function.name}" if function.classname else function.name
                found.append(f"{path.relative_to(root)}:{function.lineno} {name} ({function.complexity})")
    return found


def test_no_function_of_core_or_desktop_is_over_the_limit():
    paths = [p for folder in ("core", "desktop") for p in (ROOT / folder).rglob("*.py")]
    assert paths
    found = too_complex(paths)
    assert not found, f"functions over complexity {LIMIT} (split them along their seams):\n" + "\n".join(found)


def _branches(count: int) -> str:
    """A function of complexity ``count + 1``: one ``if`` per branch."""
    return "def planted(x):\n" + "".join(f"    if x == {i}:\n        return {i}\n" for i in range(count)) \
        + "    return -1\n"


def test_a_planted_function_of_31_is_named_and_30_passes(tmp_path):
    over, at = tmp_path / "over.py", tmp_path / "at.py"
    over.write_text(_branches(LIMIT), encoding="utf-8")
    at.write_text(_branches(LIMIT - 1), encoding="utf-8")
    assert too_complex([over, at], root=tmp_path) == [f"over.py:1 planted ({LIMIT + 1})"]


def test_a_method_and_a_nested_function_are_measured(tmp_path):
    body = _branches(LIMIT).replace("\n    ", "\n            ").replace("def planted", "        def planted")
    path = tmp_path / "nested.py"
    path.write_text("class Holder:\n    def method(self, x):\n" + body + "        return planted(x)\n",
                    encoding="utf-8")
    assert too_complex([path], root=tmp_path) == [f"nested.py:3 planted ({LIMIT + 1})"]
