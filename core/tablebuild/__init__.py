"""Table building: word alignment, Moses phrase extraction and scoring, pivoting, table converters.

``alignment`` aligns with eflomal and symmetrizes, ``phrase_extraction`` and
``phrase_scoring`` are the readable Moses steps that ``phrase_pair_counter``
runs fast (same lines), ``phrase_table_lines`` writes their lines, ``phrase_table_builder``
chains them, ``pivot`` turns a bilingual table into a paraphrase table, ``table_converters``
reshapes and prunes tables. ``spark_session``, ``spark_phrase_table`` and ``spark_pivot`` run
the phrase table and the pivot on Apache Spark with the same bytes (pyspark imported lazily).
Imports only itself, :mod:`core.textio` and :mod:`core.errors`.
"""
