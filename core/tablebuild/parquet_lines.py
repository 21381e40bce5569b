"""A table as a Parquet folder (``--output-format parquet``, issue 41): the text table's lines, in order.

One string column, ``line`` (a table line without its newline), in part files ``part-00000.parquet``,
``part-00001.parquet``... of at most :data:`ROWS_PER_PART` rows: the next Spark job (or a pivot's
``--engine spark`` input, :mod:`core.tablebuild.spark_inputs`) reads the parts in parallel, and reading them by
name in order gives the gzip's lines in the gzip's order. The folder is written beside its final name and
renamed into place when whole.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Iterable, Sequence

from parastudio.core.errors import OutputFileError
from parastudio.core.output_files import resolve_output
from parastudio.core.tablebuild.pivot_writer import write_pivot_lines

LINE_COLUMN = "line"
ROWS_PER_PART = 1_000_000
_PART = "part-{:05d}.parquet"


class _PartWriter:
    """Lines in, Parquet part files out, :data:`ROWS_PER_PART` lines each."""

    def __init__(self, folder: Path, rows_per_part: int) -> None:
        self.folder, self.rows_per_part = folder, rows_per_part
        self.pending: list[str] = []
        self.parts = 0

    def write(self, text: str) -> None:
        self.pending.extend(text.splitlines())
        while len(self.pending) >= self.rows_per_part:
            self._flush(self.pending[: self.rows_per_part])
            del self.pending[: self.rows_per_part]

    def close(self) -> None:
        if self.pending or not self.parts:  # an empty table is one empty part: the schema is still there
            self._flush(self.pending)
        self.pending = []

    def _flush(self, lines: list[str]) -> None:
        import pyarrow
        import pyarrow.parquet

        table = pyarrow.table({LINE_COLUMN: pyarrow.array(lines, type=pyarrow.string())})
        pyarrow.parquet.write_table(table, self.folder / _PART.format(self.parts))
        self.parts += 1


def write_pivot_rows_parquet(batches: Iterable[Sequence[Sequence]], output: str | Path, *, features: bool = True,
                             exclude: set[tuple[str, str]] | None = None, compresslevel: int = 6,
                             progress=None, inputs=(), rows_per_part: int = ROWS_PER_PART) -> dict:
    """:func:`core.tablebuild.pivot_writer.write_pivot_rows` into a Parquet folder (``compresslevel`` unused:
    Parquet compresses its own pages)."""
    del compresslevel
    output = Path(output)
    resolve_output(output, inputs, folder=True)  # an output that is an input is refused
    if output.exists() and not (output.is_dir() and _only_parts(output)):
        raise OutputFileError(output, "exists and is not a Parquet folder of ours (part-*.parquet only)")
    partial = output.with_name(f".{output.name}.partial-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    try:
        writer = _PartWriter(partial, rows_per_part)
        stats = write_pivot_lines(batches, writer.write, features=features, exclude=exclude, progress=progress)
        writer.close()
        if output.exists():
            shutil.rmtree(output)
        partial.rename(output)
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return stats


def _only_parts(folder: Path) -> bool:
    return all(child.name.startswith("part-") and child.suffix == ".parquet" for child in folder.iterdir())


def read_parquet_lines(folder: str | Path) -> Iterable[str]:
    """The lines of a Parquet folder written here, in order (newline included, as the text table has them)."""
    import pyarrow.parquet

    for part in sorted(Path(folder).glob("part-*.parquet")):
        for batch in pyarrow.parquet.ParquetFile(part).iter_batches(columns=[LINE_COLUMN]):
            yield from (f"{line}\n" for line in batch.column(0).to_pylist())
