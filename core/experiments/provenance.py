"""The "Inputs:" line of a results file, with paths inside the checkout written relative to it."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def in_checkout(value: str) -> str:
    """``value`` with the checkout's absolute path removed, so a results file reads the same from any clone."""
    return value.replace(str(ROOT) + "/", "")


def inputs_line(provenance: dict) -> str:
    """``Inputs: key: `value`, ...`` for a results file."""
    return "Inputs: " + ", ".join(f"{key}: `{in_checkout(str(value))}`" for key, value in provenance.items())
