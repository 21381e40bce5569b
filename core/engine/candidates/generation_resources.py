"""What a run of ``generate`` reads: the tables, the LM, SPG's pattern tables, and the files they came from.

:class:`GenerationResources` holds the loaded objects; :meth:`~GenerationResources.inputs`
names every file behind them by ``{"path", "sha256", "bytes"}``
(:mod:`core.file_fingerprint`), and that is what a candidate's
``params["inputs"]`` records and ``parastudio reproduce`` checks before it runs
again. :func:`load_resources` reads the files the way the options say
(:class:`~core.engine.tables.table_formats.TableLoading`). ``predictor``: the judgment
predictor that MCPG's ``reward="predictor"`` maximises (:mod:`core.engine.model.judgment_model`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable, Sequence

from parastudio.core.engine.candidates.generation_options import MCPGRunOptions, RunOptions, SPGRunOptions
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.model.judgment_model import JudgmentModel
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.table_formats import LoadReport
from parastudio.core.errors import OptionsError
from parastudio.core.file_fingerprint import fingerprint


@dataclass(frozen=True)
class GenerationResources:
    """The loaded inputs of a run; ``weights_file`` and ``reference_file`` are only recorded (their
    contents are in the options and the references)."""

    tables: tuple[ParaphraseTable, ...]
    lm: LanguageModel | None
    pattern_tables: tuple = ()  # SPG only: PatternTable objects (seed 004's PT-4)
    weights_file: str | None = None
    weights_signature: str | None = None  # the tuning run that wrote the weights (parastudio tune)
    reference_file: str | None = None
    predictor: JudgmentModel | None = None  # mcpg-true with reward "predictor"
    predictor_file: str | None = None  # the file it was read from (recorded)

    def __post_init__(self) -> None:
        object.__setattr__(self, "tables", tuple(self.tables))
        object.__setattr__(self, "pattern_tables", tuple(self.pattern_tables))
        if not self.tables:
            raise OptionsError("at least one paraphrase table is needed")

    def check_for(self, options: RunOptions) -> None:
        """Refuse resources the system cannot use."""
        if self.pattern_tables and not isinstance(options, SPGRunOptions):
            raise OptionsError(f"pattern tables are SPG tables (seed 004's PT-4); {options.system} cannot use them")
        if isinstance(options, SPGRunOptions) and options.weights.tables \
                and len(options.weights.tables) != len(self.tables):
            raise OptionsError(f"the SPG weights hold lambda_k for {len(options.weights.tables)} table(s); "
                               f"{len(self.tables)} table(s) are given")
        wants_predictor = isinstance(options, MCPGRunOptions) and options.reward == "predictor"
        if wants_predictor and (self.predictor is None or self.lm is None):
            raise OptionsError("reward predictor needs the judgment predictor (--predictor FILE, written by "
                               "parastudio judgment-predictor --json) and an LM (its features read the LM)")
        if self.predictor is not None and not wants_predictor:
            raise OptionsError(f"a judgment predictor is MCPG's reward predictor (--system mcpg-true --reward "
                               f"predictor); {options.system} with reward {getattr(options, 'reward', None)} "
                               "would not read it")

    def inputs(self) -> dict:
        """Every file behind the run by path, sha256 and size (``None`` for what was built in memory)."""
        def of_table(table) -> dict:
            path = getattr(table, "source_path", None)
            return fingerprint(path) if path else {"path": None, "name": table.name, "sha256": None, "bytes": None}

        found: dict = {"tables": [of_table(t) for t in self.tables],
                       "lm": fingerprint(self.lm.path) if self.lm is not None else None}
        if self.pattern_tables:
            found["pattern_tables"] = [of_table(t) for t in self.pattern_tables]
        if self.weights_file is not None:
            found["weights"] = {**fingerprint(self.weights_file), "signature": self.weights_signature}
        if self.reference_file is not None:
            found["reference"] = fingerprint(self.reference_file)
        if self.predictor is not None:
            found["predictor"] = ({**fingerprint(self.predictor_file), "signature": self.predictor.signature}
                                  if self.predictor_file else {"path": None, "signature": self.predictor.signature})
        return found


def load_resources(options: RunOptions, tables: Sequence[str | os.PathLike], lm: str | os.PathLike | None, *,
                   pattern_tables: Sequence[str | os.PathLike] = (), sentences: Sequence[Sequence[str]] = (),
                   weights_file: str | None = None, weights_signature: str | None = None,
                   reference_file: str | None = None, predictor_file: str | os.PathLike | None = None,
                   on_table_report: Callable[[LoadReport], None] | None = None) -> GenerationResources:
    """Read the files of a run; pattern tables keep only the patterns found in ``sentences``' parses."""
    if pattern_tables and not isinstance(options, SPGRunOptions):
        raise OptionsError(f"pattern tables are SPG tables (seed 004's PT-4); {options.system} cannot use them")
    loaded = []
    for path in tables:
        report = LoadReport(str(path))
        loaded.append(ParaphraseTable.load(str(path), options.table_loading, report=report))
        if on_table_report is not None:
            on_table_report(report)
    patterns = []
    if pattern_tables:
        from parastudio.core.engine.tables.patterns.pattern_table import pattern_table_for

        patterns = [pattern_table_for(path, sentences, score=options.pattern_score) for path in pattern_tables]
    predictor = JudgmentModel.read(predictor_file) if predictor_file is not None else None
    return GenerationResources(tuple(loaded), LanguageModel(lm) if lm is not None else None, tuple(patterns),
                               weights_file=weights_file, weights_signature=weights_signature,
                               reference_file=reference_file, predictor=predictor,
                               predictor_file=None if predictor_file is None else str(predictor_file))
