"""What :mod:`core.experiments.mcpg_steered` produces and its report (:mod:`core.experiments.mcpg_steered_report`)
reads: the systems, the per-verse fields and one system's output, apart from the run so the report never imports
the experiment."""

from __future__ import annotations

from dataclasses import dataclass, field

SYSTEMS = ("beam", "mcpg-true-score", "mcpg-predictor")
PER_SENTENCE = "mcpg-steered.jsonl"
SILVER = ("meaning", "fluency", "acceptable")
PER_SENTENCE_FIELDS = {
    "verse": "0-based line of evaldata/demo/test.en (the demo study's sentence_id)",
    "system": "beam (its 1-best that differs from the source), mcpg-true-score or mcpg-predictor",
    "source": "the verse, tokenized",
    "candidate": "the system's output, tokenized (null: no output)",
    "replacements": "the output's unit replacements [source words, target words], left to right (the beam's own "
                    "derivation; MCPG's true-score derivation): what the silver rule judges",
    "meaning": "silver rule: 1 yes, 0 no",
    "fluency": "silver rule: 1 yes, 0 no",
    "acceptable": "silver rule: 1 when meaning and fluency are yes",
    "fold": "the verse's cross-validation fold (0-based)",
    "p_cross_validated": "the probability of acceptance by the predictor fitted without this fold's verses",
    "p_steering": "the probability of acceptance by the steering predictor (fitted on every verse; what "
                  "mcpg-predictor maximises)",
    "true_score": "the output's true score (seed 000), log10",
    "edit_rate": "word edits from the source over the source's words",
    "episodes": "MCPG episodes run (0 for the beam)",
    "cut": "the time cap cut the search (always false unless --time-budget is given)",
}


@dataclass
class Output:
    """One system's output for one verse and everything judged about it."""

    candidate: tuple[str, ...] | None
    replacements: list[tuple[str, str]] = field(default_factory=list)
    values: dict = field(default_factory=dict)  # the judged fields of PER_SENTENCE_FIELDS
    episodes: int = 0
    cut: bool = False
