"""Rendering report tables: Markdown, HTML, CSV (long format), JSON, and plots as PNG and SVG (matplotlib, imported only when plotting)."""

from __future__ import annotations

import csv
import html
import io
import json
import math
import os
import re
import textwrap
from pathlib import Path

import numpy as np

from parastudio.core.code_identity import code_version
from parastudio.core.csv_cells import line_feed_rows, safe_row
from parastudio.core.stats.report_model import Report, ReportTable

FORMATS = ("md", "html", "csv", "json")


def format_cell(value, kind: str) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    if kind == "percent":
        return f"{100 * value:.1f}%"
    if kind == "kappa":
        return f"{value:.4f}"
    if kind == "p":
        return f"{value:.4g}"
    return str(value)


def _json_value(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, np.generic):
        return value.item()
    return value


def render_markdown(report: Report) -> str:
    out = [f"# {report.title}", ""]
    for table in report.tables:
        out += [f"## {table.title}", ""]
        out.append("| " + " | ".join(column.name for column in table.columns) + " |")
        out.append("|" + "|".join("---" if column.kind == "text" else "---:" for column in table.columns) + "|")
        for row in table.rows:
            out.append("| " + " | ".join(format_cell(value, column.kind).replace("|", "\\|") for value, column in zip(row, table.columns)) + " |")
        out.append("")
        if table.note:
            out += [table.note, ""]
        out += [f"Signature: `{table.signature}`", ""]
    return "\n".join(out)


def render_html(report: Report) -> str:
    escape = html.escape
    out = [
        "<!DOCTYPE html>",
        '<html><head><meta charset="utf-8">',
        f"<title>{escape(report.title)}</title>",
        "<style>table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #999;padding:2px 8px}"
        "td.n{text-align:right}code{font-size:90%}</style>",
        f"</head><body><h1>{escape(report.title)}</h1>",
    ]
    for table in report.tables:
        out.append(f'<section id="{escape(table.key)}"><h2>{escape(table.title)}</h2><table>')
        out.append("<tr>" + "".join(f"<th>{escape(column.name)}</th>" for column in table.columns) + "</tr>")
        for row in table.rows:
            cells = (
                f'<td{"" if column.kind == "text" else " class=n"}>{escape(format_cell(value, column.kind))}</td>'
                for value, column in zip(row, table.columns)
            )
            out.append("<tr>" + "".join(cells) + "</tr>")
        out.append("</table>")
        if table.note:
            out.append(f"<p>{escape(table.note)}</p>")
        out.append(f"<p>Signature: <code>{escape(table.signature)}</code></p></section>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def render_csv(report: Report, raw: bool = False) -> str:
    """Long format, one cell per line: ``table,row,column,value,signature``; full precision. Text cells a
    spreadsheet would run as formulas are quoted (:mod:`core.csv_cells`) unless ``raw``."""
    buffer = io.StringIO()
    writer = csv.writer(line_feed_rows(buffer), lineterminator="\r\n")
    writer.writerow(["table", "row", "column", "value", "signature"])
    for table in report.tables:
        for row in table.rows:
            for column, value in zip(table.columns[1:], row[1:]):
                value = _json_value(value)
                writer.writerow(safe_row([table.key, row[0], column.name, "" if value is None else repr(value)
                                          if isinstance(value, float) else value, table.signature], raw))
    return buffer.getvalue()


def report_to_json_dict(report: Report) -> dict:
    return {
        "title": report.title,
        "version": code_version(),
        "tables": [
            {
                "key": table.key,
                "title": table.title,
                "columns": [column.name for column in table.columns],
                "kinds": [column.kind for column in table.columns],
                "rows": [[_json_value(value) for value in row] for row in table.rows],
                "signature": table.signature,
                "note": table.note,
            }
            for table in report.tables
        ],
    }


def render(report: Report, output_format: str, raw: bool = False) -> str:
    if output_format == "md":
        return render_markdown(report)
    if output_format == "html":
        return render_html(report)
    if output_format == "csv":
        return render_csv(report, raw)
    if output_format == "json":
        return json.dumps(report_to_json_dict(report), ensure_ascii=False, indent=2) + "\n"
    raise ValueError(f"format must be one of {FORMATS}, not {output_format!r}")


def _file_stem(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", key).strip("_")


def render_plots(report: Report, directory: str | os.PathLike, *, inputs=()) -> list[Path]:
    """One PNG and one SVG per table that has a plot; returns the files written (none of them one of ``inputs``)."""
    from parastudio.core.errors import OutputFileError
    from parastudio.core.output_files import FILE, resolve_output

    target = resolve_output(directory, inputs, folder=True)
    if target.kind != FILE or target.path.exists() and not target.path.is_dir():
        raise OutputFileError(directory, "is not a folder: --plots writes a PNG and an SVG per figure into a folder")
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for table in report.tables:
        if table.plot is None or not table.rows:
            continue
        for suffix in ("png", "svg"):
            path = directory / f"{_file_stem(table.key)}.{suffix}"
            render_table_plot(table, path, inputs=inputs)
            written.append(path)
    return written


def render_table_plot(table: ReportTable, path: str | os.PathLike, *, inputs=()) -> Path:
    """The table's plot as PNG or SVG (by the file name's suffix), written atomically."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from parastudio.core.textio import atomic_output

    path = Path(path)
    suffix = path.suffix.lstrip(".").lower()
    if suffix not in ("png", "svg"):
        raise ValueError(f"{path}: a plot is written as .png or .svg")
    spec = table.plot
    if spec is None:
        raise ValueError(f"table {table.key!r} has no plot")
    labels = [str(row[spec.label_column]) for row in table.rows]
    figure, axes = plt.subplots(figsize=(max(6.0, 1.2 * len(labels) + 3), 4.0))
    scale = 100.0 if all(table.columns[i].kind == "percent" for i in spec.value_columns) else 1.0
    if spec.kind == "line":
        for i in spec.value_columns:
            values = [np.nan if row[i] is None else row[i] * scale for row in table.rows]
            axes.plot(labels, values, marker="o", label=table.columns[i].name)
    else:
        width = 0.8 / max(1, len(spec.value_columns))
        positions = np.arange(len(labels))
        for offset, i in enumerate(spec.value_columns):
            values = [0.0 if row[i] is None else row[i] * scale for row in table.rows]
            axes.bar(positions + offset * width - 0.4 + width / 2, values, width, label=table.columns[i].name)
        axes.set_xticks(positions, labels)
    axes.set_ylabel(spec.y_label + (" (%)" if scale == 100.0 else ""))
    axes.set_title("\n".join(textwrap.wrap(table.title, 70)), fontsize=9)
    if len(spec.value_columns) > 1:
        axes.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    # The signature travels with the figure so a pasted plot stays recomputable.
    figure.text(0.01, 0.01, "\n".join(textwrap.wrap(table.signature, 110)), fontsize=5, family="monospace")
    figure.tight_layout(rect=(0, 0.06, 1, 1))
    with atomic_output(path, "wb", inputs=inputs) as handle:
        # Fixed metadata keeps SVG bytes reproducible.
        figure.savefig(handle, format=suffix, dpi=150, metadata={"Date": None} if suffix == "svg" else None)
    plt.close(figure)
    return path


def render_table(table: ReportTable, output_format: str) -> str:
    """One table alone, as Markdown (``md``) or long-format CSV (``csv``)."""
    single = Report(title=table.title, tables=[table])
    if output_format == "md":
        return render_markdown(single).split("\n", 2)[2]  # without the report's own title
    if output_format == "csv":
        return render_csv(single)
    raise ValueError(f"a table is exported as md or csv, not {output_format!r}")
