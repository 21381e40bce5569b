"""The demo release: the committed ``evaldata/demo`` files, their MANIFEST, the provenance record, the build MANIFEST."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from parastudio.core.evaldata.stage_context import BuildContext, StageSkipped, read_jsonl, read_lines, sha256_of
from parastudio.core.evaldata.translation_stages import DEMO_CAT_FILES
from parastudio.core.tablebuild.table_converters import prune_paraphrase_table
from parastudio.core.textio import atomic_output

# The full pivot table is ~150 MB gzipped; the demo keeps sources of <= 3 tokens, their 5 best paraphrases
# with p(e2|e1) >= 0.01, scores to 6 significant digits: about 18 MB.
DEMO_TABLE = {"max_source_length": 3, "top": 5, "min_prob": 0.01, "significant_digits": 6}
DEMO_BUDGET_BYTES = 35 * 1024 * 1024
DEMO_FILES = ("paraphrase-table.gz", "lm.bin", "test.en", "test.ref.en", "testcases.jsonl", "candidates.jsonl",
              "test.original.en", "truecase-model.en", *DEMO_CAT_FILES)
# The demo study's candidates: the beam decoder's 2-best of every test verse.
DEMO_CANDIDATES_NBEST = 2


def copy_atomically(source: Path, destination: Path) -> None:
    # Byte for byte: atomic_output would gzip a .gz destination a second time.
    temporary = destination.with_name(f".{destination.name}.part")
    shutil.copyfile(source, temporary)
    temporary.chmod(0o644)
    os.replace(temporary, destination)


def write_demo_candidates(demo: Path) -> None:
    """``candidates.jsonl``: what ``parastudio generate --system beam --nbest 2 --json`` prints for
    ``test.en``, with paths relative to the demo folder and no timings, so rebuilds are byte-identical."""
    from parastudio.core.engine.candidates.generation import generate
    from parastudio.core.engine.candidates.generation_options import BeamRunOptions
    from parastudio.core.engine.candidates.generation_resources import GenerationResources
    from parastudio.core.engine.lm.language_model import LanguageModel
    from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable

    table = ParaphraseTable.load(demo / "paraphrase-table.gz")
    lm = LanguageModel(demo / "lm.bin")
    sentences = [line.split() for line in (demo / "test.en").read_text(encoding="utf-8").splitlines()]
    with atomic_output(demo / "candidates.jsonl") as handle:
        for candidate in generate(BeamRunOptions(nbest=DEMO_CANDIDATES_NBEST), sentences,
                                  GenerationResources((table,), lm)):
            record = candidate.to_json()
            inputs = record["params"]["inputs"]  # paths relative to the demo folder, content by sha256
            record["params"] = {**record["params"], "inputs": {
                **inputs, "tables": [{**inputs["tables"][0], "path": "paraphrase-table.gz"}],
                "lm": {**inputs["lm"], "path": "lm.bin"}}}
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def write_demo_manifest(demo: Path) -> list[str]:
    """``demo/MANIFEST``: the sha256 of every demo file present; returns their names."""
    present = [name for name in DEMO_FILES if (demo / name).exists()]
    with atomic_output(demo / "MANIFEST") as handle:
        for name in present:
            handle.write(f"{sha256_of(demo / name)}  {name}\n")
    return present


def stage_demo_candidates(context: BuildContext) -> dict:
    """The demo study's candidates, made from the committed demo files alone (after ``demo``, or alone to
    refresh ``candidates.jsonl`` when the code's output format changes, without rebuilding the rest)."""
    needed = [name for name in ("paraphrase-table.gz", "lm.bin", "test.en") if not (context.demo / name).exists()]
    if needed:
        raise StageSkipped(f"{context.demo} has no {', '.join(needed)}")
    write_demo_candidates(context.demo)
    write_demo_manifest(context.demo)
    return {"candidates_bytes": (context.demo / "candidates.jsonl").stat().st_size,
            "sha256": sha256_of(context.demo / "candidates.jsonl")}


def write_readable_text(context: BuildContext) -> dict:
    """What judges read: ``test.original.en`` (the WEB text of each test verse as published, line by line with
    ``test.en``) and ``truecase-model.en`` (a Moses truecaser trained on the WEB training verses, our tokens with
    their original casing, for candidates, which exist only tokenized and lowercased;
    :mod:`core.engine.text.display_text`)."""
    from parastudio.core.engine.text.display_text import train_truecaser

    verses = {row["ref"]: row for row in read_jsonl(context.path("corpus", "verses.jsonl"))}
    test_ids = read_lines(context.path("split", "test.ids"))
    with atomic_output(context.demo / "test.original.en") as handle:
        for ref in test_ids:
            handle.write(" ".join(verses[ref]["web"].split()) + "\n")
    train_ids = read_lines(context.path("split", "train.ids"))
    tokens = dict(zip(train_ids, read_lines(context.path("corpus", "train.web"))))
    train_truecaser(((verses[ref]["web"], tokens[ref].split()) for ref in train_ids),
                    context.path("demo-text", "truecase-model.en"))
    copy_atomically(context.path("demo-text", "truecase-model.en"), context.demo / "truecase-model.en")
    return {"truecaser_trained_on_verses": len(train_ids), "originals": len(test_ids)}


def stage_demo(context: BuildContext) -> dict:
    table = context.path("tables", "paraphrase-table.gz")
    pruned = context.path("tables", "paraphrase-table.demo.gz")
    pruning = None
    if table.exists():
        pruning = {**DEMO_TABLE, **prune_paraphrase_table(table, pruned, **DEMO_TABLE)}
    sources = {
        "paraphrase-table.gz": pruned,
        "lm.bin": context.path("lm", "web.demo.bin"),
        "test.en": context.path("corpus", "test.web"),
        "test.ref.en": context.path("corpus", "test.kjv"),
        "testcases.jsonl": context.path("testcases", "test.jsonl"),
        **{name: context.path(*parts) for name, parts in DEMO_CAT_FILES.items()},
    }
    missing = [str(path) for path in sources.values() if not path.exists()]
    copied = {}
    context.demo.mkdir(parents=True, exist_ok=True)
    for name, source in sources.items():
        if source.exists():
            copy_atomically(source, context.demo / name)
            copied[name] = source.stat().st_size
    readable = None
    if context.path("corpus", "verses.jsonl").exists() and context.path("split", "train.ids").exists():
        readable = write_readable_text(context)
    present = write_demo_manifest(context.demo)
    total = sum((context.demo / name).stat().st_size for name in present)
    if total > DEMO_BUDGET_BYTES:
        context.say(f"  WARNING: demo is {total / 2**20:.1f} MB, over the {DEMO_BUDGET_BYTES / 2**20:.0f} MB budget")
    stats = {"files": {name: (context.demo / name).stat().st_size for name in present}, "total_bytes": total,
             "copied": sorted(copied), "table_pruning": pruning, "readable_text": readable}
    if not missing:
        _write_provenance(context)
    if missing:
        stats["missing_inputs"] = missing
    return stats


SPLIT_RECORD_FILES = ("test.ids", "dev.ids", "heldout-chapters.txt", "heldout-verses.jsonl.gz", "train.ids.gz",
                      "lm-train.ids.gz", "heldout-only-words.json")


def _write_provenance(context: BuildContext) -> None:
    """``OUT/split/provenance.json``: what each demo file was built from, by sha256, as recorded when it was built.

    ``tests/test_data_disjoint.py`` follows this chain on a fresh clone (no ``build/``): committed
    training ids -> training text -> LM / phrase table -> demo file.
    """
    report_path = context.path("report.json")
    stages = json.loads(report_path.read_text(encoding="utf-8")).get("stages", {}) if report_path.exists() else {}

    def recorded(stage: str, key: str):
        return stages.get(stage, {}).get("stats", {}).get(key)

    training_text = ("corpus/train.web", "corpus/train.kjv", "corpus/train.rv", "corpus/lm-train.web")
    provenance = {
        "split_files_sha256": {name: sha256_of(context.split_record / name) for name in SPLIT_RECORD_FILES},
        "training_text_sha256": {name: sha256_of(context.path(*name.split("/"))) for name in training_text},
        "training_text_lines": {name: len(read_lines(context.path(*name.split("/")))) for name in training_text},
        "training_text_from_ids": {"corpus/train.web": "train.ids.gz", "corpus/train.kjv": "train.ids.gz",
                                   "corpus/train.rv": "train.ids.gz", "corpus/lm-train.web": "lm-train.ids.gz"},
        "demo": {
            "lm.bin": {"sha256": sha256_of(context.demo / "lm.bin"),
                       "built_by_stage_sha256": recorded("lm", "demo_sha256"),
                       "trained_on_sha256": recorded("lm", "inputs_sha256")},
            "paraphrase-table.gz": {
                "sha256": sha256_of(context.demo / "paraphrase-table.gz"),
                "pruned_from_sha256": {"tables/paraphrase-table.gz": sha256_of(context.path("tables",
                                                                                       "paraphrase-table.gz"))},
                "pivot_output_sha256": recorded("pivot", "output_sha256"),
                "pivoted_from_sha256": recorded("pivot", "inputs_sha256"),
                "phrase_table_output_sha256": recorded("phrase-table", "output_sha256"),
                "phrase_table_trained_on_sha256": recorded("phrase-table", "inputs_sha256")},
            "test.en": {"text": "web", "ids": "test.ids"},
            "test.ref.en": {"text": "kjv", "ids": "test.ids"},
            "testcases.jsonl": {"ids": "test.ids"},
            **_cat_provenance(context, recorded),
        },
    }
    with atomic_output(context.split_record / "provenance.json") as handle:
        json.dump(provenance, handle, indent=1, sort_keys=True)
        handle.write("\n")


def _cat_provenance(context: BuildContext, recorded) -> dict:
    """Seed 001's demo files: each one's sha256 and what it was made from (``core.evaldata.translation_stages``)."""
    made_from = {
        "web-rv.test.phrase-table.gz": {"filtered_from": "tables/web-rv.phrase-table.gz", "to": "test.en",
                                        "phrase_table_trained_on_sha256": recorded("phrase-table", "inputs_sha256")},
        "rv-web.test.phrase-table.gz": {"filtered_from": "tables/rv-web.phrase-table.gz",
                                        "to": "roundtrip test.es output and test.es",
                                        "reversed_from_sha256": recorded("rv-web-table", "input_sha256")},
        "lm.es.bin": {"built_by_stage_sha256": recorded("rv-lm", "demo_sha256"),
                      "trained_on_sha256": {"corpus/train.rv": recorded("rv-lm", "corpus_sha256")}},
        "test.es": {"text": "rv", "ids": "test.ids"},
        "roundtrip-test.graph.gz": {"made_by": "roundtrip stage", "ids": "test.ids"},
        "direct-test.graph.gz": {"made_by": "roundtrip stage", "ids": "test.ids"},
        "testcases-roundtrip.jsonl": {"made_by": "roundtrip stage", "ids": "test.ids"},
    }
    return {name: {"sha256": sha256_of(context.demo / name), **made_from[name]}
            for name in DEMO_CAT_FILES if (context.demo / name).exists()}


def stage_manifest(context: BuildContext) -> dict:
    artifacts = sorted(path for path in context.build.rglob("*")
                       if path.is_file() and path.name not in {"MANIFEST", "report.json"} and ".part" not in path.name)
    with atomic_output(context.path("MANIFEST")) as handle:
        for path in artifacts:
            handle.write(f"{sha256_of(path)}  {path.relative_to(context.build)}\n")
    return {"artifacts": len(artifacts), "bytes": sum(path.stat().st_size for path in artifacts)}
