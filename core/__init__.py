"""Paraphrase Studio core library: engine, storage and statistics.

Nothing under ``core`` imports Qt or ``desktop``; the CLI, notebooks and the
desktop app all call the same functions.
"""

__version__ = "0.1.0"
