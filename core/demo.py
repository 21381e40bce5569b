"""The bundled demo: where its files live, and the demo study built from them on first use.

The demo files (``evaldata/demo/``) ship in the source tree, next to ``core/``;
an installed copy elsewhere is found through ``PARASTUDIO_DEMO``.

The bundled demo study: a real two-judge study of the demo's generated paraphrases.

``open_demo_study()`` returns the path of a SQLite study database in the
user's data directory, creating it on first use from ``evaldata/demo/``:

* study ``demo``: the candidates in ``candidates.jsonl`` (made with
  ``parastudio generate --system beam --nbest 2 --json`` on ``test.en``;
  when that file is missing they are generated here the same way from the
  demo table and LM), sources from ``test.en``, references from
  ``test.ref.en``; criteria fluency and meaning (seed 003) and usability for
  simplification (seed 004); two judges per item, 5% repeats and 5% planted
  controls, for annotators ``judge-1`` and ``judge-2``;
* study ``demo choice`` (seed 001 §4.2): the first test cases of
  ``testcases.jsonl``, each span offered with the five most probable
  paraphrases of the demo table.

The database is built in a temporary file and renamed into place, so a
half-built demo is never opened.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from parastudio.core.progress import Progress, no_progress, scaled
from parastudio.core.store import operations as ops
from parastudio.core.store.database import open_database
from parastudio.core.store.sqlite_file import building_sqlite_file
from parastudio.core.study_builder import StudyPlan, candidate_row, make_choice_study, make_study


@dataclass(frozen=True)
class DemoFiles:
    directory: Path

    @property
    def table(self) -> Path:
        return self.directory / "paraphrase-table.gz"

    @property
    def lm(self) -> Path:
        return self.directory / "lm.bin"

    @property
    def test_sentences(self) -> Path:
        return self.directory / "test.en"

    @property
    def test_references(self) -> Path:
        return self.directory / "test.ref.en"

    @property
    def testcases(self) -> Path:
        return self.directory / "testcases.jsonl"

    @property
    def test_originals(self) -> Path:
        return self.directory / "test.original.en"

    @property
    def truecase_model(self) -> Path:
        return self.directory / "truecase-model.en"

    # Seed 001's paraphraser (core.engine.decoders.cat): the round-trip graphs and cases of the test verses, the
    # RV1909 verses' direct translations (the WEB-KJV cases' graphs), and the tables and Spanish LM that made them.
    @property
    def roundtrip_graph(self) -> Path:
        return self.directory / "roundtrip-test.graph.gz"

    @property
    def roundtrip_cases(self) -> Path:
        return self.directory / "testcases-roundtrip.jsonl"

    @property
    def direct_graph(self) -> Path:
        return self.directory / "direct-test.graph.gz"

    @property
    def spanish_test_sentences(self) -> Path:
        return self.directory / "test.es"

    @property
    def en_es_table(self) -> Path:
        return self.directory / "web-rv.test.phrase-table.gz"

    @property
    def es_en_table(self) -> Path:
        return self.directory / "rv-web.test.phrase-table.gz"

    @property
    def spanish_lm(self) -> Path:
        return self.directory / "lm.es.bin"

    def case_set(self, name: str) -> tuple[Path, Path]:
        """``(cases, graph)`` of a bundled case set: ``roundtrip`` or ``webkjv``."""
        sets = {"roundtrip": (self.roundtrip_cases, self.roundtrip_graph),
                "webkjv": (self.testcases, self.direct_graph)}
        if name not in sets:
            raise ValueError(f"case set must be one of {', '.join(sets)}, not {name!r}")
        return sets[name]

    def missing(self) -> list[Path]:
        return [p for p in (self.table, self.lm, self.test_sentences) if not p.is_file()]


def demo_files() -> DemoFiles:
    """``$PARASTUDIO_DEMO``, else ``evaldata/demo`` beside ``core/`` (a checkout, or the installed package's copy)."""
    override = os.environ.get("PARASTUDIO_DEMO")
    if override:
        return DemoFiles(Path(override))
    return DemoFiles(Path(__file__).resolve().parent.parent / "evaldata" / "demo")


DEMO_STUDY = "demo"
DEMO_CHOICE_STUDY = "demo choice"
DEMO_ANNOTATORS = ("judge-1", "judge-2")
CHOICE_TASKS = 30
GENERATE_NBEST = 2



# What a judge of the demo study reads before the first item (F1 shows it again); seed 003's two steps, seed 004's
# usability, each with a good and a bad example from the demo's own verses.
DEMO_INSTRUCTIONS = {
    "text": "You will judge paraphrases of Bible verses (World English Bible) made by a machine. First you see each "
            "paraphrase alone and say whether it is good English. Later you see it beside the verse it rewrites "
            "and say whether both say the same thing, and whether the rewrite makes the verse simpler. Judge "
            "what you see: do not look the verse up. Your answer is saved the moment you press a key; Ctrl+Z "
            "undoes the last one, F flags an item, C adds a comment.",
    "examples": {
        "fluency": [
            {"good": True, "text": "Abraham hastened into the tent to Sarah.", "source": "",
             "reason": "correct, natural English (an older word, but a right one)"},
            {"good": False, "text": "If now I have find favor in your sight.", "source": "",
             "reason": "'have find' is not English, even if the meaning is clear"},
        ],
        "meaning": [
            {"good": True, "text": "Abraham hastened into the tent to Sarah.",
             "source": "Abraham hurried into the tent to Sarah.", "reason": "another word, the same event"},
            {"good": False, "text": "Abraham hurried into the tent to the servant.",
             "source": "Abraham hurried into the tent to Sarah.", "reason": "it changes who he went to"},
        ],
        "usability": [
            {"good": True, "text": "He said, \"Where is Sarah?\"", "source": "He said, \"Where is Sarah, your wife?\"",
             "reason": "simpler, and still the same question (3)"},
            {"good": False, "text": "He spake, \"Whither is Sarah, thy wife?\"",
             "source": "He said, \"Where is Sarah, your wife?\"", "reason": "harder words, not simpler (1)"},
        ],
    },
}


def user_data_dir() -> Path:
    """``$PARASTUDIO_DATA``, else ``$XDG_DATA_HOME/paraphrase-studio`` (``~/.local/share``)."""
    override = os.environ.get("PARASTUDIO_DATA")
    if override:
        return Path(override)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "paraphrase-studio"


def demo_study_path() -> Path:
    return user_data_dir() / "demo-study.sqlite"


def open_demo_study(path: str | os.PathLike | None = None, demo: DemoFiles | None = None,
                    progress: Progress = no_progress) -> Path:
    """The demo study database, created on first use (see the module docstring)."""
    target = Path(path) if path is not None else demo_study_path()
    if target.is_file():
        return target
    demo = demo or demo_files()
    if not demo.test_sentences.is_file():
        raise FileNotFoundError(f"the bundled demo is missing {demo.test_sentences} "
                                "(run `parastudio data build` to make evaldata/demo)")
    with building_sqlite_file(target) as temporary:
        build_demo_study(temporary, demo, progress)
    return target


def _candidate_rows(demo: DemoFiles, progress: Progress) -> tuple[list[ops.CandidateRow], str]:
    candidates = demo.directory / "candidates.jsonl"
    if candidates.is_file():
        progress(10, 100, f"reading {candidates.name}")
        return list(ops.read_candidates_jsonl(candidates)), str(candidates)
    missing = [p for p in (demo.table, demo.lm) if not p.is_file()]
    if missing:
        raise FileNotFoundError(f"the bundled demo has neither {candidates} nor {' and '.join(map(str, missing))} "
                                "to generate candidates from")
    from parastudio.core.engine.candidates.generation import generate
    from parastudio.core.engine.candidates.generation_options import BeamRunOptions
    from parastudio.core.engine.candidates.generation_resources import GenerationResources
    from parastudio.core.engine.lm.language_model import LanguageModel
    from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable

    progress(5, 100, "loading the demo table and LM to generate candidates")
    table, lm = ParaphraseTable.load(demo.table), LanguageModel(demo.lm)
    sentences = [line.split() for line in demo.test_sentences.read_text(encoding="utf-8").splitlines()]
    rows = [candidate_row(candidate, line) for line, candidate in enumerate(
        generate(BeamRunOptions(nbest=GENERATE_NBEST), sentences, GenerationResources((table,), lm), processes=1,
                 progress=scaled(progress, 10, 60)), start=1)]
    return rows, f"generated: beam --nbest {GENERATE_NBEST} on {demo.test_sentences}"


def _choice_tasks(demo: DemoFiles, progress: Progress) -> list[dict]:
    if not (demo.testcases.is_file() and demo.table.is_file()):
        return []
    from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable

    progress(70, 100, "loading the demo table's rules for the choice task")
    with open(demo.testcases, encoding="utf-8") as handle:
        cases = [json.loads(line) for line in handle]
    phrases = [tuple(case["sentence"].split()[case["span"][0]:case["span"][1]]) for case in cases]
    # Only the rules of the cases' phrases: a full load of the demo table would write its 85 MB binary form on a
    # first launch (about 100 s), and inside the installation when the app is installed.
    table = ParaphraseTable.load(demo.table, only_sources={" ".join(phrase) for phrase in phrases})
    tasks = []
    for case, phrase in zip(cases, phrases):
        start, end = case["span"]
        rules = sorted(table.rules_for(phrase), key=lambda rule: -rule.prob)
        options = []
        for rule in rules:
            text = " ".join(rule.target)
            if rule.target != phrase and text not in options:
                options.append(text)
            if len(options) == 5:
                break
        if options:
            tasks.append({"id": case["id"], "sentence": case["sentence"], "span": [start, end],
                          "options": options, "system": "demo-table-top5", "test_set": "demo"})
        if len(tasks) == CHOICE_TASKS:
            break
    return tasks


def build_demo_study(path: Path, demo: DemoFiles, progress: Progress = no_progress) -> None:
    """Both demo studies, built through :mod:`core.study_builder` like any other study."""
    rows, origin = _candidate_rows(demo, progress)
    sources = ops.read_sources(demo.test_sentences)
    references = {}
    if demo.test_references.is_file():
        references = {key: [text] for key, text in ops.read_sources(demo.test_references).items()}
    db = open_database(path, create=True)
    try:
        progress(60, 100, "creating the demo study")
        plan = StudyPlan(DEMO_STUDY, list(DEMO_ANNOTATORS), criteria=["fluency", "meaning", "usability"],
                         application="simplification", seed=2009,
                         settings={"demo": str(demo.directory), "instructions": DEMO_INSTRUCTIONS})
        displays = ops.read_sources(demo.test_originals) if demo.test_originals.is_file() else None
        make_study(db, plan, rows, origin, sources, references, "demo/test.en", scaled(progress, 60, 85),
                   displays=displays)
        tasks = _choice_tasks(demo, progress)
        if tasks:
            progress(90, 100, "creating the choice-task study")
            choice = StudyPlan(DEMO_CHOICE_STUDY, list(DEMO_ANNOTATORS), criteria=["choice"], seed=2013,
                               repeat_fraction=0.0, control_fraction=0.0)
            make_choice_study(db, choice, tasks, str(demo.testcases))
        progress(100, 100, "demo study ready")
    finally:
        db.close()
