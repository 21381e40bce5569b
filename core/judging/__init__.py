"""Judging: what a judge sees of an item (:mod:`~core.judging.view`), the keys and what each does
(:mod:`~core.judging.keys`), the desk that reads a key against the item and says what to record
(:mod:`~core.judging.desk`), and error spans mapped onto a candidate's rewrites
(:mod:`~core.judging.span_rewrites`). Qt-free: the app paints what these say, the CLI and the statistics read
them. Below the bridges: it reads the store and the engine, and the tuning and inspection bridges read it.
"""
