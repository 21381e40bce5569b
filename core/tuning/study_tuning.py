"""The loop from an open study, as the Tune screen runs it (in a worker; Qt-free, so the CLI could too):

1. :func:`tune_study`: export the study's dev set (JSONL) into a folder beside the study, tune on it
   (:func:`core.tuning.tune_run.run_tune`), write ``weights.json`` (for pivot also the re-scored table,
   ``rescored-table.gz``) and a plot of the objective per iteration;
2. :func:`restudy`: generate again with the tuned weights on the dev set's sentences and make a new study of
   the candidates, with the first study's criteria and judges, so they judge again.

``report`` is a :class:`core.progress.Progress`; raising :class:`core.progress.Cancelled` from it stops the work
at its next report, and nothing half-written is left (files are written atomically, a study in one go).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import select

from parastudio.core.progress import Progress, scaled
from parastudio.core.store.annotation_queries import study_summaries
from parastudio.core.store.database import Database
from parastudio.core.store.models import Annotator, Assignment, Criterion, Study
from parastudio.core.textio import atomic_output
from parastudio.core.tuning.devset import devset_records
from parastudio.core.tuning.devset_files import read_devset, write_devset
from parastudio.core.tuning.tune import TuneOptions
from parastudio.core.tuning.tune_run import TuneRequest, is_pattern_table, run_tune, study_pattern_table


@dataclass
class TuneSettings:
    system: str = "beam"
    objective: str = "rf"
    aggregate: str = "adjudicated"
    tables: list[str] = field(default_factory=list)
    lm: str | None = None
    application: str | None = None
    nbest: int = 20
    options: TuneOptions = field(default_factory=TuneOptions)
    folder: str | None = None  # default: "<study file>-tuning/" beside the study database


def tuning_folder(db: Database, study_id: int, settings: TuneSettings) -> Path:
    if settings.folder:
        return Path(settings.folder)
    database = db.engine.url.database
    base = Path(database) if database else Path.cwd() / "study"
    return base.with_name(f"{base.stem}-study{study_id}-tuning")


def objective_plot(report: dict, path: Path) -> None:
    """The 1-best objective decoded at each MERT iteration, and on the pool (PNG, atomically)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(5, 2.8))
    mert = report.get("mert")
    if mert and mert["iterations"]:
        iterations = mert["iterations"]
        xs = [0] + [it["iteration"] for it in iterations]
        axis.plot(xs, [it["decoded_value"] for it in iterations] + [mert["final_value"]], marker="o",
                  label="1-best, decoded")
        axis.plot(xs[1:], [it["pool_value"] for it in iterations], linestyle="--", label="on the n-best pool")
        axis.set_xlabel("MERT iteration (0: starting weights)")
    else:  # pivot: before and after only
        axis.bar(["before", "after"], [report["before"]["dev"][report["objective"]],
                                       report["after"]["dev"][report["objective"]]])
    axis.set_ylabel(report["objective"])
    if mert:
        axis.legend(fontsize=7)
    figure.tight_layout()
    with atomic_output(path, "wb") as handle:
        figure.savefig(handle, format="png", dpi=100)
    plt.close(figure)


def tune_study(report: Progress, db: Database, study_id: int, settings: TuneSettings) -> dict:
    """Export, tune, plot; returns the tuning report plus ``files`` (dev set, weights, plot)."""
    folder = tuning_folder(db, study_id, settings)
    folder.mkdir(parents=True, exist_ok=True)
    report(1, 100, "exporting the dev set")
    records = devset_records(db, study_id, aggregate=settings.aggregate)
    devset, weights, plot = folder / "dev.jsonl", folder / "weights.json", folder / "objective.png"
    write_devset(records, devset, "jsonl")
    tables = settings.tables
    if settings.system == "pivot" and study_pattern_table(records):
        # A pattern-pair study: its own pattern table unless the screen names another pattern table (the
        # screen's default, the demo's phrase table, holds none of the judged pairs).
        tables = [t for t in tables if is_pattern_table(t)]
    request = TuneRequest(devset=str(devset), system=settings.system, objective=settings.objective,
                          output=str(weights), tables=tables, lm=settings.lm,
                          application=settings.application, nbest=settings.nbest,
                          options=TuneOptions(**{**settings.options.__dict__, "objective": settings.objective}),
                          table_out=str(folder / "rescored-table.gz") if settings.system == "pivot" else None)
    result = run_tune(request, scaled(report, 5, 95))
    objective_plot(result, plot)
    report(100, 100, "done")
    return {**result, "files": {"devset": str(devset), "weights": str(weights), "plot": str(plot)}}


def _study_shape(db: Database, study_id: int) -> tuple[Study, list[str], list[str]]:
    with db.reading() as session:
        study = session.get(Study, study_id)
        criteria = list(session.scalars(select(Criterion.name).where(Criterion.study_id == study_id)
                                        .order_by(Criterion.position)))
        judges = list(session.scalars(select(Annotator.name).join(Assignment, Assignment.annotator_id == Annotator.id)
                                      .where(Assignment.study_id == study_id, Assignment.kind == "normal")
                                      .distinct().order_by(Annotator.name)))
        session.expunge(study)
    return study, criteria, judges


def restudy(report: Progress, db: Database, study_id: int, tuned: dict, *, nbest: int = 2) -> int:
    """A new study of candidates re-generated with the tuned weights, for the first study's judges."""
    from parastudio.core.engine.candidates.generation import generate
    from parastudio.core.engine.candidates.generation_options import options_for
    from parastudio.core.engine.candidates.generation_resources import GenerationResources
    from parastudio.core.engine.lm.language_model import LanguageModel
    from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
    from parastudio.core.study_builder import StudyPlan, candidate_row, default_study_name, make_study
    from parastudio.core.tuning.weights_file import beam_weights, read_weights, spg_weights

    files = tuned["files"]
    data = read_weights(files["weights"])
    if data["system"] == "pivot":
        raise ValueError("pivot weights re-score a table; generate with the re-scored table to judge again")
    records = read_devset(files["devset"])
    sentences, sources, references = [], {}, {}
    for record in records:
        sentence_id = str(record["sentence_id"])  # the dev set's integer, as the study stores source ids: text
        if sentence_id not in sources:
            sources[sentence_id] = record["source"]
            references[sentence_id] = record["references"]
            sentences.append(record["source"].split())
    provenance = tuned["provenance"]
    report(2, 100, "loading the table and LM")
    tables = [ParaphraseTable.load_for(path, sentences) for path in provenance["tables"]]
    lm = LanguageModel(provenance["lm"])
    if data["system"] == "beam":
        options = options_for("beam", nbest=nbest, exclude_source=True, weights=beam_weights(data))
    else:
        options = options_for(f"spg-{data['weights']['spg']['spg_application']}", nbest=nbest, exclude_source=True,
                              weights=spg_weights(data))
    system = options.system
    resources = GenerationResources(tables, lm, weights_file=files["weights"], weights_signature=data.get("signature"))
    ids = list(sources)
    rows = []
    refs = [(references[i] or [""])[0].split() for i in ids] if system == "spg-similarity" else None
    for candidate in generate(options, sentences, resources, processes=1, sentence_ids=ids, references=refs,
                              progress=scaled(report, 10, 90)):
        rows.append(candidate_row(candidate, len(rows) + 1))
    study, criteria, judges = _study_shape(db, study_id)
    existing = [s.name for s in study_summaries(db)]
    plan = StudyPlan(default_study_name(existing, f"{study.name} (tuned {data['system']})"), judges or ["judge-1"],
                     criteria=criteria, application=study.application or "simplification",
                     judges_per_item=study.judges_per_item, repeat_fraction=0.0, control_fraction=0.0,
                     settings={"tuned_from": {"study": study.name, "weights": files["weights"],
                                              "signature": data.get("signature")}})
    return make_study(db, plan, rows, f"re-generated with {files['weights']}", sources, references, None, report)

