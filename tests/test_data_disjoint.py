"""No dev or test verse, in any of the three texts, reaches a table or the LM.

Two layers:

* on a fresh clone (CI), from the committed ``evaldata/split`` record and ``evaldata/demo``:
  the demo's test files are exactly the test split's verses; the training ids avoid every held-out
  chapter; the demo LM and table trace back, by sha256 recorded when each was built, to training
  text made from those ids; and the tokens that occur *only* in held-out chapters of the whole corpus
  are neither in the demo LM's vocabulary nor in any phrase of the demo table (a leaked verse would
  bring its words with it);
* where ``evaldata/build`` exists, the same on the built files themselves: every training file is
  exactly the text of its ids and holds no held-out verse text.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest

from parastudio.core.evaldata.corpus_split import chapter_of

EVALDATA = Path(__file__).resolve().parent.parent / "evaldata"
SPLIT = EVALDATA / "split"
DEMO = EVALDATA / "demo"
BUILD = EVALDATA / "build"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_lines(path: Path) -> list[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return handle.read().splitlines()


# ----------------------------------------------------------------------------- committed record (runs on CI)

committed = pytest.mark.skipif(not (SPLIT / "provenance.json").exists() or not (DEMO / "MANIFEST").exists(),
                               reason="evaldata/split or evaldata/demo is not committed")


@pytest.fixture(scope="module")
def record():
    provenance = json.loads((SPLIT / "provenance.json").read_text(encoding="utf-8"))
    verses = {row["ref"]: row for row in map(json.loads, read_lines(SPLIT / "heldout-verses.jsonl.gz"))}
    return {
        "provenance": provenance,
        "test": read_lines(SPLIT / "test.ids"),
        "dev": read_lines(SPLIT / "dev.ids"),
        "heldout": set(read_lines(SPLIT / "heldout-chapters.txt")),
        "verses": verses,
        "train": read_lines(SPLIT / "train.ids.gz"),
        "lm-train": read_lines(SPLIT / "lm-train.ids.gz"),
        "only": json.loads((SPLIT / "heldout-only-words.json").read_text(encoding="utf-8")),
    }


@committed
def test_split_record_is_the_one_recorded_at_build_time(record):
    for name, digest in record["provenance"]["split_files_sha256"].items():
        assert sha256(SPLIT / name) == digest, name


@committed
def test_test_and_dev_lie_in_heldout_chapters_whose_every_verse_is_recorded(record):
    test, dev, heldout, verses = record["test"], record["dev"], record["heldout"], record["verses"]
    assert len(test) == len(set(test)) == 100 and len(dev) == len(set(dev)) == 1000
    assert not set(test) & set(dev)
    assert {chapter_of(ref) for ref in verses} == heldout
    assert set(test) | set(dev) <= set(verses)
    assert all(verses[ref][name] for ref in test + dev for name in ("web", "kjv", "rv"))


@committed
@pytest.mark.parametrize("ids", ["train", "lm-train"])
def test_training_ids_avoid_every_heldout_chapter(record, ids):
    refs = record[ids]
    assert refs and len(refs) == len(set(refs))
    assert not [ref for ref in refs if chapter_of(ref) in record["heldout"]]
    # The training text was made from exactly these ids: one line per id.
    provenance = record["provenance"]
    for text, ids_file in provenance["training_text_from_ids"].items():
        if ids_file == f"{ids}.ids.gz":
            assert provenance["training_text_lines"][text] == len(refs), text


@committed
def test_demo_test_files_are_exactly_the_test_verses(record):
    test, verses = record["test"], record["verses"]
    assert read_lines(DEMO / "test.en") == [verses[ref]["web"] for ref in test]
    assert read_lines(DEMO / "test.ref.en") == [verses[ref]["kjv"] for ref in test]
    order = {ref: index for index, ref in enumerate(test)}
    cases = [json.loads(line) for line in read_lines(DEMO / "testcases.jsonl")]
    refs = [case["id"].rsplit(":", 1)[0] for case in cases]  # "Gen.18.1:0": the verse's first case
    assert cases and set(refs) <= set(test)
    assert [order[ref] for ref in refs] == sorted(order[ref] for ref in refs)
    for case, ref in zip(cases, refs):
        tokens = verses[ref]["web"].split()
        assert case["sentence"] == verses[ref]["web"]
        start, end = case["span"]
        assert 0 <= start < end <= len(tokens) and case["gold"]
        assert tokens[start:end] != case["gold"].split()


@committed
def test_demo_lm_and_table_trace_back_to_the_training_ids(record):
    provenance = record["provenance"]
    text_sha = provenance["training_text_sha256"]
    lm = provenance["demo"]["lm.bin"]
    assert sha256(DEMO / "lm.bin") == lm["sha256"] == lm["built_by_stage_sha256"]
    assert lm["trained_on_sha256"] == {"corpus/lm-train.web": text_sha["corpus/lm-train.web"]}
    assert provenance["training_text_from_ids"]["corpus/lm-train.web"] == "lm-train.ids.gz"
    table = provenance["demo"]["paraphrase-table.gz"]
    assert sha256(DEMO / "paraphrase-table.gz") == table["sha256"]
    assert table["pruned_from_sha256"]["tables/paraphrase-table.gz"] == table["pivot_output_sha256"]
    assert table["pivoted_from_sha256"] == {"tables/web-rv.phrase-table.gz": table["phrase_table_output_sha256"]}
    assert table["phrase_table_trained_on_sha256"] == {
        name: text_sha[name] for name in ("corpus/train.web", "corpus/train.rv")}
    assert {provenance["training_text_from_ids"][name] for name in ("corpus/train.web", "corpus/train.rv")} == {
        "train.ids.gz"}


@committed
def test_no_heldout_only_word_is_in_the_demo_lm_vocabulary(record):
    import kenlm

    only = record["only"]["web"]
    assert len(only) > 50  # names and rare words of the held-out chapters: enough to catch a leaked verse
    model = kenlm.Model(str(DEMO / "lm.bin"))
    assert "the" in model and "yahweh" in model
    leaked = [word for word in only if word in model]
    assert not leaked, f"demo LM knows words seen only in held-out verses: {leaked[:10]}"


@committed
def test_the_demo_truecaser_knows_no_heldout_only_word(record):
    only = set(record["only"]["web"])
    words = set()
    for line in (DEMO / "truecase-model.en").read_text(encoding="utf-8").splitlines():
        words.update(entry.split(" (")[0].lower() for entry in line.split(") ") if entry)
    assert {"the", "yahweh", "mamre"} <= words  # it was trained on the training side of the WEB
    leaked = sorted(words & only)
    assert not leaked, f"the truecaser was trained on held-out verses: {leaked[:10]}"


@committed
def test_demo_table_holds_no_heldout_only_word_and_no_whole_heldout_verse(record):
    only = set(record["only"]["web"])
    whole = {row[name] for row in record["verses"].values() for name in ("web", "kjv") if row.get(name)}
    leaked, verses = [], []
    with gzip.open(DEMO / "paraphrase-table.gz", "rt", encoding="utf-8") as handle:
        for line in handle:
            e1, e2, _ = line.split(" ||| ", 2)
            if only.intersection(e1.split()) or only.intersection(e2.split()):
                leaked.append(line.strip())
            if e1 in whole or e2 in whole:
                verses.append(line.strip())
    assert not leaked, leaked[:5]
    assert not verses, verses[:5]


# ----------------------------------------------------------------------------- built files (where built)

NEEDED = ["split/split.json", "split/train.ids", "split/lm-train.ids", "corpus/tokenized.jsonl", "corpus/train.web",
          "corpus/train.kjv", "corpus/train.rv", "corpus/lm-train.web"]
built_here = pytest.mark.skipif(not all((BUILD / name).exists() for name in NEEDED),
                                reason="evaldata/build is not built (run `parastudio data build`)")


def lines(name: str) -> list[str]:
    return (BUILD / name).read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="module")
def built():
    split = json.loads((BUILD / "split/split.json").read_text(encoding="utf-8"))
    heldout = set(split["heldout_chapters"])
    verses = [json.loads(line) for line in lines("corpus/tokenized.jsonl")]
    by_ref = {row["ref"]: row for row in verses}
    heldout_texts = {name: {row[name] for row in verses if chapter_of(row["ref"]) in heldout and row.get(name)}
                     for name in ("web", "kjv", "rv")}
    return split, heldout, by_ref, heldout_texts


@built_here
def test_built_dev_and_test_verses_lie_in_heldout_chapters(built):
    split, heldout, _, _ = built
    assert len(split["test"]) == 100 and len(split["dev"]) == 1000
    assert not set(split["test"]) & set(split["dev"])
    assert all(chapter_of(ref) in heldout for ref in split["test"] + split["dev"])


@built_here
@pytest.mark.parametrize("ids, corpora", [
    ("split/train.ids", {"web": "corpus/train.web", "kjv": "corpus/train.kjv", "rv": "corpus/train.rv"}),
    ("split/lm-train.ids", {"web": "corpus/lm-train.web"}),
])
def test_built_training_text_holds_no_heldout_verse(built, ids, corpora):
    _, heldout, by_ref, heldout_texts = built
    refs = lines(ids)
    assert refs and not [ref for ref in refs if chapter_of(ref) in heldout]
    for name, path in corpora.items():
        text = lines(path)
        # The training file is exactly the texts of its ids, so checking ids checks the file.
        assert text == [by_ref[ref][name] for ref in refs]
        leaked = heldout_texts[name].intersection(text)
        assert not leaked, f"{path} contains held-out verses: {sorted(leaked)[:3]}"


@built_here
def test_built_files_are_the_ones_the_committed_record_names():
    if not (SPLIT / "provenance.json").exists():
        pytest.skip("evaldata/split is not committed")
    provenance = json.loads((SPLIT / "provenance.json").read_text(encoding="utf-8"))
    for name, digest in provenance["training_text_sha256"].items():
        assert sha256(BUILD / name) == digest, name
    assert read_lines(SPLIT / "train.ids.gz") == lines("split/train.ids")
    assert read_lines(SPLIT / "lm-train.ids.gz") == lines("split/lm-train.ids")


@built_here
def test_tables_and_lm_were_built_from_the_training_files():
    report = json.loads((BUILD / "report.json").read_text(encoding="utf-8"))["stages"]
    lm = report.get("lm", {})
    if lm.get("status") == "done":
        assert lm["stats"]["corpus_lines"] == len(lines("corpus/lm-train.web"))
        assert lm["stats"]["kjv_added"] is False
    for stage in ("phrase-table", "webkjv-table"):
        entry = report.get(stage, {})
        if entry.get("status") == "done":
            assert entry["stats"]["training_corpus"] == "corpus/train.web", entry["stats"]
            assert entry["stats"]["training_lines"] == len(lines("corpus/train.web"))
