"""Mutation check of the exact-algorithm modules: does some test fail when the code is subtly wrong?

For each module below the script lists every place one of these operators applies, takes a seeded sample of
them, and for each mutant runs that module's tests (``pytest -x``, a time limit per run):

* ``compare``: a comparison flipped at its boundary or negated (``<`` -> ``<=``, ``>=`` -> ``>``, ``==`` -> ``!=``);
* ``arith``: ``+`` <-> ``-`` (also in ``+=`` / ``-=``);
* ``constant``: a number off by one (``n`` -> ``n + 1``);
* ``boolean``: ``and`` <-> ``or``, ``not x`` -> ``x``;
* ``drop``: a statement replaced by ``pass`` (an assignment, a call, an ``if``, a ``continue`` / ``break``);
* ``return``: ``return x`` -> ``return None`` (an early, empty return).

A mutant is *killed* when the tests fail (or time out), *survived* when they pass. Mutants are made on a copy
of the tree in a temporary folder, never in place, so an interrupted run (Ctrl-C, a kill) leaves the working
tree as it was; the copy is removed at the end. Each survivor is either killed by a test or explained in
``docs/MUTATIONS.md``.

Usage (from the repository root)::

    python3 benchmarks/mutation_check.py                 # 8 mutants per module, about 20 minutes on 2 busy cores
    python3 benchmarks/mutation_check.py --per-module 0  # every mutant (hours)
    python3 benchmarks/mutation_check.py --module core/stats/significance.py --json survivors.json

It prints one line per mutant and a table of killed / survived per module. It asserts nothing about time.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Module -> the tests that guard it (those that import it and check it against an oracle or a worked example).
MODULES = {
    "core/engine/model/truescore.py": ["tests/test_truescore.py"],
    "core/engine/decoders/kbest.py": ["tests/test_beam_kbest.py"],
    "core/tuning/line_search.py": ["tests/test_mert_line_search.py"],
    "core/stats/agreement.py": ["tests/test_agreement_published.py", "tests/test_agreement_study.py"],
    "core/stats/significance.py": ["tests/test_significance_oracles.py", "tests/test_seed001_sign_test_sentence.py",
                                   "tests/test_per_system_numbers.py"],
    "core/tablebuild/pivot.py": ["tests/test_pivot_table.py"],
}

FLIPS = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
         ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}
DROPPABLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.If, ast.Continue, ast.Break)


@dataclass
class Mutant:
    module: str
    line: int
    operator: str
    original: str  # the first line of the span, for the report
    mutated: str
    replacement: str  # the whole text put in the span's place
    start: tuple[int, int]  # (line, column) of the replaced span, 1-based line
    end: tuple[int, int]
    outcome: str = ""  # killed, timeout, survived
    seconds: float = 0.0


def _is_docstring(node: ast.AST, parent: ast.AST | None) -> bool:
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
            and parent is not None and getattr(parent, "body", [None])[0] is node)


def _replacements(node: ast.AST, parent: ast.AST | None, source: str) -> list[tuple[str, str]]:
    """(operator, replacement text of ``node``'s span) for each mutation that applies to ``node``."""
    found = []
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            if type(op) in FLIPS:
                copy = ast.parse(ast.unparse(node), mode="eval").body
                copy.ops[i] = FLIPS[type(op)]()
                found.append(("compare", f"({ast.unparse(copy)})"))
    elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        copy = ast.parse(ast.unparse(node), mode="eval").body
        copy.op = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
        found.append(("arith", f"({ast.unparse(copy)})"))
    elif isinstance(node, ast.AugAssign) and isinstance(node.op, (ast.Add, ast.Sub)):
        copy = ast.parse(ast.unparse(node)).body[0]
        copy.op = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
        found.append(("arith", ast.unparse(copy)))
    elif (isinstance(node, ast.Constant) and isinstance(node.value, (int, float))
          and not isinstance(node.value, bool)):
        found.append(("constant", f"({node.value!r} + 1)"))
    elif isinstance(node, ast.BoolOp):
        copy = ast.parse(ast.unparse(node), mode="eval").body
        copy.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        found.append(("boolean", f"({ast.unparse(copy)})"))
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        found.append(("boolean", f"({ast.unparse(node.operand)})"))
    if isinstance(node, ast.Return) and node.value is not None \
            and not (isinstance(node.value, ast.Constant) and node.value.value is None):
        found.append(("return", "return None"))
    declaration = isinstance(node, ast.AnnAssign) and node.value is None  # a dataclass field, no behaviour
    if isinstance(node, DROPPABLE) and not _is_docstring(node, parent) and not declaration:
        found.append(("drop", "pass"))
    return found


def _skipped(node: ast.AST) -> bool:
    """Code whose mutants say nothing about the algorithm: imports, type-checking blocks, raising errors."""
    if isinstance(node, (ast.Import, ast.ImportFrom, ast.Raise, ast.Assert)):
        return True
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def mutants_of(module: str) -> list[Mutant]:
    source = (ROOT / module).read_text(encoding="utf-8")
    found: list[Mutant] = []

    def visit(node: ast.AST, parent: ast.AST | None) -> None:
        if _skipped(node):
            return
        if hasattr(node, "lineno") and not isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.arguments)):
            for operator, replacement in _replacements(node, parent, source):
                start, end = (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)
                original = ast.get_source_segment(source, node) or ""
                found.append(Mutant(module, node.lineno, operator, original.splitlines()[0][:80],
                                    replacement.splitlines()[0][:80], replacement, start, end))
        # Annotations and decorators are not behaviour; format strings hold no arithmetic worth mutating.
        for name, child in ast.iter_fields(node):
            if name in ("annotation", "returns", "decorator_list") or isinstance(node, ast.JoinedStr):
                continue
            for item in child if isinstance(child, list) else [child]:
                if isinstance(item, ast.AST):
                    visit(item, node)

    visit(ast.parse(source), None)
    return found


def apply(mutant: Mutant, source: str) -> str:
    """``source`` with the mutant's span replaced (a multi-line span becomes one line; Python allows it where
    the replacement is parenthesised or is a whole statement)."""
    lines = source.splitlines(keepends=True)
    (first, start), (last, end) = mutant.start, mutant.end
    head, tail = lines[first - 1][:start], lines[last - 1][end:]
    return "".join(lines[:first - 1]) + head + mutant.replacement + tail + "".join(lines[last:])


def sample_by_operator(every: list[Mutant], count: int, rng: random.Random) -> list[Mutant]:
    """``count`` mutants taking each operator in turn (a plain sample would be mostly dropped statements)."""
    groups: dict[str, list[Mutant]] = {}
    for mutant in every:
        groups.setdefault(mutant.operator, []).append(mutant)
    for group in groups.values():
        rng.shuffle(group)
    order = sorted(groups)
    chosen: list[Mutant] = []
    while len(chosen) < min(count, len(every)):
        for operator in order:
            if groups[operator] and len(chosen) < count:
                chosen.append(groups[operator].pop())
    return chosen


def copy_tree(destination: Path) -> None:
    """The tracked files and the compiled search cores (beam_core.cpp is in them), into ``destination`` (the mutants'
    playground)."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    names = [name for name in listed.decode().split("\0") if name]
    names += [str(path.relative_to(ROOT)) for path in (ROOT / "core" / "engine").glob("_search_cores*.so")]
    for name in names:
        target = destination / name
        if not (ROOT / name).is_file():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)


def run_tests(tree: Path, tests: list[str], timeout: float) -> tuple[str, float]:
    """``passed``, ``failed`` or ``timeout`` of the tests in ``tree``, and the seconds it took."""
    environment = {**os.environ, "PYTHONPATH": str(tree), "QT_QPA_PLATFORM": "offscreen",
                   "PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
               "--hypothesis-seed=0", *tests]
    began = time.monotonic()
    try:
        completed = subprocess.run(command, cwd=tree, env=environment, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", time.monotonic() - began
    return ("passed" if completed.returncode == 0 else "failed"), time.monotonic() - began


def _interrupt(signum, frame):
    # SIGTERM (and SIGINT, which a shell's background job ignores) unwind like Ctrl-C: the running test is
    # killed by subprocess.run and the temporary tree removed by its context manager.
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: list[str] | None = None) -> int:
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, _interrupt)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--module", action="append", choices=sorted(MODULES), help="only these modules")
    parser.add_argument("--per-module", type=int, default=8, help="mutants sampled per module (0: all)")
    parser.add_argument("--seed", type=int, default=23, help="seed of the sample")
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds per test run before it counts as "
                        "killed (an endless loop)")
    parser.add_argument("--json", help="write every mutant and its outcome here")
    parser.add_argument("--list", action="store_true", help="only list the mutants the sample would run")
    args = parser.parse_args(argv)
    modules = args.module or list(MODULES)
    chosen: list[Mutant] = []
    for module in modules:
        every = mutants_of(module)
        sample = every if args.per_module <= 0 else sample_by_operator(every, args.per_module,
                                                                        random.Random(f"{args.seed}:{module}"))
        sample.sort(key=lambda m: (m.line, m.operator))
        print(f"{module}: {len(every)} mutants, running {len(sample)}", flush=True)
        chosen += sample
    if args.list:
        for m in chosen:
            print(f"  {m.module}:{m.line} {m.operator}: {m.original} -> {m.mutated}")
        return 0
    with tempfile.TemporaryDirectory(prefix="parastudio-mutants-") as folder:
        tree = Path(folder)
        copy_tree(tree)
        for module in modules:
            outcome, seconds = run_tests(tree, MODULES[module], args.timeout * 2)
            print(f"baseline {module}: {outcome} ({seconds:.0f} s)", flush=True)
            if outcome != "passed":
                print(f"mutation_check: the tests of {module} fail without a mutant; fix them first", file=sys.stderr)
                return 1
        for number, mutant in enumerate(chosen, 1):
            path = tree / mutant.module
            original = path.read_text(encoding="utf-8")
            mutated = apply(mutant, original)
            try:
                compile(mutated, str(path), "exec")
            except SyntaxError:
                mutant.outcome = "invalid"
                continue
            path.write_text(mutated, encoding="utf-8")
            try:
                outcome, mutant.seconds = run_tests(tree, MODULES[mutant.module], args.timeout)
            finally:
                path.write_text(original, encoding="utf-8")
            mutant.outcome = {"failed": "killed", "timeout": "timeout", "passed": "survived"}[outcome]
            print(f"[{number}/{len(chosen)}] {mutant.outcome:8s} {mutant.module}:{mutant.line} {mutant.operator}: "
                  f"{mutant.original} -> {mutant.mutated} ({mutant.seconds:.0f} s)", flush=True)
    print("\n| module | mutants | killed | timeout | survived |\n| --- | ---: | ---: | ---: | ---: |")
    for module in modules + ["all"]:
        mine = [m for m in chosen if (module == "all" or m.module == module) and m.outcome != "invalid"]
        counts = [sum(m.outcome == o for m in mine) for o in ("killed", "timeout", "survived")]
        print(f"| {module} | {len(mine)} | {counts[0]} | {counts[1]} | {counts[2]} |")
    survivors = [m for m in chosen if m.outcome == "survived"]
    if survivors:
        print("\nSurvivors:")
        for m in survivors:
            print(f"- {m.module}:{m.line} {m.operator}: `{m.original}` -> `{m.mutated}`")
    if args.json:
        sys.path.insert(0, str(ROOT))
        from parastudio.core.textio import atomic_output

        with atomic_output(args.json) as handle:
            handle.write(json.dumps([asdict(m) for m in chosen], indent=1) + "\n")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("mutation_check: interrupted; the mutants lived in a temporary copy, the tree is as it was",
              file=sys.stderr)
        sys.exit(130)
