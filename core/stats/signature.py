"""A statistic's signature, read from the object that computed it (sacrebleu's ``Metric.get_signature()``).

``stat:<name>|<setting>:<value>|...|<data>:<value>|items:N|judges:J|version:V``: the settings come from the
statistic's own fields (a frozen dataclass that also does the computing), so changing how a number is computed
changes its signature, and nothing is typed beside the call; the data part (the criterion, the unit of pairing)
says what it was computed on.
"""

from __future__ import annotations

from dataclasses import fields
from typing import ClassVar

from parastudio.core.code_identity import code_version


def _shown(value: object) -> str:
    if isinstance(value, (tuple, list)):
        return ",".join(map(_shown, value))
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def signature(statistic: str, n_items: int, n_judges: int, **options) -> str:
    """``stat:<statistic>|<option>:<value>|...|items:N|judges:J|version:V``."""
    parts = [f"stat:{statistic}"]
    parts += [f"{name.replace('_', '-')}:{_shown(value)}" for name, value in options.items()]
    parts += [f"items:{n_items}", f"judges:{n_judges}", f"version:{code_version()}"]
    return "|".join(parts)


class Signed:
    """For a frozen dataclass that computes a statistic: ``name`` and every field make its signature.

    A class adds settings that are not fields (fixed by the method, e.g. a two-sided test) by overriding
    :meth:`settings`.
    """

    name: ClassVar[str]

    def settings(self) -> dict[str, object]:
        return {field.name: getattr(self, field.name) for field in fields(self)}

    def signature(self, n_items: int, n_judges: int, **data) -> str:
        return signature(self.name, n_items, n_judges, **self.settings(), **data)
