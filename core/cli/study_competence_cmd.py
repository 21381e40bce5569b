"""Judge competence in ``parastudio study qc`` (MACE or Dawid-Skene beside consistency and control pass rate),
and ``parastudio study competence-watch``, the study setting that names weak judges on the Dashboard."""

from __future__ import annotations

import argparse

from parastudio.core.cli.number_options import PROBABILITY, SEED, WholeNumber

MODELS = ("mace", "dawid-skene")
MODEL_NAMES = {"mace": "MACE", "dawid-skene": "Dawid-Skene"}


def add_qc_arguments(qc: argparse.ArgumentParser) -> None:
    qc.add_argument("--competence", choices=(*MODELS, "none"), default="mace",
                    help="each judge's competence per criterion by MACE (Hovy et al. 2013; default) or Dawid-Skene "
                    "(1979), fitted by crowd-kit on the live labels; none: leave it out")
    qc.add_argument("--min-competence", type=PROBABILITY, help="name the judges under this competence")
    qc.add_argument("--competence-seed", type=SEED, default=0, help="MACE's seed (default 0)")
    qc.add_argument("--competence-iterations", type=WholeNumber(at_least=1), default=50,
                    help="EM iterations (Dawid-Skene: at most; default 50)")


def competence_model(args):
    from parastudio.core.stats.judge_competence import CompetenceModel

    if args.competence == "none":
        return None
    return CompetenceModel(args.competence, seed=args.competence_seed, iterations=args.competence_iterations)


def competence_json(results) -> dict[str, dict]:
    """annotator -> criterion -> their competence, what it stands on and the fit's signature."""
    by_judge: dict[str, dict] = {}
    for result in results:
        if result.fit is None:
            continue
        for judge in result.fit.judges.values():
            by_judge.setdefault(judge.annotator, {})[result.criterion] = {
                "competence": judge.competence, "judgments": judge.judgments, "items": len(result.fit.items),
                "criterion_judgments": result.fit.judgments, "signature": result.fit.signature}
    return by_judge


def print_competence(results, model_name: str, minimum: float | None) -> None:
    """Per criterion: each judge's competence and their judgments, the fit's items and judgments, its signature;
    one line for a criterion the models do not apply to."""
    for result in results:
        if result.fit is None:
            print(f"criterion {result.criterion}: {result.note}")
            continue
        fit = result.fit
        print(f"judge competence ({MODEL_NAMES[model_name]}), criterion {result.criterion}: fitted on "
              f"{len(fit.items)} items, {fit.judgments} judgments")
        print(f"  {'annotator':<20} {'competence':>10} {'judgments':>9}")
        for judge in fit.judges.values():
            flag = "  BELOW " + f"{minimum:g}" if minimum is not None and judge.competence < minimum else ""
            print(f"  {judge.annotator:<20} {judge.competence:>10.3f} {judge.judgments:>9}{flag}")
        print(f"  signature: {fit.signature}")


def add_watch_command(command) -> None:
    watch = command("competence-watch", "name on the Dashboard, while the study runs, every judge whose MACE or "
                    "Dawid-Skene competence falls under a minimum (a study setting). Without options: show it",
                    _watch)
    watch.add_argument("--model", choices=MODELS, default="mace")
    group = watch.add_mutually_exclusive_group()
    group.add_argument("--below", type=PROBABILITY, metavar="P", help="the minimum competence")
    group.add_argument("--off", action="store_true", help="stop naming judges")


def _watch(args) -> int:
    from parastudio.core.cli.study_access import open_study
    from parastudio.core.study_judgments import competence_watch, set_competence_watch

    changing = args.off or args.below is not None
    db, study_id = open_study(args.db, args.study, writing=changing)
    with db:
        if changing:
            set_competence_watch(db, study_id, None if args.off else args.model, args.below)
        watch = competence_watch(db, study_id)
    print("no competence watch" if watch is None else
          f"judges under {MODEL_NAMES[watch[0]]} competence {watch[1]:g} are named on the Dashboard")
    return 0
