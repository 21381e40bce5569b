"""One tuning run from a dev set file to ``weights.json``: what ``parastudio tune`` and the Tune screen call.

Tables and LM default to the dev set's provenance (the first record's ``tables`` and ``lm``) when those files
exist; the SPG application to the dev set's ``spg_application``. ``--system pivot`` reads its per-pivot features
from ``--pattern-table`` (a pattern table, seed 002 Eq. 3), ``--phrase-table`` (the bilingual table behind a
phrase pivot table) or ``--table`` (a phrase pivot table, h1..h4 marginalised; a pattern table given here is read as one); with none
of them, a dev set exported from a pattern-pair study names its pattern table (each candidate's
``params.table``) and that is used when the file exists.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from parastudio.core.output_files import resolve_output
from parastudio.core.progress import Progress, no_progress
from parastudio.core.textio import require_regular_file
from parastudio.core.tuning.devset_files import file_sha256, read_devset
from parastudio.core.tuning.tune import TuneOptions, tune_decoder
from parastudio.core.tuning.weights_file import write_weights

SYSTEMS = ("spg", "pivot", "beam")


@dataclass
class TuneRequest:
    devset: str
    system: str
    objective: str = "rf"
    output: str | None = None
    tables: Sequence[str] = ()
    lm: str | None = None
    application: str | None = None
    nbest: int = 20
    stack_size: int = 200
    options: TuneOptions = field(default_factory=TuneOptions)
    phrase_table: str | None = None  # pivot: per-pivot features from the bilingual table (Eq. 3 exactly)
    reverse: bool = False
    max_pivot: int = 200
    table_out: str | None = None  # pivot: the re-scored, re-thresholded table
    pattern_table: str | None = None  # pivot: a pattern table, per-pivot h1..h4 (Eq. 3 exactly)


def provenance_files(records: Sequence[dict]) -> tuple[list[str], str | None]:
    provenance = records[0].get("provenance") or {}
    tables = [t for t in provenance.get("tables") or [] if Path(t).is_file()]
    lm = provenance.get("lm")
    return tables, lm if lm and Path(lm).is_file() else None


def is_pattern_table(path: str) -> bool:
    """Whether ``path`` is a pattern table (docs/pattern-table.md): its sidecar says so, or its first line parses
    as one (``e1 ||| e2 ||| score p_mle ||| features ||| pivots``, which a phrase pivot table's never does)."""
    from parastudio.core.tablebuild.patterns.table_file import FORMAT, parse_line, read_meta
    from parastudio.core.textio import open_text_maybe_gzip

    try:
        if read_meta(Path(path)).get("format") == FORMAT:
            return True
        with open_text_maybe_gzip(path) as handle:
            first = next((line for line in handle if line.strip()), "")
    except (OSError, ValueError, UnicodeDecodeError):
        return False
    return parse_line(first) is not None


def study_pattern_table(records: Sequence[dict]) -> str | None:
    """The pattern table a pattern-pair study's dev set was drawn from, when every record names the same one
    and it is on this machine (``systems[].params``: ``{"table", "model", ...}``, :mod:`core.study_builder`)."""
    from parastudio.core.vocabulary import PATTERN_MODELS

    tables = set()
    for record in records:
        for system in record.get("systems") or []:
            try:
                params = json.loads(system.get("params") or "null")
            except ValueError:
                return None
            if not isinstance(params, dict) or params.get("model") not in PATTERN_MODELS or not params.get("table"):
                return None
            tables.add(str(params["table"]))
    if len(tables) != 1:
        return None
    table = tables.pop()
    return table if Path(table).is_file() else None


def run_tune(request: TuneRequest, progress: Progress = no_progress,
             should_stop: Callable[[], bool] | None = None) -> dict:
    """Tune as ``request`` says, write ``request.output`` (atomically) and return the report."""
    if request.system not in SYSTEMS:
        raise ValueError(f"--system must be one of {', '.join(SYSTEMS)}, not {request.system!r}")
    inputs = request_inputs(request)
    for output in (request.output, request.table_out):  # refused before the tuning, not after it
        if output:
            resolve_output(output, inputs)
    if not Path(request.devset).is_dir():  # a dev-set file is read, then hashed for the provenance
        require_regular_file(request.devset)
    records = read_devset(request.devset)
    devset = {"path": str(request.devset), "sha256": file_sha256(request.devset)}
    known_tables, known_lm = provenance_files(records)
    tables = list(request.tables) or known_tables
    if request.system == "pivot":
        from parastudio.core.tuning.pivot_tuning import (
            PatternTableSource,
            PhraseTableSource,
            PivotTableSource,
            tune_pivot,
        )

        if sum(bool(x) for x in (request.pattern_table, request.phrase_table, request.tables)) > 1:
            raise ValueError("--system pivot reads one feature source: --pattern-table, --phrase-table or --table")
        pattern_table = request.pattern_table or (
            (request.tables[0] if is_pattern_table(request.tables[0]) else None) if request.tables
            else None if request.phrase_table else study_pattern_table(records))
        if pattern_table:
            source = PatternTableSource(pattern_table)
        elif request.phrase_table:
            source = PhraseTableSource(request.phrase_table, reverse=request.reverse, max_pivot=request.max_pivot)
        elif tables:
            source = PivotTableSource(tables[0])
        else:
            raise ValueError("--system pivot needs --pattern-table (a pattern table), --table (a pivot table with "
                             "h1..h4) or --phrase-table")
        options = request.options
        report = tune_pivot(records, source, objective=request.objective, heldout=options.heldout, seed=options.seed,
                            restarts=options.restarts, random_directions=options.random_directions,
                            table_out=request.table_out, devset=devset, progress=progress)
    else:
        report = _tune_decoder(request, records, tables, request.lm or known_lm, devset, progress, should_stop)
    if request.output:
        write_weights(report, request.output, inputs=inputs)
    return report


def request_inputs(request: TuneRequest) -> list[str]:
    """Every file the run reads that a user named: its outputs may be none of them."""
    from parastudio.core.tablebuild.patterns.table_file import sidecar_path

    tables = [*request.tables, request.pattern_table, request.phrase_table]
    return [request.devset, request.lm, *tables, *(str(sidecar_path(t)) for t in tables if t)]


def _tune_decoder(request: TuneRequest, records, tables, lm_path, devset, progress, should_stop) -> dict:
    from parastudio.core.engine.decoders.beam_decoder import DecoderSettings
    from parastudio.core.engine.lm.language_model import LanguageModel
    from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
    from parastudio.core.tuning.dev_labels import DevLabels
    from parastudio.core.tuning.tuned_decoders import BeamTuning, SPGTuning, application_of

    if not tables:
        raise ValueError("name the paraphrase table(s) with --table (the dev set's own are not on this machine)")
    if lm_path is None:
        raise ValueError("name the language model with --lm (the dev set's own is not on this machine)")
    sentences = [s.tokens for s in DevLabels.from_records(records).sentences]
    progress(0, None, "loading tables")
    loaded = [ParaphraseTable.load_for(path, sentences) for path in tables]
    lm = LanguageModel(lm_path)
    settings = DecoderSettings(stack_size=request.stack_size)
    if request.system == "beam":
        from parastudio.core.engine.candidates.generation import merged_table

        decoder = BeamTuning(merged_table(loaded), lm, nbest=request.nbest, settings=settings)
    else:
        application = request.application or application_of(DevLabels.from_records(records).sentences)
        if application is None:
            raise ValueError("--system spg needs --application (compression, simplification or similarity): the "
                             "dev set's candidates do not say which")
        decoder = SPGTuning(loaded, lm, application, nbest=request.nbest, settings=settings)
    options = TuneOptions(**{**request.options.__dict__, "objective": request.objective})
    report = tune_decoder(records, decoder, options, devset=devset, progress=progress, should_stop=should_stop)
    report["provenance"] = {"tables": [str(t) for t in tables], "lm": str(lm_path),
                            "stack_size": request.stack_size}
    return report
