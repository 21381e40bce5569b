"""No code outside the protocol registry branches on a scale's name (issue 42, Deliver 3): the house asks a
criterion's protocol (:func:`core.judging.protocols.protocol_of`) what it is, so a new protocol touches its module
and one registry line. Read from the syntax trees of every module of ``core/`` and ``desktop/`` except
``core/judging/protocols/``:

* a comparison (``==``, ``!=``, ``in``, ``not in``) of a scale (a name, attribute or ``["scale"]`` item whose name
  says ``scale``) with a registered scale's or protocol's name, alone or in a tuple, list or set;
* a table keyed by scale names (a dict literal with two or more of them as keys);
* a collection of scale names given a name that says ``scale`` (``SCORE_SCALES = ("da", "esa")``);
* SQL in a string that compares the ``scale`` column with a name (``... AND scale != 'choice'``).

A comparison with what a protocol declares (``protocol_of(s).view == "choice"``: a view's name, asked of the
protocol) is the way, not a finding.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from parastudio.core.judging.protocols import PROTOCOLS

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("core", "desktop")
REGISTRY = ROOT / "core" / "judging" / "protocols"


def registered_names() -> frozenset[str]:
    """Every scale in the registry and every protocol's own name."""
    return frozenset(PROTOCOLS) | frozenset(protocol.name for protocol in PROTOCOLS.values())


def _names_in(node: ast.AST) -> set[str]:
    """The string constants ``node`` is, or holds as a tuple, list or set."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return {name for element in node.elts for name in _names_in(element)}
    return set()


_SQL_SCALE = re.compile(r"\bscale\s*(?:=|==|!=|<>|\bin\b|\bnot\s+in\b)\s*\(?\s*'([^']*)'", re.IGNORECASE)


def _is_a_scale(node: ast.AST) -> bool:
    """Whether ``node`` reads a scale itself: ``scale``, ``item.scale``, ``row["scale"]``, ``spec.scale_name``.
    What a call returns (``protocol_of(item.scale).view``) is the protocol's answer, not the scale."""
    if isinstance(node, ast.Name):
        return "scale" in node.id.lower()
    if isinstance(node, ast.Attribute):
        return "scale" in node.attr.lower()
    if isinstance(node, ast.Subscript):
        return any("scale" in name.lower() for name in _names_in(node.slice))
    return False


def scale_name_branches(source: str, path: str, names: frozenset[str]) -> list[str]:
    """``path:line: what`` for each place in ``source`` that branches on a scale's name (module docstring)."""
    found = []
    for node in ast.walk(ast.parse(source, filename=path)):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            for index, side in enumerate(sides):
                named = _names_in(side) & names
                if named and any(_is_a_scale(other) for other_index, other in enumerate(sides) if other_index != index):
                    found.append(f"{path}:{node.lineno}: compares a scale with {', '.join(sorted(named))}: "
                                 f"{ast.unparse(node)}")
                    break
        elif isinstance(node, ast.Dict):
            keys = {name for key in node.keys if key is not None for name in _names_in(key)} & names
            if len(keys) >= 2:
                found.append(f"{path}:{node.lineno}: a table keyed by scale names ({', '.join(sorted(keys))})")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            named = set(_SQL_SCALE.findall(node.value)) & names
            if named:
                found.append(f"{path}:{node.lineno}: SQL compares the scale with {', '.join(sorted(named))}")
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            named = _names_in(node.value) & names
            if len(named) >= 2 and any(_is_a_scale(target) for target in targets):
                found.append(f"{path}:{node.lineno}: scale names listed by hand ({', '.join(sorted(named))})")
    return sorted(found, key=lambda finding: int(finding[len(path) + 1:].split(":")[0]))


def house_branches() -> list[str]:
    names = registered_names()
    found = []
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if REGISTRY in path.parents:
                continue
            found += scale_name_branches(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)), names)
    return found


def test_no_code_outside_the_registry_branches_on_a_scale_name():
    assert house_branches() == []


def test_every_form_of_a_scale_name_branch_is_found():
    names = registered_names()
    source = "\n".join((
        'if item.scale == "choice": pass',
        'if "preference" != row["scale"]: pass',
        'if criterion.scale in ("da", "esa"): pass',
        'if scale not in {"binary"}: pass',
        'if spec.scale_name == "yes-no": pass',
        'REASONS = {"da": "a score", "esa": "a score too"}',
        'SCORE_SCALE_NAMES = ("da", "esa")',
        'rows = run("SELECT id FROM criterion WHERE study_id = :s AND scale != \'choice\'")',
    ))
    found = scale_name_branches(source, "planted.py", names)
    assert [line.split(":")[1] for line in found] == ["1", "2", "3", "4", "5", "6", "7", "8"], found


def test_asking_the_protocol_is_not_a_finding():
    names = registered_names()
    source = "\n".join((
        'if protocol_of(item.scale).view == "choice": pass',
        'if protocol_of(item.scale).view in ("score", "spans", "mqm"): pass',
        'if name == "da": pass',  # a preset criterion's name, not a scale
        'if view == "mqm": pass',
        'PRESETS = ("fluency", "meaning", "da")',
        'if item.scale == "likert-5": pass',  # not a registered scale
        'rows = run("SELECT id, name, scale, levels FROM criterion WHERE study_id = :s")',
    ))
    assert scale_name_branches(source, "fine.py", names) == []


def test_a_branch_put_back_into_the_house_is_found(tmp_path):
    """The scan reads the house's own files: one of the branches this test replaced, put back, is found."""
    path = ROOT / "desktop" / "choice_accept.py"
    source = path.read_text(encoding="utf-8")
    asked = 'protocol_of(item.scale).view != "choice"'
    assert asked in source
    planted = source.replace(asked, 'item.scale != "choice"')
    assert scale_name_branches(planted, "desktop/choice_accept.py", registered_names()) == [
        f"desktop/choice_accept.py:{_line_of(planted, 'item.scale != ')}: compares a scale with choice: "
        "item.scale != 'choice'"]


def _line_of(source: str, text: str) -> int:
    return next(number for number, line in enumerate(source.splitlines(), 1) if text in line)


def test_what_was_asked_of_a_scale_name_is_asked_of_its_protocol(monkeypatch):
    """A protocol registered by one line is read where names were: adjudication, competence models, the report's
    score columns, rule blame from marked words."""
    from parastudio.core.judging.protocols.direct_assessment import DirectAssessment
    from parastudio.core.judging.protocols.levels import CATEGORICAL
    from parastudio.core.stats.judge_competence import not_applicable
    from parastudio.core.stats.judgment_records import _scored_criteria
    from parastudio.core.store.adjudication import refusal
    from parastudio.core.store.models import Criterion

    rating = DirectAssessment("rating", not_adjudicated="a rating is a measurement",
                              no_competence_model="a rating is a score")
    monkeypatch.setitem(PROTOCOLS, "rating-100", rating)
    assert not_applicable("rating-100") == "a rating is a score" and not_applicable("5-point") is None
    assert _scored_criteria({"q": "rating-100", "f": "binary", "d": "da"}, set(), named_scales=True) == {"q", "d"}
    assert refusal(Criterion(name="q", scale="rating-100")) == "criterion q is not adjudicated: a rating is a measurement"
    assert refusal(Criterion(name="f", scale="binary")) is None
    assert not rating.spans_blame_units and PROTOCOLS["esa"].spans_blame_units and not PROTOCOLS["mqm"].spans_blame_units
    assert CATEGORICAL.not_adjudicated is None and CATEGORICAL.no_competence_model is None
