"""Build stage ``parse``: English dependency parses of the WEB training verses (seed 002 §3.1).

Each line of ``corpus/train.web`` is parsed by spaCy (:mod:`core.engine.tables.patterns.spacy_parser`)
over the project's own tokens, so word i of a parse is token i of the verse and the
WEB-RV word alignment's indices hold. The tagger and parser were trained on cased
text and our tokens are lowercased, so each verse's casing is recovered from its
original text (``corpus/verses.jsonl``, found through ``split/train.ids``) with
:func:`core.engine.text.display_text.cased_tokens`: a token takes the letters it has in
the normalized original where they are found in order, and stays lowercased where
not.

The verses are parsed in chunks of ``CHUNK_VERSES``, ``context.jobs`` chunks at a
time in worker processes. Each chunk is cached under ``parse/chunks/``, named by
the sha256 of its tokens, its casing and the parser's provenance, so a rerun (or
a run after an interruption) parses only what changed. Output:
``parse/train.web.parse.jsonl.gz``, one :class:`DependencyParse` JSON per line, and
``parse/train.web.parse.json``, the parser's provenance.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from parastudio.core.engine.tables.patterns.dependency_parse import DependencyParse
from parastudio.core.engine.tables.patterns.spacy_parser import SpacyParser
from parastudio.core.evaldata.stage_context import (
    BuildContext,
    StageSkipped,
    read_jsonl,
    read_lines,
    sha256_of,
    sha256_of_inputs,
)
from parastudio.core.textio import atomic_output, open_text_maybe_gzip
from parastudio.core.worker_processes import ordered_map

PARSES = "parse/train.web.parse.jsonl.gz"
PARSES_META = "parse/train.web.parse.json"  # the parser that made them, for the stages that read them
CHUNK_VERSES = 1000
PARSE_FORMAT = 1  # bump when the chunk files' content changes for the same input


def _chunk_key(verses: list[tuple[list[str], list[str]]], provenance: dict) -> str:
    digest = hashlib.sha256(json.dumps([PARSE_FORMAT, provenance, verses], ensure_ascii=False).encode("utf-8"))
    return digest.hexdigest()[:16]


def _parse_chunk(job: tuple[int, list[tuple[list[str], list[str]]], str]) -> tuple[int, int, float]:
    """Parse one chunk into ``path`` (atomically); returns (index, words, seconds). Runs in a worker."""
    index, verses, path = job
    started = time.perf_counter()
    parser = SpacyParser()
    parses = parser.parse_many([tokens for tokens, _ in verses], [cased for _, cased in verses])
    with atomic_output(path) as handle:
        for parse in parses:
            handle.write(parse.dumps() + "\n")
    return index, sum(len(tokens) for tokens, _ in verses), time.perf_counter() - started


def read_parser_provenance(context: BuildContext) -> dict | None:
    path = context.path(*PARSES_META.split("/"))
    return json.loads(path.read_text(encoding="utf-8"))["parser"] if path.exists() else None


def read_parses(path: Path) -> list[DependencyParse]:
    with open_text_maybe_gzip(path) as handle:
        return [DependencyParse.from_json(json.loads(line)) for line in handle]


def stage_parse(context: BuildContext) -> dict:
    lines = read_lines(context.path("corpus", "train.web"))
    from parastudio.core.engine.text.display_text import (
        cased_tokens,  # sacremoses: not when the CLI only lists the stages
    )

    refs = read_lines(context.path("split", "train.ids"))
    if len(refs) != len(lines):
        raise StageSkipped(f"split/train.ids has {len(refs)} lines but corpus/train.web {len(lines)}")
    originals = {row["ref"]: row.get("web") for row in read_jsonl(context.path("corpus", "verses.jsonl"))}
    inputs = sha256_of_inputs(context, "corpus/train.web", "split/train.ids", "corpus/verses.jsonl")
    verses, recovered = [], 0
    for ref, line in zip(refs, lines):
        tokens = line.split()
        original = originals.get(ref)
        cased = cased_tokens(original, tokens) if original else list(tokens)
        recovered += cased != tokens
        verses.append((tokens, cased))
    provenance = SpacyParser().provenance()
    chunk_dir = context.path("parse", "chunks")
    jobs = []
    for index, start in enumerate(range(0, len(verses), CHUNK_VERSES)):
        chunk = verses[start:start + CHUNK_VERSES]
        jobs.append((index, chunk, str(chunk_dir / f"train.web.{index:04d}.{_chunk_key(chunk, provenance)}.jsonl.gz")))
    todo = [job for job in jobs if not Path(job[2]).exists()]
    total_words = sum(len(tokens) for tokens, _ in verses)
    context.say(f"  {len(verses)} verses in {len(jobs)} chunks; {len(jobs) - len(todo)} cached, "
                f"{len(todo)} to parse in {context.jobs} process(es)")
    started = time.perf_counter()
    worker_seconds, done_verses, parsed_words = 0.0, 0, 0
    context.progress(0, len(todo), "parse")
    if todo:
        # In order of the chunks; Ctrl+C kills the workers (core.worker_processes).
        for done, (index, words, seconds) in enumerate(ordered_map(_parse_chunk, todo, min(context.jobs, len(todo))),
                                                       start=1):
            worker_seconds += seconds
            parsed_words += words
            done_verses += len(jobs[index][1])
            context.progress(done, len(todo), f"parse: {done_verses} verses")
    wall = time.perf_counter() - started
    output = context.path(*PARSES.split("/"))
    with atomic_output(output) as handle:
        for _, _, path in jobs:
            with open_text_maybe_gzip(path) as chunk:
                for line in chunk:
                    handle.write(line)
    parsed = sum(len(jobs[job[0]][1]) for job in todo)
    with atomic_output(context.path(*PARSES_META.split("/"))) as handle:
        json.dump({"parser": provenance, "inputs_sha256": inputs, "verses": len(verses)}, handle, indent=1)
        handle.write("\n")
    speed = {
        "processes": min(context.jobs, len(todo)) if todo else 0,
        "parsed_verses": parsed, "parse_wall_seconds": round(wall, 2),
        "worker_seconds": round(worker_seconds, 2),
        "verses_per_second": round(parsed / wall, 1) if parsed and wall else None,
        "verses_per_second_per_process": round(parsed / worker_seconds, 1) if parsed and worker_seconds else None,
        "words_per_second": round(parsed_words / wall, 1) if parsed and wall else None,
    }
    output_sha256 = sha256_of(output)
    return {
        "output": PARSES, "output_sha256": output_sha256, "inputs_sha256": inputs, "parser": provenance,
        "verses": len(verses), "words": total_words, "verses_cased_from_original": recovered,
        "chunks": len(jobs), "chunk_verses": CHUNK_VERSES, "chunks_cached": len(jobs) - len(todo), **speed,
        # A run that found every chunk cached measured nothing: keep the last measured run's figures.
        "measured": speed if parsed else _last_measured(context, output_sha256),
    }


def _last_measured(context: BuildContext, output_sha256: str) -> dict | None:
    report = context.path("report.json")
    if not report.exists():
        return None
    previous = json.loads(report.read_text(encoding="utf-8")).get("stages", {}).get("parse", {}).get("stats", {})
    if previous.get("output_sha256") != output_sha256:
        return None
    return previous.get("measured")
