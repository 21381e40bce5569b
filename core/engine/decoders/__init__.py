"""The searches: the monotone beam decoder with its k-best lists, search graphs and compiled core, MCPG
(:mod:`~core.engine.decoders.mcpg`), SPG, and seed 001's paraphraser over search graphs
(:mod:`~core.engine.decoders.cat`)."""
