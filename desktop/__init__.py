"""Paraphrase Studio desktop app: PySide6 views and thin glue over ``core``."""
