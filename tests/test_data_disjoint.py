"""No dev or test verse, in any of the three texts, reaches a table or the LM (checked on the built artifacts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.data.corpus_split import chapter_of

BUILD = Path(__file__).resolve().parent.parent / "evaldata" / "build"
NEEDED = ["split/split.json", "split/train.ids", "split/lm-train.ids", "corpus/tokenized.jsonl", "corpus/train.web",
          "corpus/train.kjv", "corpus/train.rv", "corpus/lm-train.web"]

pytestmark = pytest.mark.skipif(
    not all((BUILD / name).exists() for name in NEEDED),
    reason="evaldata/build is not built (run `parastudio data build`); nothing to check",
)


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


def test_dev_and_test_verses_lie_in_heldout_chapters(built):
    split, heldout, _, _ = built
    assert len(split["test"]) == 100 and len(split["dev"]) == 1000
    assert not set(split["test"]) & set(split["dev"])
    assert all(chapter_of(ref) in heldout for ref in split["test"] + split["dev"])


@pytest.mark.parametrize("ids, corpora", [
    ("split/train.ids", {"web": "corpus/train.web", "kjv": "corpus/train.kjv", "rv": "corpus/train.rv"}),
    ("split/lm-train.ids", {"web": "corpus/lm-train.web"}),
])
def test_training_text_holds_no_heldout_verse(built, ids, corpora):
    _, heldout, by_ref, heldout_texts = built
    refs = lines(ids)
    assert refs and not [ref for ref in refs if chapter_of(ref) in heldout]
    for name, path in corpora.items():
        text = lines(path)
        # The training file is exactly the texts of its ids, so checking ids checks the file.
        assert text == [by_ref[ref][name] for ref in refs]
        leaked = heldout_texts[name].intersection(text)
        assert not leaked, f"{path} contains held-out verses: {sorted(leaked)[:3]}"


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
