"""The engine: rules and tables, the language model, the scoring model, the true score and the decoders.

Imports only itself, :mod:`core.textio` and :mod:`core.errors` (``tests/test_layers.py``).
"""
