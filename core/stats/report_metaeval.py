"""The meta-evaluation report (:class:`core.stats.metric_meta_evaluation.MetaEvaluation`'s dict) as Markdown:
segment- and system-level tables with their 95 % intervals and significance clusters, the systems' scores, the
permutation tests' p-values, and the segments where each metric and the judges disagree most."""

from __future__ import annotations

from parastudio.core.stats.metric_correlations import SEGMENT_STATISTICS, SYSTEM_STATISTICS

TEXT_SHOWN = 80  # characters of a candidate in the disagreement tables


def _number(value, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _with_interval(entry: dict) -> str:
    shown = _number(entry["value"])
    if entry.get("ci95"):
        low, high = entry["ci95"]
        shown += f" [{low:.3f}, {high:.3f}]"
    return shown


def _cell(text: object) -> str:
    """A table cell: pipes and line breaks would end it."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def _clusters(report: dict) -> dict[str, dict[str, int]]:
    """statistic -> metric -> cluster."""
    return {statistic: {row["metric"]: row["cluster"] for row in entry["ranking"]}
            for statistic, entry in report["significance"].items()}


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|",
            *("| " + " | ".join(_cell(cell) for cell in row) + " |" for row in rows)]


def render_markdown(report: dict, inputs_line: str = "") -> str:
    clusters = _clusters(report)
    metrics = report["metrics"]
    lines = [f"# Metrics against the judges: criterion {report['criterion']}", ""]
    if inputs_line:
        lines += [inputs_line, ""]
    lines += [f"{report['segments']} judged segments (a candidate as one system made it) of {report['sentences']} "
              f"source sentences and {_count(len(report['systems']), 'system')}, {report['judgments']} judgments; human score "
              f"per segment: the {report['aggregate']} of its judges' labels (yes 1, no 0, a number itself). "
              "Intervals: 95 % bootstrap over source sentences. Cluster: metrics not told apart by the permutation "
              "test share a number (1 is the best).", "", f"Signature: `{report['signature']}`", ""]
    ranked = sorted(metrics, key=lambda name: _descending(metrics[name]["acc_eq_item"]["value"]))

    def cluster(statistic: str, name: str) -> str:
        return str(clusters.get(statistic, {}).get(name, "–"))

    lines += ["## Segment level", ""]
    header = ["metric", "better", "τ_b", "cl.", "τ_b item-grouped", "cl.", "acc_eq item-grouped", "ε", "cl."]
    rows = [[name, metrics[name]["better"], _with_interval(metrics[name]["tau_b"]), cluster("tau_b", name),
             _with_interval(metrics[name]["tau_b_item"]), cluster("tau_b_item", name),
             _with_interval(metrics[name]["acc_eq_item"]), _number(metrics[name]["acc_eq_item"]["epsilon"], 4),
             cluster("acc_eq_item", name)] for name in ranked]
    lines += _table(header, rows) + [""]
    lines += ["## System level", ""]
    header = ["metric", "system scores", "Pearson r", "cl.", "pairwise accuracy", "cl."]
    rows = [[name, metrics[name]["system_scores_from"], _with_interval(metrics[name]["system_pearson"]),
             cluster("system_pearson", name), _with_interval(metrics[name]["system_accuracy"]),
             cluster("system_accuracy", name)] for name in ranked]
    lines += _table(header, rows) + [""]
    header = ["system", "judges", *ranked]
    rows = [[system, _number(report["human_system_scores"][system]),
             *(_number(metrics[name]["system_scores"][system], 2) for name in ranked)]
            for system in report["systems"]]
    lines += _table(header, rows) + [""]
    lines += _significance(report)
    lines += _disagreements(report, ranked)
    if report["notes"]:
        lines += ["## Notes", "", *(f"- {note}" for note in report["notes"]), ""]
    return "\n".join(lines)


def _significance(report: dict) -> list[str]:
    if not report["significance"]:
        return []
    lines = ["## Permutation tests", "", "One-sided p-value that the row's metric is not better than the column's "
             "(PERM-BOTH, as WMT23/24); clusters at the level in the signature.", ""]
    names = {**SEGMENT_STATISTICS, **SYSTEM_STATISTICS}
    for statistic, entry in report["significance"].items():
        order = [row["metric"] for row in entry["ranking"]]
        if len(order) < 2:
            continue
        lines += [f"### {names[statistic]}", ""]
        rows = [[better, *(_number(entry["p_values"][better].get(worse), 3) if worse in entry["p_values"][better]
                           else "" for worse in order[1:])] for better in order[:-1]]
        lines += _table(["better \\ worse", *order[1:]], rows) + [""]
    return lines


def _disagreements(report: dict, ranked: list[str]) -> list[str]:
    lines = ["## Where each metric and the judges disagree most", "",
             "Largest gaps between a segment's percentile rank by the judges and by the metric; `item` opens it in "
             "Inspect.", ""]
    for name in ranked:
        rows = report["disagreements"][name]
        if not rows:
            continue
        lines += [f"### {name}", ""]
        lines += _table(["item", "system", "candidate", "judges", name, "metric ranks it"],
                        [[row["item"], row["system"], _short(row["text"]), _number(row["human"], 2),
                          _number(row["metric"], 2), row["metric_ranks_it"]] for row in rows]) + [""]
    return lines


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _descending(value: float | None) -> tuple[bool, float]:
    """Sort key: higher first, undefined last."""
    return (value is None, -value if value is not None else 0.0)


def _short(text: str | None) -> str:
    if text is None:
        return ""
    return text if len(text) <= TEXT_SHOWN else text[:TEXT_SHOWN - 1] + "…"
