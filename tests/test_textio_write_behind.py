"""Writing through the background thread gives the same bytes, in order, and reports a failed write."""

from __future__ import annotations

import io
import random

import pytest

from parastudio.core.textio import WriteBehind, atomic_output


@pytest.mark.parametrize("level", [6, 9])
def test_gzip_bytes_equal_a_direct_write(tmp_path, level):
    rng = random.Random(7)
    batches = ["".join(f"{rng.random()!r} ||| w{rng.randrange(500)}\n" for _ in range(rng.randrange(1, 3000)))
               for _ in range(60)]
    with atomic_output(tmp_path / "direct.gz", compresslevel=level) as handle:
        handle.write("".join(batches))
    with atomic_output(tmp_path / "behind.gz", compresslevel=level) as handle, WriteBehind(handle) as writer:
        for batch in batches:
            writer.write(batch)
    assert (tmp_path / "direct.gz").read_bytes() == (tmp_path / "behind.gz").read_bytes()


class FailingHandle(io.StringIO):
    def write(self, text):
        raise OSError("disk full")


def test_a_failed_write_is_raised_in_the_caller():
    with pytest.raises(OSError, match="disk full"):
        with WriteBehind(FailingHandle()) as writer:
            for _ in range(20):
                writer.write("line\n")
