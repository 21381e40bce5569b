"""How well the parser tags and attaches our verses: a hand-checked sample against the published accuracy.

``evaldata/parse-check/web-train-sample.conll`` holds gold Penn Treebank tags
and heads for 12 WEB training verses (229 tokens), made by correcting the
parser's output by hand. :func:`sample_accuracy` parses those verses again, once
with their casing recovered from the verse text (as the ``parse`` stage does)
and once lowercased with :func:`sentence_case` (as an input sentence is parsed
at generation time), and scores tags and unlabelled attachment as spaCy
reports them for its models: tag accuracy over every token, UAS over the
tokens that are not punctuation.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from parastudio.core.engine.tables.patterns.dependency_parse import DependencyParse
from parastudio.core.engine.text.display_text import cased_tokens
from parastudio.core.errors import InputFormatError
from parastudio.core.textio import open_text_maybe_gzip

GOLD_SAMPLE = Path(__file__).resolve().parents[2] / "evaldata" / "parse-check" / "web-train-sample.conll"
PUNCTUATION_TAGS = frozenset({",", ".", ":", "``", "''", "-LRB-", "-RRB-", "HYPH", "NFP"})
# en_core_web_sm 3.8.0's accuracy.json (OntoNotes 5 test set), as the wheel ships it.
PUBLISHED = {"tag_acc": 0.972937262, "dep_uas": 0.9176955214, "dep_las": 0.8991533598}


@dataclass(frozen=True)
class GoldVerse:
    line: int  # 0-based line of corpus/train.web
    ref: str
    words: tuple[str, ...]
    tags: tuple[str, ...]
    heads: tuple[int, ...]  # 0-based, -1 for a root


def read_gold(path: Path = GOLD_SAMPLE) -> list[GoldVerse]:
    verses: list[GoldVerse] = []
    current: dict | None = None

    def close() -> None:
        if current and current["words"]:
            verses.append(GoldVerse(current["line"], current["ref"], tuple(current["words"]), tuple(current["tags"]),
                                    tuple(current["heads"])))

    with open_text_maybe_gzip(path) as handle:
        for number, raw in enumerate(handle, start=1):
            line = raw.rstrip("\n")
            if line.startswith("# verse "):
                close()
                parts = line.split()
                if len(parts) != 4 or not parts[2].isdigit():
                    raise InputFormatError(str(path), number, "'# verse LINE REF'", line)
                current = {"line": int(parts[2]), "ref": parts[3], "words": [], "tags": [], "heads": []}
            elif line.startswith("#") or not line.strip():
                continue
            else:
                fields = line.split("\t")
                if current is None or len(fields) != 4 or not fields[0].isdigit() or not fields[3].isdigit() \
                        or int(fields[0]) != len(current["words"]) + 1:
                    raise InputFormatError(str(path), number, "ID<TAB>FORM<TAB>TAG<TAB>HEAD after a '# verse' line",
                                           line)
                current["words"].append(fields[1])
                current["tags"].append(fields[2])
                current["heads"].append(int(fields[3]) - 1)
    close()
    return verses


def accuracy(gold: Sequence[GoldVerse], parses: Sequence[DependencyParse]) -> dict:
    """Tag accuracy over all tokens; UAS over non-punctuation tokens (spaCy's scorer leaves punctuation out)."""
    tokens = tags_right = scored = heads_right = 0
    for verse, parse in zip(gold, parses, strict=True):
        if parse.words != verse.words:
            raise ValueError(f"verse {verse.ref}: the parse's words are not the gold words")
        for tag, head, parsed_tag, parsed_head in zip(verse.tags, verse.heads, parse.tags, parse.heads):
            tokens += 1
            tags_right += tag == parsed_tag
            if tag not in PUNCTUATION_TAGS:
                scored += 1
                heads_right += head == parsed_head
    return {"tokens": tokens, "tag_accuracy": tags_right / tokens if tokens else None,
            "uas_tokens": scored, "uas": heads_right / scored if scored else None}


def sample_accuracy(verse_texts: dict[str, str], parser, gold_path: Path = GOLD_SAMPLE) -> dict:
    """Accuracy on the gold sample with recovered casing and with lowercased input (``sentence_case``)."""
    gold = read_gold(gold_path)
    words = [list(verse.words) for verse in gold]
    cased = [cased_tokens(verse_texts[verse.ref], list(verse.words)) for verse in gold]
    return {"sample": str(gold_path.name), "verses": len(gold),
            "cased": accuracy(gold, list(parser.parse_many(words, cased))),
            "lowercased": accuracy(gold, list(parser.parse_many(words, None))),
            "published_en_core_web_sm_3.8.0": PUBLISHED}
