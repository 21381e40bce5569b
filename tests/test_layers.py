"""The architecture as one table: which layer may import which (docs/ARCHITECTURE.md).

Every import statement under ``core/`` and ``desktop/`` (top-level or inside a
function) is read with ``ast``; a module that imports a layer its own may not
import fails the test with the file, the line and the import. A new folder
under ``core`` must be given a layer here before it can land.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# layer -> the other layers it may import (every layer may import itself).
ALLOWED: dict[str, set[str]] = {
    "base": set(),
    "engine": {"base"},
    "tablebuild": {"base"},
    # What each judging protocol declares (core/judging/protocols/): the store checks values with it, the
    # statistics read which scales are scores and which fit a competence model from it.
    "protocols": {"base"},
    "stats": {"base", "protocols"},
    "store": {"base", "protocols"},
    "evaldata": {"base", "engine", "tablebuild"},
    "judging": {"base", "engine", "stats", "protocols", "store"},
    "bridges": {"base", "engine", "tablebuild", "stats", "protocols", "store", "evaldata", "judging"},
    "cli": {"base", "engine", "tablebuild", "stats", "protocols", "store", "evaldata", "judging", "bridges"},
    "desktop": {"base", "engine", "tablebuild", "stats", "protocols", "store", "evaldata", "judging", "bridges",
                "cli"},
}
# Where each module belongs: the first matching prefix wins (dotted module names).
LAYER_OF_PREFIX: tuple[tuple[str, str], ...] = (
    ("core.engine", "engine"),
    ("core.tablebuild", "tablebuild"),
    ("core.stats", "stats"),
    ("core.store", "store"),
    ("core.evaldata", "evaldata"),
    ("core.cli", "cli"),
    ("core.__main__", "cli"),
    ("core.experiments", "bridges"),
    ("core.tuning", "bridges"),
    ("core.inspection", "bridges"),
    ("core.study_builder", "bridges"),
    ("core.study_judgments", "bridges"),
    ("core.adaptive_assignment", "bridges"),
    ("core.demo", "bridges"),
    ("core.spark_generation", "bridges"),
    ("core.metric_inputs", "bridges"),
    ("core.study_metaeval", "bridges"),
    ("core.service", "bridges"),
    ("core.judging.protocols", "protocols"),
    ("core.judging", "judging"),
    ("core.errors", "base"),
    ("core.terminal_bar", "base"),
    ("core.option_values", "base"),
    ("core.file_fingerprint", "base"),
    ("core.textio", "base"),
    ("core.output_files", "base"),
    ("core.structured_text", "base"),
    ("core.terminal_text", "base"),
    ("core.csv_cells", "base"),
    ("core.number_text", "base"),
    ("core.progress", "base"),
    ("core.vocabulary", "base"),
    ("core.code_identity", "base"),
    ("core.person_names", "base"),
    ("core.interruption", "base"),
    ("core.stale_temporaries", "base"),
    ("core.out_of_space", "base"),
    ("core.whole_writes", "base"),
    ("core.worker_processes", "base"),
    ("desktop", "desktop"),
)
QT = ("PySide6", "PyQt5", "PyQt6", "shiboken6")
# The app reaches a study only through the store's operations (docs/ARCHITECTURE.md): no database library, and
# of core.store only these modules (its operations, opening a study, the judging session, the write-ahead log's
# check); never its models, migrations, queries, locks or file helpers (issue 42: those through the operations).
DATABASE_LIBRARIES = ("sqlalchemy", "alembic", "sqlite3", "psycopg", "psycopg2")
STORE_FOR_DESKTOP = ("core.store.operations", "core.store.database", "core.store.annotation_session",
                     "core.store.wal_file")
# Within the bridges: a dev set's labels are statistics and judged spans (core.stats, core.judging), never the
# Inspect screen's bridge (issue 42).
FORBIDDEN_WITHIN_BRIDGES = (("core.tuning", "core.inspection"),)


def short_name(module: str) -> str:
    """``parastudio.core.x`` (the installed name) as ``core.x`` (its folder in the repository, as this table says)."""
    return module.removeprefix("parastudio.")


def layer_of(module: str) -> str | None:
    module = short_name(module)
    if module == "core":
        return "base"  # the package itself: its __version__
    for prefix, layer in LAYER_OF_PREFIX:
        if module == prefix or module.startswith(prefix + "."):
            return layer
    return None


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> list[tuple[int, str]]:
    """``(line, dotted name)`` of every absolute import in the file, relative ones resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            # ``from parastudio.core import textio`` imports the module core.textio.
            found += [(node.lineno, f"{base}.{alias.name}" if layer_of(f"{base}.{alias.name}") else base)
                      for alias in node.names]
    return found


def violations(importer: str, path: str, imports: list[tuple[int, str]]) -> list[str]:
    """Every import of ``importer`` that the table forbids, as ``file:line: ...``."""
    own = layer_of(importer)
    if own is None:
        return [f"{path}:1: module {importer} belongs to no layer (add its folder to tests/test_layers.py)"]
    found = []
    for line, name in imports:
        if name.split(".")[0] in ("core", "desktop", "evaldata"):
            found.append(f"{path}:{line}: imports {name} by its folder's name; the installed name is parastudio.{name}")
        name = short_name(name)
        top = name.split(".")[0]
        if top in QT and own != "desktop":
            found.append(f"{path}:{line}: {own} module imports Qt ({name})")
        if own == "desktop" and top in DATABASE_LIBRARIES:
            found.append(f"{path}:{line}: desktop reaches the database directly ({name}): use core.store.operations")
        if own == "desktop" and layer_of(name) == "store" and not any(
                name == allowed or name.startswith(allowed + ".") for allowed in STORE_FOR_DESKTOP):
            found.append(f"{path}:{line}: desktop may not import store internals ({name}): use core.store.operations")
        for low, high in FORBIDDEN_WITHIN_BRIDGES:
            if (importer == low or importer.startswith(low + ".")) and (name == high or name.startswith(high + ".")):
                found.append(f"{path}:{line}: {low} may not import {high} ({name})")
        if top not in ("core", "desktop"):
            continue
        target = layer_of(name)
        if target is None:
            found.append(f"{path}:{line}: imports {name}, which belongs to no layer")
        elif target != own and target not in ALLOWED[own]:
            found.append(f"{path}:{line}: {own} may not import {target} ({name})")
    return found


@lru_cache(maxsize=1)
def project_imports() -> dict[str, tuple[str, list[tuple[int, str]]]]:
    files = sorted((ROOT / "core").rglob("*.py")) + sorted((ROOT / "desktop").rglob("*.py"))
    return {module_name(p): (str(p.relative_to(ROOT)), imports_of(p)) for p in files if "migrations" not in p.parts}


def test_every_import_follows_the_layer_table():
    problems = []
    for module, (path, imports) in project_imports().items():
        problems += violations(module, path, imports)
    assert problems == []


def test_an_import_by_the_repository_folder_name_is_reported():
    """Installed, the package is ``parastudio.core``: ``import core.x`` works only from a checkout's top level."""
    assert violations("core.stats.agreement", "core/stats/agreement.py", [(4, "core.stats.kappa")]) == [
        "core/stats/agreement.py:4: imports core.stats.kappa by its folder's name; the installed name is "
        "parastudio.core.stats.kappa"]


def test_a_broken_rule_is_reported_with_the_file_and_the_import():
    assert violations("core.engine.lm.language_model", "core/engine/lm/language_model.py", [(7, "parastudio.core.store.models")]) == [
        "core/engine/lm/language_model.py:7: engine may not import store (core.store.models)"]
    assert violations("core.stats.agreement", "core/stats/agreement.py", [(3, "PySide6.QtCore")]) == [
        "core/stats/agreement.py:3: stats module imports Qt (PySide6.QtCore)"]
    assert violations("core.evaldata.build", "x.py", [(1, "parastudio.core.engine.lm.language_model"), (2, "parastudio.core.tablebuild.pivot")]) == []
    assert violations("core.tablebuild.pivot", "p.py", [(5, "parastudio.core.engine.tables.rules")]) == [
        "p.py:5: tablebuild may not import engine (core.engine.tables.rules)"]
    assert "belongs to no layer" in violations("core.newthing", "core/newthing.py", [])[0]
    assert violations("core.cli.x", "c.py", [(1, "parastudio.desktop.app")]) == ["c.py:1: cli may not import desktop (desktop.app)"]


def test_the_app_reaching_the_database_or_store_internals_is_reported():
    assert violations("desktop.judgment_writer", "desktop/judgment_writer.py",
                      [(25, "sqlalchemy.exc"), (26, "parastudio.core.store.operations"), (27, "parastudio.core.store.database.Database"),
                       (31, "parastudio.core.store.models.Criterion"), (32, "sqlite3"), (33, "parastudio.core.store.write_retry")]) == [
        "desktop/judgment_writer.py:25: desktop reaches the database directly (sqlalchemy.exc): use "
        "core.store.operations",
        "desktop/judgment_writer.py:31: desktop may not import store internals (core.store.models.Criterion): use "
        "core.store.operations",
        "desktop/judgment_writer.py:32: desktop reaches the database directly (sqlite3): use core.store.operations",
        "desktop/judgment_writer.py:33: desktop may not import store internals (core.store.write_retry): use "
        "core.store.operations"]
    # The CLI and the bridges use the store as they need: the rule is the app's.
    assert violations("core.cli.study_cmd", "c.py", [(1, "sqlalchemy"), (2, "parastudio.core.store.models")]) == []


def test_the_app_reading_store_queries_and_tuning_reading_the_inspect_bridge_are_reported():
    assert violations("desktop.judging_tab", "desktop/judging_tab.py",
                      [(12, "parastudio.core.store.annotation_queries.study_summaries"),
                       (14, "parastudio.core.store.session_lock"), (15, "parastudio.core.store.criteria.yes_no_scales"),
                       (16, "parastudio.core.store.operations")]) == [
        f"desktop/judging_tab.py:{line}: desktop may not import store internals ({name}): use core.store.operations"
        for line, name in ((12, "core.store.annotation_queries.study_summaries"), (14, "core.store.session_lock"),
                           (15, "core.store.criteria.yes_no_scales"))]
    assert violations("core.tuning.devset", "core/tuning/devset.py", [(52, "parastudio.core.inspection.verdicts"),
                                                                       (53, "parastudio.core.judging.span_rewrites")]) == [
        "core/tuning/devset.py:52: core.tuning may not import core.inspection (core.inspection.verdicts)"]
    assert violations("core.judging.view", "core/judging/view.py", [(3, "parastudio.core.inspection.plots")]) == [
        "core/judging/view.py:3: judging may not import bridges (core.inspection.plots)"]


def test_a_relative_import_is_resolved_before_it_is_checked(tmp_path, monkeypatch):
    source = tmp_path / "core" / "engine" / "fake.py"
    source.parent.mkdir(parents=True)
    source.write_text("from ..store import models\nfrom . import lm\n", encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert imports_of(source) == [(1, "core.store.models"), (2, "core.engine.lm")]


def test_the_longest_chain_of_imports_between_core_folders_is_at_most_five_and_never_upward():
    edges: dict[str, set[str]] = {layer: set() for layer in ALLOWED}
    for module, (_path, imports) in project_imports().items():
        own = layer_of(module)
        for _line, name in imports:
            target = layer_of(name) if name.split(".")[0] in ("core", "desktop") else None
            if target and target != own:
                edges[own].add(target)
    core_layers = [layer for layer in ALLOWED if layer != "desktop"]

    @lru_cache(maxsize=None)
    def longest_from(layer: str, depth: int = 0) -> int:
        assert depth <= len(ALLOWED), f"a cycle between layers through {layer}"
        return 1 + max((longest_from(target, depth + 1) for target in edges[layer] if target != "desktop"),
                       default=0)

    assert max(longest_from(layer) for layer in core_layers) <= 5
    order = list(ALLOWED)  # the table lists lower layers first
    for layer, targets in edges.items():
        for target in targets:
            assert order.index(target) < order.index(layer), f"{layer} imports {target}, which is above it"


def test_importing_all_of_core_and_running_the_cli_parser_loads_no_qt():
    modules = sorted(f"parastudio.{m}" for m in project_imports() if m.startswith("core") and m != "core.__main__")
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}:\n"
        "    importlib.import_module(m)\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6') or m.startswith('parastudio.desktop')]\n"
        "from parastudio.core.cli import build_parser\n"
        "build_parser()\n"  # registers `app` through its entry point: desktop.cli, which must not load Qt yet
        "print(bad + [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6')])\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_no_core_module_is_over_500_lines():
    """One idea per module (docs/ARCHITECTURE.md): a core file past 500 lines holds several; split it."""
    long = [f"{p.relative_to(ROOT)}: {n} lines" for p in sorted((ROOT / "core").rglob("*.py"))
            if "migrations" not in p.parts and (n := len(p.read_text(encoding="utf-8").splitlines())) > 500]
    assert long == []


def test_no_desktop_module_is_over_500_lines():
    """The app is thin glue over core (docs/ARCHITECTURE.md): a desktop file past 500 lines holds logic that belongs
    in core, or several screens' parts; split it along a seam (issue 28: four files were 528 to 685 lines)."""
    long = [f"{p.relative_to(ROOT)}: {n} lines" for p in sorted((ROOT / "desktop").rglob("*.py"))
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 500]
    assert long == []


# core/engine/ in the pipeline's order (docs/ARCHITECTURE.md): a folder imports only its own step and those before.
ENGINE_STEPS = {"text": 0, "tables": 0, "lm": 0, "model": 1, "decoders": 2, "candidates": 3}


def engine_step_violations(importer: str, path: str, imports: list[tuple[int, str]]) -> list[str]:
    parts = importer.split(".")
    if parts[:2] != ["core", "engine"] or len(parts) < 3 or parts[2] not in ENGINE_STEPS:
        return [] if parts[:2] != ["core", "engine"] or importer == "core.engine" else [
            f"{path}:1: {importer} lies in no step of the engine's pipeline ({', '.join(ENGINE_STEPS)})"]
    found = []
    for line, name in imports:
        name = short_name(name)
        target = name.split(".")
        if target[:2] == ["core", "engine"] and len(target) > 2 and target[2] in ENGINE_STEPS and \
                ENGINE_STEPS[target[2]] > ENGINE_STEPS[parts[2]]:
            found.append(f"{path}:{line}: engine/{parts[2]} may not import engine/{target[2]}, a later step ({name})")
    return found


def test_the_engine_folders_import_only_earlier_steps_of_the_pipeline():
    problems = []
    for module, (path, imports) in project_imports().items():
        problems += engine_step_violations(module, path, imports)
    assert problems == []
    assert engine_step_violations("core.engine.tables.table_binary", "t.py", [(42, "parastudio.core.engine.candidates.x")]) == [
        "t.py:42: engine/tables may not import engine/candidates, a later step (core.engine.candidates.x)"]
    assert engine_step_violations("core.engine.loose", "l.py", []) == [
        "l.py:1: core.engine.loose lies in no step of the engine's pipeline (text, tables, lm, model, decoders, "
        "candidates)"]
