"""The local dense index: one memory-mapped matrix of window vectors per profile.

Exact cosine over every vector: no recall loss and no build step beyond writing the file.
The file is a snapshot of SQLite (the store of truth): rows are chunk windows, sorted by
chunk id, with the chunk's file id and kind beside each row so that filters restrict the
rows *before* ranking. It is replaced atomically (temp file + ``os.replace``), so a
reader never sees a torn file, and every process maps the same pages from the OS cache.

Why float32 on disk: in this numpy a float16 matrix has no BLAS path, and converting it
to float32 per query cost 4-10x the product itself (100k x 384: ~14 ms in float32 against
60-130 ms via float16 blocks, measured). The SQLite cache keeps float16; the matrix
trades disk for speed and is rebuilt from the cache at any time.

Chunk ids are never reused (AUTOINCREMENT), so a slightly stale file is still correct:
rows of deleted chunks are dropped when results are joined with ``chunks``, and chunks
embedded since only lack their dense score until the next rebuild.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from repolens.store.embeddings import decode_vectors

MAGIC = b"RLDENSE1"
ALIGN = 64
COPY_ROWS = 16384
SCAN_BLOCK = 16_384
GATHER_SHARE = 0.3  # below this share of a block's rows, gather them (copy + product)

STALE_TEMP_SECONDS = 60.0
_TEMP_WRITER = re.compile(r"\.tmp-(\d+)-(\d+)$")

F32 = npt.NDArray[np.float32]
I64 = npt.NDArray[np.int64]


def matrix_path(data_dir: Path, profile_key: str) -> Path:
    digest = hashlib.sha256(profile_key.encode()).hexdigest()[:16]
    return data_dir / f"vectors-{digest}.f32"


@dataclass(frozen=True)
class DenseMatrix:
    """A mapped matrix file: ``vectors[i]`` is a window of chunk ``chunk_ids[i]``."""

    path: Path
    header: dict[str, Any]
    chunk_ids: I64
    file_ids: I64
    kind_codes: npt.NDArray[np.uint16]
    vectors: F32

    @property
    def generation(self) -> int:
        return int(self.header["generation"])

    @property
    def rows(self) -> int:
        return int(self.header["rows"])

    def scan(self, files: I64 | None = None, kinds: Sequence[str] = ()) -> DenseScan:
        """A scan of the rows whose file is in ``files`` and kind in ``kinds`` (when
        given): filters restrict the rows before anything is ranked."""
        return DenseScan(self, self._mask(files, kinds))

    def top(
        self, query: F32, limit: int, files: I64 | None = None, kinds: Sequence[str] = ()
    ) -> list[tuple[int, float]]:
        """Best chunks by their best window's cosine (one thread)."""
        scan = self.scan(files, kinds)
        scan.start(query)
        scan.run()
        return scan.top(limit)

    def _mask(self, files: I64 | None, kinds: Sequence[str]) -> npt.NDArray[np.bool_] | None:
        mask = None
        if files is not None:
            allowed = np.zeros(max(int(files.max(initial=0)), self.max_file_id) + 1, np.bool_)
            allowed[files] = True
            mask = allowed[self.file_ids]  # a table lookup: isin sorts both sides
        if kinds:
            known = self.header["kinds"]
            codes = [known.index(kind) for kind in kinds if kind in known]
            by_kind = np.isin(self.kind_codes, np.asarray(codes, dtype=np.uint16))
            mask = by_kind if mask is None else mask & by_kind
        return mask

    @cached_property
    def max_file_id(self) -> int:
        return int(self.file_ids.max(initial=0))

    def cosines(self, query: F32, chunk_ids: Sequence[int]) -> dict[int, float]:
        """Best-window cosine of each given chunk that has rows in this matrix (one
        gather and one product for all of them)."""
        wanted = np.unique(np.asarray(chunk_ids, dtype=np.int64))
        low = np.searchsorted(self.chunk_ids, wanted, side="left")
        counts = np.searchsorted(self.chunk_ids, wanted, side="right") - low
        present = counts > 0
        wanted, low, counts = wanted[present], low[present], counts[present]
        if not len(wanted):
            return {}
        offsets = np.cumsum(counts) - counts  # where each chunk's windows start below
        rows = np.arange(int(counts.sum())) - np.repeat(offsets - low, counts)
        best = np.maximum.reduceat(self.vectors[rows] @ query, offsets)
        return dict(zip(wanted.tolist(), best.tolist(), strict=True))


class DenseScan:
    """One query's pass over the matrix, in blocks that any number of threads can take:
    a search starts it in the thread that embeds the query, and its own thread joins in
    as soon as BM25 is done, so neither core waits for the other.

    A filtered scan still walks the matrix in order, block by block: a block where many
    rows pass is multiplied whole and the passing scores picked (reading the rows once),
    one where few pass has just those rows gathered first (reading only them)."""

    def __init__(self, matrix: DenseMatrix, mask: npt.NDArray[np.bool_] | None) -> None:
        self.matrix = matrix
        self.rows = None if mask is None else np.flatnonzero(mask)
        total = len(matrix.chunk_ids)
        self.scores = np.empty(total if self.rows is None else len(self.rows), np.float32)
        self._blocks = -(-total // SCAN_BLOCK)
        starts = np.arange(self._blocks + 1, dtype=np.int64) * SCAN_BLOCK
        self._edges = starts if self.rows is None else np.searchsorted(self.rows, starts)
        self.query: F32 | None = None
        self._ready = threading.Event()
        self._lock = threading.Lock()
        self._next = 0

    def start(self, query: F32 | None) -> None:
        """Set the query vector (``None``: there is none, the scan ends empty)."""
        self.query = query
        self._ready.set()

    def run(self) -> None:
        """Score blocks until none is left to take (waits for ``start``)."""
        self._ready.wait()
        while self.query is not None and (block := self._take()) is not None:
            self._score(block, self.query)

    def _take(self) -> int | None:
        with self._lock:
            if self._next >= self._blocks:
                return None
            self._next += 1
            return self._next - 1

    def _score(self, block: int, query: F32) -> None:
        start = block * SCAN_BLOCK
        source = self.matrix.vectors[start : start + SCAN_BLOCK]
        low, high = int(self._edges[block]), int(self._edges[block + 1])
        if self.rows is None:
            self.scores[low : low + len(source)] = source @ query
        elif high - low >= GATHER_SHARE * len(source):
            self.scores[low:high] = (source @ query)[self.rows[low:high] - start]
        elif high > low:
            self.scores[low:high] = source[self.rows[low:high] - start] @ query

    def top(self, limit: int) -> list[tuple[int, float]]:
        """Best chunks by their best window, once every ``run`` has returned."""
        scores = self.scores
        take = min(len(scores), limit * 3) if self.query is not None else 0
        if take == 0:
            return []
        best = np.argpartition(-scores, take - 1)[:take]
        best = best[np.argsort(-scores[best], kind="stable")]
        picked: dict[int, float] = {}
        for position in best.tolist():
            row = position if self.rows is None else int(self.rows[position])
            picked.setdefault(int(self.matrix.chunk_ids[row]), float(scores[position]))
            if len(picked) == limit:
                break
        return list(picked.items())


_cache: dict[Path, tuple[tuple[int, int, int], DenseMatrix | None]] = {}
_cache_lock = threading.Lock()


def open_matrix(data_dir: Path, profile_key: str) -> DenseMatrix | None:
    """The current matrix file for ``profile_key`` (mapped once per file version)."""
    path = matrix_path(data_dir, profile_key)
    try:
        info = path.stat()
    except FileNotFoundError:
        return None  # not embedded yet (or data dir cleared): search falls back to BM25
    signature = (info.st_ino, info.st_mtime_ns, info.st_size)
    with _cache_lock:
        cached = _cache.get(path)
        if cached is None or cached[0] != signature:
            cached = (signature, _load(path, profile_key))
            _cache[path] = cached
    return cached[1]


def _load(path: Path, profile_key: str) -> DenseMatrix | None:
    header = _read_header(path)
    if header is None or header["profile_key"] != profile_key or header["rows"] == 0:
        return None
    rows, dims = int(header["rows"]), int(header["dims"])
    offsets = header["offsets"]

    def mapped(name: str, dtype: Any, shape: tuple[int, ...]) -> Any:
        return np.memmap(path, dtype=dtype, mode="r", offset=offsets[name], shape=shape)

    return DenseMatrix(
        path=path,
        header=header,
        chunk_ids=mapped("chunk_ids", np.int64, (rows,)),
        file_ids=mapped("file_ids", np.int64, (rows,)),
        kind_codes=mapped("kind_codes", np.uint16, (rows,)),
        vectors=mapped("vectors", np.float32, (rows, dims)),
    )


def _aligned(value: int) -> int:
    return (value + ALIGN - 1) // ALIGN * ALIGN


def window_count(conn: sqlite3.Connection) -> int:
    """Windows with a vector (a window row exists only once its vector does): the rows a
    current matrix has."""
    return int(conn.execute("SELECT count(*) FROM chunk_windows").fetchone()[0])


@dataclass(frozen=True)
class _Layout:
    """The rows of the next matrix, in order, without their vectors."""

    chunk_ids: I64
    ordinals: I64
    file_ids: I64
    kind_codes: npt.NDArray[np.uint16]
    kinds: list[str]


def write_matrix(
    conn: sqlite3.Connection, data_dir: Path, profile_key: str, dims: int, generation: int
) -> int:
    """Write the matrix of every embedded window from one consistent read of SQLite and
    swap it in atomically. Vectors of chunks already in the current file are copied from
    it; only chunks new since then are read from SQLite. Returns the number of rows."""
    path = matrix_path(data_dir, profile_key)
    temp = path.with_name(f"{path.name}.tmp-{os.getpid()}-{threading.get_ident()}")
    previous = open_matrix(data_dir, profile_key)
    conn.execute("BEGIN")
    try:
        layout = _layout(conn)
        header = _header(profile_key, dims, generation, len(layout.chunk_ids), layout.kinds)
        _write_file(conn, temp, header, layout, previous)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    finally:
        conn.execute("COMMIT")
    os.replace(temp, path)
    remove_stale_temps(data_dir)
    return len(layout.chunk_ids)


def _layout(conn: sqlite3.Connection) -> _Layout:
    rows = conn.execute(
        "SELECT w.chunk_id, w.ordinal, c.file_id, c.kind FROM chunk_windows w"
        " JOIN chunks c ON c.id = w.chunk_id ORDER BY w.chunk_id, w.ordinal"
    ).fetchall()
    kinds = sorted({row[3] for row in rows})
    code = {kind: index for index, kind in enumerate(kinds)}
    return _Layout(
        chunk_ids=np.fromiter((r[0] for r in rows), np.int64, len(rows)),
        ordinals=np.fromiter((r[1] for r in rows), np.int64, len(rows)),
        file_ids=np.fromiter((r[2] for r in rows), np.int64, len(rows)),
        kind_codes=np.fromiter((code[r[3]] for r in rows), np.uint16, len(rows)),
        kinds=kinds,
    )


def _header(
    profile_key: str, dims: int, generation: int, rows: int, kinds: list[str]
) -> dict[str, Any]:
    header: dict[str, Any] = {
        "profile_key": profile_key, "dims": dims, "rows": rows, "dtype": "float32",
        "generation": generation, "kinds": kinds, "offsets": {},
    }  # fmt: skip
    # offsets depend on the header's own length: reserve room, then fill them in
    position = _aligned(len(MAGIC) + 8 + len(json.dumps(header)) + 256)
    for name, width in (("chunk_ids", 8), ("file_ids", 8), ("kind_codes", 2)):
        header["offsets"][name] = position
        position = _aligned(position + rows * width)
    header["offsets"]["vectors"] = position
    return header


def _write_file(
    conn: sqlite3.Connection,
    temp: Path,
    header: dict[str, Any],
    layout: _Layout,
    previous: DenseMatrix | None,
) -> None:
    rows, dims, offsets = header["rows"], header["dims"], header["offsets"]
    encoded = json.dumps(header).encode()
    with temp.open("wb") as handle:
        handle.write(MAGIC + len(encoded).to_bytes(8, "little") + encoded)
        handle.truncate(offsets["vectors"] + rows * dims * 4)
    if rows == 0:
        return

    def mapped(name: str, dtype: Any, shape: tuple[int, ...]) -> Any:
        return np.memmap(temp, dtype=dtype, mode="r+", offset=offsets[name], shape=shape)

    for name, values in (
        ("chunk_ids", layout.chunk_ids),
        ("file_ids", layout.file_ids),
        ("kind_codes", layout.kind_codes),
    ):
        array = mapped(name, values.dtype, (rows,))
        array[:] = values
        array.flush()
    vectors = mapped("vectors", np.float32, (rows, dims))
    reused = _copy_previous(layout, previous, vectors)
    _read_new(conn, header["profile_key"], layout, np.flatnonzero(~reused), vectors)
    vectors.flush()


def _copy_previous(layout: _Layout, previous: DenseMatrix | None, vectors: F32) -> Any:
    """Copy the vectors the previous file already holds (a chunk's windows never change:
    chunk ids are not reused). Returns which rows were filled."""
    reused = np.zeros(len(layout.chunk_ids), dtype=np.bool_)
    if previous is None or previous.vectors.shape[1] != vectors.shape[1]:
        return reused
    old_ids = previous.chunk_ids
    source = np.searchsorted(old_ids, layout.chunk_ids) + layout.ordinals
    inside = source < len(old_ids)
    reused[inside] = old_ids[source[inside]] == layout.chunk_ids[inside]
    for start in range(0, len(reused), COPY_ROWS):
        block = slice(start, start + COPY_ROWS)
        rows = np.flatnonzero(reused[block]) + start
        if len(rows):
            vectors[rows] = previous.vectors[source[rows]]
    return reused


def _read_new(
    conn: sqlite3.Connection, profile_key: str, layout: _Layout, rows: Any, vectors: F32
) -> None:
    """Read the vectors of rows the previous file lacked from the embedding cache."""
    wanted = np.unique(layout.chunk_ids[rows]).tolist()
    first_row: dict[int, int] = {}
    for row in rows.tolist():
        first_row.setdefault(int(layout.chunk_ids[row]), row)
    for start in range(0, len(wanted), 500):
        part = wanted[start : start + 500]
        found = conn.execute(
            "SELECT w.chunk_id, w.ordinal, e.vector FROM chunk_windows w JOIN embeddings e"
            " ON e.text_hash = w.text_hash AND e.model_key = ?"
            f" WHERE w.chunk_id IN ({','.join('?' * len(part))})",
            (profile_key, *part),
        ).fetchall()
        if found:
            targets = [first_row[chunk_id] + ordinal for chunk_id, ordinal, _ in found]
            vectors[targets] = decode_vectors([blob for _, _, blob in found], vectors.shape[1])


def matrix_is_current(data_dir: Path, profile_key: str, generation: int, rows: int) -> bool:
    """Whether the file on disk was built from this generation and row count."""
    header = _read_header(matrix_path(data_dir, profile_key))
    return (
        header is not None
        and header["profile_key"] == profile_key
        and header["generation"] == generation
        and header["rows"] == rows
    )


def _read_header(path: Path) -> dict[str, Any] | None:
    try:
        with path.open("rb") as handle:
            if handle.read(len(MAGIC)) != MAGIC:
                return None
            size = int.from_bytes(handle.read(8), "little")
            header: dict[str, Any] = json.loads(handle.read(size))
            return header
    except (FileNotFoundError, ValueError):
        return None


def remove_stale_temps(data_dir: Path, min_age: float = STALE_TEMP_SECONDS) -> list[Path]:
    """Delete half-written matrix files whose writer is gone (killed mid-write: its
    ``except`` never ran). A temp file names its writer's process and thread; one still
    alive, or a file written to within ``min_age`` seconds (a writer this host cannot
    see), is left alone. Returns the files removed."""
    removed = []
    for temp in data_dir.glob("vectors-*.f32.tmp-*"):
        writer = _TEMP_WRITER.search(temp.name)
        try:
            idle = time.time() - temp.stat().st_mtime
        except FileNotFoundError:
            continue
        if writer and idle >= min_age and not _writer_alive(*map(int, writer.groups())):
            temp.unlink(missing_ok=True)
            removed.append(temp)
    return removed


def _writer_alive(pid: int, thread: int) -> bool:
    if pid == os.getpid():
        return any(t.ident == thread for t in threading.enumerate())
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's live process
    return True


def remove_matrices(data_dir: Path, keep: str | None = None) -> None:
    """Delete matrix files of other profiles (after a profile switch)."""
    kept = matrix_path(data_dir, keep).name if keep else None
    for path in data_dir.glob("vectors-*.f32"):
        if path.name != kept:
            path.unlink(missing_ok=True)
