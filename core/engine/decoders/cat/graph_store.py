"""Search graphs in one SQLite table, indexed by sentence and coverage (seed 001 §3.2.2, §3.4.2).

Rustamli streamed Moses' ``-output-search-graph`` dump into SQLite with one
table whose columns are the dump's attributes (``sentenceId, hyp, stack, back,
score, transition, recombined, forward, fscore, covered, out``) and queried it
per sentence and coverage, best score first. :class:`GraphStore` does the same
for our decoder's graphs and for real Moses dumps, traditional or extended
format (:mod:`core.engine.decoders.search_graph`): ``covered`` is kept as two columns,
``covered_start`` and ``covered_end``, inclusive as in the dump.

A table ``sentence`` holds what the dump does not: the source sentence when
it is given (``--source``), and the decoder's 1-best with its segmentation
(``--translations``: Moses ``-report-segmentation`` output). Without it the
1-best is the graph's best path (``forward`` from the root); the decoder's own
output is preferred when given, because where two segmentations of one
string tie exactly the graph does not say which one the decoder printed.

The file carries its own ``PRAGMA application_id``; a SQLite file that is not a
graph store is refused and never altered, and one is created only by
:meth:`GraphStore.build`, atomically (a temporary file renamed when complete).
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
import tempfile
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from parastudio.core.engine.decoders.cat.graph_checks import check_graph
from parastudio.core.engine.decoders.cat.graph_dump_lines import check_numbers, graph_rows
from parastudio.core.engine.decoders.cat.graph_store_sql import (
    BEST_OF_EACH_OUTPUT,
    BEST_OF_EACH_OUTPUT_BY_WINDOW,
    COLUMNS,
    INDEXES,
    OUTPUT_INDEX,
)
from parastudio.core.engine.decoders.cat.segmentation import Translation, parse_segmentation
from parastudio.core.engine.decoders.search_graph import parse_line
from parastudio.core.errors import InputFileError
from parastudio.core.progress import Progress, no_progress
from parastudio.core.textio import require_regular_file, staged_output

APPLICATION_ID = 0x50534752  # "PSGR": a Paraphrase Studio search graph store
SCHEMA_VERSION = 2  # 2: sentence.translation
BATCH = 20_000
MAX_BEST_PATH = 100_000  # hypotheses on a 1-best: each covers a source word at least, and no sentence has this many

_SCHEMA = """
CREATE TABLE hypothesis (
    sentence INTEGER NOT NULL, hyp INTEGER NOT NULL, stack INTEGER NOT NULL, back INTEGER,
    score REAL, transition REAL, recombined INTEGER, forward INTEGER, fscore REAL,
    covered_start INTEGER, covered_end INTEGER, out TEXT
);
CREATE TABLE sentence (sentence INTEGER PRIMARY KEY, source TEXT, translation TEXT);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
"""


@dataclass(frozen=True, slots=True)
class GraphNode:
    """One hypothesis line of a search graph; ``start``/``end`` its last phrase's source span, end-exclusive."""

    hyp: int
    stack: int
    back: int | None
    score: float
    transition: float
    recombined: int | None
    forward: int | None
    fscore: float | None
    start: int
    end: int
    out: tuple[str, ...]

    @property
    def span(self) -> tuple[int, int]:
        return self.start, self.end


def _node(row: Sequence) -> GraphNode:
    hyp, stack, back, score, transition, recombined, forward, fscore, first, last, out = row
    return GraphNode(hyp, stack, back, score if score is not None else 0.0,
                     transition if transition is not None else 0.0, recombined, forward, fscore,
                     first if first is not None else 0, last + 1 if last is not None else 0,
                     tuple(out.split()) if out else ())


def _spooled(stream: Path, copy: Path) -> Path:
    with open(stream, "rb") as source, open(copy, "wb") as out:
        shutil.copyfileobj(source, out, 1 << 20)
    return copy


def _write_store(temporary: Path, graphs: list[tuple[Path, Path]], sources, translations, meta,
                 progress: Progress) -> dict[str, str]:
    """The store's tables filled from ``graphs`` (``(file read, name shown)`` pairs), checked, indexed."""
    total = sum(path.stat().st_size for path, _ in graphs)
    with closing(sqlite3.connect(temporary)) as connection:
        connection.execute("PRAGMA journal_mode=OFF")
        connection.execute("PRAGMA synchronous=OFF")
        connection.executescript(_SCHEMA)
        rows = 0
        done_bytes = 0
        loaded = []  # (first rowid, last rowid, file read, name shown) of each graph
        for path, shown in graphs:
            first_rowid = connection.execute("SELECT coalesce(max(rowid), 0) FROM hypothesis").fetchone()[0]
            batch = []
            for row in graph_rows(path, shown):
                batch.append(row)
                if len(batch) >= BATCH:
                    connection.executemany("INSERT INTO hypothesis VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", batch)
                    rows += len(batch)
                    batch = []
                    progress(done_bytes, total, f"loading: {rows:,} hypotheses")
            connection.executemany("INSERT INTO hypothesis VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", batch)
            rows += len(batch)
            check_numbers(connection, path, first_rowid, shown)
            last_rowid = connection.execute("SELECT coalesce(max(rowid), 0) FROM hypothesis").fetchone()[0]
            loaded.append((first_rowid, last_rowid, path, shown))
            done_bytes += path.stat().st_size
            progress(done_bytes, total, f"loading: {rows:,} hypotheses")
        progress(total, total, "indexing")
        check_graph(connection, loaded)
        for index in INDEXES[1:]:
            connection.execute(index)
        count = max(len(sources or ()), len(translations or ()))
        if count:
            connection.executemany("INSERT INTO sentence VALUES (?, ?, ?)", (
                (i, sources[i] if sources and i < len(sources) else None,
                 translations[i] if translations and i < len(translations) else None)
                for i in range(count)))
        info = {"schema_version": str(SCHEMA_VERSION), "graphs": " ".join(str(shown) for _, shown in graphs),
                "hypotheses": str(rows), **(meta or {})}
        connection.executemany("INSERT INTO meta VALUES (?, ?)", info.items())
        connection.execute(f"PRAGMA application_id={APPLICATION_ID}")
        connection.commit()
        sentences = connection.execute("SELECT count(DISTINCT sentence) FROM hypothesis").fetchone()[0]
    return {**info, "sentences": str(sentences)}


class GraphStore:
    """A read-only view of a graph store file (see the module docstring); :meth:`build` makes one."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        if not self.path.is_file():
            raise FileNotFoundError(f"{self.path}: search graph store not found")
        status = self.path.stat()
        # This version of the file: what a cache of answers about its graphs is keyed by (stores are read-only).
        self.identity = (str(self.path.resolve()), status.st_size, status.st_mtime_ns, status.st_ino)
        self._connection = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
        try:
            application_id = self._connection.execute("PRAGMA application_id").fetchone()[0]
        except sqlite3.DatabaseError as error:
            self._connection.close()
            raise InputFileError(self.path, "a search graph store (parastudio graph load)", str(error)) from None
        if application_id != APPLICATION_ID:
            self._connection.close()
            raise InputFileError(self.path, "a search graph store (parastudio graph load)",
                                 f"a SQLite file with application id {application_id}; it was left untouched")
        self.meta = dict(self._connection.execute("SELECT key, value FROM meta"))
        if self.meta.get("schema_version") != str(SCHEMA_VERSION):
            self._connection.close()
            raise InputFileError(self.path, f"a graph store of schema version {SCHEMA_VERSION} (make it again with "
                                 "parastudio graph load)", f"version {self.meta.get('schema_version')}")

        self._by_output = self._connection.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?",
                                                   (OUTPUT_INDEX,)).fetchone() is not None

    def close(self) -> None:
        self._connection.close()

    def __enter__(self) -> "GraphStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- building ----------------------------------------------------------------------------------
    @classmethod
    def build(cls, destination: str | os.PathLike, graphs: Iterable[str | os.PathLike], **options) -> "GraphStore":
        """Stream the dumps ``graphs`` into a new store at ``destination`` (:meth:`write`) and open it."""
        cls.write(destination, graphs, **options)
        return cls(destination)

    @staticmethod
    def write(destination: str | os.PathLike, graphs: Iterable[str | os.PathLike], *,
              sources: Sequence[str] | None = None, translations: Sequence[str] | None = None,
              meta: dict[str, str] | None = None, progress: Progress = no_progress, inputs=()) -> dict[str, str]:
        """Stream the dumps ``graphs`` (sentence ids kept as written) into a new store at ``destination``, each
        checked (:func:`check_graph`); returns the store's meta. ``destination`` is written through
        :func:`core.textio.staged_output`: never over one of the graphs or ``inputs``."""
        graphs = [Path(g) for g in graphs]
        with staged_output(destination, inputs=[*graphs, *inputs], what="a SQLite graph store") as temporary, \
                tempfile.TemporaryDirectory(prefix="parastudio-graphs-") as spool:
            # A pipe is read once, into a file: a defect is then found by its line in a second reading.
            readable = [(g if g.is_file() else _spooled(g, Path(spool) / f"{n}.graph"), g) for n, g in enumerate(graphs)]
            try:
                return _write_store(temporary, readable, sources, translations, meta, progress)
            except sqlite3.OperationalError as error:
                if getattr(error, "sqlite_errorname", "") == "SQLITE_FULL" or "disk is full" in str(error):
                    # The full disk every other writer reports as ENOSPC, not SQLite's own words.
                    raise OSError(errno.ENOSPC, f"{os.strerror(errno.ENOSPC)} while writing {destination}") from None
                raise

    # -- queries -----------------------------------------------------------------------------------
    def sentences(self) -> list[int]:
        return [row[0] for row in self._connection.execute("SELECT DISTINCT sentence FROM hypothesis ORDER BY 1")]

    def source(self, sentence: int) -> tuple[str, ...] | None:
        row = self._connection.execute("SELECT source FROM sentence WHERE sentence = ?", (sentence,)).fetchone()
        return tuple(row[0].split()) if row and row[0] is not None else None

    def translation(self, sentence: int) -> Translation | None:
        """The decoder's own 1-best with its segmentation, when the store was given it."""
        row = self._connection.execute("SELECT translation FROM sentence WHERE sentence = ?", (sentence,)).fetchone()
        return parse_segmentation(row[0], str(self.path), sentence + 1) if row and row[0] is not None else None

    def sentence_graph(self, sentence: int) -> "SentenceGraph":
        return SentenceGraph(self, sentence)

    def _by_coverage(self, sentence: int, start: int, end: int) -> list[GraphNode]:
        rows = self._connection.execute(
            f"SELECT {COLUMNS} FROM hypothesis WHERE sentence = ? AND covered_start = ? AND covered_end = ? "
            "ORDER BY score DESC, hyp", (sentence, start, end - 1))
        return [_node(row) for row in rows]

    def _within(self, sentence: int, low: int, high: int) -> list[GraphNode]:
        """Every hypothesis whose last phrase lies inside source ``[low, high)``."""
        rows = self._connection.execute(
            f"SELECT {COLUMNS} FROM hypothesis WHERE sentence = ? AND covered_start >= ? AND covered_end < ? "
            "ORDER BY score DESC, hyp", (sentence, low, high))
        return [_node(row) for row in rows]

    # A span's hypotheses differ mostly in their history, not their output (at stack 200 with 100 options: thousands
    # of hypotheses, about a hundred outputs). A paraphraser whose first partial filter keeps the best of each output
    # asks for those best ones only; the rest stay in SQLite, counted.
    def _distinct_by_coverage(self, sentence: int, start: int, end: int) -> list[GraphNode]:
        """The best hypothesis (score, then id) of each output among those of ``_by_coverage``, in its order."""
        query = BEST_OF_EACH_OUTPUT if self._by_output else BEST_OF_EACH_OUTPUT_BY_WINDOW
        return [_node(row) for row in self._connection.execute(query, (sentence, start, end - 1))]

    def _count_by_coverage(self, sentence: int, start: int, end: int) -> int:
        return self._connection.execute("SELECT COUNT(*) FROM hypothesis WHERE sentence = ? AND covered_start = ? "
                                        "AND covered_end = ?", (sentence, start, end - 1)).fetchone()[0]

    def _distinct_within(self, sentence: int, low: int, high: int) -> list[GraphNode]:
        """The best hypothesis of each span and output among those of ``_within``, in its order."""
        rows = self._connection.execute(
            f"SELECT {COLUMNS} FROM (SELECT {COLUMNS}, ROW_NUMBER() OVER (PARTITION BY covered_start, covered_end, "
            "out ORDER BY score DESC, hyp) AS place FROM hypothesis WHERE sentence = ? AND covered_start >= ? AND "
            "covered_end < ?) WHERE place = 1 ORDER BY score DESC, hyp", (sentence, low, high))
        return [_node(row) for row in rows]

    def _count_within(self, sentence: int, low: int, high: int) -> int:
        return self._connection.execute("SELECT COUNT(*) FROM hypothesis WHERE sentence = ? AND covered_start >= ? "
                                        "AND covered_end < ?", (sentence, low, high)).fetchone()[0]

    def _forward_spans(self, sentence: int, start: int, end: int) -> list[tuple[int, int]]:
        """The spans of the best next hypotheses (``forward``) of the span's hypotheses, each once, in the order of
        the lowest such hypothesis id."""
        rows = self._connection.execute(
            # CROSS JOIN keeps the span's rows outside (SQLite's planner otherwise walked the whole sentence in
            # the output index for ``next``: seconds per query).
            "SELECT next.covered_start, next.covered_end, MIN(next.hyp) AS first FROM hypothesis AS here "
            "CROSS JOIN hypothesis AS next ON next.sentence = here.sentence AND next.hyp = here.forward "
            "WHERE here.sentence = ? AND here.covered_start = ? AND here.covered_end = ? AND here.forward >= 0 "
            "GROUP BY next.covered_start, next.covered_end ORDER BY first", (sentence, start, end - 1))
        return [(first if first is not None else 0, last + 1 if last is not None else 0) for first, last, _ in rows]

    def _by_id(self, sentence: int, hyp: int) -> GraphNode | None:
        row = self._connection.execute(f"SELECT {COLUMNS} FROM hypothesis WHERE sentence = ? AND hyp = ?",
                                       (sentence, hyp)).fetchone()
        return _node(row) if row else None

    def _forward_chain(self, sentence: int, hyp: int) -> list[GraphNode]:
        """Hypothesis ``hyp`` and those reached from it by ``forward``, in order, until a ``forward`` that is
        missing, negative or names no hypothesis: one recursive query where reading them one by one took one each
        (a thesis-size 1-best: a fifth of a request's queries). A store we wrote has no pointer loop (graph_checks);
        one opened as given might: the chain stops at ``MAX_BEST_PATH`` steps and a loop is refused."""
        rows = self._connection.execute(
            "WITH RECURSIVE chain(id, depth) AS (VALUES (?, 0) UNION ALL SELECT here.forward, chain.depth + 1 "
            "FROM chain JOIN hypothesis AS here ON here.sentence = ? AND here.hyp = chain.id "
            "WHERE here.forward >= 0 AND chain.depth < ?) "
            f"SELECT {COLUMNS} FROM chain JOIN hypothesis ON sentence = ? AND hyp = chain.id ORDER BY chain.depth",
            (hyp, sentence, MAX_BEST_PATH, sentence)).fetchall()  # (sentence, hyp) is unique: one row a step
        if len(rows) > MAX_BEST_PATH:
            raise InputFileError(self.path, f"a 1-best of sentence {sentence} whose forward links end (they loop, or "
                                            f"run past {MAX_BEST_PATH:,} hypotheses)")
        return [_node(row) for row in rows]

    def _starting_at(self, sentence: int, start: int) -> list[GraphNode]:
        rows = self._connection.execute(
            f"SELECT {COLUMNS} FROM hypothesis WHERE sentence = ? AND covered_start = ? ORDER BY score DESC, hyp",
            (sentence, start))
        return [_node(row) for row in rows]

    def _root(self, sentence: int) -> GraphNode | None:
        # Moses and our writer number the root 0: found through the id index, where the general query scans
        # the sentence's rows in id order (tens of milliseconds at stack 200) to the same first root.
        row = self._connection.execute(f"SELECT {COLUMNS} FROM hypothesis WHERE sentence = ? AND hyp = 0 "
                                       "AND back IS NULL", (sentence,)).fetchone() or self._connection.execute(
            f"SELECT {COLUMNS} FROM hypothesis WHERE sentence = ? AND back IS NULL", (sentence,)).fetchone()
        return _node(row) if row else None


def best_path_from(root: GraphNode, starts: Sequence[GraphNode], node, chain=None) -> list[GraphNode]:
    """``forward`` from the root; a root without ``forward`` (newer Moses, our traditional format) starts from its
    best first step by ``transition + fscore`` (``starts``: the hypotheses covering source word 0, best score
    first; the first of equal ones wins). ``node(hyp)`` looks a hypothesis up; ``chain(hyp)``, when given, is
    ``hyp`` and the hypotheses after it by ``forward``, read at once (the walk ``node`` would make)."""
    if root.forward is not None:
        if chain is not None:
            return chain(root.forward) if root.forward >= 0 else []
        current = node(root.forward)
    else:
        current = max((n for n in starts if n.back == root.hyp), key=lambda n: n.transition + (n.fscore or 0.0),
                      default=None)
        if chain is not None:
            return chain(current.hyp) if current is not None else []
    path = []
    while current is not None:
        path.append(current)
        current = node(current.forward)
    return path


def nodes_of_lines(lines: Iterable[str]) -> list[GraphNode]:
    """Graph lines of one sentence (as our writer makes them) read back as nodes, without a store."""
    rows = []
    for text in lines:
        line = parse_line(text)
        rows.append(_node((line.hyp, line.stack, line.back, line.score, line.transition, line.recombined,
                           line.forward, line.fscore, line.covered[0] if line.covered else None,
                           line.covered[1] if line.covered else None, " ".join(line.out))))
    return rows


class SentenceGraph:
    """One sentence's graph, queried from the store as seed 001 §3.4.2 queries it, rows cached."""

    def __init__(self, store: GraphStore, sentence: int):
        self.store = store
        self.sentence = sentence
        self._coverage: dict[tuple[int, int], list[GraphNode]] = {}
        self._asked: dict[tuple, object] = {}
        self._ids: dict[int, GraphNode | None] = {}
        self._best_path: list[GraphNode] | None = None
        self._translation: Translation | None = None
        self.queries = 0

    def by_coverage(self, start: int, end: int) -> list[GraphNode]:
        """Hypotheses whose last phrase covers source ``[start, end)``, best score first."""
        key = (start, end)
        nodes = self._coverage.get(key)
        if nodes is None:
            self.queries += 1
            nodes = self._coverage[key] = self.store._by_coverage(self.sentence, start, end)
            for node in nodes:
                self._ids.setdefault(node.hyp, node)
        return nodes

    def within(self, low: int, high: int) -> list[GraphNode]:
        """Every hypothesis whose last phrase lies inside source ``[low, high)``, best score first."""
        self.queries += 1
        nodes = self.store._within(self.sentence, low, high)
        for node in nodes:
            self._ids.setdefault(node.hyp, node)
        return nodes

    def asked(self, query: str, *span: int):
        """The store's ``_QUERY(sentence, *span)`` (``distinct_by_coverage``, ``count_by_coverage``,
        ``distinct_within``, ``count_within``, ``forward_spans``), kept: a store's answers never change."""
        key = (query, span)
        if key not in self._asked:
            self.queries += 1
            self._asked[key] = getattr(self.store, f"_{query}")(self.sentence, *span)
        return self._asked[key]

    def node(self, hyp: int | None) -> GraphNode | None:
        if hyp is None or hyp < 0:
            return None
        if hyp not in self._ids:
            self.queries += 1
            self._ids[hyp] = self.store._by_id(self.sentence, hyp)
        return self._ids[hyp]

    def best_path(self) -> list[GraphNode]:
        """The 1-best: ``forward`` from the root (a root without ``forward``, as newer Moses writes it, starts
        from the best first step by ``transition + fscore``)."""
        if self._best_path is None:
            root = self.store._root(self.sentence)
            if root is None:
                raise InputFileError(self.store.path, f"a root hypothesis (hyp=0 stack=0) for sentence {self.sentence}")
            starts = [] if root.forward is not None else self.store._starting_at(self.sentence, 0)
            # A store reads the chain of forward links in one query; a decoded graph has its rows at hand.
            chain = self._forward_chain if hasattr(self.store, "_forward_chain") else None
            self._best_path = best_path_from(root, starts, self.node, chain)
        return self._best_path

    def translation(self) -> Translation:
        """The 1-best with its segmentation: the decoder's (``-report-segmentation``) when the store has it,
        else the graph's best path."""
        if self._translation is None:
            self._translation = self.store.translation(self.sentence) or Translation.from_phrases(
                (node.out, node.start, node.end) for node in self.best_path())
        return self._translation

    def _forward_chain(self, hyp: int) -> list[GraphNode]:
        self.queries += 1
        nodes = self.store._forward_chain(self.sentence, hyp)
        for node in nodes:
            self._ids.setdefault(node.hyp, node)
        return nodes

    def predecessor_on_best_path(self, source_start: int) -> GraphNode | None:
        """The 1-best's hypothesis that ends right before source word ``source_start`` (None at the start)."""
        for node in self.best_path():
            if node.end == source_start:
                return node
        return None


def is_graph_store(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a SQLite file with our application id (read from the header, nothing opened)."""
    try:
        with open(path, "rb") as handle:
            header = handle.read(72)
    except OSError:
        return False
    return header.startswith(b"SQLite format 3\0") and int.from_bytes(header[68:72], "big") == APPLICATION_ID


def open_graph(path: str | os.PathLike, *, progress: Progress = no_progress) -> GraphStore:
    """A graph store as given, or a search graph dump loaded once into the user cache (keyed by its sha256)."""
    from parastudio.core.engine.lm.kenlm_tools import cache_root
    from parastudio.core.file_fingerprint import sha256_of

    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: search graph not found")
    require_regular_file(path)  # its header, its sha256, then its lines
    if is_graph_store(path):
        return GraphStore(path)
    cached = cache_root() / "graphs" / f"{sha256_of(path)[:24]}-v{SCHEMA_VERSION}.sqlite"
    if is_graph_store(cached):
        _complete_indexes(cached)
        return GraphStore(cached)
    return GraphStore.build(cached, [path], meta={"loaded_from": str(path)}, progress=progress)


def _complete_indexes(cached: Path) -> None:
    """A store in our cache made before the output index gets it (the cache is ours to complete; a store a user
    made with ``graph load`` is only read, and answers the same without it, slower)."""
    with closing(sqlite3.connect(cached)) as connection:
        known = {name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        for sql in INDEXES:
            name = sql.split(" ON ")[0].split()[-1]
            if name not in known:
                connection.execute(sql)
        connection.commit()
