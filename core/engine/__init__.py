"""The engine, one folder per step of the pipeline: ``tables`` and ``lm`` (the data) -> ``model`` (scores,
options, true score) -> ``decoders`` (beam, MCPG, SPG, seed 001's paraphraser) -> ``candidates`` (systems,
provenance, reproduction); ``text`` beside them, the C++ cores in ``native``. A folder imports only those before
it in the pipeline, and no module imports itself back (``tests/test_import_cycles.py``).

Imports only itself and the base layer (``tests/test_layers.py``).
"""
