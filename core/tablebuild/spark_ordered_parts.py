"""A Spark query's rows to the driver's one writer, in the query's order, without any task result carrying rows.

``toLocalIterator`` (and ``collect``) bring a partition back whole as one task result: at 5M rules the
pivot's partitions ran a 1 GB driver out of heap (issue 25). Here the executors write the ordered rows as
Parquet part files (exact doubles and UTF-8 text; part ``i`` is the ``i``-th range of a global ``ORDER BY``,
and within it ``c000``, ``c001``... follow the rows' order), and the driver reads them back by name, a batch
at a time. So the driver's memory is bounded by one batch whatever the output's size. The work folder must
be one path the executors and the driver both see (on a cluster, a shared filesystem).
"""

from __future__ import annotations

import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence

from parastudio.core.textio import owner_is_gone, owner_tag

BATCH_ROWS = 50_000


@contextmanager
def ordered_part_files(frame, parent: Path, *, prefix: str) -> Iterator[Path]:
    """Write ``frame`` (a DataFrame ending in a global ORDER BY) as part files in a new folder under
    ``parent`` named ``{prefix}{owner}.*`` (so a later run can remove it if this process dies); yield the
    folder, remove it afterwards."""
    parent.mkdir(parents=True, exist_ok=True)
    for stale in parent.glob(f"{prefix}*"):  # left by a run of ours that was killed
        if stale.is_dir() and owner_is_gone(stale.name[len(prefix):].rpartition(".")[0]):
            shutil.rmtree(stale, ignore_errors=True)
    work = Path(tempfile.mkdtemp(prefix=f"{prefix}{owner_tag()}.", dir=parent))
    try:
        parts = work / "parts"
        frame.write.parquet(str(parts.resolve()))
        yield parts
    finally:
        shutil.rmtree(work, ignore_errors=True)


def ordered_part_batches(parts: Path, columns: Sequence[str]) -> Iterator[list[tuple]]:
    """The rows of ``parts`` in order, as tuples of ``columns`` (a struct as a tuple of its fields), at most
    BATCH_ROWS of them in memory at a time."""
    import pyarrow.parquet

    for path in sorted(parts.glob("part-*.parquet")):
        for batch in pyarrow.parquet.ParquetFile(path).iter_batches(batch_size=BATCH_ROWS, columns=list(columns)):
            values = [_tuples(batch.column(index).to_pylist()) for index in range(len(columns))]
            yield list(zip(*values))


def _tuples(values: list) -> list:
    """pyarrow reads a struct as a dict: the Spark Row it stands for unpacks as a tuple of its fields."""
    if not values or not any(isinstance(value, (dict, list)) for value in values):
        return values
    return [_as_tuple(value) for value in values]


def _as_tuple(value):
    if isinstance(value, dict):
        return tuple(_as_tuple(field) for field in value.values())
    if isinstance(value, list):
        return [_as_tuple(item) for item in value]
    return value
