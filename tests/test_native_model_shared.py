"""One C++ KenLM model per LM file in a process, whichever compiled searches run (issue 42, item 5).

The beam decoder's search and MCPG's tree search are one extension module
(``core.engine._search_cores``) and take the same ``Model``, which
:func:`core.engine.lm.native_model.native_model` opens once per file. The
module counts the models it has opened: a process that decodes with the beam
search and then runs MCPG on the same file opens one, not one per search.
"""

from __future__ import annotations

import shutil

import pytest

from parastudio.core.engine.decoders import compiled_search
from parastudio.core.engine.decoders.beam_decoder import BeamDecoder, DecoderSettings
from parastudio.core.engine.decoders.mcpg import FAITHFUL, SearchInputs, TreeSearch, native
from parastudio.core.engine.lm import native_model as native_models
from parastudio.core.engine.lm.language_model import LanguageModel
from parastudio.core.engine.tables.paraphrase_table import ParaphraseTable
from parastudio.core.engine.tables.rules import Rule

pytestmark = pytest.mark.skipif(not (compiled_search.available() and native.available()),
                                reason="the compiled search cores are not built")

SOURCE = ("the", "dog", "saw", "the", "young", "cat")
RULES = [("the dog", "the beast", 0.8), ("the young cat", "the kitten", 0.7), ("saw", "noticed", 0.5),
         ("young", "small", 0.4)]


def table() -> ParaphraseTable:
    made = ParaphraseTable(name="shared-model")
    for source, target, p in RULES:
        made.add(Rule(tuple(source.split()), tuple(target.split()), p))
    made.sort()
    return made


@pytest.fixture
def fresh_lm_file(tiny_lm, tmp_path):
    """The tiny LM under a path no earlier test opened (the cache is per process)."""
    path = tmp_path / "model.bin"
    shutil.copyfile(tiny_lm["binary"], path)
    return path


def test_the_beam_search_and_mcpg_on_one_file_open_one_model(fresh_lm_file):
    opened = native_models._search_cores.models_opened()
    beam_lm, mcpg_lm = LanguageModel(fresh_lm_file), LanguageModel(fresh_lm_file)  # two callers, one file

    decoded = BeamDecoder(table(), beam_lm, DecoderSettings(), core="compiled").decode(SOURCE)
    search = native.NativeSearch(TreeSearch(SearchInputs(SOURCE, table(), mcpg_lm, options=FAITHFUL, seed=3)), 1, None)
    search.core.run_episodes(50)

    assert decoded.nbest(1)[0].score < 0  # the LM scored the beam search's output
    assert search.core.lm_score(search.to_ids(SOURCE)) < 0  # and MCPG's sentences
    assert native_models._search_cores.models_opened() == opened + 1
    assert native_models.native_model(beam_lm) is native_models.native_model(mcpg_lm)


def test_another_file_is_another_model(fresh_lm_file, tmp_path):
    other = tmp_path / "other.bin"
    shutil.copyfile(fresh_lm_file, other)
    first = native_models.native_model(LanguageModel(fresh_lm_file))
    opened = native_models._search_cores.models_opened()

    second = native_models.native_model(LanguageModel(other))

    assert second is not first
    assert native_models._search_cores.models_opened() == opened + 1
