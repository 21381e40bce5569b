"""An independent count of where seed 001's golds are lost, for checking ``seed001-approaches.md`` (issue 26).

It shares nothing with the experiment's pipeline (no graph store, aligner,
retrieval or filter of ``core.engine.decoders.cat``): it parses the search graph's text
itself, finds each sentence's 1-best by back pointers from the best complete
hypothesis (the store follows ``forward`` links the other way; where the case's
sentence is another path, it must tie with that 1-best up to the graph's
rounding, and is counted), aligns the
selection by §3.4.1's rules written afresh, queries spans by §3.4.2's
``forward`` rule, applies PTPF, FWPF and SDPF as §3.4.4.1 defines them, and
asks at each stage whether chained pieces still spell the gold. Only the
function-word list is shared (it is data, not a stage).

The same words can have two derivations that tie up to the graph's rounding
(a hypothesis recombined into the best chain's, with another segmentation);
the graph's forward links, which made the case, may take the other one, and
the selection then touches other phrases. The count stays the back pointers';
where another derivation reaches other stages, ``--out`` records them per
case as ``tied derivations``, and says how many.

    python3 benchmarks/seed001_independent_counts.py CASES.jsonl GRAPH.gz [--table ES-EN-TABLE.gz] [--out COUNTS.json]

prints, as JSON, per stage the golds that pass it and every stage before it, for the partial filters of
approach 1 (PTPF) and approach 2 (PTPF FWPF SDPF).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

import Levenshtein

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from parastudio.core.engine.decoders.cat.function_words import FUNCTION_WORDS  # noqa: E402  (the list only)

LINE = re.compile(r"^(\d+) hyp=(\d+) stack=(\d+)(?: back=(-?\d+))?(?: score=(\S+))?(?: transition=(\S+))?"
                  r"(?: recombined=(\d+))?(?: forward=(-?\d+))?(?: fscore=(\S+))?(?: covered=(\d+)-(\d+))?"
                  r"(?: out=(.*))?$")
FOLLOW_LIMIT, SDPF_T = 4, 3


def read_graph(path):
    return dict(each_sentence(path))


def each_sentence(path):
    """``(sentence id, {hyp: node})`` one sentence at a time (a sentence's lines are contiguous), so a large
    graph need not fit in memory at once."""
    current, nodes = None, {}
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            m = LINE.match(line.rstrip("\n"))
            sid, hyp, stack, back, score, transition, recombined, forward, _, first, last, out = m.groups()
            if int(sid) != current and nodes:
                yield current, nodes
                nodes = {}
            current = int(sid)
            node = {"hyp": int(hyp), "stack": int(stack), "back": None if back is None else int(back),
                    "score": float(score) if score else 0.0, "recombined": recombined is not None,
                    "winner": None if recombined is None else int(recombined),
                    "transition": float(transition) if transition else 0.0,
                    "forward": None if forward is None else int(forward),
                    "span": None if first is None else (int(first), int(last) + 1), "out": tuple((out or "").split())}
            nodes[node["hyp"]] = node
    if nodes:
        yield current, nodes


def one_best(nodes):
    """Phrases (words, source span) of the best complete, unrecombined hypothesis, by back pointers."""
    return [phrase for phrase, _ in chain_of(nodes)]


ROUNDING = 1e-3  # log10: the graph's numbers are written to 6 significant digits, summed over ~30 steps


def best_final_score(nodes):
    top = max(n["stack"] for n in nodes.values())
    return max(n["score"] for n in nodes.values() if n["stack"] == top and not n["recombined"])


def lattice_path_spelling(nodes, tokens):
    """``(score, phrases)`` of the best complete path through the lattice whose words are ``tokens``, or None.

    A recombined hypothesis continues as its winner (its path goes on from the winner's state). Where two paths
    tie up to the written rounding, the graph's forward links may pick a path through a recombined hypothesis
    that the back pointers do not take (``core.engine.decoders.cat.translate.translation_of_graph`` says so): a case's
    sentence is then this path, checked here to score within ROUNDING of the best."""
    _, best_from = lattice(nodes, tokens)
    return best_from(next(n["hyp"] for n in nodes.values() if n["back"] is None), 0)


def lattice(nodes, tokens):
    """``(after, best_from)``: each hypothesis's successors, and ``best_from(state, at)``, the best completion
    ``(score, phrases)`` from the hypothesis ``state`` spelling ``tokens[at:]`` (None if there is none)."""
    top = max(n["stack"] for n in nodes.values())
    after = defaultdict(list)
    for n in nodes.values():
        if n["back"] is not None:
            after[n["back"]].append(n)
    memo = {}

    def best_from(state, at):
        if (state, at) in memo:
            return memo[(state, at)]
        found = (0.0, ()) if at == len(tokens) and nodes[state]["stack"] == top else None
        for n in after.get(state, ()):
            words = n["out"]
            if tuple(tokens[at:at + len(words)]) != words:
                continue
            rest = best_from(n["winner"] if n["recombined"] else n["hyp"], at + len(words))
            if rest is not None and (found is None or n["transition"] + rest[0] > found[0]):
                found = (n["transition"] + rest[0], ((words, n["span"]),) + rest[1])
        memo[(state, at)] = found
        return found

    return after, best_from


def function_only(words):
    return all(w.lower() in FUNCTION_WORDS or not any(c.isalnum() for c in w) for w in words)


def align(phrases, start, end):
    """§3.4.1: touched phrases, extended to whole phrases unless the partly selected part is function words."""
    cuts, at = [], 0
    for words, span in phrases:
        cuts.append((at, at + len(words), span))
        at += len(words)
    touched = [c for c in cuts if c[0] < end and c[1] > start and c[1] > c[0]]
    lo, hi = touched[0][0], touched[-1][1]
    if start > touched[0][0] and function_only(TOKENS[start:min(end, touched[0][1])]):
        lo = touched[0][1]
    if end < touched[-1][1] and function_only(TOKENS[max(start, touched[-1][0]):end]):
        hi = touched[-1][0]
    if lo >= hi:
        lo, hi = touched[0][0], touched[-1][1]
    kept = [c for c in cuts if c[0] >= lo and c[1] <= hi and c[1] > c[0]]
    return lo, hi, [c[2] for c in kept]


TOKENS: tuple[str, ...] = ()


def norm(words):
    return tuple(w.lower() for w in words if any(c.isalnum() for c in w))


def spells(pieces, gold, low, high):
    ways = defaultdict(list)
    for (s, e), words in pieces:
        if low <= s < e <= high:
            ways[s].append((e, words))
    seen, todo = {(low, 0)}, [(low, 0)]
    while todo:
        at, done = todo.pop()
        for e, words in ways[at]:
            if gold[done:done + len(words)] == words and (e, done + len(words)) not in seen:
                seen.add((e, done + len(words)))
                todo.append((e, done + len(words)))
    return (high, len(gold)) in seen


def retrieved_spans(nodes, grouping, low, high):
    spans = list(dict.fromkeys(grouping))
    if high - low > FOLLOW_LIMIT:
        return spans
    queue = list(spans)
    while queue:
        span = queue.pop(0)
        for n in nodes.values():
            f = n["forward"]
            if n["span"] != span or f is None or f < 0 or f not in nodes:
                continue
            nxt = nodes[f]["span"]
            if nxt and nxt[0] == span[1] and nxt[1] <= high and nxt not in spans:
                spans.append(nxt)
                queue.append(nxt)
    return spans


def partial_filters(partials, names):
    """``[(stage, kept)]``; a partial is ``(span, words, score, hyp)``, best first."""
    out = []
    for name in names:
        kept, keys, texts = [], set(), defaultdict(list)
        for span, words, score, hyp in partials:
            if name == "PTPF":
                words = tuple(w for w in words if any(c.isalnum() for c in w))
                key = (span, words)
            elif name == "FWPF":
                key = (span, tuple(w for w in words if any(c.isalnum() for c in w) and w.lower() not in FUNCTION_WORDS))
            else:  # SDPF
                text = " ".join(words)
                if any(Levenshtein.distance(text, other) < SDPF_T for other in texts[span]):
                    continue
                texts[span].append(text)
                kept.append((span, words, score, hyp))
                continue
            if key in keys:
                continue
            keys.add(key)
            kept.append((span, words, score, hyp))
        partials = kept
        out.append((name, kept))
    return out


def table_spellable(table, cases):
    """Per case id: the table's target sides chain over the selection's source words to the gold."""
    wanted = {" ".join(src[i:j]) for src, _ in cases.values() for i in range(len(src))
              for j in range(i + 1, min(len(src), i + 7) + 1)}
    targets = defaultdict(set)
    with gzip.open(table, "rt", encoding="utf-8") as handle:
        for line in handle:
            parts = line.split(" ||| ")
            if parts[0].strip() in wanted:
                targets[parts[0].strip()].add(norm(parts[1].split()))
    result = {}
    for case_id, (src, gold) in cases.items():
        pieces = [((i, j), t) for i in range(len(src)) for j in range(i + 1, min(len(src), i + 7) + 1)
                  for t in targets.get(" ".join(src[i:j]), ())]
        result[case_id] = spells(pieces, gold, 0, len(src))
    return result


def stages_of(case, phrases, nodes, stages):
    """Per approach, the last stage the case's gold passes with this derivation of its sentence (phrases), and
    the selection's source stretch with the gold (for the table's count)."""
    global TOKENS
    TOKENS = tuple(w for words, _ in phrases for w in words)
    lo, hi, spans = align(phrases, *case["span"])
    low, high = min(s for s, _ in spans), max(e for _, e in spans)
    gold = norm(case["gold"].split())
    last = {}
    for approach, names in stages.items():
        last[approach] = "aligned"
        if gold == norm(TOKENS[lo:hi]):
            continue
        last[approach] = "not the selection"
        inside = [(n_["span"], norm(n_["out"])) for n_ in nodes.values() if n_["span"]]
        if not spells(inside, gold, low, high):
            continue
        last[approach] = "in graph"
        wanted = set(retrieved_spans(nodes, spans, low, high))
        partials = sorted(((n_["span"], n_["out"], n_["score"], n_["hyp"]) for n_ in nodes.values()
                           if n_["span"] in wanted), key=lambda p: (-p[2], p[0][0], p[0][1], p[3]))
        if not spells([(p[0], norm(p[1])) for p in partials], gold, low, high):
            continue
        last[approach] = "retrieved"
        for name, kept in partial_filters(partials, names):
            if not spells([(p[0], norm(p[1])) for p in kept], gold, low, high):
                break
            last[approach] = f"after {name}"
    stretch = (case["source"].split()[low:high], gold) if "source" in case else None
    return last, stretch


def tied_derivations(nodes, chain, limit=64):
    """Every other derivation of the best chain's words that scores within ROUNDING of it (at most ``limit``):
    paths through the lattice, a recombined hypothesis continuing as its winner, with another segmentation. The
    graph's forward links may take one of them (through any number of recombined hypotheses)."""
    tokens = tuple(w for (words, _), _ in chain for w in words)
    main = [phrase for phrase, _ in chain]
    top = max(n["stack"] for n in nodes.values())
    after, best_from = lattice(nodes, tokens)
    root = next(n["hyp"] for n in nodes.values() if n["back"] is None)
    floor = best_final_score(nodes) - ROUNDING
    paths = []

    def walk(state, at, score, path):
        if len(paths) > limit:
            return
        if at == len(tokens) and nodes[state]["stack"] == top:
            if path != main:
                paths.append(path)
            return
        for n in sorted(after.get(state, ()), key=lambda n: n["hyp"]):
            if tokens[at:at + len(n["out"])] != n["out"]:
                continue
            following = n["winner"] if n["recombined"] else n["hyp"]
            rest = best_from(following, at + len(n["out"]))
            if rest is not None and score + n["transition"] + rest[0] >= floor:
                walk(following, at + len(n["out"]), score + n["transition"], path + [(n["out"], n["span"])])

    walk(root, 0, 0.0, [])
    return paths[:limit]


def chain_of(nodes):
    """``[((words, source span), hyp)]`` from the first phrase to the best complete, unrecombined hypothesis, by
    back pointers (ties by the lower hypothesis id)."""
    top = max(n["stack"] for n in nodes.values())
    best = max((n for n in nodes.values() if n["stack"] == top and not n["recombined"]),
               key=lambda n: (n["score"], -n["hyp"]))
    chain = []
    while best["back"] is not None:
        chain.append(((best["out"], best["span"]), best["hyp"]))
        best = nodes[best["back"]]
    return chain[::-1]


def count(cases_path, graph_path, table=None, reached=None) -> dict:
    """The stage totals; ``reached``, if given, is filled per case with the last stage passed per approach (and,
    where derivations of the sentence tied with the best up to the rounding reach other stages, those as
    ``"tied derivations"``)."""
    stages = {"approach-1": ["PTPF"], "approach-2": ["PTPF", "FWPF", "SDPF"]}
    order = {a: ["aligned", "not the selection", "in graph", "retrieved", *[f"after {x}" for x in names]]
             for a, names in stages.items()}
    totals = {a: dict.fromkeys(order[a], 0) for a in stages}
    stretches, n, ties, derivation_ties = {}, 0, 0, 0
    reached = {} if reached is None else reached
    by_sentence = defaultdict(list)
    for line in Path(cases_path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            case = json.loads(line)
            by_sentence[case["sentence_id"]].append(case)
    for sentence_id, nodes in each_sentence(graph_path):
        for case in by_sentence.pop(sentence_id, []):
            n += 1
            chain = chain_of(nodes)
            phrases = [phrase for phrase, _ in chain]
            alternatives = tied_derivations(nodes, chain)
            if tuple(w for words, _ in phrases for w in words) != tuple(case["sentence"].split()):
                found = lattice_path_spelling(nodes, tuple(case["sentence"].split()))
                if found is None or found[0] < best_final_score(nodes) - ROUNDING:
                    raise SystemExit(f"{case['id']}: the graph's 1-best is not the case's sentence")
                phrases, ties, alternatives = list(found[1]), ties + 1, []
            last, stretch = stages_of(case, phrases, nodes, stages)
            reached[case["id"]] = dict(last)
            for approach, stage in last.items():
                for passed in order[approach][:order[approach].index(stage) + 1]:
                    totals[approach][passed] += 1
            if stretch:
                stretches[case["id"]] = stretch
            seen = {(tuple(sorted(last.items())), tuple(stretch[0]) if stretch else None)}
            for other in alternatives:  # each tied derivation that reaches other stages or another stretch
                other_last, other_stretch = stages_of(case, other, nodes, stages)
                key = (tuple(sorted(other_last.items())), tuple(other_stretch[0]) if other_stretch else None)
                if key in seen:
                    continue
                seen.add(key)
                tied = reached[case["id"]].setdefault("tied derivations", [])
                tied.append(other_last)
                if other_stretch:
                    stretches[(case["id"], len(tied) - 1)] = other_stretch
            derivation_ties += "tied derivations" in reached[case["id"]]
    if by_sentence:
        raise SystemExit(f"{cases_path}: no graph for sentence {min(by_sentence)}")
    out = {a: {"cases": n, **t} for a, t in totals.items()}
    out["cases whose sentence is a path tied with the back pointers' 1-best"] = ties
    out["cases with a tied derivation of their sentence that reaches other stages"] = derivation_ties
    if table:
        spellable = table_spellable(table, stretches)
        out["spellable by the table"] = sum(v for k, v in spellable.items() if isinstance(k, str))
        for key, yes in spellable.items():
            if isinstance(key, str):
                reached.setdefault(key, {})["spellable by the table"] = yes
            else:
                reached[key[0]]["tied derivations"][key[1]]["spellable by the table"] = yes
    return out


def sha256_of(path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases")
    parser.add_argument("graph")
    parser.add_argument("--table")
    parser.add_argument("--out", help="also write the counts, each case's last stage passed per approach and the "
                                          "inputs by sha256 here (JSON; `experiment seed001-approaches --independent` "
                                          "reads it)")
    args = parser.parse_args(argv)
    if args.out and any(Path(args.out).resolve() == Path(path).resolve() for path in
                        (args.cases, args.graph, args.table) if path):
        parser.error(f"--out {args.out} is one of the inputs: it would be replaced")
    reached = {}
    counts = count(args.cases, args.graph, args.table, reached)
    print(json.dumps(counts, indent=1))
    if args.out:
        record = {"counter": "benchmarks/seed001_independent_counts.py",
                  "inputs": {name: None if path is None else {"path": str(path), "sha256": sha256_of(path)}
                             for name, path in (("cases", args.cases), ("graph", args.graph), ("table", args.table))},
                  "counts": counts, "per_case": reached}
        temporary = Path(args.out).with_name(Path(args.out).name + ".part")
        temporary.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        temporary.replace(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
