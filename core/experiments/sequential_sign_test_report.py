"""``evaldata/results/sequential-sign-test.md`` and ``.jsonl``: the simulation's figures, with how to remake them."""

from __future__ import annotations

from pathlib import Path

from parastudio.core.experiments.sequential_sign_test_results import AlternativeSetting, NullSetting, as_json_lines
from parastudio.core.stats.anytime_sign_test import AnytimeSignTest
from parastudio.core.textio import atomic_output


def _number(value, digits: int = 0) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _share(value) -> str:
    return "–" if value is None else f"{100 * value:.1f} %"


def markdown(null: NullSetting, alternatives: list[AlternativeSetting], test: AnytimeSignTest, command: str,
             jsonl_name: str) -> str:
    lines = [
        "# Anytime-valid sign test under continuous monitoring (issue 29)",
        "",
        "Simulated studies of one comparison, system A against system B. Unit: a *judgment* is one non-tied "
        "sentence pair (ties carry no evidence and are dropped, as in the fixed sign test); each is a win of A "
        "with probability *win rate*, independently. Rates and powers are shares of simulated studies.",
        "",
        f"Test: Beta({test.prior_a:g},{test.prior_b:g}) mixture martingale, reject when it reaches 1/α, "
        f"α = {test.alpha:g} (`core/stats/anytime_sign_test.py`). Signature: `{test.signature()}`.",
        "",
        f"Command: `{command}`",
        "",
        f"Per-setting figures as JSON lines: `{jsonl_name}`.",
        "",
        "## False positives when the study is looked at after every judgment (H0: win rate 1/2)",
        "",
        "| procedure | studies | judgments per study (each looked at) | studies that ever reject | standard error |",
        "|---|---:|---:|---:|---:|",
        f"| anytime-valid test | {null.studies} | {null.max_n} | {_share(null.anytime_false_positive_rate)} | "
        f"{_share(null.anytime_standard_error)} |",
        f"| naive: exact binomial sign test after every judgment | {null.studies} | {null.max_n} | "
        f"{_share(null.naive_false_positive_rate)} | {_share(null.naive_standard_error)} |",
        "",
        f"**True by construction.** Ville's inequality bounds the anytime test's rate by α = {test.alpha:g} for any "
        "number of looks and any stopping rule; the simulation shows how far below α it stays. The naive "
        "procedure has no such bound: each look is a fresh chance of a false positive.",
        "",
        f"## Judgments to a decision against a fixed-size design of the same power ({_share(alternatives[0].target_power) if alternatives else '–'})",
        "",
        "The anytime test is capped at N_seq, the number of judgments by which the target share of studies has "
        "decided (from the simulation); a study spends min(its stopping time, N_seq). The fixed design is the "
        "smallest n at which the exact two-sided binomial sign test reaches the same power (computed exactly).",
        "",
        "| win rate of A | studies | N_seq (cap) | power of the capped anytime test | median judgments spent | "
        "mean judgments spent | fixed design n | saved (median) | saved (mean) | median stopping time of decided "
        "studies | decisions for the wrong side |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in alternatives:
        lines.append(
            f"| {row.win_rate:g} | {row.studies} | {_number(row.sequential_cap)} | {_share(row.sequential_power)} | "
            f"{_number(row.median_judgments, 1)} | {_number(row.mean_judgments, 1)} | {_number(row.fixed_n)} | "
            f"{_share(row.saved_median)} | {_share(row.saved_mean)} | {_number(row.median_stopping_time_decided, 1)} "
            f"| {row.wrong_side} |")
    lines += [
        "",
        "Saved: 1 − judgments spent / fixed n (negative: the anytime test spends more). The anytime test is free to "
        "stop as soon as the evidence is in, and its answer stays valid however often it was looked at; the "
        "fixed design must wait for all n judgments and may be looked at only once. Under an alternative the "
        f"stopping times were simulated up to {alternatives[0].simulated_max_n if alternatives else '–'} judgments "
        "per study.",
        "",
    ]
    if alternatives:
        smallest = min(alternatives, key=lambda row: row.win_rate)
        lines += [
            "## When the effect size is not known in advance",
            "",
            f"A fixed design must be planned for the smallest effect worth detecting: at win rate "
            f"{smallest.win_rate:g}, n = {_number(smallest.fixed_n)} judgments, spent whatever the true rate is. "
            f"The anytime test, capped at that effect's N_seq = {_number(smallest.sequential_cap)}, stops when the "
            "evidence is in:",
            "",
            f"| win rate of A | median judgments spent (cap {_number(smallest.sequential_cap)}) | "
            f"fixed design planned for {smallest.win_rate:g} | saved (median) |",
            "|---:|---:|---:|---:|",
        ]
        for row in alternatives:
            median = row.median_judgments_planned_cap
            saved = None if median is None or not smallest.fixed_n else 1 - median / smallest.fixed_n
            lines.append(f"| {row.win_rate:g} | {_number(median, 1)} | {_number(smallest.fixed_n)} | {_share(saved)} |")
        lines.append("")
    return "\n".join(lines)


def write_results(out: Path, name: str, null: NullSetting, alternatives: list[AlternativeSetting],
                  test: AnytimeSignTest, command: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with atomic_output(out / f"{name}.jsonl") as handle:
        handle.write(as_json_lines(null, alternatives))
    with atomic_output(out / f"{name}.md") as handle:
        handle.write(markdown(null, alternatives, test, command, f"{name}.jsonl"))
