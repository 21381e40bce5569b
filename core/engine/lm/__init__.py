"""The language model: KenLM's scorer (:mod:`~core.engine.lm.language_model`), the check of a model file before
KenLM reads it, and KenLM's training tools (lmplz, build_binary) built on first use."""
