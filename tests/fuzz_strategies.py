"""Generators of the files a careless or unlucky user hands us, shared by the fuzz tests.

Each draws a file in one of our input formats, mostly well formed, with
lines, fields or numbers spoiled here and there; :func:`fuzz_support.damage`
then spoils the bytes.
"""

from __future__ import annotations

import math

from hypothesis import strategies as st

WORDS = ["the", "dog", "a", "cat", "runs", "old", "x"]
phrases = st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join)
probabilities = st.floats(min_value=1e-6, max_value=1.0)
bad_numbers = st.sampled_from(["nan", "NaN", "inf", "-inf", "1e400", "-0.5", "0", "1.5", "abc", "", "1_000",
                               "\u0663", "-0", "1e-400", "+0.5", "0.5.5", "0x1"])
numbers = st.one_of(probabilities.map(repr), bad_numbers, st.floats().map(repr))
junk = st.text(alphabet=st.sampled_from(list("ab |\t019.e-+naf\\x\r\"',\x0b")), max_size=40)


@st.composite
def table_files(draw):
    """(text, the rules a clean Moses table holds, or None when some line is not clean)."""
    lines, rules, clean = [], [], True
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["rule", "rule", "rule", "bad-number", "junk", "tsv", "blank"]))
        source, target, probability = draw(phrases), draw(phrases), draw(probabilities)
        extra = " ".join(draw(st.lists(numbers, max_size=2)))
        if kind == "rule":
            lines.append(f"{source} ||| {target} ||| {probability!r}")
            rules.append((tuple(source.split()), tuple(target.split()), probability))
            continue
        clean = clean and kind == "blank"
        lines.append({"bad-number": f"{source} ||| {target} ||| {draw(numbers)} {extra}",
                      "junk": draw(junk), "tsv": f"{source}\t{target}\t{draw(numbers)}", "blank": ""}[kind])
    return "\n".join(lines) + ("\n" if lines and draw(st.booleans()) else ""), rules if clean else None


LABELS = ["yes", "no", "1", "3", "0", "2.5", "nan", "inf", "-1", "1e999", "y\x00es", "y\x01es", "", " ", "ja",
          '"yes', 'a,"b"', "\u00e9t\u00e9"]
cells = st.one_of(st.sampled_from(LABELS), st.sampled_from(["1", "2", "ann1", "ann2", "fluency", "meaning"]), junk)


@st.composite
def csv_files(draw, header_columns):
    columns = list(header_columns)
    if draw(st.booleans()):
        columns = draw(st.permutations(columns))
    if draw(st.integers(0, 9)) == 0:
        columns = columns[:-1]
    rows = [",".join(columns)] if draw(st.integers(0, 9)) else []
    for _ in range(draw(st.integers(0, 8))):
        width = draw(st.sampled_from([len(columns), len(columns), len(columns) - 1, len(columns) + 1]))
        rows.append(",".join(draw(cells) for _ in range(max(0, width))))
    return "\n".join(rows) + "\n"


any_json = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(), st.text(max_size=8)),
                        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                      max_size=3), max_leaves=6)


@st.composite
def derivations(draw, source: list[str]):
    """A derivation of some candidate from ``source``: (candidate tokens, segments), maybe broken on purpose."""
    segments, target, position = [], [], 0
    while position < len(source):
        end = draw(st.integers(position + 1, min(len(source), position + 3)))
        words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=2)) if draw(st.booleans()) \
            else source[position:end]
        identity = words == source[position:end] and end == position + 1
        segments.append({"src": [position, end], "tgt": [len(target), len(target) + len(words)],
                         "source": " ".join(source[position:end]), "target": " ".join(words),
                         "p": 1.0 if identity else draw(probabilities), "identity": identity})
        target += words
        position = end
    return target, segments


@st.composite
def candidate_records(draw):
    source = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=5))
    tokens, derivation = draw(derivations(source))
    record = {"sentence_id": draw(st.integers(0, 3)), "system": "beam", "rank": draw(st.integers(1, 5)),
              "text": " ".join(tokens), "model_score": -draw(st.floats(0, 50)), "true_score": -draw(st.floats(0, 50)),
              "derivation": derivation, "params": {"table": "t"}, "source": " ".join(source)}
    for _ in range(draw(st.integers(0, 2))):  # spoil a field, or none
        key = draw(st.sampled_from(sorted(record) + ["derivation.0.src", "derivation.0.p"]))
        value = draw(st.one_of(any_json, st.sampled_from([math.nan, math.inf, -1, 0, 1.5, "x", [], {}])))
        if key.startswith("derivation."):
            _, index, field = key.split(".")
            segments = record.get("derivation")
            if isinstance(segments, list) and segments and isinstance(segments[0], dict):
                segments[int(index)][field] = value
        elif draw(st.integers(0, 4)):
            record[key] = value
        else:
            record.pop(key)
    return record


@st.composite
def arpa_files(draw):
    """A bigram ARPA model over a small vocabulary, then perhaps spoiled (a count, a number, a line, its end)."""
    vocabulary = ["<unk>", "<s>", "</s>"] + draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=5,
                                                          unique=True))
    log10 = st.floats(-5, 0).map(lambda v: f"{v:.4f}")
    unigrams = [f"{draw(log10) if w != '<s>' else '-99'}\t{w}\t{draw(log10)}" for w in vocabulary]
    pairs = draw(st.lists(st.tuples(st.sampled_from(vocabulary[1:]), st.sampled_from(vocabulary[2:])),
                          min_size=1, max_size=6, unique=True))
    bigrams = [f"{draw(log10)}\t{a} {b}" for a, b in pairs]
    lines = ["\\data\\", f"ngram 1={len(unigrams)}", f"ngram 2={len(bigrams)}", "", "\\1-grams:", *unigrams, "",
             "\\2-grams:", *bigrams, "", "\\end\\"]
    spoil = draw(st.sampled_from(["none", "none", "count", "number", "drop", "duplicate", "end"]))
    if spoil == "count":
        order, count = draw(st.sampled_from(["1", "2", "3"])), draw(st.integers(-1, 9))
        lines[draw(st.sampled_from([1, 2]))] = f"ngram {order}={count}"
    elif spoil == "number":
        index = draw(st.integers(5, len(lines) - 2))
        fields = lines[index].split("\t")
        if len(fields) > 1:
            fields[draw(st.sampled_from([0, len(fields) - 1]))] = draw(st.sampled_from(
                ["nan", "inf", "0.5", "1e400", "x", "-inf", ""]))
            lines[index] = "\t".join(fields)
    elif spoil in ("drop", "duplicate"):
        index = draw(st.integers(0, len(lines) - 1))
        lines[index:index + 1] = [] if spoil == "drop" else [lines[index]] * 2
    elif spoil == "end":
        lines = lines[: draw(st.integers(0, len(lines) - 1))]
    return "\n".join(lines) + "\n"


# The dev-set fields whose type the reader checks (core/tuning/devset_record_check.py): where a spoiled value goes.
DEVSET_SPOILS = ["id", "study", "item", "sentence_id", "source", "candidate", "references", "references.0", "system",
                 "systems", "systems.0", "systems.0.rank", "systems.0.model_score", "systems.0.params", "provenance",
                 "provenance.tables", "provenance.lm", "model_score", "true_score", "derivation", "derivation.0",
                 "derivation.0.src", "derivation.0.tgt", "derivation.0.source", "derivation.0.target",
                 "derivation.0.p", "derivation.0.identity", "replacements", "replacements.0", "replacements.0.src",
                 "replacements.0.source", "replacements.0.target", "replacements.0.label", "replacements.0.unit",
                 "judgments", "judgments.0", "judgments.0.criterion", "judgments.0.verdict", "judgments.0.label",
                 "judgments.0.labels", "judgments.0.labels.0.value", "acceptable"]


@st.composite
def devset_records(draw):
    """``(record, spoiled)``: a dev-set record as ``export-devset`` writes it, perhaps with fields of the wrong type
    (or missing) on purpose."""
    source = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=5))
    tokens, derivation = draw(derivations(source))
    labels = [{"annotator": "ann1", "value": draw(st.sampled_from(["yes", "no", "3"]))}]
    replacements = [{"unit": unit, "segment": index, "src": s["src"], "tgt": s["tgt"], "source": s["source"],
                     "target": s["target"], "p": s["p"], "rule": f"{s['source']} ||| {s['target']}",
                     "origin": "derived", "criterion": "meaning", "labels": labels, "adjudication": None,
                     "label": draw(st.sampled_from(["correct", "incorrect", None])), "status": "agree", "reason": None}
                    for unit, (index, s) in enumerate((i, s) for i, s in enumerate(derivation) if not s["identity"])]
    record = {"id": "u:1", "study": "s", "item": "1", "sentence_id": draw(st.integers(0, 3)),
              "source": " ".join(source), "candidate": " ".join(tokens), "references": [" ".join(source)],
              "system": "beam", "systems": [{"system": "beam", "rank": draw(st.integers(1, 5)), "model_score": -1.5,
                                             "true_score": -2.0, "params": "{}"}],
              "provenance": {"tables": ["table.gz"], "lm": None, "params": "null"},
              "model_score": -draw(st.floats(0, 50)), "true_score": -draw(st.floats(0, 50)), "derivation": derivation,
              "replacements": replacements,
              "judgments": [{"criterion": "meaning", "labels": labels, "adjudication": None, "label": "yes",
                             "status": "agree", "reason": None, "verdict": "positive"}],
              "acceptable": draw(st.sampled_from([True, False, None])), "aggregate": "agree"}
    spoiled = False
    for _ in range(draw(st.integers(0, 2))):
        *parents, last = draw(st.sampled_from(DEVSET_SPOILS)).split(".")
        container = record
        for part in parents:
            container = _child(container, part)
        if isinstance(container, list) and container and last.isdigit():
            key = int(last)
        elif isinstance(container, dict):
            key = last
        else:  # an earlier spoil left no place for this one
            continue
        if isinstance(container, dict) and draw(st.integers(0, 4)) == 0:
            container.pop(key, None)
        else:
            container[key] = draw(st.one_of(any_json, st.sampled_from(
                [math.nan, math.inf, -1, 0, 1.5, 3, 10 ** 400, "x", [], {}, [0], [2, 1], [0.5, 1], True])))
        spoiled = True
    return record, spoiled


def _child(container, part):
    if isinstance(container, dict):
        return container.get(part)
    if isinstance(container, list) and container and part.isdigit():
        return container[int(part)]
    return None
