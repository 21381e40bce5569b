"""``parastudio data build``: the whole evaldata pipeline, stage by stage, each stage timed.

Stages (in order; each reads what the earlier ones wrote under ``OUT/build``, so
any stage can be rerun alone):

=============  ===============================================================
extract        SWORD modules -> ``corpus/verses.jsonl`` (plain text by OSIS ref)
tokenize       -> ``corpus/tokenized.jsonl`` (``core.data.tokenization``)
split          -> ``split/*.ids`` and the parallel ``corpus/{train,dev,test}.*``
phrase-table   WEB -> RV1909 Moses phrase table (part B's eflomal builder)
pivot          pivot paraphrase table over the RV1909 pivot (``core.pivot``)
webkjv-table   WEB -> KJV phrase table, kept as a paraphrase table p(e2|e1)
lm             5-gram modified Kneser-Ney LM on the WEB training verses
testcases      seed 001 §4.1 cases for the dev and test verses
demo           the committed ``OUT/demo`` files and their MANIFEST
manifest       sha256 of every artifact in ``OUT/build/MANIFEST``
=============  ===============================================================

Every number the README quotes is in ``OUT/build/report.json``.
"""

from __future__ import annotations

import collections
import hashlib
import heapq
import json
import os
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from core.atomic_write import atomic_output, open_text_maybe_gzip
from core.errors import InputFormatError
from core.data import sword_extract
from core.data.corpus_split import split_by_chapter, training_refs
from core.data.testcases import CaseReport, build_cases
from core.data.tokenization import POLICY as TOKENIZATION_POLICY
from core.data.tokenization import tokenize

STAGES = ("extract", "tokenize", "split", "phrase-table", "pivot", "webkjv-table", "lm", "testcases", "demo",
          "manifest")
LANGUAGES = {"web": "en", "kjv": "en", "rv": "es"}
SPLIT_SEED = 0
ALIGNMENT_SEED = 0
MAX_PHRASE_LENGTH = 7
PIVOT_PARAMETERS = {"min_prob": 1e-5, "max_pivot": 200, "top": 20}
WEBKJV_TOP = 20
LM_ORDER = 5
# The demo LM must fit the 25 MB demo budget: singleton n-grams of order >= 3 pruned, trie with 8-bit quantization.
DEMO_LM = {"order": 5, "prune": [0, 0, 1], "binary_type": "trie", "quantize_bits": 8}
# The full pivot table is ~150 MB gzipped; the demo keeps sources of <= 3 tokens, their 5 best paraphrases
# with p(e2|e1) >= 0.01, scores to 6 significant digits: about 18 MB.
DEMO_TABLE = {"max_source_length": 3, "top": 5, "min_prob": 0.01, "significant_digits": 6}
DEMO_BUDGET_BYTES = 25 * 1024 * 1024
DEMO_FILES = ("paraphrase-table.gz", "lm.bin", "test.en", "test.ref.en", "testcases.jsonl")


class StageSkipped(Exception):
    """A stage cannot run here (a missing component); the build goes on and says why."""


def default_out_dir() -> Path:
    """The repository's ``evaldata`` when running from a checkout, else ``./evaldata``."""
    checkout = Path(__file__).resolve().parents[2] / "evaldata"
    return checkout if checkout.parent.joinpath("pyproject.toml").exists() else Path("evaldata")


@dataclass
class BuildContext:
    out: Path
    say: Callable[[str], None] = lambda message: print(message, file=sys.stderr, flush=True)
    progress: Callable[..., Iterable] = lambda iterable, **_: iterable
    report: dict = field(default_factory=dict)

    @property
    def build(self) -> Path:
        return self.out / "build"

    @property
    def demo(self) -> Path:
        return self.out / "demo"

    def path(self, *parts: str) -> Path:
        return self.build.joinpath(*parts)


# ----------------------------------------------------------------------------- files


def _write_jsonl(path: Path, rows: Iterable[dict]) -> None:
    with atomic_output(path) as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def _read_jsonl(path: Path) -> list[dict]:
    if not path.exists():
        raise StageSkipped(f"{path} is missing: run the earlier stages first")
    with open_text_maybe_gzip(path) as handle:
        return [json.loads(line) for line in handle]


def _write_lines(path: Path, lines: Iterable[str]) -> None:
    with atomic_output(path) as handle:
        for line in lines:
            handle.write(line + "\n")


def read_lines(path: Path) -> list[str]:
    if not path.exists():
        raise StageSkipped(f"{path} is missing: run the earlier stages first")
    with open_text_maybe_gzip(path) as handle:
        return [line.rstrip("\n") for line in handle]


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# ----------------------------------------------------------------------------- stages


def stage_extract(context: BuildContext) -> dict:
    installed = sword_extract.ensure_packages(install=True)
    texts: dict[str, dict[str, str]] = {}
    unknown_to_spaced: dict[str, list[str]] = {}
    for name, module in sword_extract.MODULES.items():
        context.say(f"  reading {module}")
        texts[name], unknown_to_spaced[name] = sword_extract.extract_module(module)
    order = list(texts["web"])
    seen = set(order)
    for name in ("kjv", "rv"):
        for ref in texts[name]:
            if ref not in seen:
                order.append(ref)
                seen.add(ref)
    _write_jsonl(context.path("corpus", "verses.jsonl"),
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


def stage_tokenize(context: BuildContext) -> dict:
    rows = _read_jsonl(context.path("corpus", "verses.jsonl"))
    tokenized = []
    tokens = collections.Counter()
    for row in context.progress(rows, desc="tokenize", unit="verse"):
        out = {"ref": row["ref"]}
        for name, lang in LANGUAGES.items():
            text = row.get(name)
            out[name] = tokenize(text, lang) if text else None
            if out[name]:
                tokens[name] += out[name].count(" ") + 1
        tokenized.append(out)
    _write_jsonl(context.path("corpus", "tokenized.jsonl"), tokenized)
    return {"policy": TOKENIZATION_POLICY, "tokens": dict(tokens)}


def stage_split(context: BuildContext) -> dict:
    rows = _read_jsonl(context.path("corpus", "tokenized.jsonl"))
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
        _write_lines(context.path("split", f"{part}.ids"), refs)
        for name in LANGUAGES:
            _write_lines(context.path("corpus", f"{part}.{name}"), (by_ref[ref][name] for ref in refs))
    _write_lines(context.path("split", "heldout-chapters.txt"), split.heldout_chapters)
    # Parallel training verses: in all three texts.
    train = training_refs(candidates, split, list(texts.values()))
    _write_lines(context.path("split", "train.ids"), train)
    for name in LANGUAGES:
        _write_lines(context.path("corpus", f"train.{name}"), (by_ref[ref][name] for ref in train))
    # LM training text: every WEB verse outside the held-out chapters, WEB-only books included; KJV not added.
    lm_refs = training_refs([ref for ref in order if ref in texts["web"]], split, list(texts.values()))
    _write_lines(context.path("split", "lm-train.ids"), lm_refs)
    _write_lines(context.path("corpus", "lm-train.web"), (by_ref[ref]["web"] for ref in lm_refs))
    heldout_verses = sum(1 for ref in candidates if split.is_heldout(ref))
    return {**split.procedure, "test": len(split.test), "dev": len(split.dev),
            "heldout_chapter_verses": heldout_verses,
            "dropped_as_duplicate_text": len(candidates) - heldout_verses - len(train),
            "train_parallel": len(train), "lm_train_verses": len(lm_refs)}


def _phrase_table_builder():
    try:
        from core.data.phrase_table_builder import build_phrase_table
    except ImportError as error:
        raise StageSkipped(f"core.data.phrase_table_builder is not available ({error})") from None
    return build_phrase_table


def stage_phrase_table(context: BuildContext) -> dict:
    build_phrase_table = _phrase_table_builder()
    web = read_lines(context.path("corpus", "train.web"))
    rv = read_lines(context.path("corpus", "train.rv"))
    output = context.path("tables", "web-rv.phrase-table.gz")
    stats = build_phrase_table(web, rv, output, max_length=MAX_PHRASE_LENGTH, seed=ALIGNMENT_SEED)
    return {"training_corpus": "corpus/train.web", "training_lines": len(web), **stats}


def stage_pivot(context: BuildContext) -> dict:
    try:
        from core.pivot import pivot_table
    except ImportError as error:
        raise StageSkipped(f"core.pivot is not available ({error})") from None
    table = context.path("tables", "web-rv.phrase-table.gz")
    if not table.exists():
        raise StageSkipped(f"{table} is missing: run the phrase-table stage first")
    return pivot_table(table, context.path("tables", "paraphrase-table.gz"), **PIVOT_PARAMETERS)


def moses_to_paraphrase_table(moses_table: Path, output: Path, *, top: int = WEBKJV_TOP) -> dict:
    """``e1 ||| e2 ||| p(e2|e1)`` from a WEB->KJV Moses table, p(e2|e1) being its p(e|f) (third score).

    Identical pairs are dropped (they are not paraphrases) and the ``top`` most probable
    e2 of each e1 kept, as for the pivot table; ties broken by e2.
    """
    best: dict[str, list[tuple[float, str]]] = {}
    pairs_in = identical = 0
    with open_text_maybe_gzip(moses_table) as handle:
        for line in handle:
            fields = line.rstrip("\n").split(" ||| ")
            pairs_in += 1
            source, target, scores = fields[0], fields[1], fields[2].split()
            if source == target:
                identical += 1
                continue
            probability = float(scores[2])
            heap = best.setdefault(source, [])
            # Min-heap of the best `top`: (probability, reversed tie-break) so the smallest is dropped first.
            entry = (probability, _reverse_order_key(target), target)
            if len(heap) < top:
                heapq.heappush(heap, entry)
            elif entry > heap[0]:
                heapq.heapreplace(heap, entry)
    pairs_out = 0
    with atomic_output(output) as handle:
        for source in sorted(best):
            for probability, _, target in sorted(best[source], key=lambda item: (-item[0], item[2])):
                handle.write(f"{source} ||| {target} ||| {probability!r}\n")
                pairs_out += 1
    return {"phrase_pairs_in": pairs_in, "identical_pairs_dropped": identical, "source_phrases": len(best),
            "paraphrase_pairs_out": pairs_out, "top": top}


def _reverse_order_key(text: str) -> tuple[int, ...]:
    # Larger for alphabetically smaller strings, so the heap keeps the alphabetically first on ties.
    return tuple(-ord(character) for character in text) + (1,)


def stage_webkjv_table(context: BuildContext) -> dict:
    build_phrase_table = _phrase_table_builder()
    web = read_lines(context.path("corpus", "train.web"))
    kjv = read_lines(context.path("corpus", "train.kjv"))
    moses = context.path("tables", "web-kjv.phrase-table.gz")
    aligned = build_phrase_table(web, kjv, moses, max_length=MAX_PHRASE_LENGTH, seed=ALIGNMENT_SEED)
    converted = moses_to_paraphrase_table(moses, context.path("tables", "web-kjv.paraphrase-table.gz"))
    return {"training_corpus": "corpus/train.web", "training_lines": len(web), "phrase_table": aligned,
            "paraphrase_table": converted}


def _train_lm():
    try:
        from core.kenlm_tools import train_lm
    except ImportError as error:
        raise StageSkipped(f"core.kenlm_tools is not available ({error})") from None
    return train_lm


def stage_lm(context: BuildContext) -> dict:
    train_lm = _train_lm()
    corpus = context.path("corpus", "lm-train.web")
    if not corpus.exists():
        raise StageSkipped(f"{corpus} is missing: run the split stage first")
    full = train_lm(corpus, LM_ORDER, context.path("lm", f"web.{LM_ORDER}gram.bin"))
    demo = train_lm(corpus, DEMO_LM["order"], context.path("lm", "web.demo.bin"), prune=DEMO_LM["prune"],
                    binary_type=DEMO_LM["binary_type"], quantize_bits=DEMO_LM["quantize_bits"])
    return {"corpus_lines": sum(1 for _ in open(corpus, encoding="utf-8")), "order": LM_ORDER,
            "full_bytes": full.stat().st_size, "demo_bytes": demo.stat().st_size, "demo": DEMO_LM,
            "kjv_added": False}


def stage_testcases(context: BuildContext) -> dict:
    stats = {}
    for part in ("dev", "test"):
        refs = read_lines(context.path("split", f"{part}.ids"))
        web = read_lines(context.path("corpus", f"{part}.web"))
        kjv = read_lines(context.path("corpus", f"{part}.kjv"))
        report = CaseReport()
        cases = build_cases(zip(refs, web, kjv), report)
        _write_jsonl(context.path("testcases", f"{part}.jsonl"), (case.as_json() for case in cases))
        stats[part] = report.as_json()
    return stats


def prune_paraphrase_table(table: Path, output: Path, *, max_source_length: int, top: int, min_prob: float,
                           significant_digits: int) -> dict:
    """Keep the ``top`` most probable e2 (p >= ``min_prob``) of each e1 of at most ``max_source_length`` tokens.

    ``table`` must be sorted by e1 with p(e2|e1) descending within each e1, as ``core.pivot`` writes it.
    """
    kept = read = 0
    current, rank, previous = None, 0, 0.0
    with open_text_maybe_gzip(table) as reader, atomic_output(output) as writer:
        for line_number, line in enumerate(reader, 1):
            read += 1
            source, target, scores = line.rstrip("\n").split(" ||| ")[:3]
            values = [float(value) for value in scores.split()]
            if source != current:
                current, rank, previous = source, 0, values[0]
            elif values[0] > previous:
                raise InputFormatError(str(table), line_number, "p(e2|e1) descending within each e1", line.strip())
            rank += 1
            previous = values[0]
            if rank <= top and values[0] >= min_prob and source.count(" ") < max_source_length:
                numbers = " ".join(f"{value:.{significant_digits}g}" for value in values)
                writer.write(f"{source} ||| {target} ||| {numbers}\n")
                kept += 1
    return {"pairs_in": read, "pairs_kept": kept}


def _copy_atomically(source: Path, destination: Path) -> None:
    # Byte for byte: atomic_output would gzip a .gz destination a second time.
    temporary = destination.with_name(f".{destination.name}.part")
    shutil.copyfile(source, temporary)
    temporary.chmod(0o644)
    os.replace(temporary, destination)


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
    }
    missing = [str(path) for path in sources.values() if not path.exists()]
    copied = {}
    context.demo.mkdir(parents=True, exist_ok=True)
    for name, source in sources.items():
        if source.exists():
            _copy_atomically(source, context.demo / name)
            copied[name] = source.stat().st_size
    present = [name for name in DEMO_FILES if (context.demo / name).exists()]
    with atomic_output(context.demo / "MANIFEST") as handle:
        for name in present:
            handle.write(f"{sha256_of(context.demo / name)}  {name}\n")
    total = sum((context.demo / name).stat().st_size for name in present)
    if total > DEMO_BUDGET_BYTES:
        context.say(f"  WARNING: demo is {total / 2**20:.1f} MB, over the 25 MB budget")
    stats = {"files": {name: (context.demo / name).stat().st_size for name in present}, "total_bytes": total,
             "copied": sorted(copied), "table_pruning": pruning}
    if missing:
        stats["missing_inputs"] = missing
    return stats


def stage_manifest(context: BuildContext) -> dict:
    artifacts = sorted(path for path in context.build.rglob("*")
                       if path.is_file() and path.name not in {"MANIFEST", "report.json"} and ".part" not in path.name)
    with atomic_output(context.path("MANIFEST")) as handle:
        for path in artifacts:
            handle.write(f"{sha256_of(path)}  {path.relative_to(context.build)}\n")
    return {"artifacts": len(artifacts), "bytes": sum(path.stat().st_size for path in artifacts)}


def _record(report_path: Path, update: dict) -> dict:
    """Merge ``update`` into the report on disk (re-read first, so runs of separate stages all keep their entries)."""
    report = json.loads(report_path.read_text(encoding="utf-8")) if report_path.exists() else {}
    report.setdefault("stages", {}).update(update.pop("stages", {}))
    report.update(update)
    report["stages"] = {stage: report["stages"][stage] for stage in STAGES if stage in report["stages"]}
    with atomic_output(report_path) as handle:
        json.dump(report, handle, indent=1, default=str)
        handle.write("\n")
    return report


STAGE_FUNCTIONS: dict[str, Callable[[BuildContext], dict]] = {
    "extract": stage_extract, "tokenize": stage_tokenize, "split": stage_split, "phrase-table": stage_phrase_table,
    "pivot": stage_pivot, "webkjv-table": stage_webkjv_table, "lm": stage_lm, "testcases": stage_testcases,
    "demo": stage_demo, "manifest": stage_manifest,
}


def run_build(out: Path | None = None, stages: Iterable[str] | None = None, *,
              say: Callable[[str], None] | None = None, progress: Callable[..., Iterable] | None = None) -> dict:
    """Run ``stages`` (all by default, always in pipeline order); return and save the report."""
    context = BuildContext(Path(out) if out else default_out_dir())
    if say:
        context.say = say
    if progress:
        context.progress = progress
    wanted = list(STAGES) if not stages else [stage for stage in STAGES if stage in set(stages)]
    unknown = set(stages or ()) - set(STAGES)
    if unknown:
        raise ValueError(f"unknown stage(s) {', '.join(sorted(unknown))}; expected some of {', '.join(STAGES)}")
    report_path = context.path("report.json")
    total_started = time.perf_counter()
    for stage in wanted:
        context.say(f"[{stage}]")
        started = time.perf_counter()
        try:
            stats = STAGE_FUNCTIONS[stage](context)
            status = "done"
        except StageSkipped as reason:
            stats, status = {"reason": str(reason)}, "skipped"
            context.say(f"  skipped: {reason}")
        seconds = time.perf_counter() - started
        context.say(f"  {status} in {seconds:.1f} s")
        entry = {"status": status, "seconds": round(seconds, 2), "stats": stats}
        context.report = _record(report_path, {"stages": {stage: entry}})
    context.report = _record(report_path, {"last_run": {"stages": wanted,
                                                        "seconds": round(time.perf_counter() - total_started, 2)}})
    return context.report
