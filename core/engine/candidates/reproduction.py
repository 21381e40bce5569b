"""Run recorded candidates again and say, per sentence, whether the same bytes come out (``parastudio reproduce``).

A file of ``parastudio generate --json`` lines holds one or more *runs*: the
lines whose ``params`` agree once the code's ``version`` and ``commit`` are set
aside. For each run the options are rebuilt from ``params``
(:func:`core.engine.candidates.generation_options.options_from_json`) as the file is read, so params
this code cannot run (a NaN stack size, an unknown system) are refused with the line of
the file and the field before any run starts; then every recorded input
file is checked against its sha256 (a run whose input changed, disappeared or was
never recorded is refused, with the reason, and not run), the files are loaded
as recorded and the run's sentences (each candidate's ``source``, and
``references`` for spg-similarity) are generated again. A sentence is
*identical* when the new lines are byte for byte the recorded ones, the code's
version and commit being the recorded ones (a different commit is reported
once per run, not as a difference of every line).

A relative input path is relative to the folder of the candidates file, not to
the working directory: a folder of candidates and their inputs (the bundled
``evaldata/demo``, whose ``candidates.jsonl`` names ``paraphrase-table.gz`` and
``lm.bin``) reproduces wherever it is moved and from wherever it is run. Such a
run's lines are compared with the recorded relative paths (``generate`` itself
writes absolute ones).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from parastudio.core.code_identity import code_identity
from parastudio.core.errors import InputFormatError, OptionsError
from parastudio.core.file_fingerprint import mismatch
from parastudio.core.progress import Progress, no_progress
from parastudio.core.structured_text import too_deep
from parastudio.core.textio import open_text_maybe_gzip

CODE_KEYS = ("version", "commit")


@dataclass
class RecordedRun:
    """The lines of one run, by sentence in the order first seen."""

    params: dict
    folder: Path = Path(".")  # the candidates file's folder, against which relative input paths are read
    options: object = None  # the options object the params describe (RunOptions), built as the file was read
    sources: dict = field(default_factory=dict)  # sentence id -> (its recorded source, the first line with it)
    lines: dict[tuple, list[str]] = field(default_factory=dict)  # (sentence_id, source, reference) -> lines


@dataclass
class SentenceOutcome:
    sentence_id: object
    identical: bool
    difference: str | None = None  # the first field that differs, for a reader

    def to_json(self) -> dict:
        return {"sentence_id": self.sentence_id, "identical": self.identical, "difference": self.difference}


@dataclass
class RunOutcome:
    system: str
    candidates: int
    refused: str | None = None
    code: str | None = None  # set when the recorded code differs from the running code
    sentences: list[SentenceOutcome] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"system": self.system, "candidates": self.candidates, "refused": self.refused, "code": self.code,
                "sentences": [s.to_json() for s in self.sentences]}


def _run_key(params: dict) -> str:
    return json.dumps({k: v for k, v in params.items() if k not in CODE_KEYS}, sort_keys=True)


def read_runs(path: str | os.PathLike) -> list[RecordedRun]:
    """The runs of a candidates file; a line that is not a candidate with params and source, or whose params
    do not describe options this code can run, is refused (:class:`InputFormatError`, naming the field)."""
    runs: dict[str, RecordedRun] = {}
    with open_text_maybe_gzip(path) as handle:
        for line in handle:
            number, text = handle.line_number, line.rstrip("\n")
            if not text.strip():
                continue
            try:
                record = json.loads(text)
            except ValueError:
                raise InputFormatError(path, number, "a JSON object (parastudio generate --json)", text) from None
            except RecursionError:
                raise too_deep(path, text, "a JSON object (parastudio generate --json)", number) from None
            if not isinstance(record, dict) or not isinstance(record.get("params"), dict) \
                    or "system" not in record["params"]:
                raise InputFormatError(path, number, "a candidate with params (parastudio generate --json)", text)
            if not isinstance(record.get("source"), str):
                raise InputFormatError(path, number, "a candidate with its source sentence (written by a "
                                                     "parastudio generate that records provenance)", text)
            references = record.get("references")
            reference = references[0] if isinstance(references, list) and references else None
            key = _run_key(record["params"])
            if key not in runs:  # a run's params are read on its first line, and named by it when refused
                runs[key] = RecordedRun(record["params"], Path(os.path.abspath(path)).parent,
                                        _options(record["params"], path, number))
            run = runs[key]
            sentence = record.get("sentence_id")
            first = run.sources.setdefault(sentence, (record["source"], number))
            if sentence is not None and first[0] != record["source"]:  # one sentence, two sources: the file was changed, say where
                raise InputFormatError(path, number, f"the source that sentence {sentence} has on line {first[1]}",
                                       "another source for it (a changed recorded source)")
            run.lines.setdefault((record["sentence_id"], record["source"], reference), []).append(text)
    return list(runs.values())


def _options(params: dict, path, number: int):
    from parastudio.core.engine.candidates.generation_options import options_from_json

    try:
        return options_from_json(params)
    except OptionsError as error:
        raise InputFormatError(path, number, f"params this code can run: {error}") from None


def _resolved(inputs, folder: Path):
    """``inputs`` with every relative file path read against ``folder`` (module docstring)."""
    if isinstance(inputs, list):
        return [_resolved(value, folder) for value in inputs]
    if not isinstance(inputs, dict):
        return inputs
    found = {key: _resolved(value, folder) for key, value in inputs.items()}
    if isinstance(inputs.get("path"), str) and "sha256" in inputs and inputs["path"]:
        found["path"] = os.path.abspath(os.path.join(folder, inputs["path"]))  # an absolute path stays
    return found


def _refusal(params: dict) -> str | None:
    """Why a run cannot be reproduced here: an input missing, changed or never recorded (``params`` with
    its input paths resolved)."""
    inputs = params.get("inputs")
    if not isinstance(inputs, dict) or not inputs.get("tables"):
        return "the candidates record no input files (params.inputs)"
    recorded = [*inputs["tables"], *inputs.get("pattern_tables", [])]
    recorded += [inputs[name] for name in ("lm", "weights", "reference", "predictor")
                 if inputs.get(name) is not None]
    for fingerprint in recorded:
        problem = mismatch(fingerprint) if isinstance(fingerprint, dict) else "an input is not a {path, sha256} object"
        if problem:
            return problem
    return None


def _first_difference(recorded: list[str], produced: list[str]) -> str | None:
    if recorded == produced:
        return None
    if len(recorded) != len(produced):
        return f"{len(recorded)} candidates recorded, {len(produced)} now"
    for old_line, new_line in zip(recorded, produced):
        if old_line != new_line:
            old, new = json.loads(old_line), json.loads(new_line)
            for key in sorted(set(old) | set(new)):
                if old.get(key) != new.get(key):
                    return f"rank {old.get('rank')}: {key} {old.get(key)!r:.80} recorded, {new.get(key)!r:.80} now"
            return f"rank {old.get('rank')}: the same values written differently"
    return None


def outside_inputs(inputs, folder: Path) -> list[str]:
    """The recorded input files (resolved) that lie outside ``folder``, each once, in the order recorded."""
    found: list[str] = []

    def walk(value) -> None:
        if isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            path = value.get("path")
            if isinstance(path, str) and "sha256" in value:
                real = os.path.realpath(path)
                if os.path.commonpath([real, os.path.realpath(folder)]) != os.path.realpath(folder) \
                        and real not in found:
                    found.append(real)
            for key, item in value.items():
                if key != "path":
                    walk(item)

    walk(inputs)
    return found


def reproduce_run(run: RecordedRun, *, processes: int | None = None,
                  progress: Progress = no_progress, notice=lambda message: None) -> RunOutcome:
    """Generate ``run``'s sentences again and compare (module docstring)."""
    from parastudio.core.engine.candidates.generation import generate_batches
    from parastudio.core.engine.candidates.generation_resources import load_resources

    recorded_inputs = run.params.get("inputs")
    params = {**run.params, "inputs": _resolved(recorded_inputs, run.folder)}
    outcome = RunOutcome(str(params.get("system")), sum(len(lines) for lines in run.lines.values()))
    outcome.refused = _refusal(params)
    if outcome.refused:
        return outcome
    outside = outside_inputs(params["inputs"], run.folder)
    if outside:
        notice(f"{outcome.system}: reads recorded inputs outside the candidates' folder {run.folder}: "
               + ", ".join(outside))
    options = run.options
    current = code_identity()
    recorded_code = {key: params.get(key) for key in CODE_KEYS}
    if recorded_code != current:
        outcome.code = (f"recorded with {recorded_code['version']} ({recorded_code['commit']}), "
                        f"reproduced with {current['version']} ({current['commit']})")
    keys = list(run.lines)
    sentences = [source.split() for _, source, _ in keys]
    references = [reference.split() for _, _, reference in keys] if all(k[2] is not None for k in keys) else None
    inputs = params["inputs"]

    def path(name: str):
        return inputs[name]["path"] if inputs.get(name) else None

    try:
        resources = load_resources(
            options, [t["path"] for t in inputs["tables"]], path("lm"),
            pattern_tables=[t["path"] for t in inputs.get("pattern_tables", [])], sentences=sentences,
            weights_file=path("weights"), weights_signature=(inputs.get("weights") or {}).get("signature"),
            reference_file=path("reference"), predictor_file=path("predictor"))
    except InputFormatError as error:  # said without the line itself: the recorded file may be anyone's
        outcome.refused = f"{error.path}:{error.line_number}: a recorded input is not {error.expected}"
        return outcome
    produced: dict[int, list[str]] = {}
    for index, candidates, _ in generate_batches(options, sentences, resources, progress=progress,
                                                 processes=processes, sentence_ids=range(len(keys)),
                                                 references=references):
        produced[index] = [_line(candidate, recorded_code, keys[index][0], (inputs, recorded_inputs))
                           for candidate in candidates]
    for index, key in enumerate(keys):
        difference = _first_difference(run.lines[key], produced.get(index, []))
        outcome.sentences.append(SentenceOutcome(key[0], difference is None, difference))
    return outcome


def _line(candidate, code: dict, sentence_id, inputs: tuple[dict, dict]) -> str:
    """The candidate's ``generate --json`` line, with the recorded code identity and sentence id, and the
    recorded (perhaps relative) paths when its inputs are the recorded ones once resolved."""
    resolved, recorded = inputs
    record = candidate.to_json()
    record["sentence_id"] = sentence_id
    record["params"] = {**record["params"], **code}
    if record["params"].get("inputs") == resolved:
        record["params"]["inputs"] = recorded
    return json.dumps(record, ensure_ascii=False)


def reproduce(path: str | os.PathLike, *, processes: int | None = None,
              progress: Progress = no_progress, notice=lambda message: None) -> Iterator[RunOutcome]:
    """Every run of a candidates file, reproduced (or refused) in turn; ``notice`` is told, before a run reads
    them, of the recorded inputs outside the candidates' folder."""
    for run in read_runs(path):
        yield reproduce_run(run, processes=processes, progress=progress, notice=notice)
