"""Build stages that make the corpus: extract the SWORD texts, tokenize them, split them (fixed before any training)."""

from __future__ import annotations

import collections
import json

from parastudio.core.engine.text.tokenization import POLICY as TOKENIZATION_POLICY
from parastudio.core.engine.text.tokenization import tokenize
from parastudio.core.evaldata import sword_extract
from parastudio.core.evaldata.corpus_split import split_by_chapter, training_refs
from parastudio.core.evaldata.stage_context import BuildContext, read_jsonl, write_jsonl, write_lines
from parastudio.core.progress import tracked
from parastudio.core.textio import atomic_output
from parastudio.core.worker_processes import ordered_map

LANGUAGES = {"web": "en", "kjv": "en", "rv": "es"}
SPLIT_SEED = 0


def stage_extract(context: BuildContext) -> dict:
    installed = sword_extract.ensure_packages(install=context.install)
    texts: dict[str, dict[str, str]] = {}
    unknown_to_spaced: dict[str, list[str]] = {}
    context.say(f"  reading {', '.join(sword_extract.MODULES.values())}")
    # One module per process; Ctrl+C kills the workers (core.worker_processes).
    extracted = list(ordered_map(sword_extract.extract_module, sword_extract.MODULES.values(), context.jobs))
    for name, (verses, unknown) in zip(sword_extract.MODULES, extracted):
        texts[name], unknown_to_spaced[name] = verses, unknown
    order = list(texts["web"])
    seen = set(order)
    for name in ("kjv", "rv"):
        for ref in texts[name]:
            if ref not in seen:
                order.append(ref)
                seen.add(ref)
    write_jsonl(context.path("corpus", "verses.jsonl"),
                 ({"ref": ref, **{name: texts[name].get(ref) for name in texts}} for ref in order))
    common = [ref for ref in order if all(ref in texts[name] for name in texts)]
    glued_by_case = {name: sum(len(sword_extract.glued_words(text)) for text in texts[name].values())
                     for name in texts}
    stats = {
        "installed_packages": installed,
        "verses": {name: len(texts[name]) for name in texts},
        "common_verses": len(common),
        "missing_from": {name: sum(1 for ref in order if ref not in texts[name]) for name in texts},
        "missing_from_examples": {name: [ref for ref in order if ref not in texts[name]][:12] for name in texts},
        "glued_lower_upper_tokens": glued_by_case,
        "words_absent_when_every_tag_is_a_space": unknown_to_spaced,
        "modules": {name: vars(sword_extract.module_info(module)) for name, module in sword_extract.MODULES.items()},
        "debian_packages": {package: sword_extract.debian_package_version(package)
                            for package in [*sword_extract.DEBIAN_PACKAGES.values(), sword_extract.READER_PACKAGE,
                                            "libsword1.9.0"]},
    }
    stats["missing_from_kjv_and_rv_books"] = dict(collections.Counter(
        ref.split(".")[0] for ref in order if ref in texts["web"] and ref not in texts["kjv"] and ref not in texts["rv"]))
    return stats


def _tokenize_rows(rows: list[dict]) -> list[dict]:
    return [{"ref": row["ref"], **{name: tokenize(row[name], lang) if row.get(name) else None
                                   for name, lang in LANGUAGES.items()}} for row in rows]


def stage_tokenize(context: BuildContext) -> dict:
    rows = read_jsonl(context.path("corpus", "verses.jsonl"))
    chunks = [rows[start:start + 2000] for start in range(0, len(rows), 2000)]
    tokenized: list[dict] = []
    # Verses are independent: chunks go to `jobs` processes and come back in order.
    for done in tracked(ordered_map(_tokenize_rows, chunks, context.jobs), context.progress, len(chunks), "tokenize"):
        tokenized.extend(done)
    tokens = collections.Counter()
    for row in tokenized:
        for name in LANGUAGES:
            if row[name]:
                tokens[name] += row[name].count(" ") + 1
    write_jsonl(context.path("corpus", "tokenized.jsonl"), tokenized)
    return {"policy": TOKENIZATION_POLICY, "tokens": dict(tokens)}


def stage_split(context: BuildContext) -> dict:
    rows = read_jsonl(context.path("corpus", "tokenized.jsonl"))
    order = [row["ref"] for row in rows]
    candidates = [row["ref"] for row in rows if all(row.get(name) for name in LANGUAGES)]
    split = split_by_chapter(candidates, seed=SPLIT_SEED)
    with atomic_output(context.path("split", "split.json")) as handle:
        json.dump({"seed": split.seed, "procedure": split.procedure, "test": split.test, "dev": split.dev,
                   "heldout_chapters": split.heldout_chapters}, handle, indent=1)
        handle.write("\n")
    texts = {name: {row["ref"]: row[name] for row in rows if row.get(name)} for name in LANGUAGES}
    by_ref = {row["ref"]: row for row in rows}
    for part, refs in (("test", split.test), ("dev", split.dev)):
        write_lines(context.path("split", f"{part}.ids"), refs)
        for name in LANGUAGES:
            write_lines(context.path("corpus", f"{part}.{name}"), (by_ref[ref][name] for ref in refs))
    write_lines(context.path("split", "heldout-chapters.txt"), split.heldout_chapters)
    # Parallel training verses: in all three texts.
    train = training_refs(candidates, split, list(texts.values()))
    write_lines(context.path("split", "train.ids"), train)
    for name in LANGUAGES:
        write_lines(context.path("corpus", f"train.{name}"), (by_ref[ref][name] for ref in train))
    # LM training text: every WEB verse outside the held-out chapters, WEB-only books included; KJV not added.
    lm_refs = training_refs([ref for ref in order if ref in texts["web"]], split, list(texts.values()))
    write_lines(context.path("split", "lm-train.ids"), lm_refs)
    write_lines(context.path("corpus", "lm-train.web"), (by_ref[ref]["web"] for ref in lm_refs))
    heldout_verses = sum(1 for ref in candidates if split.is_heldout(ref))
    _write_split_record(context, split, rows, train, lm_refs)
    return {**split.procedure, "test": len(split.test), "dev": len(split.dev),
            "heldout_chapter_verses": heldout_verses,
            "dropped_as_duplicate_text": len(candidates) - heldout_verses - len(train),
            "train_parallel": len(train), "lm_train_verses": len(lm_refs)}


def _write_split_record(context: BuildContext, split, rows: list[dict], train: list[str], lm_refs: list[str]) -> None:
    """The committed ``OUT/split``: test/dev ids, held-out chapters, every held-out verse in all three
    tokenized texts, and the training ids (gzipped). ``provenance.json`` (demo stage) ties them to the demo."""
    record = context.split_record
    write_lines(record / "test.ids", split.test)
    write_lines(record / "dev.ids", split.dev)
    write_lines(record / "heldout-chapters.txt", split.heldout_chapters)
    write_jsonl(record / "heldout-verses.jsonl.gz",
                 ({"ref": row["ref"], **{name: row.get(name) for name in LANGUAGES}}
                  for row in rows if split.is_heldout(row["ref"])))
    write_lines(record / "train.ids.gz", train)
    write_lines(record / "lm-train.ids.gz", lm_refs)
    with atomic_output(record / "heldout-only-words.json") as handle:
        json.dump(heldout_only_words(rows, split), handle, ensure_ascii=False, indent=0, sort_keys=True)
        handle.write("\n")


def heldout_only_words(rows: list[dict], split) -> dict[str, list[str]]:
    """Per text, the tokens that occur in held-out chapters and in no other verse of the whole corpus.

    Derived from the corpus and the held-out chapters alone, not from the training files: no table or LM
    built without held-out verses can contain one of them, so finding one in the demo LM's vocabulary or in
    a demo table phrase proves a leak.
    """
    result = {}
    for name in LANGUAGES:
        inside: set[str] = set()
        outside: set[str] = set()
        for row in rows:
            if row.get(name):
                (inside if split.is_heldout(row["ref"]) else outside).update(row[name].split())
        result[name] = sorted(inside - outside)
    return result
