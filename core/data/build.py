"""``parastudio data build``: the whole evaldata pipeline, stage by stage, each stage timed.

Stages (in order; each reads what the earlier ones wrote under ``OUT/build``, so
any stage can be rerun alone):

=============  ===============================================================
extract        SWORD modules -> ``corpus/verses.jsonl`` (plain text by OSIS ref)
tokenize       -> ``corpus/tokenized.jsonl`` (``core.engine.tokenization``)
split          -> ``split/*.ids`` and the parallel ``corpus/{train,dev,test}.*``
phrase-table   WEB -> RV1909 Moses phrase table (part B's eflomal builder)
pivot          pivot paraphrase table over the RV1909 pivot (``core.tablebuild.pivot``)
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
import json
import os
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from core.textio import atomic_output, open_text_maybe_gzip
from core.tablebuild.table_converters import moses_to_paraphrase_table, prune_paraphrase_table
from core.data import sword_extract
from core.data.corpus_split import split_by_chapter, training_refs
from core.data.testcases import CaseReport, build_cases
from core.engine.tokenization import POLICY as TOKENIZATION_POLICY
from core.engine.tokenization import tokenize

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
# The big intermediate tables: gzip level 6 writes about three times faster than 9 for ~2% more bytes.
# The committed demo keeps the default level 9 (its sha256 is in the MANIFEST).
TABLE_GZIP_LEVEL = 6
# Two chains of stages that share nothing but the split run side by side, one per core: each is
# single-threaded (eflomal with one thread and DuckDB with one thread, both for bit-identical output).
CONCURRENT_CHAINS = (("phrase-table", "pivot"), ("webkjv-table", "lm", "testcases"))
DEMO_FILES = ("paraphrase-table.gz", "lm.bin", "test.en", "test.ref.en", "testcases.jsonl", "candidates.jsonl")
# The demo study's candidates: the beam decoder's 2-best of every test verse.
DEMO_CANDIDATES_NBEST = 2


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
    install: bool = True  # apt-get the missing SWORD packages when root; else only say what to install
    jobs: int = 2  # processes for the stages that can use two

    @property
    def build(self) -> Path:
        return self.out / "build"

    @property
    def demo(self) -> Path:
        return self.out / "demo"

    @property
    def split_record(self) -> Path:
        """``OUT/split``: the small, committed record of the split that lets CI check disjointness."""
        return self.out / "split"

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
    installed = sword_extract.ensure_packages(install=context.install)
    texts: dict[str, dict[str, str]] = {}
    unknown_to_spaced: dict[str, list[str]] = {}
    context.say(f"  reading {', '.join(sword_extract.MODULES.values())}")
    with _process_pool(context.jobs) as pool:  # one module per process
        extracted = list(pool.map(sword_extract.extract_module, sword_extract.MODULES.values()))
    for name, (verses, unknown) in zip(sword_extract.MODULES, extracted):
        texts[name], unknown_to_spaced[name] = verses, unknown
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


def _tokenize_rows(rows: list[dict]) -> list[dict]:
    return [{"ref": row["ref"], **{name: tokenize(row[name], lang) if row.get(name) else None
                                   for name, lang in LANGUAGES.items()}} for row in rows]


def stage_tokenize(context: BuildContext) -> dict:
    rows = _read_jsonl(context.path("corpus", "verses.jsonl"))
    chunks = [rows[start:start + 2000] for start in range(0, len(rows), 2000)]
    tokenized: list[dict] = []
    # Verses are independent: chunks go to `jobs` processes and come back in order.
    with _process_pool(context.jobs) as pool:
        for done in context.progress(pool.map(_tokenize_rows, chunks), desc="tokenize", unit="chunk",
                                     total=len(chunks)):
            tokenized.extend(done)
    tokens = collections.Counter()
    for row in tokenized:
        for name in LANGUAGES:
            if row[name]:
                tokens[name] += row[name].count(" ") + 1
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
    _write_split_record(context, split, rows, train, lm_refs)
    return {**split.procedure, "test": len(split.test), "dev": len(split.dev),
            "heldout_chapter_verses": heldout_verses,
            "dropped_as_duplicate_text": len(candidates) - heldout_verses - len(train),
            "train_parallel": len(train), "lm_train_verses": len(lm_refs)}


def _write_split_record(context: BuildContext, split, rows: list[dict], train: list[str], lm_refs: list[str]) -> None:
    """The committed ``OUT/split``: test/dev ids, held-out chapters, every held-out verse in all three
    tokenized texts, and the training ids (gzipped). ``provenance.json`` (demo stage) ties them to the demo."""
    record = context.split_record
    _write_lines(record / "test.ids", split.test)
    _write_lines(record / "dev.ids", split.dev)
    _write_lines(record / "heldout-chapters.txt", split.heldout_chapters)
    _write_jsonl(record / "heldout-verses.jsonl.gz",
                 ({"ref": row["ref"], **{name: row.get(name) for name in LANGUAGES}}
                  for row in rows if split.is_heldout(row["ref"])))
    _write_lines(record / "train.ids.gz", train)
    _write_lines(record / "lm-train.ids.gz", lm_refs)
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


def _phrase_table_builder():
    try:
        from core.tablebuild.phrase_table_builder import build_phrase_table
    except ImportError as error:
        raise StageSkipped(f"core.tablebuild.phrase_table_builder is not available ({error})") from None
    return build_phrase_table


def stage_phrase_table(context: BuildContext) -> dict:
    build_phrase_table = _phrase_table_builder()
    web = read_lines(context.path("corpus", "train.web"))
    rv = read_lines(context.path("corpus", "train.rv"))
    output = context.path("tables", "web-rv.phrase-table.gz")
    inputs = _sha256_of_inputs(context, "corpus/train.web", "corpus/train.rv")
    stats = build_phrase_table(web, rv, output, max_length=MAX_PHRASE_LENGTH, seed=ALIGNMENT_SEED,
                               compresslevel=TABLE_GZIP_LEVEL)
    return {"training_corpus": "corpus/train.web", "training_lines": len(web), "inputs_sha256": inputs,
            "output_sha256": sha256_of(output), **stats}


def _sha256_of_inputs(context: BuildContext, *names: str) -> dict[str, str]:
    # Taken when a stage reads its inputs, so the report says what each artifact was built from.
    return {name: sha256_of(context.path(*name.split("/"))) for name in names}


def stage_pivot(context: BuildContext) -> dict:
    try:
        from core.tablebuild.pivot import pivot_table
    except ImportError as error:
        raise StageSkipped(f"core.tablebuild.pivot is not available ({error})") from None
    table = context.path("tables", "web-rv.phrase-table.gz")
    if not table.exists():
        raise StageSkipped(f"{table} is missing: run the phrase-table stage first")
    inputs = _sha256_of_inputs(context, "tables/web-rv.phrase-table.gz")
    output = context.path("tables", "paraphrase-table.gz")
    stats = pivot_table(table, output, **PIVOT_PARAMETERS, compresslevel=TABLE_GZIP_LEVEL)
    return {"inputs_sha256": inputs, "output_sha256": sha256_of(output), **stats}


def stage_webkjv_table(context: BuildContext) -> dict:
    build_phrase_table = _phrase_table_builder()
    web = read_lines(context.path("corpus", "train.web"))
    kjv = read_lines(context.path("corpus", "train.kjv"))
    moses = context.path("tables", "web-kjv.phrase-table.gz")
    aligned = build_phrase_table(web, kjv, moses, max_length=MAX_PHRASE_LENGTH, seed=ALIGNMENT_SEED,
                                 compresslevel=TABLE_GZIP_LEVEL)
    converted = moses_to_paraphrase_table(moses, context.path("tables", "web-kjv.paraphrase-table.gz"), top=WEBKJV_TOP,
                                          compresslevel=TABLE_GZIP_LEVEL)
    return {"training_corpus": "corpus/train.web", "training_lines": len(web), "phrase_table": aligned,
            "paraphrase_table": converted}


def _train_lm():
    try:
        from core.engine.kenlm_tools import train_lm
    except ImportError as error:
        raise StageSkipped(f"core.engine.kenlm_tools is not available ({error})") from None
    return train_lm


def stage_lm(context: BuildContext) -> dict:
    train_lm = _train_lm()
    corpus = context.path("corpus", "lm-train.web")
    if not corpus.exists():
        raise StageSkipped(f"{corpus} is missing: run the split stage first")
    inputs = _sha256_of_inputs(context, "corpus/lm-train.web")
    full = train_lm(corpus, LM_ORDER, context.path("lm", f"web.{LM_ORDER}gram.bin"))
    demo = train_lm(corpus, DEMO_LM["order"], context.path("lm", "web.demo.bin"), prune=DEMO_LM["prune"],
                    binary_type=DEMO_LM["binary_type"], quantize_bits=DEMO_LM["quantize_bits"])
    return {"corpus_lines": sum(1 for _ in open(corpus, encoding="utf-8")), "order": LM_ORDER,
            "full_bytes": full.stat().st_size, "demo_bytes": demo.stat().st_size, "demo": DEMO_LM,
            "kjv_added": False, "inputs_sha256": inputs, "demo_sha256": sha256_of(demo)}


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


def _copy_atomically(source: Path, destination: Path) -> None:
    # Byte for byte: atomic_output would gzip a .gz destination a second time.
    temporary = destination.with_name(f".{destination.name}.part")
    shutil.copyfile(source, temporary)
    temporary.chmod(0o644)
    os.replace(temporary, destination)


def write_demo_candidates(demo: Path) -> None:
    """``candidates.jsonl``: what ``parastudio generate --system beam --nbest 2 --json`` prints for
    ``test.en``, with paths relative to the demo folder and no timings, so rebuilds are byte-identical."""
    from core.engine.generation import generate
    from core.engine.lm import LanguageModel
    from core.engine.paraphrase_table import ParaphraseTable

    table = ParaphraseTable.load(demo / "paraphrase-table.gz")
    lm = LanguageModel(demo / "lm.bin")
    sentences = [line.split() for line in (demo / "test.en").read_text(encoding="utf-8").splitlines()]
    with atomic_output(demo / "candidates.jsonl") as handle:
        for candidate in generate("beam", sentences, [table], lm, nbest=DEMO_CANDIDATES_NBEST):
            record = candidate.to_json()
            record["params"].pop("seconds", None)
            record["params"]["tables"] = ["paraphrase-table.gz"]
            record["params"]["lm"] = "lm.bin"
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


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
    if all((context.demo / name).exists() for name in ("paraphrase-table.gz", "lm.bin", "test.en")):
        write_demo_candidates(context.demo)
    present = [name for name in DEMO_FILES if (context.demo / name).exists()]
    with atomic_output(context.demo / "MANIFEST") as handle:
        for name in present:
            handle.write(f"{sha256_of(context.demo / name)}  {name}\n")
    total = sum((context.demo / name).stat().st_size for name in present)
    if total > DEMO_BUDGET_BYTES:
        context.say(f"  WARNING: demo is {total / 2**20:.1f} MB, over the 25 MB budget")
    stats = {"files": {name: (context.demo / name).stat().st_size for name in present}, "total_bytes": total,
             "copied": sorted(copied), "table_pruning": pruning}
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
        },
    }
    with atomic_output(context.split_record / "provenance.json") as handle:
        json.dump(provenance, handle, indent=1, sort_keys=True)
        handle.write("\n")


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


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its finished subprocesses (eflomal, lmplz, tokenizer workers)."""
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _run_stage(context: BuildContext, stage: str) -> dict:
    context.say(f"[{stage}]")
    started = time.perf_counter()
    cpu_started = _cpu_seconds()
    try:
        stats = STAGE_FUNCTIONS[stage](context)
        status = "done"
    except StageSkipped as reason:
        stats, status = {"reason": str(reason)}, "skipped"
        context.say(f"  [{stage}] skipped: {reason}")
    seconds = time.perf_counter() - started
    cpu = _cpu_seconds() - cpu_started
    context.say(f"  [{stage}] {status} in {seconds:.1f} s ({cpu:.1f} s CPU)")
    return {"status": status, "seconds": round(seconds, 2), "cpu_seconds": round(cpu, 2), "stats": stats}


def _process_pool(workers: int):
    import concurrent.futures
    import multiprocessing

    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    return concurrent.futures.ProcessPoolExecutor(max(1, workers), mp_context=multiprocessing.get_context(method))


def _run_chain_in_child(out: Path, stages: list[str]) -> list[tuple[str, dict]]:
    # Runs in the second process; the parent records the entries (one writer for report.json).
    context = BuildContext(out)
    return [(stage, _run_stage(context, stage)) for stage in stages]


def _concurrent_chains(wanted: list[str], jobs: int) -> tuple[list[str], list[str]] | None:
    """The two chains to run side by side, or None when fewer than two have work or ``jobs`` < 2."""
    if jobs < 2:
        return None
    chains = [[stage for stage in chain if stage in wanted] for chain in CONCURRENT_CHAINS]
    if not all(chains):
        return None
    return chains[0], chains[1]


def run_build(out: Path | None = None, stages: Iterable[str] | None = None, *,
              say: Callable[[str], None] | None = None, progress: Callable[..., Iterable] | None = None,
              jobs: int = 2, install: bool = True) -> dict:
    """Run ``stages`` (all by default, in pipeline order); return and save the report.

    With ``jobs`` >= 2 the WEB-KJV chain (``webkjv-table``, ``lm``, ``testcases``) runs in a second process
    while this one runs ``phrase-table`` and ``pivot``; a stage's seconds are then wall-clock seconds
    while the other chain was running too, and ``last_run.seconds`` is the build's total wall-clock time.
    """
    context = BuildContext(Path(out) if out else default_out_dir(), install=install, jobs=jobs)
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
    chains = _concurrent_chains(wanted, jobs)
    in_chains = {stage for chain in chains for stage in chain} if chains else set()
    concurrent_done = False
    for stage in wanted:
        if stage in in_chains:
            if concurrent_done:
                continue
            concurrent_done = True
            here, there = chains
            context.say(f"running {' -> '.join(here)} here and {' -> '.join(there)} in a second process")
            with _process_pool(1) as pool:
                other = pool.submit(_run_chain_in_child, context.out, there)
                for own_stage in here:
                    context.report = _record(report_path, {"stages": {own_stage: _run_stage(context, own_stage)}})
                for other_stage, entry in other.result():
                    context.report = _record(report_path, {"stages": {other_stage: entry}})
            continue
        context.report = _record(report_path, {"stages": {stage: _run_stage(context, stage)}})
    context.report = _record(report_path, {"last_run": {"stages": wanted, "jobs": jobs,
                                                        "concurrent_chains": [list(chain) for chain in chains or ()],
                                                        "seconds": round(time.perf_counter() - total_started, 2)}})
    return context.report
