"""Verses of the World English Bible, the King James Version and the Reina-Valera 1909.

The texts come from Debian's CrossWire SWORD modules. The raw OSIS of each
verse is read through ``python3-sword`` (the SWIG binding of libsword), which
Debian builds only for its own ``/usr/bin/python3``; so the reading runs in that
interpreter as a subprocess and streams ``{"ref", "osis"}`` JSON lines back.
Everything else, including the markup handling, runs here and is tested here.

Markup policy (``osis_to_text``): notes, titles, headings and speaker labels are
removed with their content; word-level elements (``<w>`` Strong's words,
``<transChange>`` added words, ``<divineName>``, red-letter ``<q>``, ...) keep
their text; structural elements (poetry ``<l>``/``<lg>``, ``<lb/>``, ``<div>``
milestones, ``<chapter>``, list items) become a space; text after the end of a book
(the WEB's glossary hangs off Rev 22:21) is dropped, so poetry lines are
joined into their verse without gluing words. Between two word-level elements
that close and open without text between them (``</w><transChange>``) a space is
inserted too, because each element is its own word; an element that starts or
ends inside a word (``give</w>n``, ``preguntándo<transChange>le``) is glued.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

# Our short names -> CrossWire module names shipped by Debian.
MODULES = {"web": "engWEB2015eb", "kjv": "engKJV2006eb", "rv": "spaRV1909eb"}
DEBIAN_PACKAGES = {"web": "sword-text-web", "kjv": "sword-text-kjv", "rv": "sword-text-sparv"}
READER_PACKAGE = "python3-sword"
SWORD_CONF_DIR = Path("/usr/share/sword/mods.d")


def sword_conf_dir() -> Path:
    """Where the module ``.conf`` files are: ``$SWORD_PATH/mods.d`` when SWORD_PATH is set (libsword's own
    variable, which the reader subprocess inherits), else Debian's ``/usr/share/sword/mods.d``."""
    override = os.environ.get("SWORD_PATH")
    return Path(override) / "mods.d" if override else SWORD_CONF_DIR


def _module_conf(module: str, conf_dir: Path) -> Path | None:
    return next((path for path in (conf_dir / f"{module}.conf", conf_dir / f"{module.lower()}.conf")
                 if path.exists()), None)

# Elements dropped together with everything inside them.
_REMOVED = {"note", "title", "speaker", "catchWord", "rdg", "figure", "header"}
# Elements whose text is the verse text; their tags vanish.
_WORD_LEVEL = {"w", "transChange", "divineName", "q", "name", "seg", "foreign", "hi", "reference", "abbr", "add",
               "inscription", "mentioned", "rf", "rb"}
# Everything else (l, lg, lb, div, chapter, list, item, milestone, p, ...) separates words.

_TAG = re.compile(r"<(/?)([A-Za-z][\w:-]*)([^>]*?)(/?)>")
_PILCROW = "\u00b6"
_BOOK_END = re.compile(r'\beID="[^"]*"[^>]*\btype="book"|\btype="book"[^>]*\beID="')


def osis_to_text(osis: str) -> str:
    """Plain text of one verse's OSIS markup, following the module's markup policy."""
    pieces: list[str] = []
    skip_depth = 0
    position = 0
    # State of the current run of tags between two pieces of text.
    closed_word_element = False
    opened_word_element = False

    def flush_run() -> None:
        nonlocal closed_word_element, opened_word_element
        if closed_word_element and opened_word_element:
            pieces.append(" ")
        closed_word_element = opened_word_element = False

    for match in _TAG.finditer(osis):
        text = osis[position:match.start()]
        position = match.end()
        if text and not skip_depth:
            flush_run()
            pieces.append(text)
        is_close, name, attributes, self_closing = match.group(1) == "/", match.group(2), match.group(3), match.group(4) == "/"
        if name == "div" and _BOOK_END.search(attributes):
            # What follows the end of the last book (the WEB appends its glossary to Rev 22:21) is not verse text.
            position = len(osis)
            break
        if name in _REMOVED:
            if self_closing:
                pieces.append(" ")
            elif is_close:
                skip_depth = max(0, skip_depth - 1)
                if not skip_depth:
                    pieces.append(" ")
            else:
                skip_depth += 1
            continue
        if skip_depth:
            continue
        if name in _WORD_LEVEL:
            if self_closing:
                continue
            if is_close:
                closed_word_element = True
            elif closed_word_element:
                opened_word_element = True
        else:
            pieces.append(" ")
            closed_word_element = opened_word_element = False
    if not skip_depth:
        pieces.append(osis[position:])
    text = html.unescape("".join(pieces)).replace(_PILCROW, " ")
    return " ".join(text.split())


@dataclass(frozen=True)
class ModuleInfo:
    """What a researcher needs to cite a module: its name, version and date."""

    name: str
    description: str
    version: str
    date: str
    versification: str


def module_info(module: str, conf_dir: Path | None = None) -> ModuleInfo:
    """Read a module's ``.conf`` file (name, version, date, versification)."""
    conf_dir = conf_dir or sword_conf_dir()
    conf = _module_conf(module, conf_dir) or conf_dir / f"{module}.conf"
    values: dict[str, str] = {}
    for line in conf.read_text(encoding="utf-8").splitlines():
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            values.setdefault(key.strip(), value.strip())
    return ModuleInfo(module, values.get("Description", ""), values.get("Version", ""),
                      values.get("SwordVersionDate", ""), values.get("Versification", ""))


def debian_package_version(package: str) -> str | None:
    """Installed version of a Debian package, or None when it is not installed."""
    if not shutil.which("dpkg-query"):
        return None
    result = subprocess.run(["dpkg-query", "-W", "-f=${Status}\t${Version}", package],
                            capture_output=True, text=True)
    if result.returncode != 0 or "install ok installed" not in result.stdout:
        return None
    return result.stdout.split("\t", 1)[1]


def missing_packages() -> list[str]:
    """Debian packages the extraction needs and this machine lacks.

    A text package counts as missing when dpkg does not list it or its module is not in
    :func:`sword_conf_dir` (so ``SWORD_PATH=/empty`` shows what a machine without them is told).
    """
    conf_dir = sword_conf_dir()
    missing = [package for name, package in DEBIAN_PACKAGES.items()
               if debian_package_version(package) is None or _module_conf(MODULES[name], conf_dir) is None]
    if debian_package_version(READER_PACKAGE) is None:
        missing.append(READER_PACKAGE)
    return missing


def install_command(packages: list[str]) -> str:
    """The exact command that installs ``packages`` (with sudo when not root)."""
    prefix = "" if os.geteuid() == 0 else "sudo "
    return f"{prefix}apt-get install -y {' '.join(packages)}"


class SwordUnavailable(RuntimeError):
    """The SWORD modules or their reader are not installed and cannot be installed here."""


def ensure_packages(*, install: bool = True) -> list[str]:
    """Install missing packages with apt-get when running as root; else say exactly what to install.

    Returns the packages that were installed.
    """
    missing = missing_packages()
    if not missing:
        return []
    command = ["apt-get", "install", "-y", *missing]
    where = sword_conf_dir()
    if not install or os.geteuid() != 0 or not shutil.which("apt-get"):
        raise SwordUnavailable(f"the SWORD texts are missing ({', '.join(missing)}; modules looked for in "
                               f"{where}); install them with:\n  {install_command(missing)}")
    environment = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    result = subprocess.run(command, env=environment, capture_output=True, text=True)
    if result.returncode != 0:
        # The package lists may be stale on a fresh machine.
        subprocess.run(["apt-get", "update"], env=environment, capture_output=True, text=True)
        result = subprocess.run(command, env=environment, capture_output=True, text=True)
    if result.returncode != 0:
        raise SwordUnavailable(f"{' '.join(command)} failed:\n{result.stderr[-2000:]}")
    still_missing = missing_packages()
    if still_missing:
        raise SwordUnavailable(f"after `{' '.join(command)}` the SWORD modules of {', '.join(still_missing)} are still "
                               f"not in {where} (is SWORD_PATH set?); install them with:\n  "
                               f"{install_command(still_missing)}")
    return missing


# Runs under Debian's python3, where the python3-sword binding lives.
_READER_SCRIPT = r"""
import json, sys
import Sword
manager = Sword.SWMgr()
module = manager.getModule(sys.argv[1])
if module is None:
    sys.exit("SWORD module not found: " + sys.argv[1])
module.setKeyText("Gen 1:1")
key = Sword.VerseKey.castTo(module.getKey())
write = sys.stdout.write
while module.popError() == "\x00":
    write(json.dumps({"ref": key.getOSISRef(), "osis": module.getRawEntry()}, ensure_ascii=False) + "\n")
    module.increment()
"""


def sword_python() -> str:
    """An interpreter that can ``import Sword`` (Debian builds the binding for /usr/bin/python3 only)."""
    for candidate in (sys.executable, "/usr/bin/python3"):
        if candidate and Path(candidate).exists():
            probe = subprocess.run([candidate, "-c", "import Sword"], capture_output=True)
            if probe.returncode == 0:
                return candidate
    raise SwordUnavailable(f"no Python interpreter can import Sword; install {READER_PACKAGE} (apt-get install -y {READER_PACKAGE})")


def raw_verses(module: str) -> Iterator[tuple[str, str]]:
    """Yield ``(osis_ref, raw_osis)`` for every verse of a SWORD module, in canonical order."""
    process = subprocess.Popen([sword_python(), "-c", _READER_SCRIPT, module],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8")
    assert process.stdout is not None
    for line in process.stdout:
        row = json.loads(line)
        yield row["ref"], row["osis"]
    error = process.stderr.read() if process.stderr else ""
    if process.wait() != 0:
        raise SwordUnavailable(f"reading SWORD module {module} failed: {error.strip()}")


def extract_module(module: str) -> tuple[dict[str, str], list[str]]:
    """Plain text of every non-empty verse of a module, keyed by OSIS reference (``Gen.1.1``), and the glue check.

    The glue check lists the words of our text that never occur when *every* tag is replaced by a space
    (which cannot glue two words, but splits ``give</w>n``): "Godcreated" would show up there.
    """
    verses: dict[str, str] = {}
    spaced_words: set[str] = set()
    for ref, osis in raw_verses(module):
        text = osis_to_text(osis)
        if text:
            verses[ref] = text
        spaced_words.update(_WORD.findall(_TAG.sub(" ", _NOTE_OR_TITLE.sub(" ", osis))))
    ours = {word for text in verses.values() for word in _WORD.findall(text)}
    return verses, sorted(ours - spaced_words)


_WORD = re.compile(r"\w+")
_NOTE_OR_TITLE = re.compile(r"<(note|title)\b[^>]*>.*?</\1>", re.DOTALL)
# A lowercase letter directly followed by an uppercase one inside a token ("bornSon").
GLUED_CASE = re.compile(r"\b\w*[a-zà-ÿ][A-ZÀ-Þ]\w*\b")


def glued_words(text: str) -> list[str]:
    """Tokens where a lowercase letter is directly followed by an uppercase one, the sign of two glued words."""
    return GLUED_CASE.findall(text)
