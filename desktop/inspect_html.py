"""The Inspect screen's HTML panes: the selected candidate's details, and every system's candidates of its
sentence side by side (both from :mod:`core.inspection`; here only how they look)."""

from __future__ import annotations

import html

from parastudio.core.engine.text.changed_words import changed_tokens
from parastudio.core.inspection.candidate_rows import CandidateRow
from parastudio.core.inspection.sentence_systems import systems_on_sentence
from parastudio.desktop.changed_spans import highlighted_display_html, highlighted_html
from parastudio.desktop.inspect_rows_model import COLOURS


def sentence_systems_html(selected: CandidateRow, same_sentence: list[CandidateRow]) -> str:
    """Every system's candidates of the selected row's sentence, side by side: one column per system."""
    columns = systems_on_sentence(same_sentence)
    parts = [f"<p><b>Source</b>: {html.escape(selected.source)}</p>",
             "<table border=1 cellspacing=0 cellpadding=4 width='100%'><tr>"]
    for column in columns:
        parts.append(f"<th>{html.escape(column.system)}<br><small>{column.judged} judged, "
                     f"{column.rejected} rejected</small></th>")
    parts.append("</tr><tr>")
    for column in columns:
        cells = []
        for row in column.rows:
            _, marked = changed_tokens(row.source, row.text)
            mark = " ◀" if row is selected else ""
            cells.append(f"<p style='background:{COLOURS.get(row.shown_verdict, '#fff')}'>"
                         f"<b>{html.escape(row.shown_verdict or '-')}</b>{mark}: "
                         f"{highlighted_html(row.text.split(), marked)}</p>")
        parts.append(f"<td valign='top'>{''.join(cells)}</td>")
    parts.append("</tr></table>")
    return "".join(parts)


def details_html(details, engine_note: str = "", display=None) -> str:
    """The details pane: changed words, the derivation rule by rule, the scores side by side, the judges;
    ``engine_note`` says why the LM, channel and true score are missing; ``display`` (the study's display rule,
    :func:`core.judging.view.study_display`) adds the strings as the judges read them."""
    source_html = highlighted_html(details.source.split(), details.changed_source)
    candidate_html = highlighted_html(details.text.split(), details.changed_candidate)
    parts = [f"<p><b>Source</b>: {source_html}</p><p><b>Candidate</b> ({html.escape(', '.join(details.systems))}): "
             f"{candidate_html}</p>"]
    if display is not None:
        shown_source, shown_candidate = display.show(details.source), display.show(details.text)
        parts.append("<p style='color:#333'><b>As the judges read them</b>:<br>"
                     f"{highlighted_display_html(shown_source.text, shown_source.spans, details.changed_source)}<br>"
                     f"{highlighted_display_html(shown_candidate.text, shown_candidate.spans, details.changed_candidate)}"
                     "</p>")
    parts.append("<h4>Derivation</h4>")
    if details.steps:
        parts.append("<table border=1 cellspacing=0 cellpadding=3><tr><th>rule</th><th>p</th><th>share of the rules' "
                     "log10</th><th>pivot phrases</th></tr>")
        for step in details.steps:
            pivots = ", ".join(f"{html.escape(f)} ({term:.3g})" for f, term in step.pivots) or "–"
            parts.append(f"<tr><td>{html.escape(step.source)} → {html.escape(step.target)}</td>"
                         f"<td>{step.probability:.4g}</td><td>{step.log10_share:.0%}</td><td>{pivots}</td></tr>")
        parts.append("</table>")
    else:
        parts.append("<p><i>No derivation stored (an imported candidate): changes found by a word diff.</i></p>")

    def shown(value):
        return "–" if value is None else f"{value:.4f}"

    parts.append("<h4>Scores (log10)</h4><table border=1 cellspacing=0 cellpadding=3><tr><th>system</th>"
                 "<th>model score</th><th>true score (reported)</th></tr>")
    for system, score in details.scores.items():
        parts.append(f"<tr><td>{html.escape(system)}</td><td>{shown(score.get('model_score'))}</td>"
                     f"<td>{shown(score.get('true_score'))}</td></tr>")
    parts.append(f"</table><p>LM: {shown(details.lm_log10)} · channel of this derivation: "
                 f"{shown(details.channel_log10)} · exact true score: {shown(details.true_log10)}</p>")
    if engine_note:
        parts.append(f"<p style='color:#666'><i>{html.escape(engine_note)}</i></p>")
    if details.search_error:
        parts.append("<p style='color:#b00000'><b>Search error</b> (seed 000): the system's score is below the exact "
                     "true score of this candidate: it kept a worse derivation than the best one.</p>")
    parts.append("<h4>Judges</h4><ul>")
    for judge in details.judges:
        comment = f" — <i>{html.escape(judge.comment)}</i>" if judge.comment else ""
        took = f", {judge.duration_ms / 1000:.1f} s" if judge.duration_ms is not None else ""
        parts.append(f"<li>{html.escape(judge.annotator)}, {html.escape(judge.criterion)}: "
                     f"<b>{html.escape(judge.value or '')}</b> ({html.escape(judge.answered_at or '')}{took})"
                     f"{' ⚑' if judge.flag else ''}{comment}</li>")
    parts.append("</ul>")
    if details.adjudications:
        # The decisions that settle the criteria the judges disagree on (core.stats.verdicts).
        parts.append("<h4>Adjudicated</h4><ul>")
        for decision in details.adjudications:
            parts.append(f"<li>{html.escape(decision.criterion)}: <b>{html.escape(decision.value or '')}</b>, decided "
                         f"by {html.escape(decision.annotator)} ({html.escape(decision.answered_at or '')})</li>")
        parts.append("</ul>")
    return "".join(parts)
