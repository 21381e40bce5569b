"""SPG: application-driven statistical paraphrase generation (seed 004, Zhao et al. 2009, §3-5).

The model (seed 004 §3.4; equations garbled in the PDF, reconstructed here
from the surrounding text). A source ``s`` is segmented into units
``s_1..s_I``, each rewritten into a target unit ``t_i``; decoding is monotone
(footnote 1). In natural logs:

* paraphrase model (Eq. 1-2): ``sum_i lambda_k^ log phi_k^(s_i, t_i)``. A
  unit pair found in several tables counts once, from the table with the
  largest weighted score ``k^ = argmax_k phi_k(s_i, t_i)^lambda_k``. The
  self-paraphrase table is one of the K tables: every single word ``w`` maps
  to itself with ``phi_self(w, w) = c = e^-1`` (weight ``lambda_self``).
* language model (Eq. 3): ``lambda_lm ln P_LM(t)`` (seed 004 uses a trigram;
  we take whatever KenLM model is given; KenLM's log10 is converted to ln).
* usability model (Eq. 4-5, reconstructed): ``sum_i lambda_um ln p_um(s_i,
  t_i)`` with ``p_um(s_i, t_i) = e^mu(s_i, t_i)``, so it adds
  ``lambda_um sum_i mu(s_i, t_i)``; ``mu`` of a unit kept as itself is 0.
* the SPG model (Eq. 6) is their log-linear sum; :func:`generate_spg` returns
  it as ``model_score``.

``mu`` per application (§3.3; only the similarity one is legible in the PDF,
the other two are our reconstruction of "achieves the application"):

* compression: bytes saved, ``mu = bytes(s_i) - bytes(t_i)`` (UTF-8, words
  joined by single spaces: "shorter in bytes", §3.3 / Figure 3);
* simplification: ``mu = mean Zipf(t_i) - mean Zipf(s_i)``, the mean over the
  unit's words of ``wordfreq.zipf_frequency(word, "en")`` (the ``wordfreq``
  PyPI package, its default "best" English list, i.e. "large"): target words
  more frequent;
* similarity: ``mu = sim(t_i, s') - sim(s_i, s')`` with ``sim`` the count of
  the unit's words that occur in the reference ``s'`` (seed 004's formula).

Paraphrase planning (§3.3, Figure 2): a target unit is kept only if it
achieves the application, ``mu > 0``; a source unit with no target left is
dropped (it can only be kept by the self-paraphrase table).

Decoding reuses :class:`core.engine.decoders.beam_decoder.BeamDecoder` (seed 004 §4 remodels
Moses; so does that decoder). Its identity options have probability 1, not
``c``: we therefore give each planned unit the factor
``exp(lambda_k^ ln phi + lambda_um mu + lambda_self |s_i|)``. Every
derivation covers each source word exactly once, so the decoder's score is
the SPG score plus the constant ``lambda_self |s|``, the same argmax and
order; we subtract it back. Weights default to 1 (seed 004 tunes them by MERT
on replacement F-measure over a labelled dev set, §3.6, which we lack).

Tables: any object with ``name`` and ``matches(tokens)`` (:class:`UnitTable`): phrase tables
(:class:`ParaphraseTable`, PT-1..PT-3) and pattern tables
(:class:`core.engine.tables.patterns.pattern_table.PatternTable`, seed 004's PT-4 built
by seed 002's method), whose matches are patterns found in the parsed input
with their slots filled by the input's words.

Notation -> names: ``lambda_k`` -> ``SPGWeights.tables[k]``, ``lambda_lm`` ->
``lm``, ``lambda_um`` -> ``usability``, ``c`` -> ``SELF_PARAPHRASE_SCORE``,
``s'`` -> ``reference``.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Protocol, Sequence

from parastudio.core.engine.decoders.beam_decoder import BeamDecoder, DecoderSettings
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.model.derivation import Segment
from parastudio.core.engine.model.scoring import ScoreWeights
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Match, Rule
from parastudio.core.progress import Progress, no_progress
from parastudio.core.vocabulary import APPLICATIONS, Application

SELF_PARAPHRASE_SCORE = math.exp(-1.0)  # c, seed 004 §3.4
_LN10 = math.log(10.0)

Result = tuple[tuple[str, ...], float, tuple[Segment, ...]]


class UnitTable(Protocol):
    """A paraphrase table as SPG uses it: the (source unit, target unit) rules that apply to a sentence."""

    name: str

    def matches(self, tokens: Sequence[str]) -> list[Match]: ...


@dataclass(frozen=True)
class SPGWeights:
    """``lambda_k`` per table (by position; missing ones are 1), ``lambda_self``, ``lambda_lm``, ``lambda_um``."""

    tables: tuple[float, ...] = ()
    self_table: float = 1.0
    lm: float = 1.0
    usability: float = 1.0

    def table(self, k: int) -> float:
        return self.tables[k] if k < len(self.tables) else 1.0

    def to_json(self) -> dict:
        return {"lambda_k": list(self.tables), "lambda_self": self.self_table, "lambda_lm": self.lm,
                "lambda_um": self.usability}


def unit_bytes(words: Sequence[str]) -> int:
    return len(" ".join(words).encode("utf-8"))


@functools.lru_cache(maxsize=1 << 16)
def _zipf(word: str) -> float:
    """wordfreq's Zipf frequency, remembered: planning asks for the same words again and again (MERT re-plans
    every sentence on each decoding)."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en")


def mean_zipf(words: Sequence[str]) -> float:
    return sum(_zipf(word) for word in words) / len(words) if words else 0.0


def overlap(words: Sequence[str], reference_words: set[str]) -> int:
    """``sim``: how many of the unit's words occur in the reference."""
    return sum(1 for word in words if word in reference_words)


@dataclass(frozen=True)
class Usability:
    """``mu(s_i, t_i)`` for one application (and reference, for similarity)."""

    application: Application
    reference: tuple[str, ...] | None = None
    _reference_words: frozenset = field(default=frozenset(), compare=False)

    @classmethod
    def of(cls, application: str, reference: Sequence[str] | None = None) -> "Usability":
        if application not in APPLICATIONS:
            raise ValueError(f"application must be one of {APPLICATIONS}, not {application!r}")
        if application == "similarity":
            if reference is None:
                raise ValueError("the similarity application needs a reference sentence")
            reference = tuple(reference)
            return cls(application, reference, frozenset(reference))
        return cls(application)

    def mu(self, source: Sequence[str], target: Sequence[str]) -> float:
        if self.application == "compression":
            return float(unit_bytes(source) - unit_bytes(target))
        if self.application == "simplification":
            return mean_zipf(target) - mean_zipf(source)
        words = self._reference_words
        return float(overlap(target, words) - overlap(source, words))


@dataclass(frozen=True)
class PlannedUnit:
    """A target unit kept by planning, with the table it counts from."""

    start: int
    end: int
    rule: Rule  # the winning table's rule (its prob is phi_k)
    table_index: int
    weighted_log_phi: float  # lambda_k^ ln phi_k^
    mu: float


def plan(source: Sequence[str], tables: Sequence[UnitTable], usability: Usability,
         weights: SPGWeights = SPGWeights()) -> list[PlannedUnit]:
    """Paraphrase planning (seed 004 §3.3): the (source unit, target unit) pairs that achieve the application."""
    source = tuple(source)
    best: dict[tuple[int, int, tuple[str, ...]], PlannedUnit] = {}
    mu_cache: dict[tuple[tuple[str, ...], tuple[str, ...]], float] = {}
    for k, table in enumerate(tables):
        lam = weights.table(k)
        for match in table.matches(source):
            rule = match.rule
            if rule.target == rule.source or rule.prob <= 0.0:
                continue
            key = (rule.source, rule.target)
            mu = mu_cache.get(key)
            if mu is None:
                mu = mu_cache[key] = usability.mu(rule.source, rule.target)
            if mu <= 0.0:
                continue  # does not achieve the application
            weighted = lam * math.log(rule.prob)
            slot = (match.start, match.end, rule.target)
            known = best.get(slot)
            if known is None or weighted > known.weighted_log_phi:  # ties: the earlier table
                best[slot] = PlannedUnit(match.start, match.end, rule, k, weighted, mu)
    return sorted(best.values(), key=lambda u: (u.start, u.end, -u.weighted_log_phi, u.rule.target))


def unit_log_score(unit: PlannedUnit, weights: SPGWeights) -> float:
    """The unit's share of the SPG score (ln): ``lambda_k^ ln phi + lambda_um mu``."""
    return unit.weighted_log_phi + weights.usability * unit.mu


def spg_log_score(source: Sequence[str], target: Sequence[str], units: Sequence[PlannedUnit],
                  lm: LanguageModel | None, weights: SPGWeights = SPGWeights()) -> float:
    """The SPG model score (ln) of the derivation made of ``units`` plus self-paraphrased words."""
    kept_words = len(source) - sum(u.end - u.start for u in units)
    total = sum(unit_log_score(u, weights) for u in units)
    total += kept_words * weights.self_table * math.log(SELF_PARAPHRASE_SCORE)
    if lm is not None:
        total += weights.lm * lm.score(target) * _LN10
    return total


def generate_spg(
    source_tokens: Sequence[str],
    tables: Sequence[UnitTable] | UnitTable,
    lm: LanguageModel | None,
    *,
    application: Application,
    reference: Sequence[str] | None = None,
    nbest: int = 1,
    weights: SPGWeights | None = None,
    seed: int = 0,
    time_budget: float | None = None,
    settings: DecoderSettings | None = None,
) -> list[Result]:
    """The ``nbest`` best distinct SPG paraphrases of ``source_tokens``, best first.

    Each result is ``(tokens, model_score, segments)`` with ``model_score`` the
    SPG log-linear score (natural log) and ``segments`` the derivation: planned
    units carry the winning table's rule, unchanged words identity rules. The
    search is deterministic: ``seed`` and ``time_budget`` are accepted for the
    common generator interface and unused. The source itself can come out
    (nothing achieved the application); :func:`spg_report` counts it as not
    paraphrased.
    """
    del seed, time_budget
    if hasattr(tables, "matches"):
        tables = [tables]
    weights = weights or SPGWeights()
    source = tuple(source_tokens)
    if not source:
        return []
    usability = Usability.of(application, reference)
    units = plan(source, tables, usability, weights)
    lambda_self = weights.self_table
    log_c = math.log(SELF_PARAPHRASE_SCORE)
    # One decoder rule per planned (source, target) pair (its score does not depend on the place);
    # the factor absorbs the self-paraphrase cost of the words it covers (module docstring).
    decoder_table = ParaphraseTable(name="spg-planned")
    unit_of: dict[int, PlannedUnit] = {}
    seen: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
    for unit in units:
        pair = (unit.rule.source, unit.rule.target)
        if pair in seen:
            continue
        seen.add(pair)
        log_factor = unit_log_score(unit, weights) - lambda_self * (unit.end - unit.start) * log_c
        rule = Rule(unit.rule.source, unit.rule.target, math.exp(log_factor))
        unit_of[id(rule)] = unit
        decoder_table.add(rule)
    decoder_table.sort()
    base = settings or DecoderSettings()
    settings = DecoderSettings(stack_size=base.stack_size, beam_threshold=base.beam_threshold,
                               option_limit=base.option_limit, nbest_factor=base.nbest_factor,
                               weights=ScoreWeights(phrase=1.0, lm=weights.lm, word_penalty=0.0))
    result = BeamDecoder(decoder_table, lm, settings).decode(source)
    constant = -lambda_self * len(source) * log_c  # what the identity options left out
    outputs = []
    for entry in result.nbest(nbest):
        segments = []
        for segment in entry.segments:
            if segment.identity:
                segments.append(segment)
            else:
                original = unit_of[id(segment.rule)].rule
                segments.append(Segment(segment.src_start, segment.src_end, segment.tgt_start, segment.tgt_end,
                                        original, False))
        outputs.append((entry.tokens, entry.score * _LN10 - constant, tuple(segments)))
    return outputs


def weight_vector(weights: SPGWeights, table_count: int) -> list[float]:
    """``[lambda_1 .. lambda_K, lambda_self, lambda_lm, lambda_um]``: the order of :func:`feature_vector`."""
    return [weights.table(k) for k in range(table_count)] + [weights.self_table, weights.lm, weights.usability]


def weights_from_vector(vector: Sequence[float], table_count: int) -> SPGWeights:
    return SPGWeights(tables=tuple(float(v) for v in vector[:table_count]), self_table=float(vector[table_count]),
                      lm=float(vector[table_count + 1]), usability=float(vector[table_count + 2]))


def feature_vector(source: Sequence[str], target: Sequence[str], segments: Sequence[Segment],
                   tables: Sequence[ParaphraseTable], lm: LanguageModel | None, usability: Usability,
                   weights: SPGWeights, planned: Sequence[PlannedUnit] | None = None) -> list[float]:
    """The SPG features of one derivation, so that ``weight_vector . features`` is its SPG score (ln):
    per table ``k`` the sum of ``ln phi_k`` of the units it wins (under ``weights``, as the decoder chose them),
    ``ln c`` times the self-paraphrased words, ``ln P_LM(t)``, and the sum of ``mu``. What MERT tunes on
    (seed 004 §3.6). ``planned``: the sentence's :func:`plan` under ``weights``, when the caller has it."""
    if planned is None:
        planned = plan(tuple(source), tables, usability, weights)
    units = {(u.start, u.end, u.rule.target): u for u in planned}
    per_table = [0.0] * len(tables)
    kept = 0
    mu = 0.0
    for segment in segments:
        if segment.identity:
            kept += segment.src_end - segment.src_start
            continue
        unit = units[(segment.src_start, segment.src_end, segment.rule.target)]
        per_table[unit.table_index] += math.log(unit.rule.prob)
        mu += unit.mu
    lm_part = lm.score(tuple(target)) * _LN10 if lm is not None else 0.0
    return per_table + [kept * math.log(SELF_PARAPHRASE_SCORE), lm_part, mu]


def unit_replacements(segments: Sequence[Segment]) -> int:
    """Units rewritten into something else (seed 004 §5 "unit replacements")."""
    return sum(1 for s in segments if not s.identity and s.rule.source != s.rule.target)


@dataclass(frozen=True)
class SPGReport:
    """Seed 004 §5's generation figures for one application."""

    application: str
    sentences: int
    paraphrased: int
    replacements: int

    @property
    def paraphrased_percent(self) -> float:
        return 100.0 * self.paraphrased / self.sentences if self.sentences else 0.0

    @property
    def mean_replacements(self) -> float:
        """Unit replacements per sentence, over all sentences (seed 004: 5.36 / 4.47 / 1.87)."""
        return self.replacements / self.sentences if self.sentences else 0.0

    def to_json(self) -> dict:
        return {"application": self.application, "sentences": self.sentences, "paraphrased": self.paraphrased,
                "paraphrased_percent": self.paraphrased_percent, "mean_replacements": self.mean_replacements}


def spg_report(
    sentences: Sequence[Sequence[str]],
    tables: Sequence[UnitTable] | UnitTable,
    lm: LanguageModel | None,
    *,
    application: Application,
    references: Sequence[Sequence[str]] | None = None,
    weights: SPGWeights | None = None,
    progress: Progress = no_progress,
) -> SPGReport:
    """Paraphrase every sentence (1-best) and count the paraphrased share and the unit replacements.

    A sentence counts as paraphrased when its 1-best has at least one unit
    replacement. ``references`` (one per sentence) is needed for similarity.
    """
    if application == "similarity" and (references is None or len(references) != len(sentences)):
        raise ValueError("the similarity application needs one reference per sentence")
    paraphrased = replacements = 0
    for i in range(len(sentences)):
        reference = references[i] if references is not None else None
        results = generate_spg(sentences[i], tables, lm, application=application, reference=reference,
                               weights=weights)
        count = unit_replacements(results[0][2]) if results else 0
        replacements += count
        paraphrased += count > 0
        progress(i + 1, len(sentences), f"SPG {application}")
    return SPGReport(application, len(sentences), paraphrased, replacements)
