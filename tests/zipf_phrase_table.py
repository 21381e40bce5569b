"""A synthetic bilingual Moses phrase table with Zipfian phrase frequencies, for pivot tests and benchmarks.

Real phrase tables are Zipfian on both sides: a few phrases ("the", "de") have hundreds of translations,
most have one or two, so a few pivot clusters are large and the self-join is dominated by them. Each rule
draws its E phrase and its pivot phrase independently from Zipf(s) over ranks 1..n (n = rules / 4 on each
side), duplicates are dropped until there are ``rules`` distinct pairs. Scores are uniform in (0, 1], written
with 17 significant digits so every double round-trips. The same ``seed`` gives the same bytes.

Used by ``tests/test_pivot_deterministic.py`` and ``benchmarks/bench_pivot_scale.py``.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np


def zipf_ranks(generator: np.random.Generator, count: int, n: int, exponent: float) -> np.ndarray:
    """``count`` ranks in [0, n) with P(rank r) proportional to 1 / (r + 1) ** exponent."""
    weights = 1.0 / np.arange(1, n + 1, dtype=np.float64) ** exponent
    cumulative = np.cumsum(weights)
    return np.searchsorted(cumulative, generator.random(count) * cumulative[-1], side="right").clip(0, n - 1)


def zipf_rule_pairs(rules: int, *, seed: int = 0, exponent: float = 1.0) -> np.ndarray:
    """``rules`` distinct (e rank, f rank) pairs, each side Zipf-distributed, sorted."""
    generator = np.random.default_rng(seed)
    n = max(4, rules // 4)
    pairs = np.empty((0, 2), dtype=np.int64)
    while len(pairs) < rules:
        wanted = (rules - len(pairs)) * 2 + 16
        drawn = np.stack([zipf_ranks(generator, wanted, n, exponent), zipf_ranks(generator, wanted, n, exponent)], 1)
        pairs = np.unique(np.concatenate([pairs, drawn]), axis=0)
    keep = np.sort(generator.choice(len(pairs), size=rules, replace=False))
    return pairs[keep]


def phrase(prefix: str, rank: int) -> str:
    """One to three tokens, so LW(x|y) = lex ** (1/|x|) takes its three forms."""
    return " ".join(f"{prefix}{rank}_{k}" for k in range(1 + rank % 3))


def write_zipf_phrase_table(path: str | Path, rules: int, *, seed: int = 0, exponent: float = 1.0) -> Path:
    """Write the table (gzip when ``path`` ends in .gz) and return its path."""
    path = Path(path)
    pairs = zipf_rule_pairs(rules, seed=seed, exponent=exponent)
    scores = np.random.default_rng(seed + 1).random((rules, 4))
    scores = 1.0 - scores  # (0, 1]: the pivot refuses a zero probability
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "wt", encoding="utf-8", **({"compresslevel": 1} if path.suffix == ".gz" else {})) as handle:
        block = 100_000
        for start in range(0, rules, block):
            lines = []
            for (e, f), (s1, s2, s3, s4) in zip(pairs[start:start + block].tolist(),
                                                scores[start:start + block].tolist()):
                lines.append(f"{phrase('e', e)} ||| {phrase('f', f)} ||| {s1!r} {s2!r} {s3!r} {s4!r} ||| 0-0 ||| 1 1 1\n")
            handle.write("".join(lines))
    return path
