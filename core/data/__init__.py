"""The real-data pipeline: a trilingual public-domain Bible corpus from Debian's SWORD packages.

``sword_extract`` reads the verses, ``tokenization`` is the one tokenizer every
consumer uses, ``corpus_split`` fixes the held-out sets, ``testcases`` derives
the automatic-evaluation cases (seed 001 §4.1), ``alignment``,
``phrase_extraction`` and ``phrase_scoring`` are the readable Moses steps that
``phrase_pair_counter`` runs fast (same lines), ``phrase_table_builder`` chains
them, ``write_behind`` overlaps gzip with formatting, and ``build`` runs the
stages behind ``parastudio data build``.
"""
