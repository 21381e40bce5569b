"""No module of ours imports itself back, through any chain (issue 42).

Every import is read, at the top of a file or inside a function (a function-level import still runs, so a cycle
through it is a cycle); only imports under ``if TYPE_CHECKING:`` are left out, since they never run. The cycles
still being taken apart are listed in ``BEING_REMOVED``: a new cycle fails, and so does a listed one that is gone
(take it off the list, so it cannot come back unnoticed).
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent

# Each a strongly connected set of modules still being taken apart: none since issue 42 took the last four apart
# (the engine's heart, the decoder and its compiled search, seed 001's gold trace and paraphraser, the app and its
# main window).
BEING_REMOVED: set[frozenset[str]] = set()


def module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped |= {id(inner) for inner in ast.walk(node)}
    return skipped


def import_graph(files: list[Path], root: Path) -> nx.DiGraph:
    """Module -> module it imports (run-time imports only), over ``files``."""
    modules = {module_name(path, root): path for path in files}
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        skipped = _type_checking_nodes(tree)
        package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
                names = [base] + [f"{base}.{alias.name}" for alias in node.names]
            else:
                continue
            for name in names:
                name = name.removeprefix("parastudio.")  # the installed name of the repository's core/ and desktop/
                while name and name not in modules:  # a name inside a module is an import of that module
                    name = name.rpartition(".")[0]
                if name and name != module:
                    graph.add_edge(module, name)
    return graph


def cycles(graph: nx.DiGraph) -> set[frozenset[str]]:
    return {frozenset(group) for group in nx.strongly_connected_components(graph) if len(group) > 1}


def _project_files(root: Path) -> list[Path]:
    return sorted(p for folder in ("core", "desktop") for p in (root / folder).rglob("*.py")
                  if "migrations" not in p.parts)


def _shown(group: frozenset[str], graph: nx.DiGraph) -> str:
    cycle = nx.find_cycle(graph.subgraph(group))
    return " -> ".join([edge[0] for edge in cycle] + [cycle[0][0]])


def test_no_new_import_cycle_and_none_listed_that_is_gone():
    graph = import_graph(_project_files(ROOT), ROOT)
    found = cycles(graph)
    assert [_shown(group, graph) for group in found - BEING_REMOVED] == []
    assert [sorted(group) for group in BEING_REMOVED - found] == []


def test_a_planted_cycle_is_found_and_named(tmp_path):
    package = tmp_path / "core"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "table.py").write_text("from parastudio.core.options import collect\n")
    (package / "options.py").write_text("def collect():\n    from parastudio.core import table\n")
    (package / "typed.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import parastudio.core.table\n")
    (package / "uses_typed.py").write_text("import parastudio.core.typed\n")
    (package / "table_user.py").write_text("import parastudio.core.table\n")
    graph = import_graph(sorted(package.rglob("*.py")), tmp_path)
    assert cycles(graph) == {frozenset({"core.table", "core.options"})}
    assert _shown(frozenset({"core.table", "core.options"}), graph) in ("core.table -> core.options -> core.table",
                                                                         "core.options -> core.table -> core.options")
