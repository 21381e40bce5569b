"""The C++ KenLM model the compiled searches score with: one per LM file in a process, whichever searches run.

The beam decoder's search and MCPG's tree search are one extension module,
``core.engine._search_cores`` (``core/engine/native/search_cores.cpp``), so a
process holds one copy of KenLM; its ``Model`` (``native/kenlm_model.hh``) is
what both take, and :func:`native_model` opens it once per file for both
(``tests/test_native_model_shared.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from parastudio.core.engine.lm.language_model import LanguageModel

try:
    from parastudio.core.engine import _search_cores
except ImportError:  # not built: the searches run in Python, with the kenlm module
    _search_cores = None

_MODELS: dict[tuple[str, int, int], object] = {}


def native_model(lm: "LanguageModel"):
    """The C++ KenLM model of ``lm``'s file, opened once per process (keyed by path, size and mtime)."""
    if _search_cores is None:
        raise RuntimeError("the compiled search cores are not built: pip install the package")
    stat = lm.path.stat()
    key = (str(lm.path.resolve()), stat.st_size, stat.st_mtime_ns)
    model = _MODELS.get(key)
    if model is None:
        model = _MODELS[key] = _search_cores.Model(str(lm.path))
    return model
