"""Plots of failures: rejection rate per system (95 % Wilson intervals), scores of accepted vs rejected, and the
span suggestions' success by span length per approach (seed 001 Fig. 4.3).

matplotlib, imported only when plotting; written atomically as PNG or SVG by the file name.
"""

from __future__ import annotations

import math
import os
from collections import defaultdict
from pathlib import Path
from typing import Sequence

from parastudio.core.inspection.candidate_rows import CandidateRow
from parastudio.core.stats.verdicts import ACCEPTED, REJECTED
from parastudio.core.textio import atomic_output

Z95 = 1.959963984540054


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (Wilson 1927): well-behaved at 0 and n, unlike the normal one."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def rejection_rates(rows: Sequence[CandidateRow]) -> dict[str, tuple[int, int, float, float, float]]:
    """Per system (every producer credited): rejected, judged, rate, and its 95 % interval."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        if row.verdict is None:
            continue
        for system in row.systems or ("-",):
            counts[system][1] += 1
            counts[system][0] += row.verdict == REJECTED
    return {system: (rejected, n, rejected / n, *wilson_interval(rejected, n))
            for system, (rejected, n) in sorted(counts.items())}


def _save(figure, path: str | os.PathLike, inputs=()) -> Path:
    path = Path(path)
    suffix = path.suffix.lstrip(".").lower()
    if suffix not in ("png", "svg"):
        raise ValueError(f"{path}: a plot is written as .png or .svg")
    with atomic_output(path, "wb", inputs=inputs) as handle:
        figure.savefig(handle, format=suffix, dpi=130, metadata={"Date": None} if suffix == "svg" else None)
    return path


def _figure():
    """A figure of its own, not pyplot's: no global state, so the app draws in a worker thread."""
    from matplotlib.figure import Figure

    return Figure(figsize=(6.5, 3.6))


def rejection_rates_figure(rows: Sequence[CandidateRow]):
    """The figure of :func:`plot_rejection_rates` (its labels and title clear of each other at any rate)."""
    rates = rejection_rates(rows)
    figure = _figure()
    axes = figure.subplots()
    names = list(rates)
    values = [100 * rates[name][2] for name in names]
    # The interval's ends as distances from the rate (never below 0: float rounding at rates of 0 and 1).
    errors = [[max(0.0, 100 * (rates[name][2] - rates[name][3])) for name in names],
              [max(0.0, 100 * (rates[name][4] - rates[name][2])) for name in names]]
    axes.bar(names, values, yerr=errors, capsize=4, color="#c0504d")
    for index, name in enumerate(names):
        axes.text(index, values[index] + 1, f"{rates[name][0]}/{rates[name][1]}", ha="center", va="bottom",
                  fontsize=8)
    axes.set_ylabel("candidates rejected (%)")
    axes.set_title("Rejection rate per system, 95 % Wilson intervals", fontsize=9)
    # Headroom above 100 %: a label over a bar at 100 % stays inside the axes, below the title.
    axes.set_ylim(0, 112)
    axes.set_yticks(range(0, 101, 20))
    figure.tight_layout()
    return figure


def plot_rejection_rates(rows: Sequence[CandidateRow], path: str | os.PathLike) -> Path:
    return _save(rejection_rates_figure(rows), path)


def plot_score_histograms(rows: Sequence[CandidateRow], path: str | os.PathLike) -> Path:
    """True scores (log10) of accepted against rejected candidates."""
    figure = _figure()
    axes = figure.subplots()
    for verdict, colour in ((ACCEPTED, "#4f9a4f"), (REJECTED, "#c0504d")):
        scores = [row.true_score for row in rows if row.verdict == verdict and row.true_score is not None]
        if scores:
            axes.hist(scores, bins=30, alpha=0.6, color=colour, label=f"{verdict} ({len(scores)})")
    axes.set_xlabel("true score (log10)")
    axes.set_ylabel("candidates")
    axes.set_title("Exact true scores of accepted and rejected candidates", fontsize=9)
    if axes.get_legend_handles_labels()[0]:
        axes.legend(fontsize=8)
    figure.tight_layout()
    return _save(figure, path)


def plot_success_by_length(table: dict[str, dict[str, tuple[int, int]]], path: str | os.PathLike, *,
                           inputs=()) -> Path:
    """Seed 001 Fig. 4.3: the share of cases whose gold is among the suggestions shown, per span length, one bar per
    approach; ``table`` is approach -> length -> (cases, successes)
    (:func:`core.inspection.suggestion_cases.success_by_length`), each bar labelled successes/cases."""
    lengths = list(dict.fromkeys(length for counts in table.values() for length in counts))
    lengths.sort(key=lambda label: int(label.rstrip("+")))
    figure = _figure()
    axes = figure.subplots()
    width = 0.8 / max(1, len(table))
    colours = ("#4f81bd", "#c0504d", "#9bbb59", "#8064a2")
    for number, (approach, counts) in enumerate(table.items()):
        xs = [index + (number - (len(table) - 1) / 2) * width for index in range(len(lengths))]
        shares = [100 * counts[length][1] / counts[length][0] if counts.get(length) else 0 for length in lengths]
        total, found = (sum(counts[length][i] for length in counts) for i in (0, 1))
        axes.bar(xs, shares, width, color=colours[number % len(colours)], label=f"{approach} ({found}/{total})")
        for x, share, length in zip(xs, shares, lengths):
            if counts.get(length):
                axes.text(x, share + 1, f"{counts[length][1]}/{counts[length][0]}", ha="center", fontsize=6,
                          rotation=90 if len(table) > 1 else 0, va="bottom")
    axes.set_xticks(range(len(lengths)), lengths)
    axes.set_xlabel("span length (tokens)")
    axes.set_ylabel("gold among the suggestions (%)")
    axes.set_ylim(0, 110)
    axes.set_title("Success by span length per approach (seed 001 Fig. 4.3)", fontsize=9)
    if table:
        axes.legend(fontsize=8)
    figure.tight_layout()
    return _save(figure, path, inputs)
