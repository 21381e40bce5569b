"""The Suggestions screen's panes as HTML (plain Python, no Qt): one case's details, and every approach's result on
it side by side (rows of :mod:`core.inspection.suggestion_cases`)."""

from __future__ import annotations

import html

from parastudio.core.inspection.suggestion_cases import CaseRow
from parastudio.desktop.changed_spans import highlighted_html

GREEN, RED = "#d9f2d9", "#f7d4d4"


def details_html(row: CaseRow) -> str:
    """The details pane: the sentence with the span, the gold, the suggestions and scores, the gold's fate."""
    case = row.case
    verdict = ("<span style='color:#1d6b1d'><b>found</b></span>" if row.success
               else "<span style='color:#b00000'><b>not found</b></span>")
    parts = [f"<p><b>{html.escape(case.id)}</b> · {html.escape(row.approach)} · gold {verdict} · span of "
             f"{row.length} token(s)</p>",
             f"<p><b>Sentence</b>: {highlighted_html(case.sentence, range(*case.span))}</p>",
             f"<p><b>Selection</b>: {html.escape(row.selection)}<br><b>Gold</b>: {html.escape(row.gold)}</p>",
             f"<p><b>The gold's fate</b>: {html.escape(row.fate_text)}"
             f"{' — ' + html.escape(row.fate_gloss) if row.fate_gloss else ''}"
             f"{'<br><i>' + html.escape(row.fate_detail) + '</i>' if row.fate_detail else ''}</p>"]
    if row.error:
        parts.append(f"<p style='color:#b00000'>{html.escape(row.error)}</p>")
    parts.append(_suggestions_table(row))
    parts.append("<h4>What each stage kept</h4><p>" + " → ".join(
        f"{html.escape(stage)} {count}" for stage, count in row.pipeline) + "</p>")
    if row.others:
        parts.append("<h4>Candidates not shown</h4><ul>" + "".join(
            f"<li>{html.escape(text)} <span style='color:#666'>(fsm {score:.4f}: {html.escape(fate)})</span></li>"
            for text, score, fate in row.others[:12]) + "</ul>")
    return "".join(parts)


def _suggestions_table(row: CaseRow) -> str:
    if not row.suggestions:
        return "<p><i>No suggestions.</i></p>"
    parts = ["<table border=1 cellspacing=0 cellpadding=3><tr><th>#</th><th>suggestion</th><th>FSM score</th>"
             "<th>LM (log10)</th></tr>"]
    for s in row.suggestions:
        style = f" style='background:{GREEN}'" if s.is_gold else ""
        lm = "–" if s.lm_score is None else f"{s.lm_score:.2f}"
        parts.append(f"<tr{style}><td>{s.rank}</td><td>{'<b>' if s.is_gold else ''}{html.escape(s.text)}"
                     f"{'</b>' if s.is_gold else ''}</td><td>{s.fsm_score:.4f}</td><td>{lm}</td></tr>")
    parts.append("</table>")
    return "".join(parts)


def _suggestions_list(row: CaseRow) -> str:
    """The suggestions as a numbered list with their scores (narrow enough for two columns)."""
    if not row.suggestions:
        return "<p><i>No suggestions.</i></p>"
    items = []
    for s in row.suggestions:
        lm = "" if s.lm_score is None else f", LM {s.lm_score:.2f}"
        text = f"<b>{html.escape(s.text)}</b>" if s.is_gold else html.escape(s.text)
        style = f" style='background:{GREEN}'" if s.is_gold else ""
        items.append(f"<li{style}>{text} <span style='color:#666'>(FSM {s.fsm_score:.4f}{lm})</span></li>")
    return "<ol>" + "".join(items) + "</ol>"


def side_by_side_html(rows: list[CaseRow]) -> str:
    """Every approach's result on one case, in columns."""
    if not rows:
        return ""
    case = rows[0].case
    parts = [f"<p><b>{html.escape(case.id)}</b>: {highlighted_html(case.sentence, range(*case.span))}</p>"
             f"<p><b>Gold</b>: {html.escape(rows[0].gold)}</p>"]
    if len(rows) == 1:
        parts.append("<p><i>Choose a second approach and evaluate again to compare two on this case.</i></p>")
    parts.append("<table width='100%' border=1 cellspacing=0 cellpadding=4><tr>")
    for row in rows:
        colour = GREEN if row.success else RED
        parts.append(f"<th style='background:{colour}'>{html.escape(row.approach)}: "
                     f"{'found' if row.success else 'not found'}</th>")
    parts.append("</tr><tr>")
    for row in rows:
        parts.append(f"<td valign='top'><p><b>Fate</b>: {html.escape(row.fate_text)}</p>"
                     f"{_suggestions_list(row)}<p style='color:#555'>"
                     + "<br>".join(f"{html.escape(stage)}: {count}" for stage, count in row.pipeline) + "</p></td>")
    parts.append("</tr></table>")
    return "".join(parts)
