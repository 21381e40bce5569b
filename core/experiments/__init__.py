"""Reproductions of the seeds' experiments, one module per analysis."""
