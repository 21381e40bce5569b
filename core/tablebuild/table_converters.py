"""Table converters: a bilingual Moses table read as a paraphrase table, and a paraphrase table pruned for size."""

from __future__ import annotations

import math
from pathlib import Path

from parastudio.core.errors import InputFormatError
from parastudio.core.number_text import is_decimal
from parastudio.core.textio import WriteBehind, atomic_output, open_text_maybe_gzip


def moses_to_paraphrase_table(moses_table: Path, output: Path, *, top: int = 20,
                              compresslevel: int = 6) -> dict:
    """``e1 ||| e2 ||| p(e2|e1)`` from a WEB->KJV Moses table, p(e2|e1) being its p(e|f) (third score).

    Identical pairs are dropped (they are not paraphrases) and the ``top`` most probable
    e2 of each e1 kept, as for the pivot table; ties broken by e2. Output is sorted by e1
    (code points), then p(e2|e1) descending, then e2. The lines of one e1 need not be adjacent.
    """
    candidates: dict[str, list[tuple[float, str]]] = {}
    pairs_in = identical = 0
    with open_text_maybe_gzip(moses_table) as handle:
        for line in handle:
            source, target, scores = line.split(" ||| ", 3)[:3]
            pairs_in += 1
            if source == target:
                identical += 1
                continue
            entry = (-float(scores.split(" ", 3)[2]), target)
            group = candidates.get(source)
            if group is None:
                candidates[source] = [entry]
            else:
                group.append(entry)
                if len(group) > 4 * top:  # bound memory on huge groups; keeps the same top entries
                    group.sort()
                    del group[top:]
    pairs_out = 0
    with atomic_output(output, compresslevel=compresslevel) as handle, WriteBehind(handle) as writer:
        batch: list[str] = []
        for source in sorted(candidates):
            best = sorted(candidates[source])[:top]
            batch.extend(f"{source} ||| {target} ||| {-negative!r}\n" for negative, target in best)
            pairs_out += len(best)
            if len(batch) >= 50_000:
                writer.write("".join(batch))
                batch.clear()
        writer.write("".join(batch))
    return {"phrase_pairs_in": pairs_in, "identical_pairs_dropped": identical, "source_phrases": len(candidates),
            "paraphrase_pairs_out": pairs_out, "top": top}


def prune_paraphrase_table(table: Path, output: Path, *, max_source_length: int, top: int, min_prob: float,
                           significant_digits: int) -> dict:
    """Keep the ``top`` most probable e2 (p >= ``min_prob``) of each e1 of at most ``max_source_length`` tokens.

    ``table`` must be sorted by e1 with p(e2|e1) descending within each e1, as ``core.tablebuild.pivot`` writes it.
    """
    kept = read = 0
    current, rank, previous = None, 0, 0.0
    with open_text_maybe_gzip(table) as reader, atomic_output(output) as handle, WriteBehind(handle) as writer:
        batch: list[str] = []
        for line_number, line in enumerate(reader, 1):
            read += 1
            source, target, scores = line.rstrip("\n").split(" ||| ")[:3]
            if source.count(" ") >= max_source_length:
                continue  # never kept; sources are distinct, so skipping leaves other ranks alone
            probability = float(scores.split(" ", 1)[0])
            if source != current:
                current, rank, previous = source, 0, probability
            elif probability > previous:
                raise InputFormatError(str(table), line_number, "p(e2|e1) descending within each e1", line.strip())
            rank += 1
            previous = probability
            if rank <= top and probability >= min_prob:
                numbers = " ".join(f"{float(value):.{significant_digits}g}" for value in scores.split())
                batch.append(f"{source} ||| {target} ||| {numbers}\n")
                kept += 1
                if len(batch) >= 10_000:
                    writer.write("".join(batch))
                    batch.clear()
        writer.write("".join(batch))
    return {"pairs_in": read, "pairs_kept": kept}


def _rule_problem(line: str, separator: str) -> str | None:
    """What a Moses (``separator`` " ||| ") or TSV line lacks to be a rule the table readers take (None: nothing):
    a pruned table must load as its original does, so ``prune`` copies no line they would refuse."""
    text = line.rstrip("\n")
    if not text.strip():
        return None
    if separator == " ||| ":
        fields = text.split("|||")
        shape = "'src ||| tgt ||| score [score ...]'"
        scores = fields[2].split() if len(fields) >= 3 else []
        if len(fields) >= 4 and fields[0].strip().startswith("[") and "=" in fields[3]:
            return None  # a PPDB line: its features are names, not numbers
    else:
        fields = text.split("\t")
        shape = "'src<TAB>tgt<TAB>prob'"
        scores = [field.strip() for field in fields[2:]]
    if len(fields) < 3 or not fields[0].strip() or not fields[1].strip() or not scores:
        return f"a rule {shape} with a source, a target and at least one score"
    for score in scores:
        try:
            finite = is_decimal(score) and math.isfinite(float(score))
        except ValueError:
            finite = False
        if not finite:
            return f"a rule {shape} whose scores are finite numbers"
    return None


def prune_rules(table: Path, exclude: set[tuple[str, str]], output: Path, *, inputs=()) -> dict:
    """``table`` without the rules whose (source, target) phrases are in ``exclude`` (a prune list from rule
    blame); Moses and TSV lines, plain or gzip, written atomically. The other rules are copied as they are;
    a line that is no rule stops the prune with ``file:line: expected ...`` and writes nothing.
    ``output`` may not be ``table`` or one of ``inputs`` (the prune list)."""
    read = dropped = 0
    with atomic_output(output, inputs=[table, *inputs]) as handle, open_text_maybe_gzip(table) as reader:
        for line in reader:
            read += 1
            separator = " ||| " if " ||| " in line else "\t"
            problem = _rule_problem(line, separator)
            if problem is not None:
                raise InputFormatError(str(table), reader.line_number, problem, line.rstrip("\n"))
            fields = line.split(separator, 2)
            if len(fields) >= 2 and (" ".join(fields[0].split()), " ".join(fields[1].split())) in exclude:
                dropped += 1
                continue
            handle.write(line if line.endswith("\n") else line + "\n")
    return {"rules_in": read, "rules_dropped": dropped, "rules_out": read - dropped}
