"""One frozen options object per system: what a run of ``generate`` was asked to do.

The CLI (``parastudio generate``), the app and a notebook build the same object,
by :func:`options_for` (``options_for("mcpg-true", seed=3, episodes_per_step=500)``)
or by the class itself, and every check of a value or of a combination is made
here (:class:`~core.errors.OptionsError`), so no caller can skip one. Its
:meth:`to_json` is the head of every candidate's ``params`` and
:func:`options_from_json` rebuilds it, which is what ``parastudio reproduce`` runs.

* :class:`BeamRunOptions`: the beam decoder (our Moses) and its settings.
* :class:`MCPGRunOptions`: MCPG (seed 003): profile, eta, the episode limit, the seed, the
  time cap (only a cap: :mod:`core.engine.mcpg`).
* :class:`SPGRunOptions`: SPG (seed 004): its weights and the pattern tables' score.

Options every system takes: ``nbest``, ``exclude_source``, ``tokenize`` (whether the
input was tokenized by the Moses tokenizer, recorded because it changes the
sentences) and ``table_loading`` (:class:`TableLoading`, how the tables were read).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, fields

from core.engine.beam_decoder import (DEFAULT_BEAM_THRESHOLD, DEFAULT_NBEST_FACTOR, DEFAULT_STACK_SIZE,
                                      DecoderSettings)
from core.engine.mcpg.options import DEFAULT_EXPLORATION, PROFILES, MCPGOptions
from core.engine.paraphrase_table import ParaphraseTable
from core.engine.scoring import DEFAULT_WEIGHTS, ScoreWeights
from core.engine.spg import SPGWeights
from core.engine.table_formats import LoadReport, TableFormat, ValueKind
from core.engine.translation_options import DEFAULT_OPTION_LIMIT
from core.errors import OptionsError

# MCPG runs by count (eta), so its output depends on the inputs and the seed alone. A wall-clock cap would make
# it depend on the machine's load, so there is none unless the user asks for one (--time-budget); a search a
# cap cut records it (``search["cut"]``).
DEFAULT_TIME_CAP = None
TRANSLATOR_REWARDS = ("channel", "seed003")
# MCPG's counts that the run options hold (and the params record) once, over the profile's.
COUNTED_AT_THE_TOP = ("episodes_per_step", "max_episodes")
# mcpg-true's rewards beside the true score: whole-sentence functions (issue 24 item 5), each a Python function
# the compiled core cannot call; "predictor" reads the judgment predictor given as a resource (--predictor).
SENTENCE_REWARDS = ("predictor",)


@dataclass(frozen=True)
class TableLoading:
    """How every ``--table`` is read (``core/cli/table_options.py``'s flags)."""

    format: str | None = None
    score: str | None = None
    value_kind: str | None = None
    skip_bad_lines: bool = False
    swap_sides: bool = False
    channel_from_reverse: bool = False

    def __post_init__(self) -> None:
        if self.format is not None and self.format not in {f.value for f in TableFormat}:
            raise OptionsError(f"unknown table format {self.format!r}")
        if self.value_kind is not None and self.value_kind not in {k.value for k in ValueKind}:
            raise OptionsError(f"unknown value kind {self.value_kind!r}")

    def load(self, path: str, report: LoadReport | None = None) -> ParaphraseTable:
        table = ParaphraseTable.load(path, self.format, score=self.score, value_kind=self.value_kind,
                                     skip_bad_lines=self.skip_bad_lines, report=report, swap_sides=self.swap_sides)
        if not self.channel_from_reverse:
            return table
        reversed_table = table.with_reverse_probabilities()
        reversed_table.source_path = getattr(table, "source_path", None)  # made from that file's bytes
        return reversed_table


def _check_at_least_one(**values) -> None:
    for name, value in values.items():
        if value is not None and value < 1:
            raise OptionsError(f"{name} must be at least 1, not {value}")


@dataclass(frozen=True)
class _RunOptions:
    """What every system takes (module docstring)."""

    system: str = ""
    nbest: int = 1
    exclude_source: bool = False
    tokenize: bool = False
    table_loading: TableLoading = field(default_factory=TableLoading)

    def __post_init__(self) -> None:
        if OPTIONS_OF_SYSTEM.get(self.system) is not type(self):
            systems = [name for name, cls in OPTIONS_OF_SYSTEM.items() if cls is type(self)]
            raise OptionsError(f"{type(self).__name__} is for {', '.join(systems)}, not {self.system!r}")
        _check_at_least_one(nbest=self.nbest)

    def to_json(self) -> dict:
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}


def _plain(value):
    if dataclasses.is_dataclass(value):
        return value.to_json() if hasattr(value, "to_json") else dataclasses.asdict(value)
    return list(value) if isinstance(value, tuple) else value


@dataclass(frozen=True)
class BeamRunOptions(_RunOptions):
    """The beam decoder: Moses' ``-stack``, ``-beam-threshold``, ``-ttable-limit``, ``-n-best-factor``, weights."""

    system: str = "beam"
    stack_size: int = DEFAULT_STACK_SIZE
    beam_threshold: float = DEFAULT_BEAM_THRESHOLD
    option_limit: int | None = DEFAULT_OPTION_LIMIT
    nbest_factor: int = DEFAULT_NBEST_FACTOR
    weights: ScoreWeights = DEFAULT_WEIGHTS

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_at_least_one(stack_size=self.stack_size, option_limit=self.option_limit,
                            nbest_factor=self.nbest_factor)
        threshold = self.beam_threshold
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 <= threshold <= 1:
            # Moses' -beam-threshold: a probability ratio to the best hypothesis (0: none); NaN compares false.
            raise OptionsError(f"beam_threshold must be a ratio from 0 (no threshold) to 1, not {threshold!r}")

    @property
    def decoder(self) -> DecoderSettings:
        return DecoderSettings(stack_size=self.stack_size, beam_threshold=self.beam_threshold,
                               option_limit=self.option_limit, weights=self.weights, nbest_factor=self.nbest_factor)

    def to_json(self) -> dict:
        data = super().to_json()
        for name in ("stack_size", "beam_threshold", "option_limit", "nbest_factor", "weights"):
            del data[name]
        return {**data, "decoder": self.decoder.to_json()}


@dataclass(frozen=True)
class MCPGRunOptions(_RunOptions):
    """MCPG (seed 003; :mod:`core.engine.mcpg`), ``mcpg-true`` or ``mcpg-translator``.

    ``episodes_per_step`` (eta) and ``max_episodes`` default to the profile's
    (``None`` here means "the profile's"; the built object holds the numbers). ``time_budget``
    is a cap in seconds per sentence, not a setting of the search. ``reward``:
    ``"true-score"`` (default) or ``"predictor"`` (the judgment predictor's probability of acceptance, a
    whole-sentence reward; the Python search runs it) for mcpg-true, ``"channel"`` (default) or ``"seed003"``
    for mcpg-translator.
    """

    system: str = "mcpg-true"
    seed: int = 0
    profile: str = "tuned"
    search_options: MCPGOptions | None = None  # the profile's options, or a custom mix (profile "custom")
    episodes_per_step: int | None = None
    max_episodes: int | None = None
    time_budget: float | None = DEFAULT_TIME_CAP
    exploration: float = DEFAULT_EXPLORATION
    reward: str | None = None
    core: str | None = None  # "native" (the compiled search) or "python"; None: native where it runs these settings

    def to_json(self) -> dict:
        """The params: eta and the episode count once, at the top (the search options' own copies of them are
        the profile's defaults, which the top-level values replace)."""
        data = super().to_json()
        data["search_options"] = {key: value for key, value in data["search_options"].items()
                                  if key not in COUNTED_AT_THE_TOP}
        return data

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.search_options is None:
            if self.profile not in PROFILES:
                raise OptionsError(f"profile must be one of {', '.join(PROFILES)}, not {self.profile!r}")
            object.__setattr__(self, "search_options", PROFILES[self.profile])
        elif self.profile != "custom" and PROFILES.get(self.profile) != self.search_options:
            raise OptionsError(f"options given with profile {self.profile!r} differ from it; call the profile 'custom'")
        try:
            self.search_options.check()
        except ValueError as error:
            raise OptionsError(str(error)) from None
        if self.episodes_per_step is None:
            object.__setattr__(self, "episodes_per_step", self.search_options.episodes_per_step)
        if self.max_episodes is None:
            object.__setattr__(self, "max_episodes", self.search_options.max_episodes)
        _check_at_least_one(episodes_per_step=self.episodes_per_step, max_episodes=self.max_episodes)
        if self.time_budget is not None and not self.time_budget > 0:
            raise OptionsError(f"time_budget must be more than 0 seconds, not {self.time_budget}")
        if self.exploration < 0:
            raise OptionsError(f"exploration must be at least 0, not {self.exploration}")
        if self.mode == "true-score":
            if self.reward not in (None, "true-score", *SENTENCE_REWARDS):
                raise OptionsError(f"reward {self.reward} is a translator-mode reward; mcpg-true's reward is "
                                   f"the true score or {', '.join(SENTENCE_REWARDS)}")
            object.__setattr__(self, "reward", self.reward or "true-score")
        else:
            if self.reward in ("true-score", *SENTENCE_REWARDS):
                raise OptionsError(f"reward {self.reward} is mcpg-true's; mcpg-translator takes channel or seed003")
            if self.reward not in (None, *TRANSLATOR_REWARDS):
                raise OptionsError(f"reward must be one of {', '.join(TRANSLATOR_REWARDS)}, not {self.reward!r}")
            object.__setattr__(self, "reward", self.reward or "channel")
        object.__setattr__(self, "core", self._resolved_core())

    def _resolved_core(self) -> str:
        """The search that runs: what was asked, native by default where it runs these settings (recorded)."""
        from core.engine.mcpg import native

        if self.core not in (None, "native", "python"):
            raise OptionsError(f"core must be native or python, not {self.core!r}")
        if self.core == "python":
            return "python"
        if self.reward in SENTENCE_REWARDS:
            if self.core == "native":
                raise OptionsError(f"the compiled MCPG core cannot call a whole-sentence reward (reward "
                                   f"{self.reward}); use --core python")
            return "python"  # a Python function: only the Python search can call it (the CLI says so)
        why = native.unsupported(self.search_options, self.mode)
        if why is not None:
            if self.core == "native":
                raise OptionsError(f"{why}; use --core python")
            return "python"
        if not native.available():
            native.say_the_python_search_runs()
            return "python"
        return "native"

    @property
    def mode(self) -> str:
        return "translator" if self.system == "mcpg-translator" else "true-score"

    @property
    def translator_reward(self) -> str:
        return self.reward if self.mode == "translator" else "channel"


@dataclass(frozen=True)
class SPGRunOptions(_RunOptions):
    """SPG (seed 004; :mod:`core.engine.spg`): ``spg-compression``, ``spg-simplification``, ``spg-similarity``."""

    system: str = "spg-compression"
    stack_size: int = DEFAULT_STACK_SIZE
    weights: SPGWeights = field(default_factory=SPGWeights)
    pattern_score: str = "score"  # which score of a pattern table is the rule's: Eq. 3 (score) or Eq. 1 (p_mle)

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_at_least_one(stack_size=self.stack_size)
        if self.pattern_score not in ("score", "p_mle"):
            raise OptionsError(f"pattern_score must be score or p_mle, not {self.pattern_score!r}")

    @property
    def application(self) -> str:
        return self.system.removeprefix("spg-")

    @property
    def decoder(self) -> DecoderSettings:
        return DecoderSettings(stack_size=self.stack_size)


RunOptions = BeamRunOptions | MCPGRunOptions | SPGRunOptions
OPTIONS_OF_SYSTEM: dict[str, type] = {
    "beam": BeamRunOptions,
    "mcpg-true": MCPGRunOptions,
    "mcpg-translator": MCPGRunOptions,
    "spg-compression": SPGRunOptions,
    "spg-simplification": SPGRunOptions,
    "spg-similarity": SPGRunOptions,
}


def option_names(system: str) -> tuple[str, ...]:
    """The options ``system`` takes (all but ``system`` itself), in the order they are declared."""
    return tuple(f.name for f in fields(_options_class(system)) if f.name != "system")


def _options_class(system: str) -> type:
    try:
        return OPTIONS_OF_SYSTEM[system]
    except KeyError:
        raise OptionsError(f"unknown system {system!r}; expected one of {', '.join(OPTIONS_OF_SYSTEM)}") from None


def options_for(system: str, **values) -> RunOptions:
    """The options object of ``system`` with ``values`` set; an option the system does not take is refused."""
    cls = _options_class(system)
    taken = option_names(system)
    refused = [name for name in values if name not in taken]
    if refused:
        names = ", ".join(f"{name} (--{name.replace('_', '-')})" for name in refused)
        raise OptionsError(f"{system} does not take {names}; it takes {', '.join(taken)}")
    return cls(system=system, **values)


def _weights_from_json(data: dict) -> ScoreWeights:
    return ScoreWeights(phrase=data["alpha_phi"], lm=data["alpha_lm"], word_penalty=data["alpha_w"])


def options_from_json(data: dict) -> RunOptions:
    """The options object a candidate's ``params`` was written from (extra keys such as ``inputs`` are ignored)."""
    if not isinstance(data, dict) or "system" not in data:
        raise OptionsError("params without a system")
    cls = _options_class(data["system"])
    values = {f.name: data[f.name] for f in fields(cls) if f.name in data}
    values["table_loading"] = TableLoading(**data.get("table_loading", {}))
    if cls is BeamRunOptions:
        decoder = data.get("decoder", {})
        values.update({name: decoder[name] for name in ("stack_size", "beam_threshold", "option_limit",
                                                        "nbest_factor") if name in decoder})
        values["weights"] = _weights_from_json(decoder) if "alpha_phi" in decoder else DEFAULT_WEIGHTS
    elif cls is MCPGRunOptions:
        search = dict(data["search_options"])
        # Params written since eta is recorded once: the profile's own counts complete its search options.
        base = PROFILES.get(data.get("profile", "tuned"))
        for key in COUNTED_AT_THE_TOP:
            if key not in search:
                search[key] = getattr(base, key) if base is not None else data.get(key)
        if search.get("widening") is not None:
            search["widening"] = tuple(search["widening"])
        values["search_options"] = MCPGOptions(**search)
    else:
        weights = data.get("weights", {})
        values["weights"] = SPGWeights(tables=tuple(weights.get("lambda_k", ())),
                                       self_table=weights.get("lambda_self", 1.0), lm=weights.get("lambda_lm", 1.0),
                                       usability=weights.get("lambda_um", 1.0))
    try:
        return cls(**values)
    except TypeError as error:
        raise OptionsError(f"params do not describe {data['system']} options: {error}") from None
