"""One frozen options object per system: what a run of ``generate`` was asked to do.

The CLI (``parastudio generate``), the app and a notebook build the same object,
by :func:`options_for` (``options_for("mcpg-true", seed=3, episodes_per_step=500)``)
or by the class itself, and every check of a value or of a combination is made
here (:class:`~core.errors.OptionsError`), so no caller can skip one. Its
:meth:`to_json` is the head of every candidate's ``params`` and
:func:`options_from_json` rebuilds it, which is what ``parastudio reproduce`` runs.

* :class:`BeamRunOptions`: the beam decoder (our Moses) and its settings.
* :class:`MCPGRunOptions`: MCPG (seed 003): profile, eta, the episode limit, the seed, the
  time cap (only a cap: :mod:`core.engine.decoders.mcpg`).
* :class:`SPGRunOptions`: SPG (seed 004): its weights and the pattern tables' score.

Options every system takes: ``nbest``, ``exclude_source``, ``tokenize`` (whether the
input was tokenized by the Moses tokenizer, recorded because it changes the
sentences) and ``table_loading`` (:class:`~core.engine.tables.table_formats.TableLoading`, how the tables were
read: the group ``ParaphraseTable.load`` takes whole).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, fields
from typing import ClassVar

from parastudio.core.engine.decoders.decoder_types import (
    DEFAULT_BEAM_THRESHOLD,
    DEFAULT_NBEST_FACTOR,
    DEFAULT_STACK_SIZE,
    DecoderSettings,
)
from parastudio.core.engine.decoders.mcpg.options import DEFAULT_EXPLORATION, PROFILES, MCPGOptions
from parastudio.core.engine.decoders.spg import SPGWeights
from parastudio.core.engine.model.scoring import DEFAULT_WEIGHTS, ScoreWeights
from parastudio.core.engine.model.translation_options import DEFAULT_OPTION_LIMIT
from parastudio.core.engine.tables.table_formats import TableLoading
from parastudio.core.errors import OptionsError
from parastudio.core.option_values import OptionValueError, check_fields, one_of, real, whole, within

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
class _RunOptions:
    """What every system takes (module docstring). Every field's kind and range is checked from its declaration
    (:mod:`core.option_values`) before any other check, for every system and every caller."""

    system: str = ""
    nbest: int = whole(1, minimum=1)
    exclude_source: bool = False
    tokenize: bool = False
    table_loading: TableLoading = field(default_factory=TableLoading)

    def __post_init__(self) -> None:
        check_fields(self)
        if self.system not in self.SYSTEMS:
            raise OptionsError(f"{type(self).__name__} is for {', '.join(self.SYSTEMS)}, not {self.system!r}")

    def to_json(self) -> dict:
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}


def _plain(value):
    if dataclasses.is_dataclass(value):
        return value.to_json() if hasattr(value, "to_json") else dataclasses.asdict(value)
    return list(value) if isinstance(value, tuple) else value


@dataclass(frozen=True)
class BeamRunOptions(_RunOptions):
    SYSTEMS: ClassVar[tuple[str, ...]] = ("beam",)
    """The beam decoder: Moses' ``-stack``, ``-beam-threshold``, ``-ttable-limit``, ``-n-best-factor``, weights."""

    system: str = "beam"
    stack_size: int = whole(DEFAULT_STACK_SIZE, minimum=1)
    # Moses' -beam-threshold: a probability ratio to the best hypothesis (0: none).
    beam_threshold: float = real(DEFAULT_BEAM_THRESHOLD, minimum=0, maximum=1,
                                 described="a ratio from 0 (no threshold) to 1")
    option_limit: int | None = whole(DEFAULT_OPTION_LIMIT, minimum=1)
    nbest_factor: int = whole(DEFAULT_NBEST_FACTOR, minimum=1)
    weights: ScoreWeights = DEFAULT_WEIGHTS

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
    SYSTEMS: ClassVar[tuple[str, ...]] = ("mcpg-true", "mcpg-translator")
    """MCPG (seed 003; :mod:`core.engine.decoders.mcpg`), ``mcpg-true`` or ``mcpg-translator``.

    ``episodes_per_step`` (eta) and ``max_episodes`` default to the profile's
    (``None`` here means "the profile's"; the built object holds the numbers). ``time_budget``
    is a cap in seconds per sentence, not a setting of the search. ``reward``:
    ``"true-score"`` (default) or ``"predictor"`` (the judgment predictor's probability of acceptance, a
    whole-sentence reward; the Python search runs it) for mcpg-true, ``"channel"`` (default) or ``"seed003"``
    for mcpg-translator.
    """

    system: str = "mcpg-true"
    seed: int = whole(0, minimum=None, maximum=None)  # any: both searches read it modulo 2**64
    profile: str = one_of("tuned", (*PROFILES, "custom"))
    search_options: MCPGOptions | None = None  # the profile's options, or a custom mix (profile "custom")
    episodes_per_step: int | None = whole(None, minimum=1)
    max_episodes: int | None = whole(None, minimum=1)
    time_budget: float | None = real(DEFAULT_TIME_CAP, above=0)
    exploration: float = real(DEFAULT_EXPLORATION, minimum=0)
    reward: str | None = one_of(None, ("true-score", *SENTENCE_REWARDS, *TRANSLATOR_REWARDS))
    # "native" (the compiled search) or "python"; None: native where it runs these settings
    core: str | None = one_of(None, ("native", "python"))

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
        if self.episodes_per_step is None:
            object.__setattr__(self, "episodes_per_step", self.search_options.episodes_per_step)
        if self.max_episodes is None:
            object.__setattr__(self, "max_episodes", self.search_options.max_episodes)
        if self.mode == "true-score":
            if self.reward not in (None, "true-score", *SENTENCE_REWARDS):
                raise OptionsError(f"reward {self.reward} is a translator-mode reward; mcpg-true's reward is "
                                   f"the true score or {', '.join(SENTENCE_REWARDS)}")
            object.__setattr__(self, "reward", self.reward or "true-score")
        else:
            if self.reward in ("true-score", *SENTENCE_REWARDS):
                raise OptionsError(f"reward {self.reward} is mcpg-true's; mcpg-translator takes channel or seed003")
            object.__setattr__(self, "reward", self.reward or "channel")
        object.__setattr__(self, "core", self._resolved_core())

    def _resolved_core(self) -> str:
        """The search that runs: what was asked, native by default where it runs these settings (recorded)."""
        from parastudio.core.engine.decoders.mcpg import native

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
    SYSTEMS: ClassVar[tuple[str, ...]] = ("spg-compression", "spg-simplification", "spg-similarity")
    """SPG (seed 004; :mod:`core.engine.decoders.spg`): ``spg-compression``, ``spg-simplification``, ``spg-similarity``."""

    system: str = "spg-compression"
    stack_size: int = whole(DEFAULT_STACK_SIZE, minimum=1)
    weights: SPGWeights = field(default_factory=SPGWeights)
    # which score of a pattern table is the rule's: Eq. 3 (score) or Eq. 1 (p_mle)
    pattern_score: str = one_of("score", ("score", "p_mle"))

    @property
    def application(self) -> str:
        return self.system.removeprefix("spg-")

    @property
    def decoder(self) -> DecoderSettings:
        return DecoderSettings(stack_size=self.stack_size)


RunOptions = BeamRunOptions | MCPGRunOptions | SPGRunOptions
# Each system is named once, by the options class that runs it; its generator names that class
# (core.engine.candidates.generation.GENERATORS is made from the generators the same way).
RUN_OPTIONS: tuple[type, ...] = (BeamRunOptions, MCPGRunOptions, SPGRunOptions)
OPTIONS_OF_SYSTEM: dict[str, type] = {system: options for options in RUN_OPTIONS for system in options.SYSTEMS}


def option_names(system: str) -> tuple[str, ...]:
    """The options ``system`` takes (all but ``system`` itself), in the order they are declared."""
    return tuple(f.name for f in fields(_options_class(system)) if f.name != "system")


def _options_class(system) -> type:
    if not isinstance(system, str) or system not in OPTIONS_OF_SYSTEM:
        raise OptionsError(f"unknown system {system!r}; expected one of {', '.join(OPTIONS_OF_SYSTEM)}")
    return OPTIONS_OF_SYSTEM[system]


def options_for(system: str, **values) -> RunOptions:
    """The options object of ``system`` with ``values`` set; an option the system does not take is refused."""
    cls = _options_class(system)
    taken = option_names(system)
    refused = [name for name in values if name not in taken]
    if refused:
        names = ", ".join(f"{name} (--{name.replace('_', '-')})" for name in refused)
        raise OptionsError(f"{system} does not take {names}; it takes {', '.join(taken)}")
    return cls(system=system, **values)


# Where to_json writes a field elsewhere than under its own name (the object's field -> the params' field), so a
# refusal of params names the field a reader finds in the file.
DECODER_FIELDS = ("stack_size", "beam_threshold", "option_limit", "nbest_factor")
SCORE_WEIGHTS_JSON = {"weights.phrase": "decoder.alpha_phi", "weights.lm": "decoder.alpha_lm",
                      "weights.word_penalty": "decoder.alpha_w"}
SPG_WEIGHTS_JSON = {"weights.tables": "weights.lambda_k", "weights.self_table": "weights.lambda_self",
                    "weights.lm": "weights.lambda_lm", "weights.usability": "weights.lambda_um"}
PARAMS_FIELDS = {BeamRunOptions: {**{name: f"decoder.{name}" for name in DECODER_FIELDS}, **SCORE_WEIGHTS_JSON},
                 SPGRunOptions: SPG_WEIGHTS_JSON}


def options_from_json(data: dict) -> RunOptions:
    """The options object a candidate's ``params`` was written from (extra keys such as ``inputs`` are ignored).

    Every value is checked as the object's own (:mod:`core.option_values`); a refusal names the field as
    the params hold it (``decoder.stack_size must be a whole number, not NaN``). A group (``decoder``,
    ``search_options``...) holding a key this code does not know is refused: ignoring it could change the output.
    """
    if not isinstance(data, dict) or "system" not in data:
        raise OptionsError("params without a system")
    cls = _options_class(data["system"])
    try:
        return cls(**_values_from_json(cls, data))
    except OptionValueError as error:
        raise error.renamed(_params_field(cls, error.field)) from None


def _params_field(cls: type, name: str) -> str:
    for field_name, params_name in PARAMS_FIELDS.get(cls, {}).items():
        if name == field_name or name.startswith(field_name + "["):
            return params_name + name[len(field_name):]
    return name


def _renamed(params_fields: dict, group: str) -> dict:
    """``{"weights.lm": "decoder.alpha_lm"}`` as the weights' own names: ``{"lm": "alpha_lm"}``."""
    return {name.removeprefix("weights."): key.removeprefix(group) for name, key in params_fields.items()}


def _group(data: dict, key: str, known, *, required: bool = False) -> dict:
    """``data[key]``, an object whose keys are all ``known`` (``{}`` when absent and not ``required``)."""
    if key not in data and not required:
        return {}
    group = data.get(key)
    if not isinstance(group, dict):
        raise OptionValueError(key, "an object", group)
    unknown = [name for name in group if name not in known]
    if unknown:
        raise OptionsError(f"{key}.{unknown[0]} is not an option this code knows")
    return group


def _values_from_json(cls: type, data: dict) -> dict:
    """The keyword arguments of ``cls`` that ``data`` (params) records; groups rebuilt as their objects."""
    top_level = fields(_RunOptions) if cls is BeamRunOptions else fields(cls)  # the beam's own: under "decoder"
    values = {f.name: data[f.name] for f in top_level if f.name in data}
    with within("table_loading"):
        values["table_loading"] = TableLoading(**_group(data, "table_loading", [f.name for f in fields(TableLoading)]))
    if cls is BeamRunOptions:
        weights = _renamed(SCORE_WEIGHTS_JSON, "decoder.")
        decoder = _group(data, "decoder", (*DECODER_FIELDS, *weights.values()))
        values.update({name: decoder[name] for name in DECODER_FIELDS if name in decoder})
        recorded = any(name in decoder for name in weights.values())  # one missing of three: null, refused by name
        values["weights"] = (ScoreWeights(**{name: decoder.get(key) for name, key in weights.items()}) if recorded
                             else DEFAULT_WEIGHTS)
    elif cls is MCPGRunOptions:
        search = dict(_group(data, "search_options", [f.name for f in fields(MCPGOptions)], required=True))
        # Params written since eta is recorded once: the profile's own counts complete its search options.
        profile = data.get("profile", "tuned")
        base = PROFILES.get(profile) if isinstance(profile, str) else None
        for key in COUNTED_AT_THE_TOP:
            if key not in search:
                search[key] = getattr(base, key) if base is not None else data.get(key)
        if isinstance(search.get("widening"), list):
            search["widening"] = tuple(search["widening"])
        values["search_options"] = MCPGOptions(**search)
    else:
        names = _renamed(SPG_WEIGHTS_JSON, "weights.")
        weights = dict(_group(data, "weights", names.values()))
        if isinstance(weights.get("lambda_k"), list):
            weights["lambda_k"] = tuple(weights["lambda_k"])
        values["weights"] = SPGWeights(**{name: weights[key] for name, key in names.items() if key in weights})
    return values
