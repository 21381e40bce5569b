"""Candidates: ``generate``'s systems and their frozen options, the resources they load, each candidate line
with its provenance (inputs by sha256), and ``reproduce``."""
