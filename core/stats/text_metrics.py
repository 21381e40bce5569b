"""Automatic metrics of a paraphrase: sacrebleu's BLEU, chrF and TER against the references, BLEU to the source,
iBLEU, and the word edit rate to the source; per candidate and per system.

* ``bleu``, ``chrf``, ``ter``: sacrebleu's sentence scores of the candidate against its source's references
  (``BLEU(effective_order=True)``, as sacrebleu recommends for single sentences; ``CHRF()``; ``TER()``), 0-100.
* ``source_bleu``: the same sentence BLEU against the source sentence alone.
* ``ibleu`` (Sun and Zhou 2012, "Joint Learning of a Dual SMT System for Paraphrase Generation", §3):
  ``α · BLEU(c, refs) - (1 - α) · BLEU(c, source)``, rewarding closeness to the references and penalizing
  a copy of the source; ``α`` (``alpha``) is recorded in the signature.
* ``edit_rate``: word-level Levenshtein distance (python-Levenshtein) from the source's tokens to the
  candidate's, over the source's length (at least 1): the judgment predictor's feature of the same name.

For a *translation* (``TextMetrics(translation=True)``: the source is in another language than the candidate and
its references, e.g. English to German in WMT's MQM ratings) only ``bleu``, ``chrf`` and ``ter`` are computed:
BLEU to the source, iBLEU and the edit rate to the source measure closeness to a sentence in another language and
mean nothing there (:attr:`TextMetrics.names`).

A candidate whose source has no reference gets ``None`` for the reference metrics. System scores are sacrebleu's
corpus scores over the system's candidates that have references (each candidate one hypothesis; a source with
fewer references than the most is padded with ``None``, sacrebleu's mark of a variable number), iBLEU from the
two corpus BLEUs, the edit rate as the mean over the system's candidates. Signatures come from sacrebleu's own
objects (``get_signature()``), ``nrefs:var`` when the sources have different numbers of references.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from parastudio.core.stats.signature import Signed

REFERENCE_METRICS = ("bleu", "chrf", "ter", "ibleu")
TEXT_METRICS = ("bleu", "chrf", "ter", "source_bleu", "ibleu", "edit_rate")
TRANSLATION_METRICS = ("bleu", "chrf", "ter")  # a translation's: no source-side metric (module docstring)
SOURCE_SIDE_METRICS = ("source_bleu", "ibleu", "edit_rate")
# Metrics where a lower number is the better paraphrase by the metric's own reading; the meta-evaluation turns
# them around. The two measures of closeness to the source (edit_rate, source_bleu) are read as "closer to the
# source", so a lower edit rate counts as higher, like a higher source BLEU.
LOWER_IS_BETTER = frozenset({"ter", "edit_rate"})
BLEU_TOKENIZERS = ("13a", "none", "intl", "char", "zh", "ja-mecab", "ko-mecab", "flores101", "flores200")


@dataclass(frozen=True)
class MetricInput:
    """One candidate to score: its text, its source sentence and the source's references (tokens as given)."""

    text: str
    source: str
    references: tuple[str, ...] = ()


@dataclass(frozen=True)
class TextMetrics(Signed):
    """The metrics of the module docstring, with iBLEU's ``alpha`` and BLEU's ``tokenize`` as its settings;
    ``translation``: the candidates translate their source (only :data:`TRANSLATION_METRICS`)."""

    alpha: float = 0.9
    tokenize: str = "13a"
    translation: bool = False
    name = "text-metrics"
    _objects: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not 0.0 <= self.alpha <= 1.0:
            raise ValueError(f"alpha must be from 0 to 1, not {self.alpha}")
        if self.tokenize not in BLEU_TOKENIZERS:
            raise ValueError(f"tokenize must be one of {', '.join(BLEU_TOKENIZERS)}, not {self.tokenize!r}")

    def settings(self) -> dict[str, object]:
        # A paraphrase's signature stays as it was; a translation's says so and that no source-side metric ran.
        if self.translation:
            return {"task": "translation", "tokenize": self.tokenize}
        return {"alpha": self.alpha, "tokenize": self.tokenize}

    @property
    def names(self) -> tuple[str, ...]:
        """The metrics computed: :data:`TRANSLATION_METRICS` for a translation, else :data:`TEXT_METRICS`."""
        return TRANSLATION_METRICS if self.translation else TEXT_METRICS

    def _metric(self, key: str):
        """sacrebleu's objects, made once per instance (a sentence BLEU keeps no state between calls)."""
        if key not in self._objects:
            from sacrebleu.metrics import BLEU, CHRF, TER

            # force: the project's texts are tokenized by design (generate writes tokens); without it every corpus
            # score warns "forgot to detokenize". It changes no number; the tokenizer is in the signature.

            self._objects[key] = {
                "sentence_bleu": lambda: BLEU(effective_order=True, tokenize=self.tokenize),
                "source_bleu": lambda: BLEU(effective_order=True, tokenize=self.tokenize),
                "chrf": CHRF, "ter": TER,
                "corpus_bleu": lambda: BLEU(tokenize=self.tokenize, force=True),
                "corpus_source_bleu": lambda: BLEU(tokenize=self.tokenize, force=True),
                "corpus_chrf": CHRF, "corpus_ter": TER,
            }[key]()
        return self._objects[key]

    def score(self, candidate: MetricInput) -> dict[str, float | None]:
        """Every metric of :attr:`names` for one candidate (``None`` for the reference metrics without a
        reference)."""
        scores: dict[str, float | None] = dict.fromkeys(self.names)
        if not self.translation:
            scores["source_bleu"] = self._metric("source_bleu").sentence_score(candidate.text,
                                                                                [candidate.source]).score
            scores["edit_rate"] = word_edit_rate(candidate.source, candidate.text)
        references = list(candidate.references)
        if references:
            scores["bleu"] = self._metric("sentence_bleu").sentence_score(candidate.text, references).score
            scores["chrf"] = self._metric("chrf").sentence_score(candidate.text, references).score
            scores["ter"] = self._metric("ter").sentence_score(candidate.text, references).score
            if not self.translation:
                scores["ibleu"] = self.ibleu(scores["bleu"], scores["source_bleu"])
        return scores

    def ibleu(self, bleu: float, source_bleu: float) -> float:
        return self.alpha * bleu - (1.0 - self.alpha) * source_bleu

    def corpus(self, candidates: Sequence[MetricInput]) -> dict[str, float | None]:
        """A system's corpus scores over its candidates (module docstring); ``None`` where nothing is scored."""
        scores: dict[str, float | None] = dict.fromkeys(self.names)
        if not candidates:
            return scores
        if not self.translation:
            texts = [c.text for c in candidates]
            scores["source_bleu"] = self._metric("corpus_source_bleu").corpus_score(
                texts, [[c.source for c in candidates]]).score
            scores["edit_rate"] = sum(word_edit_rate(c.source, c.text) for c in candidates) / len(candidates)
        referenced = [c for c in candidates if c.references]
        if referenced:
            streams = reference_streams([c.references for c in referenced])
            hypotheses = [c.text for c in referenced]
            scores["bleu"] = self._metric("corpus_bleu").corpus_score(hypotheses, streams).score
            scores["chrf"] = self._metric("corpus_chrf").corpus_score(hypotheses, streams).score
            scores["ter"] = self._metric("corpus_ter").corpus_score(hypotheses, streams).score
            if self.translation:
                return scores
            source_of_referenced = self._metric("corpus_source_bleu").corpus_score(
                hypotheses, [[c.source for c in referenced]]).score
            scores["ibleu"] = self.ibleu(scores["bleu"], source_of_referenced)
        return scores

    def signatures(self, reference_counts: Sequence[int]) -> dict[str, str]:
        """sacrebleu's signature of each metric that ran, with ``nrefs`` as the candidates had them (``var`` when
        they differ), and iBLEU's own: ``alpha`` and the two BLEU signatures it combines."""
        counts = sorted({n for n in reference_counts if n > 0})
        nrefs = counts[0] if len(counts) == 1 else "var"
        shown: dict[str, str] = {}
        for name, key, refs in (("bleu", "sentence_bleu", nrefs), ("chrf", "chrf", nrefs), ("ter", "ter", nrefs),
                                ("source_bleu", "source_bleu", 1), ("corpus_bleu", "corpus_bleu", nrefs),
                                ("corpus_chrf", "corpus_chrf", nrefs), ("corpus_ter", "corpus_ter", nrefs)):
            if (name == "source_bleu" and not self.translation) or (counts and name != "source_bleu"):
                shown[name] = _signature_of(self._metric(key), refs)
        if self.translation:
            return shown
        if counts:
            shown["ibleu"] = f"alpha:{self.alpha}|bleu:{shown['bleu']}|source-bleu:{shown['source_bleu']}"
        shown["edit_rate"] = _edit_rate_signature()
        return shown


def _signature_of(metric, nrefs) -> str:
    """The metric's sacrebleu signature with ``nrefs`` as given (sacrebleu keeps the count of its last call, or
    none before a call)."""
    metric.num_refs = -1 if nrefs == "var" else nrefs  # what sacrebleu sets itself after scoring (-1: variable)
    return metric.get_signature().format()


def _edit_rate_signature() -> str:
    from importlib.metadata import version

    return f"words:whitespace|distance:levenshtein|over:source-words|python-Levenshtein:{version('Levenshtein')}"


def reference_streams(references: Sequence[Sequence[str]]) -> list[list[str | None]]:
    """sacrebleu's reference streams (one list per reference position); a sentence with fewer references has
    ``None`` for the others, which sacrebleu leaves out (an empty string would be an empty reference)."""
    depth = max(len(refs) for refs in references)
    return [[refs[k] if k < len(refs) else None for refs in references] for k in range(depth)]


def word_edit_rate(source: str, candidate: str) -> float:
    """Word-level Levenshtein distance from the source to the candidate, over the source's words (at least 1)."""
    import Levenshtein

    source_words, candidate_words = source.split(), candidate.split()
    return Levenshtein.distance(source_words, candidate_words) / max(1, len(source_words))
