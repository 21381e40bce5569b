"""Paraphrase Studio's one import name: ``parastudio.core`` (engine, storage, statistics), ``parastudio.desktop``
(the PySide6 app) and ``parastudio.evaldata`` (the bundled demo).

An installed copy holds the three inside this package. The repository keeps them at its top level
(``pyproject.toml`` maps them here), so in a checkout, with nothing installed, this package's path also
reaches the repository's top level: ``python -m parastudio`` works from a clone as it does installed.
"""

import os

_HERE = os.path.dirname(os.path.abspath(__file__))
_CHECKOUT = os.path.dirname(_HERE)
if not os.path.isdir(os.path.join(_HERE, "core")) and os.path.isfile(os.path.join(_CHECKOUT, "core", "__init__.py")):
    __path__.append(_CHECKOUT)  # noqa: F821 (a package's own __path__)
