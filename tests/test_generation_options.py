"""One options object per system, built and checked in core (issue 23, Deliver 1)."""

from __future__ import annotations

import dataclasses
import io
import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parastudio.core.cli import main
from parastudio.core.code_identity import identity_from_build, identity_from_git
from parastudio.core.engine.candidates.generation_options import (
    OPTIONS_OF_SYSTEM,
    BeamRunOptions,
    MCPGRunOptions,
    SPGRunOptions,
    TableLoading,
    option_names,
    options_for,
    options_from_json,
)
from parastudio.core.engine.decoders.mcpg import FAITHFUL, TUNED
from parastudio.core.engine.decoders.spg import SPGWeights
from parastudio.core.engine.model.scoring import ScoreWeights
from parastudio.core.errors import OptionsError
from parastudio.core.file_fingerprint import cache_path, fingerprint, sha256_of

finite = st.floats(-5, 5, allow_nan=False)


@st.composite
def any_options(draw):
    system = draw(st.sampled_from(list(OPTIONS_OF_SYSTEM)))
    common = {"nbest": draw(st.integers(1, 50)), "exclude_source": draw(st.booleans()),
              "tokenize": draw(st.booleans()),
              "table_loading": TableLoading(format=draw(st.sampled_from([None, "moses", "ppdb"])),
                                            swap_sides=draw(st.booleans()))}
    if system == "beam":
        extra = {"stack_size": draw(st.integers(1, 500)), "weights": ScoreWeights(draw(finite), draw(finite),
                                                                                  draw(finite))}
    elif system.startswith("mcpg"):
        extra = {"seed": draw(st.integers(0, 10**6)), "profile": draw(st.sampled_from(["faithful", "tuned"])),
                 "episodes_per_step": draw(st.none() | st.integers(1, 10**5)),
                 "time_budget": draw(st.none() | st.floats(0.01, 100)),
                 "reward": draw(st.sampled_from(["seed003", "channel"])) if system == "mcpg-translator" else None}
    else:
        extra = {"weights": SPGWeights(tables=tuple(draw(st.lists(finite, max_size=3))), lm=draw(finite)),
                 "pattern_score": draw(st.sampled_from(["score", "p_mle"]))}
    return options_for(system, **common, **extra)


@given(any_options())
def test_the_json_of_any_options_rebuilds_the_same_options(options):
    assert options_from_json(options.to_json()) == options


def test_a_custom_mcpg_mix_round_trips_with_its_widening():
    custom = MCPGRunOptions(profile="custom", search_options=dataclasses.replace(TUNED, widening=(2.0, 0.25)))
    assert options_from_json(custom.to_json()) == custom


def test_each_system_takes_only_its_options_and_says_which():
    assert "seed" in option_names("mcpg-true") and "seed" not in option_names("beam")
    assert "stack_size" in option_names("spg-similarity") and "episodes_per_step" not in option_names("spg-compression")
    with pytest.raises(OptionsError, match=r"beam does not take seed \(--seed\); it takes nbest"):
        options_for("beam", seed=3)
    with pytest.raises(OptionsError, match="unknown system 'moses'"):
        options_for("moses")


@pytest.mark.parametrize("build, message", [
    (lambda: options_for("mcpg-true", reward="seed003"), "translator-mode reward"),
    (lambda: options_for("mcpg-translator", reward="true-score"), "true-score is mcpg-true's"),
    (lambda: options_for("mcpg-true", episodes_per_step=0), "episodes_per_step must be at least 1"),
    (lambda: options_for("mcpg-true", time_budget=0.0), "time_budget must be more than 0"),
    (lambda: options_for("mcpg-true", profile="fast"), "profile must be one of"),
    (lambda: MCPGRunOptions(search_options=FAITHFUL), "differ from it; call the profile 'custom'"),
    (lambda: options_for("beam", nbest=0), "nbest must be at least 1"),
    (lambda: options_for("spg-compression", pattern_score="p"), "pattern_score must be score or p_mle"),
    (lambda: BeamRunOptions(system="mcpg-true"), "BeamRunOptions is for beam"),
    (lambda: TableLoading(format="xml"), 'format must be one of moses, ppdb, tsv, not "xml"'),
])
def test_invalid_options_are_refused_in_core(build, message):
    with pytest.raises(OptionsError, match=message):
        build()


def test_mcpg_options_hold_the_profile_numbers():
    faithful, tuned = options_for("mcpg-true", profile="faithful"), options_for("mcpg-translator")
    assert (faithful.episodes_per_step, faithful.max_episodes) == (FAITHFUL.episodes_per_step, None)
    assert (tuned.episodes_per_step, tuned.max_episodes, tuned.reward) == (TUNED.episodes_per_step,
                                                                           TUNED.max_episodes, "channel")
    assert isinstance(options_for("spg-similarity"), SPGRunOptions)


def test_the_cli_refuses_an_option_the_system_does_not_take_and_shows_the_table(example1_table_path, tiny_lm,
                                                                                 monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("the dog\n"))
    assert main(["generate", "--system", "beam", "--seed", "4", "--table", str(example1_table_path),
                 "--lm", str(tiny_lm["binary"])]) == 2
    assert "beam does not take seed (--seed)" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["generate", "--help"])
    shown = capsys.readouterr().out
    assert "options each system takes" in shown
    table = dict(line.split(None, 1) for line in shown.split("options each system takes")[1].splitlines()[1:]
                 if line.strip() and not line.strip().startswith("--") and not line.startswith("  every"))
    assert "--stack-size" in table["beam"] and "--seed" not in table["beam"]
    assert "--episodes-per-step" in table["mcpg-true"] and "--pattern-score" in table["spg-similarity"]


def test_the_sha256_is_computed_once_per_version_of_a_file(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    table = tmp_path / "t.txt"
    table.write_text("a ||| b ||| 0.5\n")
    first = fingerprint(table)
    assert first["bytes"] == 16 and cache_path().is_file()
    # The cache answers for the same version of the file: a planted value comes back unread.
    text = cache_path().read_text()
    cache_path().write_text(text.replace(first["sha256"], "0" * 64))
    assert sha256_of(table) == "0" * 64
    table.write_text("a ||| c ||| 0.5\n")  # same size, new content and mtime: hashed again
    os.utime(table, ns=(1, 1))
    assert sha256_of(table) not in ("0" * 64, first["sha256"])


def test_the_code_identity_comes_from_git_then_from_the_build_then_the_release(tmp_path, monkeypatch):
    import parastudio.core.code_identity as identity

    monkeypatch.setattr(identity, "SOURCE_ROOT", tmp_path)  # not a checkout
    monkeypatch.setattr(identity, "BUILD_IDENTITY", tmp_path / "_build_identity.json")
    assert identity_from_git() is None and identity_from_build() is None
    identity._identity.cache_clear()
    try:
        assert identity.code_identity() == {"version": identity.__version__, "commit": "unknown"}
        (tmp_path / "_build_identity.json").write_text('{"version": "0.2.0.dev5+gabc1234", "commit": "abc1234ff"}')
        identity._identity.cache_clear()
        assert identity.code_identity() == {"version": "0.2.0.dev5+gabc1234", "commit": "abc1234ff"}
    finally:
        identity._identity.cache_clear()


def test_version_shows_what_every_candidate_records(capsys):
    from parastudio.core.code_identity import code_identity

    with pytest.raises(SystemExit):
        main(["--version"])
    identity = code_identity()
    assert capsys.readouterr().out.strip() == f"parastudio {identity['version']} (commit {identity['commit']})"


def test_mcpg_has_no_wall_clock_cap_unless_asked_and_records_eta_once(capsys):
    """Issue 39: the same bytes on any load by default, so no time cap by default; and the params say eta once."""
    import json

    from parastudio.core.cli import main

    options = options_for("mcpg-true", episodes_per_step=100_000)
    assert options.time_budget is None
    params = json.loads(json.dumps(options.to_json()))
    assert params["episodes_per_step"] == 100_000 and "episodes_per_step" not in params["search_options"]
    assert "max_episodes" not in params["search_options"]
    assert options_from_json(params) == options
    assert options_for("mcpg-true", time_budget=5.0).time_budget == 5.0
    with pytest.raises(SystemExit):
        main(["generate", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "(default: none, so the output depends on the inputs and the seed alone)" in help_text
