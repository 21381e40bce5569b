"""``parastudio metrics CANDIDATES|STUDY -o scores.jsonl``: every candidate's automatic metrics, and each system's.

Output contract (``docs/CLI.md``, :mod:`core.stats.metric_scores_file`): JSON Lines; line 1
``{"provenance": {"command", "options", "inputs", "version", "commit", "signature", "metrics", "fields"}}``; then one
``"level": "segment"`` record per candidate as one system made it, then one ``"level": "system"`` record per
system, each with ``bleu``, ``chrf``, ``ter``, ``source_bleu``, ``ibleu``, ``edit_rate``, ``model_score``,
``true_score`` (and ``predictor`` with ``--predictor``), a number or null.
"""

from __future__ import annotations

import argparse
import sys

from parastudio.core.cli.number_options import PROBABILITY
from parastudio.core.stats.text_metrics import BLEU_TOKENIZERS, SOURCE_SIDE_METRICS

FIELDS = {
    "level": "segment: one candidate as one system made it; system: that system's corpus scores",
    "item": "the study's item id (null for a candidates file)",
    "sentence_id": "generate's sentence number (null when the source's id is not a whole number)",
    "source_key": "the source sentence's id as the study keeps it",
    "system": "the system", "rank": "the candidate's rank in the system's n-best list",
    "text": "the candidate", "candidates": "(system) candidates scored",
    "referenced": "(system) of them with references",
    "bleu": "sacrebleu sentence BLEU against the references, 0-100 (system: corpus BLEU)",
    "chrf": "sacrebleu chrF against the references, 0-100 (system: corpus chrF)",
    "ter": "sacrebleu TER against the references, lower is better (system: corpus TER)",
    "source_bleu": "sacrebleu sentence BLEU against the source sentence (system: corpus)",
    "ibleu": "alpha * bleu - (1 - alpha) * source_bleu (Sun and Zhou 2012; system: of the corpus BLEUs)",
    "edit_rate": "word Levenshtein distance from the source over its words (system: the mean)",
    "model_score": "the generator's log10 model score (system: the mean)",
    "true_score": "the exact log10 true score (system: the mean over candidates that have one)",
    "predictor": "the judgment predictor's probability that judges accept it (system: the mean)",
}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "metrics", help="automatic metrics of every candidate and system: BLEU, chrF, TER, iBLEU, edit rate, scores",
        description="sacrebleu's sentence BLEU, chrF and TER against the references and BLEU to the source, "
                    "iBLEU (Sun and Zhou 2012), the word edit rate to the source, the model and true scores, and "
                    "the judgment predictor's probability with --predictor; each system's corpus scores beside "
                    "them. JSON Lines, provenance on line 1 (docs/CLI.md).")
    parser.add_argument("input", metavar="CANDIDATES|STUDY",
                        help="candidates (generate --json lines, or a CSV/TSV table) or a study database")
    parser.add_argument("--study", dest="study_name", help="study name, when the database holds several")
    parser.add_argument("--references", action="append", default=[], metavar="FILE",
                        help="references, one per line, line N for sentence_id N (from 0); repeat for several "
                        "references; used where a candidate carries none (a study keeps its own)")
    parser.add_argument("--sources", metavar="FILE",
                        help="source sentences, line N for sentence_id N, for candidates without a 'source' field")
    parser.add_argument("--alpha", type=PROBABILITY, default=0.9,
                        help="iBLEU's α: α·BLEU(c, refs) - (1-α)·BLEU(c, source) (default 0.9)")
    parser.add_argument("--tokenize", choices=BLEU_TOKENIZERS, default="13a",
                        help="sacrebleu's BLEU tokenizer (default 13a)")
    add_translation_options(parser)
    parser.add_argument("--predictor", metavar="MODEL.json",
                        help="a judgment-predictor --json report: add each candidate's predicted probability")
    parser.add_argument("--lm", help="the KenLM model the predictor's LM feature reads (needed with --predictor)")
    parser.add_argument("-o", "--output", required=True, help="the scores file (JSON Lines; .gz compresses)")
    parser.set_defaults(func=run)


def add_translation_options(parser: argparse.ArgumentParser) -> None:
    """``--exclude-system`` and ``--translation``, shared with ``parastudio metaeval``."""
    parser.add_argument("--exclude-system", action="append", default=[], metavar="NAME",
                        help="leave this system's candidates out (repeat for several); e.g. `ref`, the reference "
                        "translation of an MQM study, which would score itself perfectly")
    parser.add_argument("--translation", action="store_true",
                        help="the candidates translate their source (another language): compute BLEU, chrF and TER "
                        "only, no BLEU to the source, iBLEU or edit rate (a study says so itself: study import-mqm)")


def input_record(path: str) -> dict:
    """An input as provenance records it: ``{"path", "sha256", "bytes"}``, or a database server's URL without
    its password."""
    from parastudio.core.file_fingerprint import fingerprint
    from parastudio.core.study_judgments import is_sqlite_file, names_a_study

    if names_a_study(path) and not is_sqlite_file(path):
        from parastudio.core.store.database import shown_study_name

        return {"path": shown_study_name(path)}
    return fingerprint(path)


def scoring_rows(args: argparse.Namespace):
    """``(rows, translation)``: the rows to score, from the study or the candidates file ``args.input``, and
    whether they are translations (``--translation``, or the study's settings:
    :func:`core.metric_inputs.is_translation_study`)."""
    from parastudio.core.metric_inputs import is_translation_study, rows_of_candidates_file, rows_of_study
    from parastudio.core.study_judgments import names_a_study

    if not names_a_study(args.input):
        return (rows_of_candidates_file(args.input, references=args.references, sources=args.sources),
                args.translation)
    from parastudio.core.cli.study_access import open_study
    from parastudio.core.store import operations as ops

    db, study_id = open_study(args.input, args.study_name, writing=False)
    with db:
        return rows_of_study(db, study_id), args.translation or is_translation_study(ops.study_settings(db, study_id))


def score(args: argparse.Namespace, rows, translation: bool = False) -> tuple[dict, list[dict], list[dict]]:
    """``(provenance, segment records, system records)`` of ``rows`` under the command's options; ``translation``:
    the source-side metrics are left out (:class:`core.stats.text_metrics.TextMetrics`)."""
    from parastudio.core.code_identity import code_identity
    from parastudio.core.metric_inputs import (
        metric_descriptions,
        metric_records,
        predictor_probabilities,
        translation_note,
    )
    from parastudio.core.stats.text_metrics import TextMetrics

    metrics = TextMetrics(alpha=args.alpha, tokenize=args.tokenize, translation=translation)
    probabilities, predictor = (predictor_probabilities(rows, args.predictor, args.lm)
                                if getattr(args, "predictor", None) else (None, None))
    segments, systems = metric_records(rows, metrics, probabilities)
    inputs = {"input": input_record(args.input), "references": [input_record(p) for p in args.references],
              "sources": input_record(args.sources) if getattr(args, "sources", None) else None,
              "predictor": input_record(args.predictor) if predictor else None,
              "lm": input_record(args.lm) if predictor else None}
    provenance = {"command": "metrics", "options": {
        "study": getattr(args, "study_name", None), "alpha": args.alpha, "tokenize": args.tokenize,
        "translation": translation, "exclude_system": list(args.exclude_system)},
        "inputs": inputs, **code_identity(),
        "notes": translation_note(translation) + excluded_note(args.exclude_system),
        "signature": metrics.signature(len(segments), 0, systems=len(systems)),
        "metrics": metric_descriptions(metrics, rows, predictor),
        "fields": {name: meaning for name, meaning in FIELDS.items()
                   if (name != "predictor" or predictor) and (name not in SOURCE_SIDE_METRICS or not translation)}}
    return provenance, segments, systems


def excluded_note(systems: list[str]) -> list[str]:
    if not systems:
        return []
    return [f"Left out (--exclude-system): {', '.join(systems)}; not among the systems scored or ranked."]


def without_systems(rows, excluded: list[str], origin: str):
    """``rows`` without the excluded systems' (ValueError naming the systems when one is not there)."""
    present = list(dict.fromkeys(row.system for row in rows))
    unknown = [name for name in excluded if name not in present]
    if unknown:
        raise ValueError(f"{origin}: no system {', '.join(map(repr, unknown))} to exclude; it has: "
                         f"{', '.join(present)}")
    return [row for row in rows if row.system not in excluded]


def run(args: argparse.Namespace) -> int:
    from parastudio.core.output_files import resolve_output
    from parastudio.core.stats.metric_scores_file import write_metric_scores

    if (args.predictor is None) != (args.lm is None):
        print("parastudio: error: --predictor and --lm go together (the predictor's LM feature reads the LM)",
              file=sys.stderr)
        return 2
    inputs = [args.input, *args.references, args.sources, args.predictor, args.lm]
    resolve_output(args.output, inputs)  # refused before anything is read
    rows, translation = scoring_rows(args)
    try:
        rows = without_systems(rows, args.exclude_system, args.input)
    except ValueError as error:
        print(f"parastudio: error: {error}", file=sys.stderr)
        return 2
    if not rows:
        print(f"parastudio: error: {args.input}: no candidates to score", file=sys.stderr)
        return 2
    provenance, segments, systems = score(args, rows, translation)
    write_metric_scores(args.output, provenance, segments, systems, inputs=inputs)
    referenced = sum(1 for row in rows if row.references)
    print(f"parastudio: {len(segments)} candidates of {len(systems)} system{'s' if len(systems) != 1 else ''} scored "
          f"({referenced} with references) -> {args.output}", file=sys.stderr)
    for note in provenance["notes"]:
        print(f"parastudio: {note}", file=sys.stderr)
    return 0
