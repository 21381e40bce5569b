"""Mutation check of the exact-algorithm modules: does some test fail when the code is subtly wrong?

For each module below the script lists every place one of these operators applies, takes a seeded sample of
them, and for each mutant runs every test file that imports that module (``pytest -x``, a time limit per run):

* ``compare``: a comparison flipped at its boundary or negated (``<`` -> ``<=``, ``>=`` -> ``>``, ``==`` -> ``!=``);
* ``arith``: ``+`` <-> ``-`` (also in ``+=`` / ``-=``);
* ``constant``: a number off by one (``n`` -> ``n + 1``);
* ``boolean``: ``and`` <-> ``or``, ``not x`` -> ``x``;
* ``drop``: a statement replaced by ``pass`` (an assignment, a call, an ``if``, a ``continue`` / ``break``);
* ``return``: ``return x`` -> ``return None`` (an early, empty return).

The tests of a module are found by reading imports (:func:`importing_tests`): every ``tests/test_*.py`` with an
``import`` of the module or a ``from ... import`` of it or from it, anywhere in the file, also through the
test helpers in ``tests/`` it imports. A module no test imports (``kbest.py`` is reached through the beam decoder) gets the
tests of the modules of its own folder that import it, directly or through each other (else of its importers
anywhere, one step at a time until some test imports one). A test that reaches a module only through the
command line is named in ``THROUGH_THE_CLI``.

A mutant is *killed* when the tests fail, *timed out* when they run past the time limit (the mutant made them
loop or crawl: not a failing test, so counted apart), *survived* when they pass. Mutants are made on a copy of
the tree in a temporary folder (the tracked and untracked files and the compiled cores
``core/engine/_*_core*.so``, so code that calls a core runs it as the real tree does), never in place, so an
interrupted run (Ctrl-C, a kill) leaves the working tree as it was; the copy is removed at the end. Each
survivor is either killed by a test or explained in ``docs/MUTATIONS.md``.

Usage (from the repository root)::

    python3 benchmarks/mutation_check.py                 # 8 mutants per module
    python3 benchmarks/mutation_check.py --per-module 0  # every mutant (days)
    python3 benchmarks/mutation_check.py --module core/stats/significance.py --json survivors.json
    python3 benchmarks/mutation_check.py --list          # the sample and each module's tests, nothing run

It prints each module's tests and their baseline time, one line per mutant and a table of killed / timed out /
survived per module. It asserts nothing about time.
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
from typing import Iterator

ROOT = Path(__file__).resolve().parent.parent

# The exact-algorithm modules (their tests are found by reading imports: importing_tests).
MODULES = (
    "core/engine/model/truescore.py",
    "core/engine/decoders/kbest.py",
    "core/tuning/line_search.py",
    "core/stats/agreement.py",
    "core/stats/significance.py",
    "core/tablebuild/pivot.py",
)
# Tests that reach a module only through the command line (``core.cli.main``), which reading imports cannot see.
THROUGH_THE_CLI = {
    "core/stats/agreement.py": ["tests/test_agreement_study.py"],
}
OUTCOMES = ("killed", "timed out", "survived")

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
    outcome: str = ""  # killed, timed out, survived (or invalid: the mutant does not compile)
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


def _dotted(path: Path) -> str:
    """``core/stats/agreement.py`` -> ``core.stats.agreement`` (a package's ``__init__.py`` -> the package)."""
    parts = path.with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_names(path: Path) -> set[str]:
    """Every module name an import statement of ``path`` may load, inside functions too: ``import a.b`` gives
    ``a.b``; ``from a.b import c`` gives ``a.b`` and ``a.b.c`` (``c`` may be a module); relative imports are
    resolved against ``path``'s package."""
    names: set[str] = set()
    package = _dotted(path.relative_to(ROOT)).rsplit(".", 1)[0] if path.name != "__init__.py" else \
        _dotted(path.relative_to(ROOT))
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            names.add(base)
            names |= {f"{base}.{alias.name}" for alias in node.names}
    return names


def importing_tests(module: str) -> tuple[list[str], list[str]]:
    """(the test files that import ``module``, the modules they were found through: ``module`` itself, or, when
    no test imports it, the nearest modules under ``core/`` that import it; see the module docstring)."""
    tests_folder = ROOT / "tests"
    helpers = {path: imported_names(path) for path in tests_folder.glob("*.py")}
    by_name = {}
    for path in helpers:
        by_name[f"tests.{path.stem}"] = path
        by_name[path.stem] = path  # tests import their helpers both ways (conftest puts tests/ on the path)

    def reach(path: Path, seen: set[Path]) -> set[str]:
        seen.add(path)
        found = set(helpers[path])
        for name in helpers[path]:
            helper = by_name.get(name)
            if helper is not None and helper not in seen and not helper.name.startswith("test_"):
                found |= reach(helper, seen)
        return found

    reached = {path: reach(path, set()) for path in sorted(helpers) if path.name.startswith("test_")}
    importers: dict[str, set[str]] = {}
    for path in (ROOT / "core").rglob("*.py"):
        for name in imported_names(path):
            importers.setdefault(name, set()).add(_dotted(path.relative_to(ROOT)))
    for level in _importer_levels(_dotted(Path(module)), importers):
        tests = [str(path.relative_to(ROOT)) for path, names in reached.items() if names & level]
        if tests:
            return tests, sorted(level)
    return [], []


def _importer_levels(name: str, importers: dict[str, set[str]]) -> Iterator[set[str]]:
    """The module; its importers in its own folder, directly or through each other; then its importers anywhere,
    a step at a time."""
    yield {name}
    folder = name.rsplit(".", 1)[0]
    neighbours, frontier = {name}, [name]
    while frontier:
        for importer in importers.get(frontier.pop(), ()):
            if importer.rsplit(".", 1)[0] == folder and importer not in neighbours:
                neighbours.add(importer)
                frontier.append(importer)
    yield neighbours
    seen, level = set(neighbours), neighbours
    while level:
        level = {importer for found in level for importer in importers.get(found, ()) if importer not in seen}
        seen |= level
        yield level


# A pytest plugin put in the copy: hypothesis without shrinking (a failure is a kill, however small its example;
# shrinking one took minutes and turned kills into time-outs) and without its example database (a failure
# saved under one mutant would be replayed under the next: the outcome would depend on the order).
PROFILE_PLUGIN = "mutation_hypothesis_profile"
PROFILE = """from hypothesis import Phase, settings

settings.register_profile("mutants", phases=(Phase.explicit, Phase.generate), database=None)
settings.load_profile("mutants")
"""


def copy_tree(destination: Path) -> None:
    """The working tree's files (tracked, and untracked but not ignored) and every compiled core, into
    ``destination`` (the mutants' playground), and the hypothesis profile of the runs."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout
    names = {name for name in listed.decode().split("\0") if name}
    names |= {str(path.relative_to(ROOT)) for path in (ROOT / "core" / "engine").glob("_*.so")}
    for name in sorted(names):
        target = destination / name
        if not (ROOT / name).is_file():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)
    (destination / f"{PROFILE_PLUGIN}.py").write_text(PROFILE, encoding="utf-8")


MARK = "PARASTUDIO_MUTATION_RUN"  # in the environment of every process a test run starts, however it detaches


def _end_stragglers(tree: Path) -> None:
    """Kill what a test run left behind: a test's subprocess in a session of its own (the CLI tests start
    commands so) outlives a pytest killed at its time limit. Found by the mark in its environment."""
    mark = f"{MARK}={tree}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if mark in (entry / "environ").read_bytes().split(b"\0"):
                os.kill(int(entry.name), signal.SIGKILL)
        except OSError:  # gone meanwhile, or not ours to read
            continue


def run_tests(tree: Path, tests: list[str], timeout: float, markers: str | None = None) -> tuple[str, float]:
    """``passed``, ``failed`` or ``timed out`` of the tests in ``tree``, and the seconds it took. A run past
    ``timeout`` is killed with everything it started (its process group, and any process carrying its mark)."""
    environment = {**os.environ, "PYTHONPATH": str(tree), "QT_QPA_PLATFORM": "offscreen",
                   "PYTHONDONTWRITEBYTECODE": "1", MARK: str(tree)}
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
               *(["-p", PROFILE_PLUGIN] if (tree / f"{PROFILE_PLUGIN}.py").exists() else []),
               "--hypothesis-seed=0", *(["-m", markers] if markers else []), *tests]
    began = time.monotonic()
    process = subprocess.Popen(command, cwd=tree, env=environment, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        status = process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        status = None
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        _end_stragglers(tree)
    seconds = time.monotonic() - began
    if status is None:
        return "timed out", seconds
    # 5: every test of the file deselected by the markers (a Spark-only file under "not spark"): nothing failed.
    return ("passed" if status in (0, 5) else "failed"), seconds


def _interrupt(signum, frame):
    # SIGTERM (and SIGINT, which a shell's background job ignores) unwind like Ctrl-C: the running test is
    # killed by run_tests and the temporary tree removed by its context manager.
    raise KeyboardInterrupt(f"signal {signum}")


def _table(modules: list[str], chosen: list[Mutant]) -> None:
    print("\n| module | mutants | killed | timed out | survived |\n| --- | ---: | ---: | ---: | ---: |")
    for module in modules + ["all"]:
        mine = [m for m in chosen if (module == "all" or m.module == module) and m.outcome in OUTCOMES]
        counts = [sum(m.outcome == o for m in mine) for o in OUTCOMES]
        shown = module if module == "all" else f"`{module}`"
        print(f"| {shown} | {len(mine)} | {counts[0]} | {counts[1]} | {counts[2]} |")


def main(argv: list[str] | None = None) -> int:
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, _interrupt)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--module", action="append", choices=MODULES, help="only these modules")
    parser.add_argument("--per-module", type=int, default=8, help="mutants sampled per module (0: all)")
    parser.add_argument("--seed", type=int, default=23, help="seed of the sample")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds per test run before the mutant counts as timed out (default: 4 times the "
                             "module's baseline run, at least 120)")
    parser.add_argument("--markers", help="pytest -m expression for every run, e.g. 'not spark' on a machine "
                        "that cannot spare the JVM (the figures then say so)")
    parser.add_argument("--json", help="write every mutant and its outcome here")
    parser.add_argument("--list", action="store_true", help="only list the sample and each module's tests")
    args = parser.parse_args(argv)
    modules = args.module or list(MODULES)
    tests_of: dict[str, list[str]] = {}
    chosen: list[Mutant] = []
    for module in modules:
        every = mutants_of(module)
        sample = every if args.per_module <= 0 else sample_by_operator(every, args.per_module,
                                                                        random.Random(f"{args.seed}:{module}"))
        sample.sort(key=lambda m: (m.line, m.operator))
        tests_of[module], through = importing_tests(module)
        tests_of[module] += [test for test in THROUGH_THE_CLI.get(module, []) if test not in tests_of[module]]
        print(f"{module}: {len(every)} mutants, running {len(sample)}; {len(tests_of[module])} test files"
              + ("" if through == [_dotted(Path(module))] else f" (through {', '.join(through)})"), flush=True)
        if not tests_of[module]:
            print(f"mutation_check: no test imports {module} or a module that imports it", file=sys.stderr)
            return 1
        chosen += sample
    if args.list:
        for module in modules:
            print(f"  {module}: {' '.join(tests_of[module])}")
        for m in chosen:
            print(f"  {m.module}:{m.line} {m.operator}: {m.original} -> {m.mutated}")
        return 0
    limits: dict[str, float] = {}
    left_out: list[str] = []
    with tempfile.TemporaryDirectory(prefix="parastudio-mutants-") as folder:
        tree = Path(folder)
        copy_tree(tree)
        for module in modules:
            # Each file alone: the runs put the quickest first (-x stops sooner), and a file that fails without
            # a mutant (a test being written in the tree) is named and left out: it could kill nothing.
            durations = {}
            for test in tests_of[module]:
                outcome, seconds = run_tests(tree, [test], args.timeout or 1800.0, args.markers)
                if outcome == "passed":
                    durations[test] = seconds
                else:
                    left_out.append(f"{test} ({outcome} without a mutant)")
                    print(f"mutation_check: {test} is {outcome} without a mutant: left out of {module}'s runs",
                          file=sys.stderr, flush=True)
            if not durations:
                print(f"mutation_check: every test of {module} fails without a mutant; fix them first",
                      file=sys.stderr)
                return 1
            tests_of[module] = sorted(durations, key=durations.get)
            total = sum(durations.values())
            limits[module] = args.timeout or max(120.0, 4 * total)
            print(f"baseline {module}: passed ({total:.0f} s: "
                  + ", ".join(f"{Path(t).name} {durations[t]:.0f} s" for t in tests_of[module]) + ")", flush=True)
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
                outcome, mutant.seconds = run_tests(tree, tests_of[mutant.module], limits[mutant.module],
                                                    args.markers)
            finally:
                path.write_text(original, encoding="utf-8")
            mutant.outcome = {"failed": "killed", "timed out": "timed out", "passed": "survived"}[outcome]
            print(f"[{number}/{len(chosen)}] {mutant.outcome:9s} {mutant.module}:{mutant.line} {mutant.operator}: "
                  f"{mutant.original} -> {mutant.mutated} ({mutant.seconds:.0f} s)", flush=True)
    _table(modules, chosen)
    if left_out:
        print("\nLeft out (failing without a mutant): " + "; ".join(sorted(set(left_out))))
    for outcome in ("timed out", "survived"):
        listed = [m for m in chosen if m.outcome == outcome]
        if listed:
            print(f"\n{outcome.capitalize()}:")
            for m in listed:
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
