"""The real-data pipeline: a trilingual public-domain Bible corpus from Debian's SWORD packages.

``sword_extract`` reads the verses, ``tokenization`` is the one tokenizer every
consumer uses, ``corpus_split`` fixes the held-out sets, ``testcases`` derives
the automatic-evaluation cases (seed 001 §4.1) and ``build`` runs the stages
behind ``parastudio data build``.
"""
