"""The real-data recipe: a trilingual public-domain Bible corpus from Debian's SWORD packages, built in stages.

``sword_extract`` reads the verses, ``corpus_split`` fixes the held-out sets,
``testcases`` derives the automatic-evaluation cases (seed 001 §4.1). The
stages behind ``parastudio data build`` live in ``corpus_stages`` (extract,
tokenize, split), ``model_stages`` (phrase tables, pivot, LMs, test cases) and
``demo_release`` (the committed demo and the manifests); ``stage_context`` is
what they share and ``build`` runs them. May import the engine and tablebuild.
"""
