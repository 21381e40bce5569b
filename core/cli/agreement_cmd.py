"""``parastudio agreement``, ``signtest`` and ``report``: statistics of human judgments (issue 5).

Output contracts:

* ``agreement FILE.csv|STUDY --criterion NAME --json`` prints one JSON object
  ``{"n_items", "n_annotators", "observed", "cohen_kappa", "fixed_chance_kappa",
  "fleiss_kappa", "krippendorff_alpha": {"nominal", "ordinal", "interval"},
  "ci95": {statistic: [low, high] | null}}``. ``n_items`` counts the units
  with at least one judgment of the criterion; definitions are in
  :mod:`core.stats.agreement`. ``ci95`` keys: observed, cohen_kappa,
  fixed_chance_kappa, fleiss_kappa, krippendorff_alpha_nominal,
  krippendorff_alpha_ordinal, krippendorff_alpha_interval.
* ``signtest FILE.csv --system-a A --system-b B --json`` prints
  ``{"n", "wins_a", "wins_b", "ties", "p_value"}`` where ``n = wins_a + wins_b``
  (ties dropped); items scored for only one system are skipped and counted on
  stderr.
"""

from __future__ import annotations

import argparse
import json
import sys

from parastudio.core.cli.number_options import COUNT, REPLICATES, SEED, WholeNumber
from parastudio.core.textio import atomic_output


def register(subparsers) -> None:
    agreement = subparsers.add_parser(
        "agreement",
        help="inter-annotator agreement of one criterion (kappas, alpha, bootstrap CIs)",
        description="Agreement of the judgments of one criterion in a study database (SQLite file) or a long-format "
        "CSV with columns item,annotator,criterion,value (optional system,systems,application,sentence_id,"
        "source_key,levels, as `study export-judgments` writes them; an older export's sentence is read too). The fixed-chance kappa's q is the number of labels of the "
        "criterion's scale: from the study, or from the CSV's levels column; --categories sets it.",
    )
    agreement.add_argument("file", metavar="STUDY|FILE.csv", help="a study database (.sqlite) or a judgments CSV")
    agreement.add_argument("--study", help="study name, when the database holds several")
    agreement.add_argument("--criterion", metavar="NAME", help="criterion to measure (needed when the file has several)")
    agreement.add_argument("--categories", type=WholeNumber(at_least=2), metavar="N", help="q, the number of labels of the scale, for the fixed-chance kappa P(E)=1/q (default: the criterion's scale where the study or the CSV's levels column gives it, else the distinct labels observed)")
    agreement.add_argument("--bootstrap", type=REPLICATES, default=1000, metavar="B", help="bootstrap replicates over items for the 95%% CIs (default 1000; 0 = none)")
    agreement.add_argument("--seed", type=SEED, default=0, help="bootstrap random seed (default 0)")
    agreement.add_argument("--json", action="store_true", help="print one JSON object")
    agreement.set_defaults(func=run_agreement)

    signtest = subparsers.add_parser(
        "signtest",
        help="exact two-sided sign test between two systems on paired items",
        description="Sign test on a CSV with columns item,system,score (higher is better), or on a study "
        "database, where each system's score on each source sentence comes from its candidates' judgments "
        "(--criterion, --aggregate; as `study export-scores`). Ties are dropped: n = wins_a + wins_b. Items "
        "scored for only one of the systems are skipped and counted on stderr.",
    )
    signtest.add_argument("file", metavar="FILE.csv|STUDY")
    signtest.add_argument("--criterion", metavar="C", help="with a study: the criterion the scores come from")
    signtest.add_argument("--aggregate", choices=("mean", "majority", "unified"), default="mean",
                          help="with a study: a candidate's score from its judges (default mean)")
    signtest.add_argument("--unified-min", type=COUNT, default=2, metavar="K")
    signtest.add_argument("--study", help="with a study database holding several: the study name")
    signtest.add_argument("--system-a", required=True, metavar="A")
    signtest.add_argument("--system-b", required=True, metavar="B")
    signtest.add_argument("--json", action="store_true", help="print one JSON object")
    signtest.set_defaults(func=run_signtest)

    report = subparsers.add_parser(
        "report",
        help="the tables of seeds 001, 003 and 004 from a study database or a judgments CSV",
        description="Report tables (seed 003 Table 1, seed 004 Table 1, seed 001 Fig. 4.5, annotator pairs) from a "
        "study database (SQLite file) or a CSV with columns item,annotator,criterion,value and optional "
        "system,application (a `study export-judgments` CSV gives the study's report: its scale column marks a "
        "0-100 score). In a study judged by `study assign-next` with early stopping, the fixed-n sign tests "
        "withhold their p-values: read the anytime-valid ones.",
    )
    report.add_argument("file", metavar="STUDY|FILE.csv", help="a study database (.sqlite) or a judgments CSV")
    report.add_argument("--study", help="study name, when the database holds several")
    report.add_argument("--format", choices=("md", "html", "csv", "json"), default="md")
    report.add_argument("--raw", action="store_true", help="CSV cells exactly as they are (default: a text cell beginning with =, +, -, @, tab or CR gets a \' before it, so a spreadsheet does not run it)")
    report.add_argument("-o", "--output", metavar="OUT", help="write here instead of standard output")
    report.add_argument("--plots", metavar="DIR", help="also write a PNG and an SVG per figure into DIR")
    report.add_argument("--positive", default="yes,y,true,1", help="labels that count as yes, comma-separated (default yes,y,true,1)")
    report.add_argument("--unified-min", type=COUNT, default=2, metavar="K", help="unified score: success when at least K annotators say so (default 2, seed 001)")
    report.add_argument("--block", type=COUNT, default=50, metavar="N", help="items per block for agreement drift (default 50)")
    report.add_argument("--bootstrap", type=REPLICATES, default=1000, metavar="B", help="bootstrap replicates of the agreement table's 95%% CIs (default 1000; 0 = none)")
    report.set_defaults(func=run_report)


def _fail(message: str) -> int:
    print(f"parastudio: error: {message}", file=sys.stderr)
    return 1


def _judgment_records(path: str, study: str | None):
    """The judgments of a study database (its live answers on normal items) or of a judgments CSV.

    One reading for ``agreement``, ``signtest`` and ``report``: a file is a
    study when it starts with SQLite's header (:func:`core.cli.study_access.open_study`).
    """
    from parastudio.core.stats.judgment_records import read_judgments
    from parastudio.core.study_judgments import names_a_study

    if not names_a_study(path):
        return read_judgments(path)
    from parastudio.core.cli.study_access import open_study
    from parastudio.core.study_judgments import study_judgment_records

    db, study_id = open_study(path, study, writing=False)
    with db:
        return study_judgment_records(db, study_id)


def _pattern_pairs_extracted(path: str, study: str | None):
    """Pairs each pattern model extracted (seed 002 Table 2's #PP), from a study database; None for a CSV."""
    from parastudio.core.study_judgments import names_a_study

    if not names_a_study(path):
        return None
    from parastudio.core.cli.study_access import open_study
    from parastudio.core.study_judgments import pattern_pairs_extracted

    db, study_id = open_study(path, study, writing=False)
    with db:
        return pattern_pairs_extracted(db, study_id)


def _sampling(path: str, study: str | None):
    """How a study's items were sampled when adaptively (:func:`core.study_judgments.sampling_note`) and whether
    pairs stopped early (:func:`core.study_judgments.early_stopping`); None and None for a CSV."""
    from parastudio.core.study_judgments import names_a_study

    if not names_a_study(path):
        return None, None
    from parastudio.core.cli.study_access import open_study
    from parastudio.core.study_judgments import early_stopping, sampling_note

    db, study_id = open_study(path, study, writing=False)
    with db:
        return sampling_note(db, study_id), early_stopping(db, study_id)


def _sections(path: str, study: str | None, records) -> dict[str, tuple[str, ...]]:
    """Criterion -> the statistics its judging protocol declares (the report's sections), by the scale the study
    gives it or, in a judgments CSV, its ``scale`` column as ``records`` read it (the file is read once: it may be
    a pipe); a scale no protocol answers is left to the labels."""
    from parastudio.core.judging.protocols import PROTOCOLS
    from parastudio.core.study_judgments import criterion_statistics, names_a_study

    if names_a_study(path):
        from parastudio.core.cli.study_access import open_study

        db, study_id = open_study(path, study, writing=False)
        with db:
            return criterion_statistics(db, study_id)
    scales = records.scale_names or {}
    return {name: PROTOCOLS[scale].statistics for name, scale in scales.items() if scale in PROTOCOLS}


CSV_PREFERENCE_NOTE = ("From a judgments CSV: the pairs both systems answered with the same string (ties by "
                       "construction, never shown) are not in it, so they are missing from the ties and sentences "
                       "counted and from the sentences the intervals resample; the strengths and sign tests leave "
                       "ties out alike.")


def _study_preferences(path: str, study: str | None):
    """A study's pairwise preferences with the systems compared, its ties by construction among them
    (:func:`core.study_judgments.study_preferences`); none for a CSV."""
    from parastudio.core.study_judgments import names_a_study

    if not names_a_study(path):
        return []
    from parastudio.core.cli.study_access import open_study
    from parastudio.core.study_judgments import study_preferences

    db, study_id = open_study(path, study, writing=False)
    with db:
        return study_preferences(db, study_id)


def run_agreement(args: argparse.Namespace) -> int:
    from parastudio.core.cli.progress_bar import progress_bar
    from parastudio.core.stats.agreement import STATISTIC_NAMES, AgreementStatistics, landis_koch_label

    records = _judgment_records(args.file, args.study)
    criteria = records.criterion_names()
    criterion = args.criterion
    if criterion is None:
        if len(criteria) != 1:
            return _fail(f"{args.file}: choose a criterion with --criterion; the file has: {', '.join(criteria) or 'none'}")
        criterion = criteria[0]
    elif criterion not in criteria:
        return _fail(f"{args.file}: no judgments of criterion {criterion!r}; the file has: {', '.join(criteria) or 'none'}")
    matrix = records.rating_matrix(criterion)
    if args.categories is not None and args.categories < matrix.n_categories:
        return _fail(f"--categories {args.categories} is fewer than the {matrix.n_categories} distinct labels observed: {', '.join(matrix.categories)}")
    if args.bootstrap < 0:
        return _fail("--bootstrap must be 0 or more")
    scale = records.scale_of(criterion)
    if args.categories is not None:
        q, q_from = args.categories, "--categories"
    elif scale:
        # Labels outside the scale (a CSV edited by hand) still count as labels.
        q, q_from = len(set(scale) | set(matrix.categories)), "the criterion's scale"
    else:
        q, q_from = matrix.n_categories, "the labels observed"
    statistics = AgreementStatistics(bootstrap=args.bootstrap, seed=args.seed)
    with progress_bar("resample") as progress:
        summary = statistics.summarize(matrix, n_scale_categories=q, progress=progress)
    signature = statistics.signature(summary.n_items, summary.n_annotators, criterion=criterion, q=q,
                                     q_from={"--categories": "categories", "the criterion's scale": "scale"}.get(
                                         q_from, "observed"))
    if args.json:
        print(json.dumps({**summary.to_json_dict(), "signature": signature}))
        return 0
    print(f"criterion {criterion}: {summary.n_items} items, {summary.n_annotators} annotators, {summary.n_categories} labels ({', '.join(matrix.categories)}); "
          f"fixed-chance kappa with q = {q} ({q_from})")
    shared = int(((matrix.codes >= 0).sum(axis=1) >= 2).sum())
    if shared == 0:
        # Every statistic below is undefined; say why instead of leaving a reader to guess.
        print("  no item has two judges yet: agreement needs items judged by at least two annotators")
    else:
        print(f"  {shared} of them judged by two or more annotators")
    for name in STATISTIC_NAMES:
        value = summary.statistics[name]
        interval = summary.ci95[name]
        shown = "undefined" if value is None else f"{value:.4f}"
        if interval is not None:
            shown += f"  95% CI [{interval[0]:.4f}, {interval[1]:.4f}]"
        if value is not None and "kappa" in name:
            shown += f"  ({landis_koch_label(value)})"
        print(f"  {name:28s} {shown}")
    print(f"signature: {signature}")
    return 0


def run_signtest(args: argparse.Namespace) -> int:
    from parastudio.core.stats.judgment_records import read_scores
    from parastudio.core.stats.significance import sign_test
    from parastudio.core.study_judgments import names_a_study

    if names_a_study(args.file):
        from parastudio.core.stats.system_scores import sentence_scores

        records = _judgment_records(args.file, args.study)
        criteria = records.criterion_names()
        if args.criterion is None or args.criterion not in criteria:
            return _fail(f"{args.file}: name the criterion with --criterion; the study has: {', '.join(criteria) or 'none'}")
        scores = sentence_scores(records, args.criterion, args.aggregate, unified_min=args.unified_min)
    else:
        scores = read_scores(args.file)
    try:
        items, a, b, skipped = scores.paired(args.system_a, args.system_b)
    except KeyError as error:
        return _fail(f"{args.file}: {error.args[0]}")
    if skipped:
        print(f"parastudio: skipped {skipped} items scored for only one of {args.system_a!r} and {args.system_b!r}", file=sys.stderr)
    result = sign_test(a, b)
    if args.json:
        print(json.dumps(result.to_json_dict()))
    else:
        print(
            f"{args.system_a} wins {result.wins_a}, {args.system_b} wins {result.wins_b}, ties {result.ties} (dropped); "
            f"n = {result.n}; exact two-sided p = {result.p_value:.6g}"
        )
    return 0


def run_report(args: argparse.Namespace) -> int:
    from parastudio.core.output_files import resolve_output
    from parastudio.core.stats.direct_assessment import scores_of_records
    from parastudio.core.stats.report_render import render, render_plots
    from parastudio.core.stats.report_tables import build_report

    positive = tuple(label.strip() for label in args.positive.split(",") if label.strip())
    if args.unified_min < 1 or args.block < 1:
        return _fail("--unified-min and --block must be at least 1")
    if args.output:
        resolve_output(args.output, [args.file])  # refused before the report is computed
    records = _judgment_records(args.file, args.study)
    extracted = _pattern_pairs_extracted(args.file, args.study)
    preferences = _study_preferences(args.file, args.study)
    # From the records, study or CSV alike: an export carries each criterion's scale, so its z-scores are the study's.
    da_scores = scores_of_records(records)
    preference_note = ""
    if not preferences:  # a judgments CSV: its preference rows, which lack the pairs never shown
        from parastudio.core.stats.preference import preferences_from_records

        preferences = preferences_from_records(records)
        preference_note = CSV_PREFERENCE_NOTE if preferences else ""
    sampling, stopping = _sampling(args.file, args.study)
    report = build_report(records, positive=positive, unified_min=args.unified_min, block_size=args.block,
                          title=f"Human evaluation report: {args.file}", bootstrap=args.bootstrap,
                          pairs_extracted=extracted, sampling=sampling, preferences=preferences, da_scores=da_scores,
                          preference_note=preference_note, early_stopping=stopping,
                          sections=_sections(args.file, args.study, records))
    text = render(report, args.format, raw=args.raw)
    with atomic_output(args.output or "-", inputs=[args.file]) as handle:
        handle.write(text)
    if args.plots:
        written = render_plots(report, args.plots, inputs=[args.file])
        print(f"parastudio: wrote {len(written)} plot files to {args.plots}", file=sys.stderr)
    return 0
