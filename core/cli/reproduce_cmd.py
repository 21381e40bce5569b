"""``parastudio reproduce CANDIDATES.jsonl``: run recorded candidates again, identical or different per sentence."""

from __future__ import annotations

import argparse
import json
import sys

from parastudio.core.cli.number_options import COUNT


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "reproduce",
        help="run the candidates of parastudio generate --json again and compare them byte for byte",
        description="Groups the candidates by their params (one group per run), checks that every input file "
                    "still has its recorded sha256 (a run whose input changed or is missing is refused, with the "
                    "reason), generates the run's sentences again with the recorded options and says per "
                    "sentence whether the output is identical. A relative input path in params.inputs is read "
                    "against the folder of CANDIDATES.jsonl (evaldata/demo/candidates.jsonl names "
                    "paraphrase-table.gz), not the working directory. Params this code cannot run (a NaN stack size, "
                    "an unknown system) are refused as the file is read, naming the line and the field, before "
                    "any run. "
                    "Exit status: 0 all identical, 1 some sentence different, 2 a run refused or bad params.",
    )
    parser.add_argument("candidates", metavar="CANDIDATES.jsonl", help="parastudio generate --json output")
    parser.add_argument("--json", action="store_true", help="one JSON object: the runs and a summary")
    parser.add_argument("--processes", type=COUNT, default=None, help="worker processes (default: up to 2)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from parastudio.core.engine.candidates.reproduction import reproduce

    outcomes = []
    def notice(message: str) -> None:
        print(f"parastudio: note: {message}", file=sys.stderr, flush=True)

    for number, outcome in enumerate(reproduce(args.candidates, processes=args.processes, notice=notice), start=1):
        outcomes.append(outcome)
        if not args.json:
            _print_run(number, outcome)
    sentences = [s for o in outcomes for s in o.sentences]
    summary = {"runs": len(outcomes), "refused": sum(1 for o in outcomes if o.refused),
               "sentences": len(sentences), "identical": sum(1 for s in sentences if s.identical),
               "different": sum(1 for s in sentences if not s.identical)}
    if args.json:
        print(json.dumps({"runs": [o.to_json() for o in outcomes], "summary": summary}, ensure_ascii=False))
    else:
        print(f"summary: {summary['runs']} run(s), {summary['refused']} refused; {summary['sentences']} sentence(s) "
              f"reproduced: {summary['identical']} identical, {summary['different']} different")
    if summary["refused"]:
        return 2
    return 1 if summary["different"] else 0


def _print_run(number: int, outcome) -> None:
    print(f"run {number}: {outcome.system}, {outcome.candidates} candidate(s)")
    if outcome.refused:
        print(f"  refused: {outcome.refused}")
        print(f"parastudio: run {number} ({outcome.system}) refused: {outcome.refused}", file=sys.stderr)
        return
    if outcome.code:
        print(f"  code: {outcome.code}")
    for sentence in outcome.sentences:
        verdict = "identical" if sentence.identical else f"different: {sentence.difference}"
        print(f"  sentence {sentence.sentence_id}: {verdict}")
