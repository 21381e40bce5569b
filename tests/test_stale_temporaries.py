"""A killed writer's temporary is removed by the next writer of the same output, and nothing else is (issue 39):
not a live writer's, not another machine's, not another output's, even one whose name starts with this one's."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from parastudio.core.stale_temporaries import remove_stale_temporaries, temporary_prefix, temporary_sibling
from parastudio.core.textio import atomic_output

HOST = socket.gethostname()
NAMES = st.text(st.sampled_from("abcxyz.-_0123456789"), min_size=1, max_size=12).filter(
    lambda name: name not in (".", ".."))


def _dead_pid() -> int:
    finished = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True, check=True)
    return int(finished.stdout)


DEAD = _dead_pid()


@settings(max_examples=60, deadline=None)
@given(NAMES, NAMES)
@example("out.txt", "out.txt.gz")  # an output whose name starts with this one's
@example("out.txt.gz", "out.txt")
@example("a", f"a.{HOST}-1")  # a name that reads like the start of a tag
def test_only_a_dead_writers_temporaries_of_this_very_output_are_removed(name, other):
    assume(other != name)
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        stale = folder / f".{name}.{HOST}-{DEAD}.k3j_x9.part"
        kept = [folder / f".{name}.{HOST}-{os.getpid()}.abc123.part",  # a live writer's
                folder / f".{name}.another-host-{DEAD}.abc123.part",  # another machine's, on a shared folder
                folder / f".{other}.{HOST}-{DEAD}.abc123.part",  # another output's
                folder / name]  # the output itself
        work = folder / f".{name}.{HOST}-{DEAD}.k3j_x9-work.part"  # lm train's work folder beside its model
        for path in (stale, Path(f"{stale}-journal"), work, *kept):
            path.write_text("x")
        remove_stale_temporaries(folder / name)
        assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for p in kept)


def test_a_temporary_is_named_after_its_output_and_its_writer(tmp_path):
    destination = tmp_path / "out.txt"
    assert temporary_prefix(destination) == f".out.txt.{HOST}-{os.getpid()}."
    assert temporary_sibling(destination).name.startswith(temporary_prefix(destination))


def test_the_next_write_removes_a_dead_writers_temporary_and_keeps_a_live_ones(tmp_path):
    destination = tmp_path / "out.txt"
    stale = tmp_path / f".out.txt.{HOST}-{DEAD}.abc123.part"
    folder = tmp_path / f".out.txt.{HOST}-{DEAD}.def456.part"  # a work folder (lmplz's, a dev set's)
    live = tmp_path / f".out.txt.{HOST}-{os.getpid()}.ghi789.part"
    stale.write_text("half")
    folder.mkdir()
    (folder / "inside").write_text("x")
    live.write_text("being written")
    with atomic_output(destination) as handle:
        handle.write("complete\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([destination.name, live.name])
