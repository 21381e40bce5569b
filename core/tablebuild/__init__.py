"""Table building: word alignment, Moses phrase extraction and scoring, pivoting, table converters.

``alignment`` aligns with eflomal and symmetrizes, ``phrase_extraction`` and
``phrase_scoring`` are the readable Moses steps that ``phrase_pair_counter``
runs fast (same lines), ``phrase_table_builder`` chains them, ``pivot`` turns a
bilingual table into a paraphrase table, ``table_converters`` reshapes and
prunes tables. Imports only itself, :mod:`core.textio` and :mod:`core.errors`.
"""
